package compile

import (
	"fmt"
	"strings"

	"brine/internal/value"
)

var reqIn = map[string]bool{
	"require_in": true, "watch_in": true, "onfail_in": true, "onchanges_in": true,
	"use": true, "use_in": true, "prereq": true, "prereq_in": true,
}

var reqInAll = map[string]bool{
	"require_in": true, "watch_in": true, "onfail_in": true, "onchanges_in": true,
	"use": true, "use_in": true, "prereq": true, "prereq_in": true,
	"require": true, "watch": true, "onfail": true, "onfail_stop": true, "onchanges": true,
}

// extendData is the ordered ID -> state -> list structure requisite_in
// builds before handing it to ReconcileExtend.
type extendData struct{ m *value.Map }

func (e extendData) id(id any) *value.Map {
	if v, ok := e.m.Get(id); ok {
		return v.(*value.Map)
	}
	n := value.NewMap(4)
	e.m.Set(id, n)
	return n
}

func (e extendData) list(id, state any) *value.List {
	b := e.id(id)
	if v, ok := b.Get(state); ok {
		if l, ok := v.(*value.List); ok {
			return l
		}
	}
	l := value.NewList()
	b.Set(state, l)
	return l
}

// addReq appends {state: id} under rkey in the extend list of
// (name, target state), creating the {rkey: [...]} entry when missing.
func (e extendData) addReq(name, tstate any, rkey string, state, id any, env, sls any) {
	l := e.list(name, tstate)
	b := e.id(name)
	b.Set("__env__", env)
	b.Set("__sls__", sls)
	found := false
	for _, it := range l.Items {
		im, ok := it.(*value.Map)
		if !ok {
			continue
		}
		if k, ok := firstKey(im); ok && k == rkey {
			v, _ := im.Get(k)
			if rl, ok := v.(*value.List); ok {
				rl.Append(value.MapOf(state, id))
			}
			found = true
		}
	}
	if !found {
		l.Append(value.MapOf(rkey, value.NewList(value.MapOf(state, id))))
	}
}

// stateArgs is Salt's state_args: the argument names of high[id][state].
func stateArgs(id, state any, high *value.Map) map[any]bool {
	out := map[any]bool{}
	b, ok := high.Get(id)
	bm, isMap := b.(*value.Map)
	if !ok || !isMap {
		return out
	}
	run, ok := bm.Get(state)
	if !ok {
		return out
	}
	for _, it := range iterList(run) {
		im, ok := it.(*value.Map)
		if !ok || im.Len() != 1 {
			continue
		}
		k, _ := im.At(0)
		out[value.HashKey(k)] = true
	}
	return out
}

