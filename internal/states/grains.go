package states

// grains.go is salt/states/grains.py: grains kept in the minion's grains
// file, through the grains execution functions (grains.set, grains.append,
// grains.remove, grains.setval).

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	reg := func(name string, run statemod.Func, doc string, params ...statemod.Param) {
		statemod.Register(&statemod.Function{Name: "grains." + name, Run: run, Doc: doc,
			Params: append([]statemod.Param{statemod.Req("name")}, params...)})
	}
	reg("exists", grainsExists, "Ensure that a grain is set.", p("delimiter", ":"))
	reg("present", grainsPresent, "Ensure that a grain is set to the given value.",
		statemod.Req("value"), p("delimiter", ":"), p("force", false))
	reg("list_present", grainsListPresent, "Ensure the value is present in the list-type grain.",
		statemod.Req("value"), p("delimiter", ":"))
	reg("list_absent", grainsListAbsent, "Delete a value from a list-type grain.",
		statemod.Req("value"), p("delimiter", ":"))
	reg("absent", grainsAbsent, "Delete a grain (set it to None, or remove the key with destructive=True).",
		p("destructive", false), p("delimiter", ":"), p("force", false))
	reg("append", grainsAppendState, "Append a value to a list in the grains config file.",
		statemod.Req("value"), p("convert", false), p("delimiter", ":"))
}

// grainMissing is the sentinel default the states pass to grains.get.
type grainMissing struct{}

var noGrain = &grainMissing{}

// grainName is re.sub(delimiter, ":", name).
func grainName(c *statemod.Call) (string, error) {
	name := c.Str("name")
	delim := c.Str("delimiter")
	if delim == ":" || delim == "" {
		return name, nil
	}
	re, err := regexp.Compile(delim)
	if err != nil {
		return "", err
	}
	return re.ReplaceAllLiteralString(name, ":"), nil
}

func grainGet(c *statemod.Call, name string, def any) (any, error) {
	return c.Salt("grains.get", []any{name, def}, value.NewMap(0))
}

func grainsExists(c *statemod.Call) (*value.Map, error) {
	name, err := grainName(c)
	if err != nil {
		return nil, err
	}
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "Grain exists")
	g, err := grainGet(c, name, noGrain)
	if err != nil {
		return nil, err
	}
	if g == noGrain {
		ret.Set("result", false)
		ret.Set("comment", "Grain does not exist")
	}
	return ret, nil
}

// grainsSetRet calls grains.set and returns its dict.
func grainsSetRet(c *statemod.Call, name string, val any, kw ...any) (*value.Map, error) {
	out, err := c.Salt("grains.set", []any{name, val}, value.MapOf(kw...))
	if err != nil {
		return nil, err
	}
	m, ok := out.(*value.Map)
	if !ok {
		return nil, fmt.Errorf("grains.set returned %s", value.Repr(out))
	}
	return m, nil
}

func grainsPresent(c *statemod.Call) (*value.Map, error) {
	name, err := grainName(c)
	if err != nil {
		return nil, err
	}
	want := c.Get("value")
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	existing, err := grainGet(c, name, noGrain)
	if err != nil {
		return nil, err
	}
	if existing != noGrain && value.Equal(existing, want) {
		ret.Set("comment", "Grain is already set")
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		if existing == noGrain {
			ret.Set("comment", fmt.Sprintf("Grain %s is set to be added", name))
			ret.Set("changes", value.MapOf("new", name))
		} else {
			ret.Set("comment", fmt.Sprintf("Grain %s is set to be changed", name))
			ret.Set("changes", value.MapOf("changed", value.MapOf(name, want)))
		}
		return ret, nil
	}
	sret, err := grainsSetRet(c, name, want, "force", c.Get("force"))
	if err != nil {
		return nil, err
	}
	if r, _ := sret.Get("result"); r == true {
		if ch, _ := sret.Get("changes"); ch != nil && !value.Equal(ch, value.NewMap(0)) {
			sret.Set("comment", fmt.Sprintf("Set grain %s to %s", name, value.Str(want)))
		}
	}
	sret.Set("name", name)
	return sret, nil
}

// hashableSet is make_hashable: the frozensets of the items of a (nested)
// list, each written as its sorted members' reprs.
func hashableSet(l *value.List, out map[string]bool) (map[string]bool, error) {
	if out == nil {
		out = map[string]bool{}
	}
	for _, it := range l.Items {
		if sub, ok := it.(*value.List); ok {
			if _, err := hashableSet(sub, out); err != nil {
				return nil, err
			}
			continue
		}
		var members []string
		switch x := it.(type) {
		case string:
			for _, r := range x {
				members = append(members, string(r))
			}
		case *value.Map:
			for _, k := range x.Keys() {
				members = append(members, value.Repr(k))
			}
		case value.Tuple:
			for _, e := range x {
				members = append(members, value.Repr(e))
			}
		default:
			return nil, fmt.Errorf("TypeError: '%s' object is not iterable", value.TypeName(it))
		}
		sort.Strings(members)
		uniq := members[:0]
		for i, m := range members {
			if i == 0 || m != members[i-1] {
				uniq = append(uniq, m)
			}
		}
		out[strings.Join(uniq, "\x00")] = true
	}
	return out, nil
}

func listHas(l *value.List, v any) bool {
	for _, it := range l.Items {
		if value.Equal(it, v) {
			return true
		}
	}
	return false
}

const pendingGrainsKey = "grains.pending_grains"

func grainsListPresent(c *statemod.Call) (*value.Map, error) {
	name, err := grainName(c)
	if err != nil {
		return nil, err
	}
	want := c.Get("value")
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	grain, err := grainGet(c, name, "")
	if err != nil {
		return nil, err
	}
	if value.Truthy(grain) {
		gl, ok := grain.(*value.List)
		if !ok {
			ret.Set("result", false)
			ret.Set("comment", fmt.Sprintf("Grain %s is not a valid list", name))
			return ret, nil
		}
		if wl, ok := want.(*value.List); ok {
			have, err := hashableSet(gl, nil)
			if err != nil {
				return nil, err
			}
			need, err := hashableSet(wl, nil)
			if err != nil {
				return nil, err
			}
			subset := true
			for k := range need {
				if !have[k] {
					subset = false
					break
				}
			}
			if subset {
				ret.Set("comment", fmt.Sprintf("Value %s is already in grain %s", value.Str(want), name))
				return ret, nil
			}
			// Remember what this run appends (Salt's __context__["pending_grains"]).
			if c.Env != nil && c.Env.Exec != nil {
				pending, _ := c.Env.Exec.Cache().Get(pendingGrainsKey).(map[string][]any)
				if pending == nil {
					pending = map[string][]any{}
					c.Env.Exec.Cache().Store(pendingGrainsKey, pending)
				}
				pending[name] = append(pending[name], wl.Items...)
			}
		} else if listHas(gl, want) {
			ret.Set("comment", fmt.Sprintf("Value %s is already in grain %s", value.Str(want), name))
			return ret, nil
		}
		if c.Test {
			ret.Set("result", nil)
			ret.Set("comment", fmt.Sprintf("Value %s is set to be appended to grain %s", value.Str(want), name))
			ret.Set("changes", value.MapOf("new", grain))
			return ret, nil
		}
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", fmt.Sprintf("Grain %s is set to be added", name))
		ret.Set("changes", value.MapOf("new", grain))
		return ret, nil
	}
	newGrains, err := c.Salt("grains.append", []any{name, want}, value.NewMap(0))
	if err != nil {
		return nil, err
	}
	after, err := grainGet(c, name, "")
	if err != nil {
		return nil, err
	}
	al, _ := after.(*value.List)
	if al == nil {
		al = value.NewList()
	}
	failed := false
	if wl, ok := want.(*value.List); ok {
		for _, it := range wl.Items {
			if !listHas(al, it) {
				failed = true
			}
		}
	} else {
		failed = !listHas(al, want)
	}
	if failed {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Failed append value %s to grain %s", value.Str(want), name))
		return ret, nil
	}
	ret.Set("comment", fmt.Sprintf("Append value %s to grain %s", value.Str(want), name))
	ret.Set("changes", value.MapOf("new", newGrains))
	return ret, nil
}

