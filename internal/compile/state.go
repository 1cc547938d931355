package compile

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"brine/internal/match"
	"brine/internal/value"
)

// RequisiteKeywords are Salt's STATE_REQUISITE_KEYWORDS: arguments an
// extend merges into instead of replacing.
var RequisiteKeywords = map[string]bool{
	"onchanges": true, "onchanges_any": true, "onfail": true, "onfail_any": true,
	"onfail_all": true, "onfail_stop": true, "prereq": true, "prerequired": true,
	"watch": true, "watch_any": true, "require": true, "require_any": true, "listen": true,
}

func isDunder(k any) bool {
	s, ok := k.(string)
	return ok && strings.HasPrefix(s, "__")
}

// firstKey is Python's next(iter(d)).
func firstKey(m *value.Map) (any, bool) {
	if m.Len() == 0 {
		return nil, false
	}
	k, _ := m.At(0)
	return k, true
}

func asList(v any) (*value.List, bool) {
	l, ok := v.(*value.List)
	return l, ok
}

// findName is Salt's find_name: the (ID, state) pairs that name (an ID, an
// SLS with state "sls", or a name argument) refers to.
func findName(name any, state string, high *value.Map, strict bool) [][2]any {
	var out [][2]any
	if !value.Hashable(name) {
		return nil
	}
	check2 := true
	if strict {
		check2 = false
		if b, ok := high.Get(name); ok {
			if bm, ok := b.(*value.Map); ok {
				check2 = bm.Has(state)
			}
		}
	}
	if high.Has(name) && check2 {
		return [][2]any{{name, state}}
	}
	if state == "sls" {
		high.Range(func(nid, item any) bool {
			im, ok := item.(*value.Map)
			if !ok {
				return true
			}
			if s, _ := im.Get("__sls__"); value.Equal(s, name) {
				fk, _ := firstKey(im)
				out = append(out, [2]any{nid, fk})
			}
			return true
		})
		return out
	}
	high.Range(func(nid, item any) bool {
		im, ok := item.(*value.Map)
		if !ok {
			return true
		}
		run, ok := im.Get(state)
		if !ok {
			return true
		}
		l, ok := asList(run)
		if !ok {
			return true
		}
		for _, arg := range l.Items {
			am, ok := arg.(*value.Map)
			if !ok || am.Len() != 1 {
				continue
			}
			if _, v := am.At(0); value.Equal(v, name) {
				out = append(out, [2]any{nid, state})
			}
		}
		return true
	})
	return out
}

// findSLSIDs is Salt's find_sls_ids: (ID, state) for every state of every
// ID in the SLS.
func findSLSIDs(sls any, high *value.Map) [][2]any {
	var out [][2]any
	high.Range(func(nid, item any) bool {
		im, ok := item.(*value.Map)
		if !ok {
			return true
		}
		if s, _ := im.Get("__sls__"); value.Equal(s, sls) {
			for _, st := range im.Keys() {
				if isDunder(st) {
					continue
				}
				out = append(out, [2]any{nid, st})
			}
		}
		return true
	})
	return out
}