// RequisiteIn converts the *_in requisites, use/use_in and prereq into
// extend data and reconciles it (Salt's requisite_in). disabled lists
// requisites to ignore (the disabled_requisites option).
func RequisiteIn(high *value.Map, disabled []string) (*value.Map, []string) {
	ext := extendData{value.NewMap(0)}
	var errs []string
	isDisabled := func(k string) bool {
		for _, d := range disabled {
			if d == k {
				return true
			}
		}
		return false
	}
	for i := 0; i < high.Len(); i++ {
		id, b := high.At(i)
		body, ok := b.(*value.Map)
		if !ok {
			continue
		}
		benv, _ := body.Get("__env__")
		bsls, _ := body.Get("__sls__")
		for j := 0; j < body.Len(); j++ {
			state, run := body.At(j)
			if isDunder(state) {
				continue
			}
			for _, arg := range iterList(run) {
				am, ok := arg.(*value.Map)
				if !ok || am.Len() < 1 {
					continue
				}
				k0, items := am.At(0)
				key, ok := k0.(string)
				if !ok || !reqIn[key] || isDisabled(key) {
					continue
				}
				rkey := strings.SplitN(key, "_", 2)[0]
				if im, ok := items.(*value.Map); ok {
					for n := 0; n < im.Len(); n++ {
						st0, name := im.At(n)
						if !value.Hashable(name) {
							continue
						}
						st := value.Str(st0)
						if strings.Contains(st, ".") {
							errs = append(errs, fmt.Sprintf("Invalid requisite in %s: %s for %s, in SLS '%s'. Requisites must not contain dots, did you mean '%s'?",
								rkey, st, value.Str(name), value.Str(bsls), st[:strings.Index(st, ".")]))
							st = strings.SplitN(st, ".", 2)[0]
						}
						ext.id(name)
						ext.addReq(name, st, rkey, state, id, benv, bsls)
					}
				}
				il, ok := items.(*value.List)
				if !ok {
					continue
				}
				var hinges [][2]any
				for _, ind := range il.Items {
					indM, ok := ind.(*value.Map)
					if !ok {
						indM = resolveBareReq(ind, high)
						if indM == nil {
							continue
						}
					}
					if indM.Len() < 1 {
						continue
					}
					pstate, pname := indM.At(0)
					if pstate == "sls" {
						hinges = findSLSIDs(pname, high)
					} else {
						hinges = append(hinges, [2]any{pname, pstate})
					}
					if ps := value.Str(pstate); strings.Contains(ps, ".") {
						errs = append(errs, fmt.Sprintf("Invalid requisite in %s: %s for %s, in SLS '%s'. Requisites must not contain dots, did you mean '%s'?",
							rkey, ps, value.Str(pname), value.Str(bsls), ps[:strings.Index(ps, ".")]))
					}
					for _, h := range hinges {
						name, tstate := h[0], h[1]
						tstateS := value.Str(tstate)
						if !value.Hashable(name) {
							continue
						}
						if key == "prereq_in" {
							ext.list(id, state).Append(value.MapOf("prerequired", value.NewList(value.MapOf(tstate, name))))
						}
						switch key {
						case "prereq":
							for _, e := range findName(name, tstateS, high, true) {
								ext.list(e[0], e[1]).Append(value.MapOf("prerequired", value.NewList(value.MapOf(state, id))))
							}
							continue
						case "use_in":
							for _, e := range findName(name, tstateS, high, true) {
								if !value.Truthy(e[0]) {
									continue
								}
								extArgs := stateArgs(e[0], tstate, high)
								dst := ext.list(e[0], e[1])
								for _, a := range iterList(mustGet(body, state)) {
									if useable(a, extArgs) {
										dst.Append(a)
									}
								}
							}
							continue
						case "use":
							for _, e := range findName(name, tstateS, high, true) {
								if !value.Truthy(e[0]) {
									continue
								}
								locArgs := stateArgs(id, state, high)
								dst := ext.list(id, state)
								src, _ := high.Get(e[0])
								srcM, _ := src.(*value.Map)
								for _, a := range iterList(mustGet(srcM, e[1])) {
									if useable(a, locArgs) {
										dst.Append(a)
									}
								}
							}
							continue
						}
						ext.addReq(name, tstate, rkey, state, id, benv, bsls)
					}
				}
			}
		}
	}
	l := value.NewList()
	ext.m.Range(func(k, v any) bool {
		l.Append(value.MapOf(k, v))
		return true
	})
	high.Set("__extend__", l)
	h, rerrs := ReconcileExtend(high, true)
	return h, append(errs, rerrs...)
}

func mustGet(m *value.Map, k any) any {
	if m == nil {
		return nil
	}
	v, _ := m.Get(k)
	return v
}

// useable reports whether a use/use_in argument is copied: a single-key
// map whose key is no requisite, not already set, not name or names.
func useable(a any, ignore map[any]bool) bool {
	am, ok := a.(*value.Map)
	if !ok || am.Len() != 1 {
		return false
	}
	k, _ := am.At(0)
	if ks, ok := k.(string); ok && reqInAll[ks] {
		return false
	}
	if ignore[value.HashKey(k)] {
		return false
	}
	return k != "name" && k != "names"
}

// resolveBareReq turns a bare requisite_in entry (an ID or a name) into
// {state: ID}, as Salt does; nil when nothing matches.
func resolveBareReq(ind any, high *value.Map) *value.Map {
	if !value.Hashable(ind) {
		return nil
	}
	if b, ok := high.Get(ind); ok {
		bm, ok := b.(*value.Map)
		if !ok {
			return nil
		}
		for _, k := range bm.Keys() {
			if !isDunder(k) {
				return value.MapOf(k, ind)
			}
		}
		return nil
	}
	var res *value.Map
	for i := 0; i < high.Len(); i++ {
		hid, b := high.At(i)
		bm, ok := b.(*value.Map)
		if !ok {
			continue
		}
		for j := 0; j < bm.Len(); j++ {
			st, run := bm.At(j)
			if isDunder(st) {
				continue
			}
			for _, it := range iterList(run) {
				im, ok := it.(*value.Map)
				if !ok {
					continue
				}
				if n, ok := im.Get("name"); ok && res == nil && value.Equal(n, ind) {
					res = value.MapOf(st, hid)
				}
			}
		}
	}
	return res
}
