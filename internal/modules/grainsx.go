package modules

// grainsx.go completes salt/modules/grains.py beside grains.go: the
// functions that change grains and persist them to the grains file next to
// the minion config (internal/grains.SetVals), and a few readers.

import (
	"fmt"
	"strings"

	"brine/internal/execmod"
	"brine/internal/grains"
	"brine/internal/value"
)

func init() {
	execmod.Register("grains.setval", grainsSetval, "Set grain key to val and persist it in the grains file (destructive=False).")
	execmod.Register("grains.setvals", grainsSetvals, "Set the grains of a mapping and persist them in the grains file (destructive=False).")
	execmod.Register("grains.append", grainsAppend, "Append val to the list grain key, creating it (convert=False delimiter=:).")
	execmod.Register("grains.remove", grainsRemove, "Remove val from the list grain key (delimiter=:).")
	execmod.Register("grains.set", grainsSet, "Set a possibly nested grain key to val (force=False destructive=False delimiter=:).")
	execmod.Register("grains.delval", grainsDelval, "Set grain key to None (destructive=True deletes it) (force=False).")
	execmod.Register("grains.delkey", grainsDelkey, "Delete grain key from the grains file (force=False).")
	execmod.Register("grains.has_value", grainsHasValue, "True when the grain key (a:b path) exists.")
	execmod.Register("grains.equals", grainsEquals, "True when str(grain key) equals str(value).")
	execmod.Register("grains.fetch", func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		return ctx.Call("grains.get", args, kwargs)
	}, "Alias of grains.get.")
}

// grainsPersist persists vals and returns them, or Salt's message string.
func grainsPersist(ctx *execmod.Context, vals *value.Map, destructive bool) (any, error) {
	if err := grains.SetVals(ctx.Opts, ctx.Grains, vals, destructive); err != nil {
		if strings.HasPrefix(err.Error(), "Unable to read existing grains file") {
			return err.Error(), nil
		}
		return nil, execmod.Errorf("%s", err)
	}
	return vals, nil
}

func grainsSetvals(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("setvals", args, kwargs, execmod.Req("grains"), execmod.Opt("destructive", false), execmod.Opt("refresh_pillar", true))
	if err != nil {
		return nil, err
	}
	m, ok := v[0].(*value.Map)
	if !ok {
		return nil, execmod.Errorf("setvals grains must be a dictionary.")
	}
	return grainsPersist(ctx, m, value.Truthy(v[1]))
}

func grainsSetval(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("setval", args, kwargs, execmod.Req("key"), execmod.Req("val"), execmod.Opt("destructive", false), execmod.Opt("refresh_pillar", true))
	if err != nil {
		return nil, err
	}
	return grainsPersist(ctx, value.MapOf(v[0], v[1]), value.Truthy(v[2]))
}

// grainsAt returns a deep copy of the grain at key, or def.
func grainsAt(ctx *execmod.Context, key, delim string, def any) any {
	if r, ok := value.Traverse(ctx.Grains, key, delim); ok {
		return value.DeepCopy(r)
	}
	return def
}

func grainsListHas(l *value.List, x any) bool {
	for _, it := range l.Items {
		if value.Equal(it, x) {
			return true
		}
	}
	return false
}

// grainsNest rebuilds the parents of a nested key around val, as Salt's append
// and remove do, returning the top-level key and its new value.
func grainsNest(ctx *execmod.Context, key, delim string, val any, create bool) (string, any) {
	for strings.Contains(key, delim) {
		i := strings.LastIndex(key, delim)
		parent, rest := key[:i], key[i+len(delim):]
		var def any
		if create {
			def = value.NewMap(0)
		}
		g := grainsAt(ctx, parent, delim, def)
		if m, ok := g.(*value.Map); ok {
			m.Set(rest, val)
		}
		key, val = parent, g
	}
	return key, val
}

func grainsAppend(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("append", args, kwargs, execmod.Req("key"), execmod.Req("val"), execmod.Opt("convert", false), execmod.Opt("delimiter", ":"))
	if err != nil {
		return nil, err
	}
	key, val, delim := execmod.String(v[0]), v[1], execmod.String(v[3])
	g := grainsAt(ctx, key, delim, value.NewList())
	if value.Truthy(v[2]) {
		if _, ok := g.(*value.List); !ok {
			if g == nil {
				g = value.NewList()
			} else {
				g = value.NewList(g)
			}
		}
	}
	l, ok := g.(*value.List)
	if !ok {
		return fmt.Sprintf("The key %s is not a valid list", key), nil
	}
	if grainsListHas(l, val) {
		return fmt.Sprintf("The val %s was already in the list %s", value.Str(val), key), nil
	}
	if vl, ok := val.(*value.List); ok {
		l.Append(vl.Items...)
	} else {
		l.Append(val)
	}
	top, tv := grainsNest(ctx, key, delim, l, true)
	return grainsPersist(ctx, value.MapOf(top, tv), false)
}