// ReconcileExtend applies __extend__ to the high data (Salt's
// reconcile_extend). strict makes a name reference require the state
// module to match.
func ReconcileExtend(high *value.Map, strict bool) (*value.Map, []string) {
	var errs []string
	ev, ok := high.Get("__extend__")
	if !ok {
		return high, nil
	}
	high.Delete("__extend__")
	for _, chunk := range iterList(ev) {
		cm, ok := chunk.(*value.Map)
		if !ok {
			continue
		}
		for i := 0; i < cm.Len(); i++ {
			name, b := cm.At(i)
			body, ok := b.(*value.Map)
			if !ok {
				continue
			}
			var stateType string
			for _, k := range body.Keys() {
				if ks, ok := k.(string); ok && !strings.HasPrefix(ks, "__") {
					stateType = ks
					break
				}
			}
			if stateType == "" {
				continue
			}
			target, ok := high.Get(name)
			tm, isMap := target.(*value.Map)
			if !ok || !isMap || !tm.Has(stateType) {
				ids := findName(name, stateType, high, strict)
				if len(ids) != 1 {
					env, sls := "base", "base"
					if v, ok := body.Get("__env__"); ok {
						env = value.Str(v)
					}
					if v, ok := body.Get("__sls__"); ok {
						sls = value.Str(v)
					}
					n := value.Str(name)
					errs = append(errs, fmt.Sprintf("Cannot extend ID '%s' in '%s:%s'. It is not part of the high state.\n"+
						"This is likely due to a missing include statement or an incorrectly typed ID.\n"+
						"Ensure that a state with an ID of '%s' is available\nin environment '%s' and to SLS '%s'", n, env, sls, n, env, sls))
					continue
				}
				name = ids[0][0]
				t, _ := high.Get(name)
				tm, isMap = t.(*value.Map)
				if !isMap {
					continue
				}
			}
			if ex, ok := high.Get("__exclude__"); ok {
				bsls, hasSLS := body.Get("__sls__")
				excluded := false
				for _, e := range iterList(ex) {
					var s any
					switch x := e.(type) {
					case string:
						s = x
					case *value.Map:
						if v, ok := x.Get("sls"); ok && value.Truthy(v) {
							s = v
						} else {
							continue
						}
					default:
						continue
					}
					if hasSLS && value.Equal(s, bsls) {
						excluded = true
						break
					}
				}
				if excluded {
					continue
				}
			}
			for j := 0; j < body.Len(); j++ {
				st, run := body.At(j)
				if isDunder(st) {
					continue
				}
				cur, ok := tm.Get(st)
				if !ok {
					tm.Set(st, run)
					continue
				}
				curL, ok := asList(cur)
				if !ok {
					continue
				}
				for _, arg := range iterList(run) {
					update := false
					for hind := 0; hind < len(curL.Items); hind++ {
						val := curL.Items[hind]
						if as, ok := arg.(string); ok {
							if _, ok := val.(string); ok {
								curL.Items[hind] = as
								update = true
								continue
							}
						}
						am, ok1 := arg.(*value.Map)
						vm, ok2 := val.(*value.Map)
						if ok1 && ok2 {
							af, ok := firstKey(am)
							if !ok {
								continue
							}
							vf, _ := firstKey(vm)
							if value.Equal(af, vf) && vm.Len() > 0 {
								if s, ok := af.(string); ok && RequisiteKeywords[s] {
									ev, _ := vm.Get(af)
									if el, ok := ev.(*value.List); ok {
										av, _ := am.Get(af)
										el.Append(iterList(av)...)
									}
								} else {
									curL.Items[hind] = am
								}
								update = true
							}
							if af == "name" {
								if cm2, ok := curL.Items[hind].(*value.Map); ok {
									if k, ok := firstKey(cm2); ok && k == "names" {
										curL.Items[hind] = am
									}
								}
							}
						}
					}
					if !update {
						curL.Append(arg)
					}
				}
			}
		}
	}
	return high, errs
}

// ApplyExclude removes the IDs named by __exclude__ (by id, or by SLS
// glob) from the high data.
func ApplyExclude(high *value.Map) *value.Map {
	ev, ok := high.Get("__exclude__")
	if !ok {
		return high
	}
	high.Delete("__exclude__")
	var exSLS []string
	var exID []any
	for _, e := range iterList(ev) {
		switch x := e.(type) {
		case string:
			exSLS = append(exSLS, x)
		case *value.Map:
			if x.Len() != 1 {
				continue
			}
			k, v := x.At(0)
			switch k {
			case "sls":
				exSLS = append(exSLS, value.Str(v))
			case "id":
				exID = append(exID, v)
			}
		}
	}
	if len(exSLS) > 0 {
		high.Range(func(name, body any) bool {
			if isDunder(name) {
				return true
			}
			bm, ok := body.(*value.Map)
			if !ok {
				return true
			}
			s, _ := bm.Get("__sls__")
			sls, _ := s.(string)
			if sls == "" {
				return true
			}
			for _, ex := range exSLS {
				if match.Fnmatch(sls, ex) {
					exID = append(exID, name)
					break
				}
			}
			return true
		})
	}
	for _, id := range exID {
		if value.Hashable(id) {
			high.Delete(id)
		}
	}
	return high
}

// CompileHighData turns high data into ordered low chunks (Salt's
// compile_high_data followed by order_chunks).
func CompileHighData(high *value.Map) []*value.Map {
	var chunks []*value.Map
	for i := 0; i < high.Len(); i++ {
		name, b := high.At(i)
		if isDunder(name) {
			continue
		}
		body, ok := b.(*value.Map)
		if !ok {
			continue
		}
		for j := 0; j < body.Len(); j++ {
			st, run := body.At(j)
			if isDunder(st) {
				continue
			}
			var funcBuf [2]any
			funcs := funcBuf[:0] // the function names as boxed in the high data
			var names []any
			chunk := value.NewMap(8 + len(iterList(run)))
			chunk.Set("state", st)
			chunk.Set("name", name)
			if v, ok := body.Get("__sls__"); ok {
				chunk.Set("__sls__", v)
			}
			if v, ok := body.Get("__env__"); ok {
				chunk.Set("__env__", v)
			}
			chunk.Set("__id__", name)
			for _, arg := range iterList(run) {
				switch a := arg.(type) {
				case string:
					if !containsEqual(funcs, arg) {
						funcs = append(funcs, arg)
					}
				case *value.Map:
					for k := 0; k < a.Len(); k++ {
						key, val := a.At(k)
						switch {
						case key == "names":
							for _, n := range iterList(val) {
								if !containsEqual(names, n) {
									names = append(names, n)
								}
							}
						case key == "state":
						case key == "name":
							if _, ok := val.(string); !ok {
								chunk.Set(key, name)
							} else {
								chunk.Set(key, val)
							}
						default:
							chunk.Set(key, val)
						}
					}
				}
			}
			if len(names) > 0 {
				for n, entry := range names {
					// Salt deep-copies here; a shallow copy gives the same
					// chunks (nothing below changes nested values, and the
					// engine copies the chunks it runs).
					live := chunk.Copy()
					if em, ok := entry.(*value.Map); ok && em.Len() > 0 {
						lowName, ov := em.At(0)
						live.Set("name", lowName)
						for _, u := range iterList(ov) {
							if um, ok := u.(*value.Map); ok {
								live.Update(um)
							}
						}
					} else {
						live.Set("name", entry)
					}
					live.Set("name_order", int64(n+1))
					for _, f := range funcs {
						live.Set("fun", f)
						chunks = append(chunks, live)
					}
				}
			} else {
				for _, f := range funcs {
					chunk.Set("fun", f)
					chunks = append(chunks, chunk)
				}
			}
		}
	}
	return OrderChunks(chunks)
}

func containsEqual(l []any, x any) bool {
	for _, e := range l {
		if value.Equal(e, x) {
			return true
		}
	}
	return false
}

// isPyInt reports whether v is a Python int (bool included).
func isPyInt(v any) bool {
	switch v.(type) {
	case int64, int, bool, *big.Int:
		return true
	}
	return false
}

// OrderChunks assigns final order values and sorts the chunks (Salt's
// order_chunks): the cap comes from a scan of the int orders; 'first' is
// 0, 'last' and negative orders count from cap + 1000000, other strings
// take the cap; name_order adds fractions.
func OrderChunks(chunks []*value.Map) []*value.Map {
	var limit int64 = 1
	for _, c := range chunks {
		o, ok := c.Get("order")
		if !ok || !isPyInt(o) {
			continue
		}
		n := value.ToFloat(o)
		if n > float64(limit-1) && n > 0 {
			limit = int64(n) + 100
		}
	}
	for _, c := range chunks {
		o, ok := c.Get("order")
		if !ok {
			c.Set("order", limit)
			continue
		}
		var ord any = o
		switch o.(type) {
		case int64, int, bool, float64, *big.Int:
		default:
			switch o {
			case "last":
				ord = limit + 1000000
			case "first":
				ord = int64(0)
			default:
				ord = limit
			}
		}
		if no, ok := c.Get("name_order"); ok {
			c.Delete("name_order")
			ord = value.ToFloat(ord) + value.ToFloat(no)/10000.0
		}
		if value.ToFloat(ord) < 0 {
			if x, ok := ord.(float64); ok {
				ord = float64(limit+1000000) + x
			} else {
				ord = limit + 1000000 + toInt(ord)
			}
		}
		c.Set("order", ord)
	}
	keys := make([]string, len(chunks))
	ords := make([]float64, len(chunks))
	for i, c := range chunks {
		s, _ := c.Get("state")
		n, _ := c.Get("name")
		f, _ := c.Get("fun")
		keys[i] = value.Str(s) + value.Str(n) + value.Str(f)
		o, _ := c.Get("order")
		ords[i] = value.ToFloat(o)
	}
	idx := make([]int, len(chunks))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		fa, fb := ords[idx[a]], ords[idx[b]]
		if fa != fb {
			return fa < fb
		}
		return keys[idx[a]] < keys[idx[b]]
	})
	out := make([]*value.Map, len(chunks))
	for i, j := range idx {
		out[i] = chunks[j]
	}
	return out
}

func toInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int:
		return int64(x)
	case bool:
		if x {
			return 1
		}
	}
	return 0
}
