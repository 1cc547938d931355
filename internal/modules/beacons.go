package modules

// beacons.go is salt/modules/beacons.py: managing the minion's beacons.
// Salt's functions send manage_beacons events to the minion daemon and
// wait for its answer; brine's change the beacons the daemon runs
// through internal/beacons' Store (files under cachedir/beacons, under
// lock), which the daemon reads at every loop. Without a running minion
// daemon nothing answers, and the functions return what Salt's return
// when their event goes unanswered.

import (
	"fmt"
	"os"
	"strings"

	"brine/internal/beacons"
	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/value"
	"brine/internal/yamlload"
)

func init() {
	for _, f := range []struct {
		name string
		fn   execmod.Func
		doc  string
	}{
		{"beacons.list", beaconsList, "List the beacons the minion runs as YAML: beacons.list [return_yaml=True] [include_pillar=True] [include_opts=True]."},
		{"beacons.list_available", beaconsListAvailable, "List the beacon modules the minion has: beacons.list_available [return_yaml=True]."},
		{"beacons.add", beaconsAdd, "Add a beacon: beacons.add NAME BEACON_DATA (a list of mappings, e.g. \"[{'processes': {'cron': 'running'}}]\") [test=True]."},
		{"beacons.modify", beaconsModify, "Change a beacon's configuration: beacons.modify NAME BEACON_DATA [test=True]."},
		{"beacons.delete", beaconsDelete, "Delete a beacon: beacons.delete NAME [test=True]."},
		{"beacons.save", beaconsSave, "Save the beacons (not the pillar's) to <config dir>/minion.d/beacons.conf."},
		{"beacons.enable", beaconsEnable, "Enable the beacons: beacons.enable [test=True]."},
		{"beacons.disable", beaconsDisable, "Disable the beacons: beacons.disable [test=True]."},
		{"beacons.enable_beacon", beaconsEnableBeacon, "Enable one beacon: beacons.enable_beacon NAME [test=True]."},
		{"beacons.disable_beacon", beaconsDisableBeacon, "Disable one beacon: beacons.disable_beacon NAME [test=True]."},
		{"beacons.reset", beaconsReset, "Reset the beacons to none: beacons.reset [test=True]."},
	} {
		execmod.Register(f.name, f.fn, f.doc)
	}
}

func beaconStore(ctx *execmod.Context) beacons.Store { return beacons.Store{Opts: ctx.Opts} }

// pillarBeacons are the pillar's beacons; ok is false when the pillar's
// beacons are not a mapping (Salt's daemon fails, and does not answer).
func pillarBeacons(ctx *execmod.Context) (*value.Map, bool) {
	if ctx.Pillar == nil {
		return value.NewMap(0), true
	}
	v, has := ctx.Pillar.Get("beacons")
	if !has {
		return value.NewMap(0), true
	}
	m, ok := v.(*value.Map)
	return m, ok
}

// daemonBeacons is the daemon's answer to list: the pillar's beacons
// under the options' ones; nil when no daemon answers.
func daemonBeacons(ctx *execmod.Context, includePillar, includeOpts bool) *value.Map {
	st := beaconStore(ctx)
	if !st.DaemonRunning() {
		return nil
	}
	out := value.NewMap(0)
	if includePillar {
		p, ok := pillarBeacons(ctx)
		if !ok {
			return nil
		}
		out.Update(p)
	}
	if includeOpts {
		cur, err := st.Current()
		if err != nil {
			return nil
		}
		out.Update(cur)
	}
	return out
}

func beaconsYAML(v any) (any, error) {
	return yamlload.Dump(value.MapOf("beacons", v), yamlload.DumpOptions{AllowUnicode: true, SortKeys: true, DefaultFlowStyle: yamlload.FlowStyle(false)})
}

func bcRet(comment any, result bool) *value.Map {
	return value.MapOf("comment", comment, "result", result)
}

// noneIterable is the TypeError of `name in None`: Salt's functions test
// a name against list's answer, None without a daemon.
var noneIterable = &execmod.TypeError{Msg: "argument of type 'NoneType' is not iterable"}

