package value

// Salt's dictionary merge strategies (salt.utils.dictupdate), used to merge
// pillar SLS files, command-line pillar and pillar.get defaults.
//
// Salt's merges deep-copy the first mapping and store references to the
// second mapping's values in the result. The functions here never modify
// their inputs unless their name says so, and a result never shares a
// container with the second argument: values taken from it are deep-copied,
// so the result can later be updated in place without touching the source.

// Merge strategy names accepted by Merge.
const (
	StrategySmart     = "smart"
	StrategyRecurse   = "recurse"
	StrategyAggregate = "aggregate"
	StrategyOverwrite = "overwrite"
	StrategyNone      = "none"
	StrategyList      = "list"
)

// Merge is Salt's dictupdate.merge(a, b, strategy, renderer, mergeLists): it
// returns a new map holding b merged over a. Neither input is changed.
//
//   - smart: aggregate when the renderer pipeline ends in yamlex, else recurse
//   - recurse (and none, and any unknown name): nested mappings merge key by
//     key, anything else from b replaces a's value; with mergeLists, two lists
//     are concatenated without b's items already present
//   - aggregate: top-level keys are unioned; below the top level a mapping
//     present in both keeps only b's keys (their values aggregated the same way)
//   - overwrite: b's top-level values replace a's wholesale
//   - list: keys of a only, a value present in both becomes [a's, b's]
func Merge(a, b *Map, strategy, renderer string, mergeLists bool) *Map {
	return MergeInPlace(DeepCopy(orEmpty(a)).(*Map), b, strategy, renderer, mergeLists)
}

// MergeInPlace is Merge for a first map the caller owns and no longer needs
// as it was: the result may be a itself, updated in place, which avoids
// copying a large accumulated map on every merge. b is not changed.
func MergeInPlace(a, b *Map, strategy, renderer string, mergeLists bool) *Map {
	if a == nil {
		a = NewMap(b.Len())
	}
	switch ResolveStrategy(strategy, renderer) {
	case StrategyList:
		return mergeList(a, b)
	case StrategyAggregate:
		return aggregateTop(a, b)
	case StrategyOverwrite:
		for i, k := range b.Keys() {
			if a.Has(k) {
				a.Set(k, DeepCopy(b.vals[i]))
			}
		}
		return Update(a, b, mergeLists)
	case StrategyNone:
		return Update(a, b, false)
	default:
		return Update(a, b, mergeLists)
	}
}

// ResolveStrategy names the strategy Merge applies: smart becomes aggregate
// or recurse by the renderer pipeline, and unknown names fall back to
// recurse, as Salt does (with a warning in its log).
func ResolveStrategy(strategy, renderer string) string {
	switch strategy {
	case StrategySmart:
		last := renderer
		for i := len(renderer) - 1; i >= 0; i-- {
			if renderer[i] == '|' {
				last = renderer[i+1:]
				break
			}
		}
		if last == "yamlex" || hasPrefix(renderer, "yamlex_") {
			return StrategyAggregate
		}
		return StrategyRecurse
	case StrategyRecurse, StrategyAggregate, StrategyOverwrite, StrategyNone, StrategyList:
		return strategy
	}
	return StrategyRecurse
}

// Update is Salt's dictupdate.update(dest, upd, merge_lists=...): upd is
// merged recursively into dest, which is modified and returned. Values
// taken from upd are deep-copied.
func Update(dest, upd *Map, mergeLists bool) *Map {
	for i, k := range upd.Keys() {
		val := upd.vals[i]
		j := dest.find(k)
		if j < 0 {
			dest.Set(k, DeepCopy(val))
			continue
		}
		cur := dest.vals[j]
		switch c := cur.(type) {
		case *Map:
			if u, ok := val.(*Map); ok {
				dest.vals[j] = Update(c, u, mergeLists)
				continue
			}
		case *List:
			if u, ok := val.(*List); ok && mergeLists {
				for _, x := range u.Items {
					if !listContains(c.Items, x) {
						c.Items = append(c.Items, DeepCopy(x))
					}
				}
				continue
			}
		}
		dest.vals[j] = DeepCopy(val)
	}
	return dest
}

// MergeListsUnique appends to dst the items of src that dst does not hold
// yet (Python's dst.extend(x for x in src if x not in dst)) and returns it.
func MergeListsUnique(dst *List, src *List) *List {
	for _, x := range src.Items {
		if !listContains(dst.Items, x) {
			dst.Items = append(dst.Items, DeepCopy(x))
		}
	}
	return dst
}

func listContains(items []any, x any) bool {
	for _, e := range items {
		if Equal(e, x) {
			return true
		}
	}
	return false
}

func mergeList(a, b *Map) *Map {
	ret := NewMap(a.Len())
	for i, k := range a.keys {
		if bv, ok := b.Get(k); ok {
			ret.Set(k, NewList(a.vals[i], DeepCopy(bv)))
		} else {
			ret.Set(k, a.vals[i])
		}
	}
	return ret
}

// aggregateTop is yamlex's merge_recursive at level 1 without aggregation
// markers: top-level keys are unioned in a's order, then b's new keys.
func aggregateTop(a, b *Map) *Map {
	for i, k := range b.keys {
		v := b.vals[i]
		if j := a.find(k); j >= 0 {
			a.vals[j] = aggregatePlain(a.vals[j], v)
		} else {
			a.Set(k, DeepCopy(v))
		}
	}
	return a
}

// aggregatePlain merges two unmarked values: two mappings give b's keys in
// b's order, each aggregated with a's value when a has it; anything else is
// b's value.
func aggregatePlain(a, b any) any {
	am, ok1 := a.(*Map)
	bm, ok2 := b.(*Map)
	if !ok1 || !ok2 {
		return DeepCopy(b)
	}
	ret := NewMap(bm.Len())
	for i, k := range bm.keys {
		v := bm.vals[i]
		if av, ok := am.Get(k); ok {
			ret.Set(k, aggregatePlain(av, v))
		} else {
			ret.Set(k, DeepCopy(v))
		}
	}
	return ret
}

func orEmpty(m *Map) *Map {
	if m == nil {
		return NewMap(0)
	}
	return m
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }
