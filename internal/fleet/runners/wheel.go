package runners

// wheel.go is the part of Salt's wheel system (salt/wheel/key.py over
// salt/key.py) that orchestration reaches through salt.wheel: the
// master's key store.

import (
	"os"
	"sort"
	"strings"

	"brine/internal/execmod"
	"brine/internal/fleet/keys"
	"brine/internal/match"
	"brine/internal/value"
)

// WheelFunc is one wheel function.
type WheelFunc func(c *Context, args []any, kwargs *value.Map) (any, error)

// wheels are the wheel functions brine has, by name.
var wheels = map[string]WheelFunc{
	"key.list_all":   wheelListAll,
	"key.list":       wheelList,
	"key.name_match": wheelNameMatch,
	"key.accept":     wheelAccept,
	"key.reject":     wheelReject,
	"key.delete":     wheelDelete,
}

// Wheel runs the wheel function name; an unknown one is an error with
// Salt's message.
func (c *Context) Wheel(name string, args []any, kwargs *value.Map) (any, error) {
	f, ok := wheels[name]
	if !ok {
		return nil, execmod.Errorf("%s", MissingFunString(name))
	}
	if kwargs == nil {
		kwargs = value.NewMap(0)
	}
	return f(c, args, kwargs)
}

// keyStore opens the master's key store (pki_dir).
func (c *Context) keyStore() (*keys.Store, error) {
	return keys.OpenStore(c.optString("pki_dir"))
}

// reloadKeys tells a running master the key store changed; without one
// there is nobody to tell (the master rereads the store when it starts).
func (c *Context) reloadKeys() {
	if conn, err := c.Client(); err == nil {
		_ = conn.ReloadKeys()
	}
}

// keyDirs are the key states in the order Salt's list_keys returns them.
var keyDirs = []keys.State{keys.Accepted, keys.Pending, keys.Rejected, keys.Denied}

// sortIgnoreCase sorts ids as salt.utils.data.sorted_ignorecase does.
func sortIgnoreCase(ids []string) {
	sort.SliceStable(ids, func(i, j int) bool { return strings.ToLower(ids[i]) < strings.ToLower(ids[j]) })
}

// listKeys is Salt's Key.list_keys: every state with its sorted ids.
func listKeys(store *keys.Store) (*value.Map, error) {
	out := value.NewMap(len(keyDirs))
	for _, st := range keyDirs {
		ids, err := store.List(st)
		if err != nil {
			return nil, err
		}
		sortIgnoreCase(ids)
		out.Set(string(st), strList(ids))
	}
	return out, nil
}

// nameMatch is Salt's Key.name_match: per state, the ids matching the
// glob (or any of a comma-separated list or a list of globs); states
// without a match are left out.
func nameMatch(store *keys.Store, m any) (*value.Map, error) {
	var globs []string
	switch x := m.(type) {
	case *value.List:
		for _, e := range x.Items {
			globs = append(globs, execmod.String(e))
		}
	default:
		s := execmod.String(x)
		if strings.Contains(s, ",") {
			globs = strings.Split(s, ",")
		} else {
			globs = []string{s}
		}
	}
	all, err := listKeys(store)
	if err != nil {
		return nil, err
	}
	out := value.NewMap(0)
	all.Range(func(k, v any) bool {
		var hits []any
		for _, id := range v.(*value.List).Items {
			for _, g := range globs {
				if match.Fnmatch(id.(string), g) {
					hits = append(hits, id)
				}
			}
		}
		if len(hits) > 0 {
			out.Set(k, value.NewList(hits...))
		}
		return true
	})
	return out, nil
}

func wheelListAll(c *Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("list_all", args, kwargs); err != nil {
		return nil, err
	}
	store, err := c.keyStore()
	if err != nil {
		return nil, err
	}
	out, err := listKeys(store)
	if err != nil {
		return nil, err
	}
	// all_keys adds the master's own key files.
	var local []string
	if ents, err := os.ReadDir(c.optString("pki_dir")); err == nil {
		for _, e := range ents {
			if (strings.HasSuffix(e.Name(), ".pub") || strings.HasSuffix(e.Name(), ".pem")) && e.Type().IsRegular() {
				local = append(local, e.Name())
			}
		}
	}
	sortIgnoreCase(local)
	out.Set("local", strList(local))
	return out, nil
}