func grainsListAbsent(c *statemod.Call) (*value.Map, error) {
	name, err := grainName(c)
	if err != nil {
		return nil, err
	}
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	grain, err := grainGet(c, name, nil)
	if err != nil {
		return nil, err
	}
	if !value.Truthy(grain) {
		ret.Set("comment", fmt.Sprintf("Grain %s does not exist", name))
		return ret, nil
	}
	gl, ok := grain.(*value.List)
	if !ok {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Grain %s is not a valid list", name))
		return ret, nil
	}
	vals := []any{c.Get("value")}
	if wl, ok := c.Get("value").(*value.List); ok {
		vals = wl.Items
	}
	var comments []string
	var deleted *value.List
	for _, v := range vals {
		switch {
		case !listHas(gl, v):
			comments = append(comments, fmt.Sprintf("Value %s is absent from grain %s", value.Str(v), name))
			continue
		case c.Test:
			ret.Set("result", nil)
			comments = append(comments, fmt.Sprintf("Value %s in grain %s is set to be deleted", value.Str(v), name))
		default:
			if _, err := c.Salt("grains.remove", []any{name, v}, value.NewMap(0)); err != nil {
				return nil, err
			}
			comments = append(comments, fmt.Sprintf("Value %s was deleted from grain %s", value.Str(v), name))
		}
		if deleted == nil {
			deleted = value.NewList()
			ret.Set("changes", value.MapOf("deleted", deleted))
		}
		deleted.Append(v)
	}
	ret.Set("comment", strings.Join(comments, "\n"))
	return ret, nil
}

func grainsAbsent(c *statemod.Call) (*value.Map, error) {
	name, err := grainName(c)
	if err != nil {
		return nil, err
	}
	destructive := c.Get("destructive") == true
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	grain, err := grainGet(c, name, noGrain)
	if err != nil {
		return nil, err
	}
	if grain == noGrain {
		ret.Set("comment", fmt.Sprintf("Grain %s does not exist", name))
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		switch {
		case destructive:
			ret.Set("comment", fmt.Sprintf("Grain %s is set to be deleted", name))
			ret.Set("changes", value.MapOf("deleted", name))
		case grain != nil:
			ret.Set("comment", fmt.Sprintf("Value for grain %s is set to be deleted (None)", name))
			ret.Set("changes", value.MapOf("grain", name, "value", nil))
		}
		return ret, nil
	}
	sret, err := grainsSetRet(c, name, nil, "destructive", c.Get("destructive"), "force", c.Get("force"))
	if err != nil {
		return nil, err
	}
	if r, _ := sret.Get("result"); value.Truthy(r) {
		switch {
		case destructive:
			sret.Set("comment", fmt.Sprintf("Grain %s was deleted", name))
			sret.Set("changes", value.MapOf("deleted", name))
		case grain != nil:
			sret.Set("comment", fmt.Sprintf("Value for grain %s was set to None", name))
			sret.Set("changes", value.MapOf("grain", name, "value", nil))
		}
	}
	sret.Set("name", name)
	return sret, nil
}

func grainsAppendState(c *statemod.Call) (*value.Map, error) {
	name, err := grainName(c)
	if err != nil {
		return nil, err
	}
	want := c.Get("value")
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	grain, err := grainGet(c, name, nil)
	if err != nil {
		return nil, err
	}
	inGrains := false
	if c.Env != nil && c.Env.Exec != nil && c.Env.Exec.Grains != nil {
		inGrains = c.Env.Exec.Grains.Has(name)
	}
	if !value.Truthy(grain) && !inGrains {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Grain %s does not exist", name))
		return ret, nil
	}
	if gl, ok := grain.(*value.List); ok {
		if listHas(gl, want) {
			ret.Set("comment", fmt.Sprintf("Value %s is already in the list for grain %s", value.Str(want), name))
			return ret, nil
		}
		if c.Test {
			ret.Set("result", nil)
			ret.Set("comment", fmt.Sprintf("Value %s in grain %s is set to be added", value.Str(want), name))
			ret.Set("changes", value.MapOf("added", want))
			return ret, nil
		}
		if _, err := c.Salt("grains.append", []any{name, want}, value.NewMap(0)); err != nil {
			return nil, err
		}
		ret.Set("comment", fmt.Sprintf("Value %s was added to grain %s", value.Str(want), name))
		ret.Set("changes", value.MapOf("added", want))
		return ret, nil
	}
	if c.Get("convert") != true {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Grain %s is not a valid list", name))
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", fmt.Sprintf("Grain %s is set to be converted to list and value %s will be added", name, value.Str(want)))
		ret.Set("changes", value.MapOf("added", want))
		return ret, nil
	}
	l := value.NewList()
	if grain != nil {
		l.Append(grain)
	}
	l.Append(want)
	if _, err := c.Salt("grains.setval", []any{name, l}, value.NewMap(0)); err != nil {
		return nil, err
	}
	ret.Set("comment", fmt.Sprintf("Value %s was added to grain %s", value.Str(want), name))
	ret.Set("changes", value.MapOf("added", want))
	return ret, nil
}