func grainsRemove(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("remove", args, kwargs, execmod.Req("key"), execmod.Req("val"), execmod.Opt("delimiter", ":"))
	if err != nil {
		return nil, err
	}
	key, val, delim := execmod.String(v[0]), v[1], execmod.String(v[2])
	l, ok := grainsAt(ctx, key, delim, value.NewList()).(*value.List)
	if !ok {
		return fmt.Sprintf("The key %s is not a valid list", key), nil
	}
	if !grainsListHas(l, val) {
		return fmt.Sprintf("The val %s was not in the list %s", value.Str(val), key), nil
	}
	for i, it := range l.Items {
		if value.Equal(it, val) {
			l.Items = append(l.Items[:i], l.Items[i+1:]...)
			break
		}
	}
	top, tv := grainsNest(ctx, key, delim, l, false)
	return grainsPersist(ctx, value.MapOf(top, tv), false)
}

func grainsIsComplex(v any) bool {
	switch v.(type) {
	case *value.Map, *value.List:
		return true
	}
	return false
}

// grainsSetNested is Salt's grains.set.
func grainsSetNested(ctx *execmod.Context, key string, val any, force, destructive bool, delim string) (*value.Map, error) {
	ret := value.MapOf("comment", "", "changes", value.NewMap(0), "result", true)
	existing, exists := value.Traverse(ctx.Grains, key, delim)
	if exists {
		existing = value.DeepCopy(existing)
	}
	if exists && value.Equal(existing, val) && (val != nil || !destructive) {
		ret.Set("comment", "Grain is already set")
		return ret, nil
	}
	newVal := val
	if exists && existing != nil && !force {
		if grainsIsComplex(existing) {
			ret.Set("comment", fmt.Sprintf("The key '%s' exists but is a dict or a list. Use 'force=True' to overwrite.", key))
			ret.Set("result", false)
			return ret, nil
		}
		if grainsIsComplex(val) {
			ret.Set("comment", fmt.Sprintf("The key '%s' exists and the given value is a dict or a list. Use 'force=True' to overwrite.", key))
			ret.Set("result", false)
			return ret, nil
		}
	}
	for strings.Contains(key, delim) {
		i := strings.LastIndex(key, delim)
		parent, rest := key[:i], key[i+len(delim):]
		cur := grainsAt(ctx, parent, delim, value.NewMap(0))
		switch c := cur.(type) {
		case *value.Map:
			if newVal == nil && destructive {
				c.Delete(rest)
			} else {
				c.Set(rest, newVal)
			}
		case *value.List:
			updated := false
			for idx, it := range c.Items {
				if value.Equal(it, rest) {
					c.Items[idx] = value.MapOf(rest, newVal)
					updated = true
				} else if m, ok := it.(*value.Map); ok && m.Has(rest) {
					m.Set(rest, newVal)
					updated = true
				}
			}
			if !updated {
				c.Append(value.MapOf(rest, newVal))
			}
		default:
			if value.Equal(cur, rest) || force {
				cur = value.MapOf(rest, newVal)
			} else {
				ret.Set("comment", fmt.Sprintf("The key '%s' value is '%s', which is different from the provided key '%s'. Use 'force=True' to overwrite.", parent, value.Str(cur), rest))
				ret.Set("result", false)
				return ret, nil
			}
		}
		key, newVal = parent, cur
	}
	r, err := grainsPersist(ctx, value.MapOf(key, newVal), destructive)
	if err != nil {
		return nil, err
	}
	if m, ok := r.(*value.Map); ok {
		ret.Set("changes", m)
	} else {
		ret.Set("comment", r)
		ret.Set("result", false)
	}
	return ret, nil
}

func grainsSet(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set", args, kwargs, execmod.Req("key"), execmod.Opt("val", ""), execmod.Opt("force", false),
		execmod.Opt("destructive", false), execmod.Opt("delimiter", ":"))
	if err != nil {
		return nil, err
	}
	return grainsSetNested(ctx, execmod.String(v[0]), v[1], value.Truthy(v[2]), value.Truthy(v[3]), execmod.String(v[4]))
}

func grainsDelval(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("delval", args, kwargs, execmod.Req("key"), execmod.Opt("destructive", false), execmod.Opt("force", false))
	if err != nil {
		return nil, err
	}
	return grainsSetNested(ctx, execmod.String(v[0]), nil, value.Truthy(v[2]), value.Truthy(v[1]), ":")
}

func grainsDelkey(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("delkey", args, kwargs, execmod.Req("key"), execmod.Opt("force", false))
	if err != nil {
		return nil, err
	}
	return grainsSetNested(ctx, execmod.String(v[0]), nil, value.Truthy(v[1]), true, ":")
}

func grainsHasValue(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("has_value", args, kwargs, execmod.Req("key"))
	if err != nil {
		return nil, err
	}
	_, ok := value.Traverse(ctx.Grains, execmod.String(v[0]), ":")
	return ok, nil
}

func grainsEquals(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("equals", args, kwargs, execmod.Req("key"), execmod.Req("value"))
	if err != nil {
		return nil, err
	}
	got, ok := value.Traverse(ctx.Grains, execmod.String(v[0]), ":")
	if !ok {
		got = ""
	}
	return value.Str(v[1]) == value.Str(got), nil
}