// wheelList is key.list: the keys of one status (acc..., pre..., un...,
// rej..., den..., all).
func wheelList(c *Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_", args, kwargs, execmod.Req("match"))
	if err != nil {
		return nil, err
	}
	m := execmod.String(v[0])
	if strings.HasPrefix(m, "all") {
		return wheelListAll(c, nil, value.NewMap(0))
	}
	store, err := c.keyStore()
	if err != nil {
		return nil, err
	}
	var st keys.State
	switch {
	case strings.HasPrefix(m, "acc"):
		st = keys.Accepted
	case strings.HasPrefix(m, "pre"), strings.HasPrefix(m, "un"):
		st = keys.Pending
	case strings.HasPrefix(m, "rej"):
		st = keys.Rejected
	case strings.HasPrefix(m, "den"):
		st = keys.Denied
	default:
		return value.NewMap(0), nil
	}
	ids, err := store.List(st)
	if err != nil {
		return nil, err
	}
	sortIgnoreCase(ids)
	return value.MapOf(string(st), strList(ids)), nil
}

func wheelNameMatch(c *Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("name_match", args, kwargs, execmod.Req("match"))
	if err != nil {
		return nil, err
	}
	store, err := c.keyStore()
	if err != nil {
		return nil, err
	}
	return nameMatch(store, v[0])
}

// moveKeys moves the keys matching m from the states from to state to and
// returns name_match of m afterwards (Key.accept, Key.reject).
func (c *Context) moveKeys(m any, from []keys.State, to keys.State) (any, error) {
	store, err := c.keyStore()
	if err != nil {
		return nil, err
	}
	sel, err := nameMatch(store, m)
	if err != nil {
		return nil, err
	}
	moved := false
	for _, st := range from {
		v, _ := sel.Get(string(st))
		l, _ := v.(*value.List)
		if l == nil {
			continue
		}
		for _, id := range l.Items {
			if store.Move(id.(string), st, to) == nil {
				moved = true
			}
		}
	}
	if moved {
		c.reloadKeys()
	}
	return nameMatch(store, m)
}

func wheelAccept(c *Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("accept", args, kwargs, execmod.Req("match"), execmod.Opt("include_rejected", false), execmod.Opt("include_denied", false))
	if err != nil {
		return nil, err
	}
	from := []keys.State{keys.Pending}
	if value.Truthy(v[1]) {
		from = append(from, keys.Rejected)
	}
	if value.Truthy(v[2]) {
		from = append(from, keys.Denied)
	}
	return c.moveKeys(v[0], from, keys.Accepted)
}

func wheelReject(c *Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("reject", args, kwargs, execmod.Req("match"), execmod.Opt("include_accepted", false), execmod.Opt("include_denied", false))
	if err != nil {
		return nil, err
	}
	from := []keys.State{keys.Pending}
	if value.Truthy(v[1]) {
		from = append(from, keys.Accepted)
	}
	if value.Truthy(v[2]) {
		from = append(from, keys.Denied)
	}
	return c.moveKeys(v[0], from, keys.Rejected)
}

// keyDelete removes every key matching m and returns name_match of m
// afterwards.
func keyDelete(store *keys.Store, m any) (*value.Map, error) {
	sel, err := nameMatch(store, m)
	if err != nil {
		return nil, err
	}
	sel.Range(func(_, v any) bool {
		for _, id := range v.(*value.List).Items {
			_ = store.Delete(id.(string))
		}
		return true
	})
	return nameMatch(store, m)
}

func wheelDelete(c *Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("delete", args, kwargs, execmod.Req("match"))
	if err != nil {
		return nil, err
	}
	store, err := c.keyStore()
	if err != nil {
		return nil, err
	}
	out, err := keyDelete(store, v[0])
	if err != nil {
		return nil, err
	}
	c.reloadKeys()
	return out, nil
}
