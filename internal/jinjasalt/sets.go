package jinjasalt

import (
	"math/big"
	"sort"
	"strings"

	"brine/internal/value"
)

// Set is a Python set. brine keeps insertion order so output is stable
// (Python's own order depends on hashes and can differ between runs).
type Set struct {
	items []any
	seen  *value.Map
}

// NewSet builds a set from items, dropping repeats.
func NewSet(items []any) (*Set, error) {
	s := &Set{seen: value.NewMap(len(items))}
	for _, it := range items {
		if err := s.add(it); err != nil {
			return nil, err
		}
	}
	s.pyOrder()
	return s, nil
}

// pyOrder sorts a set of small non-negative ints, which CPython iterates
// in ascending order (an int hashes to itself and lands in its own slot
// when the table is larger than every member).
func (s *Set) pyOrder() {
	size := int64(8)
	for int64(len(s.items))*5 >= (size-1)*3 {
		size *= 4
	}
	for _, it := range s.items {
		n, ok := it.(int64)
		if !ok || n < 0 || n >= size {
			return
		}
	}
	sort.Slice(s.items, func(i, j int) bool { return s.items[i].(int64) < s.items[j].(int64) })
}

func (s *Set) add(v any) error {
	if !value.Hashable(v) {
		return pyErr(excTypeError, "unhashable type: '%s'", typeName(v))
	}
	if !s.seen.Has(v) {
		s.seen.Set(v, nil)
		s.items = append(s.items, v)
	}
	return nil
}

// Has reports whether v is in the set.
func (s *Set) Has(v any) bool { return value.Hashable(v) && s.seen.Has(v) }

// Len is len(s).
func (s *Set) Len() int { return len(s.items) }

// PyLen is len(s) for pyops.
func (s *Set) PyLen() int { return len(s.items) }

// Iterate lists the members in order (the jinja engine's Iterable).
func (s *Set) Iterate() ([]any, error) { return s.items, nil }

// PyIter lists the members in order (pyops' Iterable, for `in`).
func (s *Set) PyIter() ([]any, error) { return s.items, nil }

// Items lists the members in order; the slice is the set's own.
func (s *Set) Items() []any { return s.items }

// PyTypeName is "set".
func (s *Set) PyTypeName() string { return "set" }

// Truth is bool(s).
func (s *Set) Truth() bool { return len(s.items) > 0 }

// Repr prints the set as Python does: {1, 2} or set().
func (s *Set) Repr() string {
	if len(s.items) == 0 {
		return "set()"
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, it := range s.items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(value.Repr(it))
	}
	b.WriteByte('}')
	return b.String()
}

// PyStr is str(s), the same as its repr.
func (s *Set) PyStr() string { return s.Repr() }

func setOf(v any) (*Set, error) {
	items, err := iterate(v)
	if err != nil {
		return nil, err
	}
	return NewSet(items)
}

// uniqueList keeps the first of each run of equal items (Python ==).
//
// Salt tests `value not in ret` on a list (quadratic); brine gives the same
// result in linear time: hashable items are looked up in a map, whose keys
// follow Python's equality (1 == 1.0 == True), and only unhashable ones
// (lists, dicts), which equal no hashable item, are compared one by one.
func uniqueList(items []any) *value.List {
	out := make([]any, 0, len(items))
	seen := value.NewMap(0)
	var unhashable []any
outer:
	for _, it := range items {
		if value.Hashable(it) {
			if seen.Has(it) {
				continue
			}
			seen.Set(it, nil)
			out = append(out, it)
			continue
		}
		for _, o := range unhashable {
			if value.Equal(o, it) {
				continue outer
			}
		}
		unhashable = append(unhashable, it)
		out = append(out, it)
	}
	return newList(out)
}

// unique is Salt's replacement of Jinja's unique: a set for hashable input
// (strings, tuples), else the list without repeats in order.
func unique(v any) (any, error) {
	if hashable(v) {
		return setOf(v)
	}
	items, err := iterate(v)
	if err != nil {
		return nil, err
	}
	return uniqueList(items), nil
}

// concat is Python's l1 + l2 for sequences.
func concat(a, b any) (any, error) {
	switch x := a.(type) {
	case *value.List:
		if y, ok := b.(*value.List); ok {
			items := make([]any, 0, len(x.Items)+len(y.Items))
			return newList(append(append(items, x.Items...), y.Items...)), nil
		}
	case value.Tuple:
		if y, ok := b.(value.Tuple); ok {
			return append(append(value.Tuple{}, x...), y...), nil
		}
	case string:
		if y, ok := asString(b); ok {
			return x + y, nil
		}
	}
	switch a.(type) {
	case *value.List, value.Tuple, string:
		return nil, pyErr(excTypeError, "can only concatenate %s (not \"%s\") to %s", typeName(a), typeName(b), typeName(a))
	}
	return nil, pyErr(excTypeError, "unsupported operand type(s) for +: '%s' and '%s'", typeName(a), typeName(b))
}

