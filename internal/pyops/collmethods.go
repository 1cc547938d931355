package pyops

import (
	"math"
	"math/big"
	"math/bits"
	"slices"

	"brine/internal/value"
)

func init() {
	registerDict()
	registerList()
	registerTuple()
	registerNumber()
}

func registerDict() {
	register("dict", "get", func(recv any, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "dict.get", names: []string{"key", "default"}, required: 1, kwNames: -1}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		if !value.Hashable(a[0]) {
			return nil, typeErr("unhashable type: '%s'", TypeName(a[0]))
		}
		if v, ok := recv.(*value.Map).Get(a[0]); ok {
			return v, nil
		}
		return orNone(a[1]), nil
	})
	register("dict", "items", func(recv any, args []any, kw *value.Map) (any, error) {
		if err := noArgs("dict.items", args, kw); err != nil {
			return nil, err
		}
		m := recv.(*value.Map)
		out := make([]any, 0, m.Len())
		m.Range(func(k, v any) bool {
			out = append(out, value.Tuple{k, v})
			return true
		})
		return value.NewList(out...), nil
	})
	register("dict", "keys", func(recv any, args []any, kw *value.Map) (any, error) {
		if err := noArgs("dict.keys", args, kw); err != nil {
			return nil, err
		}
		return value.NewList(slices.Clone(recv.(*value.Map).Keys())...), nil
	})
	register("dict", "values", func(recv any, args []any, kw *value.Map) (any, error) {
		if err := noArgs("dict.values", args, kw); err != nil {
			return nil, err
		}
		return value.NewList(slices.Clone(recv.(*value.Map).Values())...), nil
	})
	register("dict", "update", func(recv any, args []any, kw *value.Map) (any, error) {
		if len(args) > 1 {
			return nil, typeErr("update expected at most 1 argument, got %d", len(args))
		}
		m := recv.(*value.Map)
		if len(args) == 1 {
			if err := updateFrom(m, args[0]); err != nil {
				return nil, err
			}
		}
		m.Update(kw)
		return nil, nil
	})
	register("dict", "setdefault", func(recv any, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "dict.setdefault", names: []string{"key", "default"}, required: 1, kwNames: -1}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		if !value.Hashable(a[0]) {
			return nil, typeErr("unhashable type: '%s'", TypeName(a[0]))
		}
		m := recv.(*value.Map)
		if v, ok := m.Get(a[0]); ok {
			return v, nil
		}
		d := orNone(a[1])
		m.Set(a[0], d)
		return d, nil
	})
	register("dict", "pop", func(recv any, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "dict.pop", names: []string{"key", "default"}, required: 1, kwNames: -1}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		if !value.Hashable(a[0]) {
			return nil, typeErr("unhashable type: '%s'", TypeName(a[0]))
		}
		if v, ok := recv.(*value.Map).Delete(a[0]); ok {
			return v, nil
		}
		if a[1] != absent {
			return a[1], nil
		}
		return nil, keyErr(a[0])
	})
	register("dict", "popitem", func(recv any, args []any, kw *value.Map) (any, error) {
		if err := noArgs("dict.popitem", args, kw); err != nil {
			return nil, err
		}
		m := recv.(*value.Map)
		if m.Len() == 0 {
			return nil, newErr("KeyError", "'popitem(): dictionary is empty'")
		}
		k, v := m.At(m.Len() - 1)
		m.Delete(k)
		return value.Tuple{k, v}, nil
	})
	register("dict", "copy", func(recv any, args []any, kw *value.Map) (any, error) {
		if err := noArgs("dict.copy", args, kw); err != nil {
			return nil, err
		}
		return recv.(*value.Map).Copy(), nil
	})
	register("dict", "clear", func(recv any, args []any, kw *value.Map) (any, error) {
		if err := noArgs("dict.clear", args, kw); err != nil {
			return nil, err
		}
		recv.(*value.Map).Clear()
		return nil, nil
	})
	register("dict", "fromkeys", func(recv any, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "dict.fromkeys", names: []string{"iterable", "value"}, required: 1, kwNames: -1}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		keys, err := Iterate(a[0])
		if err != nil {
			return nil, err
		}
		v := orNone(a[1])
		m := value.NewMap(len(keys))
		for _, k := range keys {
			if !value.Hashable(k) {
				return nil, typeErr("unhashable type: '%s'", TypeName(k))
			}
			m.Set(k, v)
		}
		return m, nil
	})
}

// updateFrom is dict.update(other): a mapping or an iterable of pairs.
func updateFrom(m *value.Map, other any) error {
	if o, ok := other.(*value.Map); ok {
		m.Update(o)
		return nil
	}
	items, err := Iterate(other)
	if err != nil {
		return err
	}
	for i, it := range items {
		pair, err := Iterate(it)
		if err != nil {
			return typeErr("cannot convert dictionary update sequence element #%d to a sequence", i)
		}
		if len(pair) != 2 {
			return valueErr("dictionary update sequence element #%d has length %d; 2 is required", i, len(pair))
		}
		if !value.Hashable(pair[0]) {
			return typeErr("unhashable type: '%s'", TypeName(pair[0]))
		}
		m.Set(pair[0], pair[1])
	}
	return nil
}

func orNone(v any) any {
	if v == absent {
		return nil
	}
	return v
}

func noArgs(name string, args []any, kw *value.Map) error {
	if kw.Len() > 0 {
		return typeErr("%s() takes no keyword arguments", name)
	}
	if len(args) > 0 {
		return typeErr("%s() takes no arguments (%d given)", name, len(args))
	}
	return nil
}

func registerList() {
	list := func(recv any) *value.List { return recv.(*value.List) }
	register("list", "append", func(recv any, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "list.append", names: []string{"object"}, required: 1, kwNames: -1}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		list(recv).Append(a[0])
		return nil, nil
	})
	register("list", "extend", func(recv any, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "list.extend", names: []string{"iterable"}, required: 1, kwNames: -1}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		items, err := Iterate(a[0])
		if err != nil {
			return nil, err
		}
		l := list(recv)
		l.Items = append(l.Items, items...)
		return nil, nil
	})
	register("list", "insert", func(recv any, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "list.insert", names: []string{"index", "object"}, required: 2, kwNames: -1}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		i, err := argInt(a[0], 0, false)
		if err != nil {
			return nil, err
		}
		l := list(recv)
		n := len(l.Items)
		if i < 0 {
			i = max(i+n, 0)
		}
		i = min(i, n)
		l.Items = slices.Insert(l.Items, i, a[1])
		return nil, nil
	})
	register("list", "remove", func(recv any, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "list.remove", names: []string{"value"}, required: 1, kwNames: -1}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		l := list(recv)
		for i, e := range l.Items {
			if Equal(e, a[0]) {
				l.Items = slices.Delete(l.Items, i, i+1)
				return nil, nil
			}
		}
		return nil, valueErr("list.remove(x): x not in list")
	})
	register("list", "pop", func(recv any, args []any, kw *value.Map) (any, error) {
		a, err := params{name: "list.pop", names: []string{"index"}, kwNames: -1}.bind(args, kw)
		if err != nil {
			return nil, err
		}
		l := list(recv)
		n := len(l.Items)
		i, err := argInt(a[0], n-1, false)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, newErr("IndexError", "pop from empty list")
		}
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return nil, newErr("IndexError", "pop index out of range")
		}
		v := l.Items[i]
		l.Items = slices.Delete(l.Items, i, i+1)
		return v, nil
	})
	register("list", "index", func(recv any, args []any, kw *value.Map) (any, error) {
		return seqIndexOf("list", list(recv).Items, args, kw)
	})
	register("list", "count", func(recv any, args []any, kw *value.Map) (any, error) {
		return seqCount("list", list(recv).Items, args, kw)
	})
	register("list", "reverse", func(recv any, args []any, kw *value.Map) (any, error) {
		if err := noArgs("list.reverse", args, kw); err != nil {
			return nil, err
		}
		slices.Reverse(list(recv).Items)
		return nil, nil
	})
	register("list", "sort", func(recv any, args []any, kw *value.Map) (any, error) {
		if len(args) > 0 {
			return nil, typeErr("sort() takes no positional arguments")
		}
		a, err := params{name: "list.sort", names: []string{"key", "reverse"}, kwNames: 0}.bind(nil, kw)
		if err != nil {
			return nil, err
		}
		var key value.Callable
		if a[0] != absent && a[0] != nil {
			c, ok := a[0].(value.Callable)
			if !ok {
				return nil, typeErr("'%s' object is not callable", TypeName(a[0]))
			}
			key = c
		}
		l := list(recv)
		sorted, err := SortValues(l.Items, key, a[1] != absent && value.Truthy(a[1]))
		if err != nil {
			return nil, err
		}
		l.Items = sorted
		return nil, nil
	})
	register("list", "copy", func(recv any, args []any, kw *value.Map) (any, error) {
		if err := noArgs("list.copy", args, kw); err != nil {
			return nil, err
		}
		return value.NewList(slices.Clone(list(recv).Items)...), nil
	})
	register("list", "clear", func(recv any, args []any, kw *value.Map) (any, error) {
		if err := noArgs("list.clear", args, kw); err != nil {
			return nil, err
		}
		list(recv).Items = nil
		return nil, nil
	})
}

// SortValues returns items sorted as Python's sorted(items, key=key,
// reverse=reverse) does: a stable sort by <, reverse keeping the order of
// equal items. key may be nil.
func SortValues(items []any, key value.Callable, reverse bool) ([]any, error) {
	keys := items
	if key != nil {
		keys = make([]any, len(items))
		for i, it := range items {
			k, err := key.Call([]any{it}, nil)
			if err != nil {
				return nil, err
			}
			keys[i] = k
		}
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	var err error
	less := func(a, b any) bool {
		if err != nil {
			return false
		}
		lt, e := Less(a, b)
		if e != nil {
			err = e
		}
		return lt
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		a, b := keys[i], keys[j]
		if reverse {
			a, b = b, a
		}
		if less(a, b) {
			return -1
		}
		if less(b, a) {
			return 1
		}
		return 0
	})
	if err != nil {
		return nil, err
	}
	out := make([]any, len(items))
	for i, j := range idx {
		out[i] = items[j]
	}
	return out, nil
}

func seqIndexOf(typ string, items []any, args []any, kw *value.Map) (any, error) {
	a, err := params{name: typ + ".index", names: []string{"value", "start", "stop"}, required: 1, kwNames: -1}.bind(args, kw)
	if err != nil {
		return nil, err
	}
	lo, hi, err := clampRange(len(items), a[1], a[2])
	if err != nil {
		return nil, err
	}
	for i := lo; i < hi; i++ {
		if Equal(items[i], a[0]) {
			return int64(i), nil
		}
	}
	if typ == "tuple" {
		return nil, valueErr("tuple.index(x): x not in tuple")
	}
	return nil, valueErr("%s is not in list", value.Repr(a[0]))
}

func seqCount(typ string, items []any, args []any, kw *value.Map) (any, error) {
	a, err := params{name: typ + ".count", names: []string{"value"}, required: 1, kwNames: -1}.bind(args, kw)
	if err != nil {
		return nil, err
	}
	var n int64
	for _, e := range items {
		if Equal(e, a[0]) {
			n++
		}
	}
	return n, nil
}

// clampRange resolves optional start and end arguments as slices do.
func clampRange(n int, start, end any) (int, int, error) {
	lo, err := argInt(start, 0, true)
	if err != nil {
		return 0, 0, err
	}
	hi, err := argInt(end, n, true)
	if err != nil {
		return 0, 0, err
	}
	if lo < 0 {
		lo = max(lo+n, 0)
	}
	if hi < 0 {
		hi = max(hi+n, 0)
	}
	return min(lo, n), min(hi, n), nil
}

func registerTuple() {
	register("tuple", "index", func(recv any, args []any, kw *value.Map) (any, error) {
		return seqIndexOf("tuple", recv.(value.Tuple), args, kw)
	})
	register("tuple", "count", func(recv any, args []any, kw *value.Map) (any, error) {
		return seqCount("tuple", recv.(value.Tuple), args, kw)
	})
}

func registerNumber() {
	register("int", "bit_length", func(recv any, args []any, kw *value.Map) (any, error) {
		if err := noArgs("int.bit_length", args, kw); err != nil {
			return nil, err
		}
		n := toNum(recv).big()
		return int64(n.BitLen()), nil
	})
	register("int", "conjugate", func(recv any, args []any, kw *value.Map) (any, error) {
		if err := noArgs("int.conjugate", args, kw); err != nil {
			return nil, err
		}
		return UnaryOp("+", recv)
	})
	register("int", "bit_count", func(recv any, args []any, kw *value.Map) (any, error) {
		if err := noArgs("int.bit_count", args, kw); err != nil {
			return nil, err
		}
		n := new(big.Int).Abs(toNum(recv).big())
		c := 0
		for _, w := range n.Bits() {
			c += bits.OnesCount(uint(w))
		}
		return int64(c), nil
	})
	register("int", "as_integer_ratio", func(recv any, args []any, kw *value.Map) (any, error) {
		if err := noArgs("int.as_integer_ratio", args, kw); err != nil {
			return nil, err
		}
		v, _ := UnaryOp("+", recv)
		return value.Tuple{v, int64(1)}, nil
	})
	register("float", "as_integer_ratio", func(recv any, args []any, kw *value.Map) (any, error) {
		if err := noArgs("float.as_integer_ratio", args, kw); err != nil {
			return nil, err
		}
		f := recv.(float64)
		switch {
		case math.IsInf(f, 0):
			return nil, newErr("OverflowError", "cannot convert Infinity to integer ratio")
		case math.IsNaN(f):
			return nil, valueErr("cannot convert NaN to integer ratio")
		}
		r := new(big.Rat).SetFloat64(f)
		return value.Tuple{value.NormInt(new(big.Int).Set(r.Num())), value.NormInt(new(big.Int).Set(r.Denom()))}, nil
	})
	register("float", "is_integer", func(recv any, args []any, kw *value.Map) (any, error) {
		if err := noArgs("float.is_integer", args, kw); err != nil {
			return nil, err
		}
		f := recv.(float64)
		return !math.IsInf(f, 0) && f == math.Trunc(f), nil
	})
	register("float", "conjugate", func(recv any, args []any, kw *value.Map) (any, error) {
		if err := noArgs("float.conjugate", args, kw); err != nil {
			return nil, err
		}
		return recv, nil
	})
}