func beaconsList(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list", args, kwargs, execmod.Opt("return_yaml", true), execmod.Opt("include_pillar", true), execmod.Opt("include_opts", true))
	if err != nil {
		return nil, err
	}
	var b any
	if m := daemonBeacons(ctx, value.Truthy(v[1]), value.Truthy(v[2])); m != nil {
		b = m
	}
	if value.Truthy(v[0]) {
		return beaconsYAML(b)
	}
	return b, nil
}

func beaconsListAvailable(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_available", args, kwargs, execmod.Opt("return_yaml", true))
	if err != nil {
		return nil, err
	}
	if !beaconStore(ctx).DaemonRunning() {
		return value.MapOf("beacons", value.NewMap(0)), nil
	}
	l := value.NewList()
	for _, n := range beacons.Available() {
		l.Append(n)
	}
	if value.Truthy(v[0]) {
		return beaconsYAML(l)
	}
	return l, nil
}

func testKw(rest *value.Map) bool { return value.Truthy(kw(rest, "test", nil)) }

// beaconModule is the module beacon_data names (its beacon_module), else
// name.
func beaconModule(name string, data any) (string, error) {
	switch d := data.(type) {
	case *value.List:
		for _, it := range d.Items {
			if m, ok := it.(*value.Map); ok {
				if bm, ok := m.Get("beacon_module"); ok {
					return value.Str(bm), nil
				}
			}
		}
	case *value.Map:
		for _, k := range d.Keys() {
			if strings.Contains(value.Str(k), "beacon_module") {
				return "", &execmod.TypeError{Msg: "string indices must be integers"}
			}
		}
	}
	return name, nil
}

// validateBeacon is the daemon's validate_beacon; a configuration that
// is not a non-empty list makes Salt's daemon fail without answering.
func validateBeacon(name string, data any) (bool, string, error) {
	if l, ok := data.(*value.List); !ok || len(l.Items) == 0 {
		return false, "", &execmod.TypeError{Msg: "'NoneType' object is not subscriptable"}
	}
	valid, comment := beacons.Validate(name, data)
	return valid, comment, nil
}

func beaconsAdd(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("add", args, kwargs, execmod.Req("name"), execmod.Req("beacon_data"))
	if err != nil {
		return nil, err
	}
	name, data := execmod.String(v[0]), v[1]
	ret := bcRet(fmt.Sprintf("Failed to add beacon %s.", name), false)
	cur := daemonBeacons(ctx, true, true)
	if cur == nil {
		return nil, noneIterable
	}
	if cur.Has(name) {
		return bcRet(fmt.Sprintf("Beacon %s is already configured.", name), true), nil
	}
	mod, err := beaconModule(name, data)
	if err != nil {
		return nil, err
	}
	available := false
	for _, n := range beacons.Available() {
		available = available || n == mod
	}
	if !available {
		ret.Set("comment", fmt.Sprintf("Beacon \"%s\" is not available.", mod))
		return ret, nil
	}
	if testKw(rest) {
		return bcRet(fmt.Sprintf("Beacon: %s would be added.", name), true), nil
	}
	valid, vcomment, err := validateBeacon(name, data)
	if err != nil {
		return nil, err
	}
	if !valid {
		return bcRet(fmt.Sprintf("Beacon %s configuration invalid, not adding.\n%s", name, vcomment), false), nil
	}
	if p, _ := pillarBeacons(ctx); p != nil && p.Has(name) {
		return bcRet(fmt.Sprintf("Cannot update beacon item %s, because it is configured in pillar.", name), false), nil
	}
	after, err := beaconStore(ctx).Update(func(b *value.Map) { b.Set(name, value.DeepCopy(data)) })
	if err != nil {
		return nil, err
	}
	if got, ok := after.Get(name); ok && holdsAll(got, data) {
		return bcRet(fmt.Sprintf("Added beacon: %s.", name), true), nil
	}
	return ret, nil
}

// holdsAll is Python's all(item in got for item in data).
func holdsAll(got, data any) bool {
	var items []any
	switch d := data.(type) {
	case *value.List:
		items = d.Items
	case *value.Map:
		items = d.Keys()
	}
	for _, it := range items {
		found := false
		switch g := got.(type) {
		case *value.List:
			for _, x := range g.Items {
				found = found || value.Equal(x, it)
			}
		case *value.Map:
			found = g.Has(it)
		}
		if !found {
			return false
		}
	}
	return true
}