func setOp(a, b any, op func(x, y *Set) []any) (any, error) {
	x, err := setOf(a)
	if err != nil {
		return nil, err
	}
	y, err := setOf(b)
	if err != nil {
		return nil, err
	}
	return NewSet(op(x, y))
}

func setUnion(x, y *Set) []any {
	return append(append([]any{}, x.items...), y.items...)
}

func setInter(x, y *Set) []any {
	var out []any
	for _, it := range x.items {
		if y.Has(it) {
			out = append(out, it)
		}
	}
	return out
}

func setDiff(x, y *Set) []any {
	var out []any
	for _, it := range x.items {
		if !y.Has(it) {
			out = append(out, it)
		}
	}
	return out
}

func setSymDiff(x, y *Set) []any {
	return append(setDiff(x, y), setDiff(y, x)...)
}

func union(a, b any) (any, error) {
	if hashable(a) && hashable(b) {
		return setOp(a, b, setUnion)
	}
	c, err := concat(a, b)
	if err != nil {
		return nil, err
	}
	return unique(c)
}

// keepIf lists the items of a for which (item in b) == want, without repeats.
func keepIf(a, b any, want bool) (any, error) {
	items, err := iterate(a)
	if err != nil {
		return nil, err
	}
	var out []any
	for _, it := range items {
		in, err := contains(b, it)
		if err != nil {
			return nil, err
		}
		if in == want {
			out = append(out, it)
		}
	}
	return uniqueList(out), nil
}

func intersect(a, b any) (any, error) {
	if hashable(a) && hashable(b) {
		return setOp(a, b, setInter)
	}
	return keepIf(a, b, true)
}

func difference(a, b any) (any, error) {
	if hashable(a) && hashable(b) {
		return setOp(a, b, setDiff)
	}
	return keepIf(a, b, false)
}

func symmetricDifference(a, b any) (any, error) {
	if hashable(a) && hashable(b) {
		return setOp(a, b, setSymDiff)
	}
	u, err := union(a, b)
	if err != nil {
		return nil, err
	}
	in, err := intersect(a, b)
	if err != nil {
		return nil, err
	}
	return keepIf(u, in, false)
}

// extreme is Python's min or max over an iterable.
func extreme(v any, fn string, want int) (any, error) {
	items, err := iterate(v)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, pyErr(excValueError, "%s() arg is an empty sequence", fn)
	}
	best := items[0]
	for _, it := range items[1:] {
		c, err := compare(it, best)
		if err != nil {
			op := "<"
			if want > 0 {
				op = ">"
			}
			return nil, pyErr(excTypeError, "'%s' not supported between instances of '%s' and '%s'", op, typeName(it), typeName(best))
		}
		if c == want {
			best = it
		}
	}
	return best, nil
}

// pySum is Python's sum(items).
func pySum(items []any) (any, error) {
	var acc any = int64(0)
	for _, it := range items {
		if !value.IsNumber(it) {
			return nil, pyErr(excTypeError, "unsupported operand type(s) for +: '%s' and '%s'", typeName(acc), typeName(it))
		}
		if ai, ok := value.AsBig(acc); ok {
			if bi, ok := value.AsBig(it); ok {
				acc = value.NormInt(new(big.Int).Add(ai, bi))
				continue
			}
		}
		acc = value.ToFloat(acc) + value.ToFloat(it)
	}
	return acc, nil
}

func avg(v any) (any, error) {
	if hashable(v) {
		return pyFloat(v)
	}
	items, err := iterate(v)
	if err != nil {
		return nil, err
	}
	s, err := pySum(items)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, pyErr(excZeroDivision, "division by zero")
	}
	if b, ok := value.AsBig(s); ok {
		q := new(big.Float).Quo(new(big.Float).SetInt(b), big.NewFloat(float64(len(items))))
		f, _ := q.Float64()
		return f, nil
	}
	return value.ToFloat(s) / float64(len(items)), nil
}

func init() {
	const src = "salt/utils/jinja.py"
	filter("unique", src, newSig("unique", "values", required), func(b *bound) (any, error) {
		return unique(b.vals[0])
	})
	filter("min", src, newSig("lst_min", "obj", required), func(b *bound) (any, error) {
		return extreme(b.vals[0], "min", -1)
	})
	filter("max", src, newSig("lst_max", "obj", required), func(b *bound) (any, error) {
		return extreme(b.vals[0], "max", 1)
	})
	filter("avg", src, newSig("lst_avg", "lst", required), func(b *bound) (any, error) {
		return avg(b.vals[0])
	})
	two := func(name, py string, op func(a, b any) (any, error)) {
		filter(name, src, newSig(py, "lst1", required, "lst2", required), func(b *bound) (any, error) {
			return op(b.vals[0], b.vals[1])
		})
	}
	two("union", "union", union)
	two("intersect", "intersect", intersect)
	two("difference", "difference", difference)
	two("symmetric_difference", "symmetric_difference", symmetricDifference)
}
