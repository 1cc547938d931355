package modules

// pillar_ext.go is pillar.ext of salt/modules/pillar.py: compile a fresh
// pillar with one more ext_pillar entry, allowed only when every key of it
// is in the on_demand_ext_pillar option. brine has no ext_pillar modules,
// so an allowed entry is reported unavailable, as Salt reports an
// ext_pillar interface it cannot load, and the pillar is compiled without
// it.

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"brine/internal/execmod"
	"brine/internal/value"
	"brine/internal/yamlload"
)

func init() {
	execmod.Register("pillar.ext", pillarExt,
		"Compile a fresh pillar with the external pillar entry external (a {module: config} mapping, allowed by on_demand_ext_pillar); pillar overrides.")
}

func pillarExt(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("ext", args, kwargs, execmod.Req("external"), execmod.Opt("pillar", nil))
	if err != nil {
		return nil, err
	}
	external := v[0]
	if s, ok := external.(string); ok {
		if external, err = yamlload.SafeLoad([]byte(s), "<string>"); err != nil {
			return nil, execmod.Errorf("%s", err)
		}
	}
	svc, err := pillarService(ctx)
	if err != nil {
		return nil, err
	}
	opts := value.NewMap(0)
	if ctx.Opts != nil {
		opts = ctx.Opts.Copy()
	}
	if ext, ok := onDemandExtPillar(opts, external); ok {
		l, _ := opts.Get("ext_pillar")
		runs, isList := l.(*value.List)
		if !isList {
			runs = value.NewList()
		} else {
			runs = value.NewList(runs.Items...)
		}
		runs.Append(ext)
		opts.Set("ext_pillar", runs)
		// Salt skips an entry whose first key is excluded.
		if keys := ext.Keys(); len(keys) > 0 && !containsStr(optStrings(opts, "exclude_ext_pillar"), value.Str(keys[0])) {
			for _, k := range keys {
				slog.Log(context.Background(), logLevelCritical, fmt.Sprintf("Specified ext_pillar interface %s is unavailable", value.Str(k)))
			}
		}
	}
	override, isMap := v[1].(*value.Map)
	if !isMap && value.Truthy(v[1]) {
		slog.Error("Pillar data must be a dictionary")
	}
	return svc.Compile(opts, ctx.Grains, pillarOptStr(opts, "id"), pillarOptStr(opts, "saltenv"), pillarOptStr(opts, "pillarenv"), override, ctx.Pillar)
}

// onDemandExtPillar returns external when it is a mapping whose keys are
// all in on_demand_ext_pillar, logging Salt's error otherwise.
func onDemandExtPillar(opts *value.Map, external any) (*value.Map, bool) {
	ext, ok := external.(*value.Map)
	if !ok {
		slog.Error(fmt.Sprintf("On-demand pillar %s is not formatted as a dictionary", value.Str(external)))
		return nil, false
	}
	od, _ := opts.Get("on_demand_ext_pillar")
	var allowed []string
	in := func(s string) bool { return containsStr(allowed, s) }
	switch l := od.(type) {
	case *value.List:
		for _, x := range l.Items {
			allowed = append(allowed, value.Str(x))
		}
	case string:
		// Python's "in" of a string is a substring test.
		in = func(s string) bool { return strings.Contains(l, s) }
		for _, r := range l {
			allowed = append(allowed, string(r))
		}
	case *value.Map:
		for _, k := range l.Keys() {
			allowed = append(allowed, value.Str(k))
		}
	default:
		slog.Error("The 'on_demand_ext_pillar' configuration option is malformed, it should be a list of ext_pillar module names")
		return nil, false
	}
	var invalid []string
	for _, k := range ext.Keys() {
		if s := value.Str(k); !in(s) && !containsStr(invalid, s) {
			invalid = append(invalid, s)
		}
	}
	if len(invalid) > 0 {
		sort.Strings(invalid)
		slog.Error(fmt.Sprintf("The following ext_pillar modules are not allowed for on-demand pillar data: %s. "+
			"Valid on-demand ext_pillar modules are: %s. The valid modules can be adjusted by setting the 'on_demand_ext_pillar' config option.",
			strings.Join(invalid, ", "), strings.Join(allowed, ", ")))
		return nil, false
	}
	return ext, true
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