// itemLines are Salt's "key:value" lines of a list configuration, for
// modify's diff.
func itemLines(cfg any) ([]string, error) {
	var out []string
	l, ok := cfg.(*value.List)
	if !ok {
		if _, isMap := cfg.(*value.Map); isMap {
			return nil, &execmod.TypeError{Msg: "'str' object has no attribute 'items'"}
		}
		return nil, nil
	}
	for _, it := range l.Items {
		m, ok := it.(*value.Map)
		if !ok {
			return nil, &execmod.TypeError{Msg: fmt.Sprintf("'%s' object has no attribute 'items'", pyTypeName(it))}
		}
		m.Range(func(k, v any) bool {
			out = append(out, value.Str(k)+":"+value.Str(v)+"\n")
			return true
		})
	}
	return out, nil
}

func pyTypeName(v any) string {
	switch v.(type) {
	case string:
		return "str"
	case int64, int:
		return "int"
	case float64:
		return "float"
	case bool:
		return "bool"
	case *value.List:
		return "list"
	case nil:
		return "NoneType"
	}
	return "object"
}

func beaconsModify(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("modify", args, kwargs, execmod.Req("name"), execmod.Req("beacon_data"))
	if err != nil {
		return nil, err
	}
	name, data := execmod.String(v[0]), v[1]
	cur := daemonBeacons(ctx, true, true)
	if cur == nil {
		return nil, noneIterable
	}
	if !cur.Has(name) {
		return bcRet(fmt.Sprintf("Beacon %s is not configured.", name), true), nil
	}
	if testKw(rest) {
		return bcRet(fmt.Sprintf("Beacon: %s would be modified.", name), true), nil
	}
	valid, vcomment, err := validateBeacon(name, data)
	if err != nil {
		return nil, err
	}
	if !valid {
		return bcRet(fmt.Sprintf("Beacon %s configuration invalid, not modifying.\n%s", name, vcomment), false), nil
	}
	current, _ := cur.Get(name)
	if value.Equal(current, data) {
		return bcRet(fmt.Sprintf("Job %s in correct state", name), true), nil
	}
	oldLines, err := itemLines(current)
	if err != nil {
		return nil, err
	}
	newLines, err := itemLines(data)
	if err != nil {
		return nil, err
	}
	ret := bcRet("", true)
	ret.Set("changes", value.MapOf("diff", fileops.UnifiedDiff(oldLines, newLines, "", "")))
	if p, _ := pillarBeacons(ctx); p != nil && p.Has(name) {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Cannot modify beacon item %s, it is configured in pillar.", name))
		return ret, nil
	}
	after, err := beaconStore(ctx).Update(func(b *value.Map) { b.Set(name, value.DeepCopy(data)) })
	if err != nil {
		return nil, err
	}
	if got, ok := after.Get(name); ok && value.Equal(got, data) {
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("Modified beacon: %s.", name))
	}
	return ret, nil
}

