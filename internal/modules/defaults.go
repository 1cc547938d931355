package modules

// defaults.go is salt/modules/defaults.py: merging and copying data in
// formulas.

import (
	"os"
	"strings"

	"brine/internal/execmod"
	"brine/internal/value"
	"brine/internal/yamlload"
)

func init() {
	execmod.Register("defaults.merge", defaultsMerge, "Deep-merge src into dest (merge_lists=False, in_place=True, convert_none=True); returns the result.")
	execmod.Register("defaults.deepcopy", defaultsDeepcopy, "Return a deep copy of source.")
	execmod.Register("defaults.get", defaultsGet, "Return key (namespace:a:b) from salt://<namespace>/defaults.yaml (or .json); the whole file without a key.")
	execmod.Register("defaults.update", defaultsUpdate, "Merge defaults under every entry of dest (merge_lists=True, in_place=True, convert_none=True).")
}

// defaultsAsMap checks an argument of a merge: Salt's dictupdate.update
// raises a TypeError for anything but a mapping, which salt-call reports
// as invalid arguments.
func defaultsAsMap(v any) (*value.Map, error) {
	m, ok := v.(*value.Map)
	if !ok {
		return nil, &execmod.TypeError{Msg: "Cannot update using non-dict types in dictupdate.update()"}
	}
	return m, nil
}

// defaultsNodes is update's dest, whose items Salt iterates (an
// AttributeError for anything but a mapping).
func defaultsNodes(v any) (*value.Map, error) {
	m, ok := v.(*value.Map)
	if !ok {
		return nil, execmod.Errorf("'%s' object has no attribute 'items'", value.TypeName(v))
	}
	return m, nil
}

func defaultsMerge(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("merge", args, kwargs, execmod.Req("dest"), execmod.Req("src"),
		execmod.Opt("merge_lists", false), execmod.Opt("in_place", true), execmod.Opt("convert_none", true))
	if err != nil {
		return nil, err
	}
	return defaultsMergeInto(v[0], v[1], value.Truthy(v[2]), value.Truthy(v[3]), value.Truthy(v[4]))
}

func defaultsMergeInto(dest, src any, mergeLists, inPlace, convertNone bool) (any, error) {
	if src == nil && convertNone {
		src = value.NewMap(0)
	}
	if dest == nil && convertNone {
		if inPlace {
			return nil, &execmod.TypeError{Msg: "Can't perform in-place merge into NoneType"}
		}
		dest = value.NewMap(0)
	}
	d, err := defaultsAsMap(dest)
	if err != nil {
		return nil, err
	}
	s, err := defaultsAsMap(src)
	if err != nil {
		return nil, err
	}
	if !inPlace {
		d = value.DeepCopy(d).(*value.Map)
	}
	return value.Update(d, s, mergeLists), nil
}

func defaultsDeepcopy(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("deepcopy", args, kwargs, execmod.Req("source"))
	if err != nil {
		return nil, err
	}
	return value.DeepCopy(v[0]), nil
}

func defaultsUpdate(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("update", args, kwargs, execmod.Req("dest"), execmod.Req("defaults"),
		execmod.Opt("merge_lists", true), execmod.Opt("in_place", true), execmod.Opt("convert_none", true))
	if err != nil {
		return nil, err
	}
	dest, defs := v[0], v[1]
	mergeLists, inPlace, convertNone := value.Truthy(v[2]), value.Truthy(v[3]), value.Truthy(v[4])
	var nodes *value.Map
	if inPlace {
		if dest == nil {
			return nil, &execmod.TypeError{Msg: "Can't perform in-place update into NoneType"}
		}
		if nodes, err = defaultsNodes(dest); err != nil {
			return nil, err
		}
	} else {
		if dest == nil && convertNone {
			dest = value.NewMap(0)
		}
		d, err := defaultsNodes(dest)
		if err != nil {
			return nil, err
		}
		nodes = value.DeepCopy(d).(*value.Map)
	}
	if defs == nil && convertNone {
		defs = value.NewMap(0)
	}
	for i, k := range nodes.Keys() {
		_ = k
		_, nodeVars := nodes.At(i)
		merged, err := defaultsMergeInto(value.DeepCopy(defs), nodeVars, mergeLists, true, convertNone)
		if err != nil {
			return nil, err
		}
		nodes.SetAt(i, merged)
	}
	return nodes, nil
}

// defaultsLoad is Salt's _load: the first of salt://<formula>/defaults.yaml
// and defaults.json the file server has, loaded ({} when empty), or nil.
func defaultsLoad(ctx *execmod.Context, formula string) (any, error) {
	for _, ext := range []string{"yaml", "json"} {
		p, err := ctx.Call("cp.cache_file", []any{"salt://" + formula + "/defaults." + ext}, nil)
		if err != nil {
			return nil, err
		}
		if !value.Truthy(p) {
			continue
		}
		data, err := os.ReadFile(execmod.String(p))
		if err != nil {
			continue
		}
		var v any
		if ext == "yaml" {
			v, err = yamlload.SafeLoad(data, execmod.String(p))
		} else {
			v, err = value.FromJSON(data)
		}
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		if !value.Truthy(v) {
			return value.NewMap(0), nil
		}
		return v, nil
	}
	return nil, nil
}

func defaultsGet(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get", args, kwargs, execmod.Req("key"), execmod.Opt("default", ""))
	if err != nil {
		return nil, err
	}
	namespace, key, _ := strings.Cut(value.Str(v[0]), ":")
	defaults, err := defaultsLoad(ctx, namespace)
	if err != nil {
		return nil, err
	}
	if key == "" {
		return defaults, nil
	}
	if r, ok := value.Traverse(defaults, key, ":"); ok {
		return r, nil
	}
	return v[1], nil
}
