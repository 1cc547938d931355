package modules

// grains.go is salt/modules/grains.py: reading the minion's grains.

import (
	"fmt"
	"sort"

	"brine/internal/execmod"
	"brine/internal/match"
	"brine/internal/value"
)

func init() {
	execmod.Register("grains.get", grainsGet, "Return a grain by a:b path, default '' (grains.get key default=x delimiter=:).")
	execmod.Register("grains.item", grainsItem, "Return a mapping of the named grains.")
	execmod.Register("grains.items", grainsItems, "Return all grains.")
	execmod.Register("grains.ls", grainsLs, "Return the sorted grain names.")
	execmod.Register("grains.filter_by", grainsFilterBy, "Pick the entry of lookup_dict matching a grain (default os_family), with merge, default and base.")
}

func grainsGet(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get", args, kwargs,
		execmod.Req("key"), execmod.Opt("default", ""), execmod.Opt("delimiter", ":"), execmod.Opt("ordered", true))
	if err != nil {
		return nil, err
	}
	if r, ok := value.Traverse(ctx.Grains, execmod.String(v[0]), execmod.String(v[2])); ok {
		return r, nil
	}
	return v[1], nil
}

func grainsItem(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	def := any("")
	if d, ok := kwargs.Get("default"); ok {
		def = d
	}
	delim := ":"
	if d, ok := kwargs.Get("delimiter"); ok {
		delim = execmod.String(d)
	}
	out := value.NewMap(len(args))
	for _, a := range args {
		key := execmod.String(a)
		if r, ok := value.Traverse(ctx.Grains, key, delim); ok {
			out.Set(a, r)
		} else {
			out.Set(a, def)
		}
	}
	return out, nil
}

func grainsItems(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	return ctx.Grains, nil
}

func grainsLs(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	keys := make([]string, 0, ctx.Grains.Len())
	for _, k := range ctx.Grains.Keys() {
		keys = append(keys, value.Str(k))
	}
	sort.Strings(keys)
	l := value.NewList()
	for _, k := range keys {
		l.Append(k)
	}
	return l, nil
}

func grainsFilterBy(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("filter_by", args, kwargs,
		execmod.Req("lookup_dict"), execmod.Opt("grain", "os_family"), execmod.Opt("merge", nil),
		execmod.Opt("default", "default"), execmod.Opt("base", nil))
	if err != nil {
		return nil, err
	}
	lookup, ok := v[0].(*value.Map)
	if !ok {
		return nil, &execmod.CommandExecutionError{Msg: fmt.Sprintf("filter_by lookup_dict must be a dictionary, not %s", value.TypeName(v[0]))}
	}
	return FilterBy(lookup, execmod.String(v[1]), ctx.Grains, v[2], v[3], v[4])
}

// FilterBy is salt.utils.data.filter_by: the entry of lookupDict whose key
// (a glob) matches the value found at path lookup in traverse (each item
// when that value is a list), else the entry named def; base's entry is
// merged under the result and merge over it.
func FilterBy(lookupDict *value.Map, lookup string, traverse any, merge, def, base any) (any, error) {
	var ret any
	found := false
	val, ok := value.Traverse(traverse, lookup, ":")
	if !ok {
		val = value.NewList()
	}
	var each []any
	if l, isList := val.(*value.List); isList {
		each = l.Items
	} else {
		each = []any{val}
	}
	for _, e := range each {
		es := value.Str(e)
		for i, k := range lookupDict.Keys() {
			if match.Fnmatch(es, value.Str(k)) {
				_, ret = lookupDict.At(i)
				found = true
				break
			}
		}
		if found && ret != nil {
			break
		}
		found = false
	}
	if ret == nil {
		ret, _ = lookupDict.Get(def)
	}
	if value.Truthy(base) {
		if bv, ok := lookupDict.Get(base); ok {
			if ret == nil {
				ret = bv
			} else if bm, isMap := bv.(*value.Map); isMap {
				rm, rIsMap := ret.(*value.Map)
				if !rIsMap {
					return nil, &execmod.CommandExecutionError{Msg: "filter_by default and look-up values must both be dictionaries."}
				}
				ret = value.Update(value.DeepCopy(bm).(*value.Map), rm, false)
			}
		}
	}
	if value.Truthy(merge) {
		mm, isMap := merge.(*value.Map)
		if !isMap {
			return nil, &execmod.CommandExecutionError{Msg: "filter_by merge argument must be a dictionary."}
		}
		if ret == nil {
			ret = mm
		} else if rm, rIsMap := ret.(*value.Map); rIsMap {
			value.Update(rm, mm, false)
		}
	}
	return ret, nil
}