func beaconsDelete(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("delete", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	name := execmod.String(v[0])
	if testKw(rest) {
		return bcRet(fmt.Sprintf("Beacon: %s would be deleted.", name), true), nil
	}
	ret := bcRet(fmt.Sprintf("Failed to delete beacon %s.", name), false)
	st := beaconStore(ctx)
	if !st.DaemonRunning() {
		return ret, nil
	}
	if p, _ := pillarBeacons(ctx); p != nil && p.Has(name) {
		return bcRet(fmt.Sprintf("Cannot delete beacon item %s, it is configured in pillar.", name), false), nil
	}
	after, err := st.Update(func(b *value.Map) { b.Delete(name) })
	if err != nil {
		return nil, err
	}
	if !after.Has(name) {
		return bcRet(fmt.Sprintf("Deleted beacon: %s.", name), true), nil
	}
	return ret, nil
}

func beaconsSave(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("save", args, kwargs); err != nil {
		return nil, err
	}
	b := daemonBeacons(ctx, false, true)
	sfn := beaconStore(ctx).ConfFile()
	text := ""
	if b != nil && b.Len() > 0 {
		y, err := beaconsYAML(b)
		if err != nil {
			return nil, err
		}
		text = value.Str(y)
	}
	if err := os.WriteFile(sfn, []byte(text), 0o644); err != nil {
		return bcRet(fmt.Sprintf("Unable to write to beacons file at %s. Check permissions.", sfn), false), nil
	}
	return bcRet(fmt.Sprintf("Beacons saved to %s.", sfn), true), nil
}

// setAll enables or disables the beacons (enable, disable).
func setAll(ctx *execmod.Context, args []any, kwargs *value.Map, fun string, on bool) (any, error) {
	_, rest, err := execmod.Bind(fun, args, kwargs)
	if err != nil {
		return nil, err
	}
	verb := map[bool]string{true: "enabled", false: "disabled"}[on]
	if testKw(rest) {
		return bcRet("Beacons would be "+verb+".", true), nil
	}
	st := beaconStore(ctx)
	if !st.DaemonRunning() {
		return bcRet(value.NewList(), true), nil
	}
	after, err := st.Update(func(b *value.Map) { b.Set("enabled", on) })
	if err != nil {
		return nil, err
	}
	if en, ok := after.Get("enabled"); ok && value.Truthy(en) == on {
		return bcRet(fmt.Sprintf("%s beacons on minion.", map[bool]string{true: "Enabled", false: "Disabled"}[on]), true), nil
	}
	return bcRet(fmt.Sprintf("Failed to %s beacons on minion.", fun), false), nil
}

func beaconsEnable(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return setAll(ctx, args, kwargs, "enable", true)
}

func beaconsDisable(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return setAll(ctx, args, kwargs, "disable", false)
}

// setOne enables or disables one beacon (enable_beacon, disable_beacon).
func setOne(ctx *execmod.Context, args []any, kwargs *value.Map, fun string, on bool) (any, error) {
	v, rest, err := execmod.Bind(fun, args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	if !value.Truthy(v[0]) {
		return bcRet("Beacon name is required.", false), nil
	}
	name := execmod.String(v[0])
	if testKw(rest) {
		if on {
			return bcRet(fmt.Sprintf("Beacon %s would be enabled.", name), true), nil
		}
		return bcRet("Beacons would be disabled.", true), nil
	}
	cur := daemonBeacons(ctx, true, true)
	if cur == nil {
		return nil, noneIterable
	}
	if !cur.Has(name) {
		return bcRet(fmt.Sprintf("Beacon %s is not currently configured.", name), false), nil
	}
	verb := map[bool]string{true: "enable", false: "disable"}[on]
	if p, _ := pillarBeacons(ctx); p != nil && p.Has(name) {
		return bcRet(fmt.Sprintf("Cannot %s beacon item %s, it is configured in pillar.", verb, name), false), nil
	}
	after, err := beaconStore(ctx).Update(func(b *value.Map) { beacons.SetEnabled(b, name, on) })
	if err != nil {
		return nil, err
	}
	cfg, _ := after.Get(name)
	if en, ok := beacons.ListToDict(cfg).Get("enabled"); ok && value.Truthy(en) == on {
		if on {
			return bcRet(fmt.Sprintf("Enabled beacon %s on minion.", name), true), nil
		}
		return bcRet(fmt.Sprintf("Disabled beacon %s on minion.", name), true), nil
	}
	if on {
		return bcRet(fmt.Sprintf("Failed to enable beacon %s on minion.", name), false), nil
	}
	return bcRet("Failed to disable beacon on minion.", false), nil
}

func beaconsEnableBeacon(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return setOne(ctx, args, kwargs, "enable_beacon", true)
}

func beaconsDisableBeacon(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return setOne(ctx, args, kwargs, "disable_beacon", false)
}

func beaconsReset(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	_, rest, err := execmod.Bind("reset", args, kwargs)
	if err != nil {
		return nil, err
	}
	if testKw(rest) {
		return bcRet("Beacons would be reset.", true), nil
	}
	st := beaconStore(ctx)
	if !st.DaemonRunning() {
		return bcRet(value.NewList(), true), nil
	}
	if _, err := st.Update(func(b *value.Map) { b.Clear() }); err != nil {
		return nil, err
	}
	return bcRet("Beacon configuration reset.", true), nil
}
