package pyops

import (
	"unicode/utf8"

	"brine/internal/value"
)

// Len is Python's len(v); strings count code points.
func Len(v any) (int, error) {
	switch x := v.(type) {
	case string:
		return utf8.RuneCountInString(x), nil
	case []byte:
		return len(x), nil
	case *value.List:
		return x.Len(), nil
	case value.Tuple:
		return len(x), nil
	case *value.Map:
		return x.Len(), nil
	case Sized:
		return x.PyLen(), nil
	}
	return 0, typeErr("object of type '%s' has no len()", TypeName(v))
}

// isASCII reports whether s holds only ASCII, so that byte offsets are code
// point offsets.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// index converts an index operand to an int; ok is false for non-ints.
func index(v any) (int64, bool, error) {
	n := toNum(v)
	switch n.kind {
	case smallInt:
		return n.i, true, nil
	case bigInt:
		return 0, true, newErr("IndexError", "cannot fit 'int' into an index-sized integer")
	}
	return 0, false, nil
}

// GetItem is Python's obj[key] for an index or a dict key.
func GetItem(obj, key any) (any, error) {
	switch x := obj.(type) {
	case *value.Map:
		if !value.Hashable(key) {
			return nil, typeErr("unhashable type: '%s'", TypeName(key))
		}
		if v, ok := x.Get(key); ok {
			return v, nil
		}
		return nil, keyErr(key)
	case *value.List:
		i, err := seqIndex("list", x.Len(), key)
		if err != nil {
			return nil, err
		}
		return x.Items[i], nil
	case value.Tuple:
		i, err := seqIndex("tuple", len(x), key)
		if err != nil {
			return nil, err
		}
		return x[i], nil
	case []byte:
		i, err := seqIndex("byte", len(x), key)
		if err != nil {
			return nil, err
		}
		return int64(x[i]), nil
	case string:
		if isASCII(x) {
			i, err := seqIndex("string", len(x), key)
			if err != nil {
				return nil, err
			}
			return x[i : i+1], nil
		}
		rs := []rune(x)
		i, err := seqIndex("string", len(rs), key)
		if err != nil {
			return nil, err
		}
		return string(rs[i]), nil
	}
	return nil, typeErr("'%s' object is not subscriptable", TypeName(obj))
}

// seqIndex resolves a possibly negative index into [0, n).
func seqIndex(what string, n int, key any) (int, error) {
	i, ok, err := index(key)
	if !ok {
		if what == "string" {
			return 0, typeErr("string indices must be integers, not '%s'", TypeName(key))
		}
		return 0, typeErr("%s indices must be integers or slices, not %s", what, TypeName(key))
	}
	if err != nil {
		return 0, err
	}
	if i < 0 {
		i += int64(n)
	}
	if i < 0 || i >= int64(n) {
		if what == "byte" {
			return 0, newErr("IndexError", "index out of range")
		}
		return 0, newErr("IndexError", "%s index out of range", what)
	}
	return int(i), nil
}

// sliceIndices is CPython's PySlice_GetIndicesEx: it resolves optional
// start, stop and step against a length.
func sliceIndices(n int, start, stop, step any) (lo, hi, st, count int, err error) {
	get := func(v any) (int64, bool, error) {
		if v == nil {
			return 0, false, nil
		}
		nv := toNum(v)
		switch nv.kind {
		case smallInt:
			return nv.i, true, nil
		case bigInt:
			// Clamp: huge slice bounds behave like +/- infinity.
			if nv.b.Sign() > 0 {
				return 1 << 62, true, nil
			}
			return -1 << 62, true, nil
		}
		return 0, false, typeErr("slice indices must be integers or None or have an __index__ method")
	}
	s, hasStep, err := get(step)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	if !hasStep {
		s = 1
	}
	if s == 0 {
		return 0, 0, 0, 0, valueErr("slice step cannot be zero")
	}
	a, hasStart, err := get(start)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	b, hasStop, err := get(stop)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	ln := int64(n)
	adjust := func(v int64, has bool, dflt int64) int64 {
		if !has {
			return dflt
		}
		if v < 0 {
			v += ln
			if v < 0 {
				if s < 0 {
					return -1
				}
				return 0
			}
		} else if v >= ln {
			if s < 0 {
				return ln - 1
			}
			return ln
		}
		return v
	}
	var a2, b2 int64
	if s > 0 {
		a2, b2 = adjust(a, hasStart, 0), adjust(b, hasStop, ln)
	} else {
		a2, b2 = adjust(a, hasStart, ln-1), adjust(b, hasStop, -1)
	}
	var c int64
	switch {
	case s > 0 && a2 < b2:
		c = (b2-a2-1)/s + 1
	case s < 0 && b2 < a2:
		c = (a2-b2-1)/(-s) + 1
	}
	return int(a2), int(b2), int(s), int(c), nil
}

// Slice is Python's obj[start:stop:step]; nil bounds are omitted ones.
func Slice(obj, start, stop, step any) (any, error) {
	switch x := obj.(type) {
	case *value.Map:
		return nil, typeErr("unhashable type: 'slice'")
	case *value.List:
		lo, _, st, c, err := sliceIndices(x.Len(), start, stop, step)
		if err != nil {
			return nil, err
		}
		return value.NewList(pick(x.Items, lo, st, c)...), nil
	case value.Tuple:
		lo, _, st, c, err := sliceIndices(len(x), start, stop, step)
		if err != nil {
			return nil, err
		}
		return value.Tuple(pick(x, lo, st, c)), nil
	case []byte:
		lo, _, st, c, err := sliceIndices(len(x), start, stop, step)
		if err != nil {
			return nil, err
		}
		out := make([]byte, c)
		for k := range c {
			out[k] = x[lo+k*st]
		}
		return out, nil
	case string:
		if isASCII(x) {
			lo, hi, st, c, err := sliceIndices(len(x), start, stop, step)
			if err != nil {
				return nil, err
			}
			if st == 1 {
				if c == 0 {
					return "", nil
				}
				return x[lo:hi], nil
			}
			out := make([]byte, c)
			for k := range c {
				out[k] = x[lo+k*st]
			}
			return string(out), nil
		}
		rs := []rune(x)
		lo, _, st, c, err := sliceIndices(len(rs), start, stop, step)
		if err != nil {
			return nil, err
		}
		out := make([]rune, c)
		for k := range c {
			out[k] = rs[lo+k*st]
		}
		return string(out), nil
	}
	return nil, typeErr("'%s' object is not subscriptable", TypeName(obj))
}

func pick(items []any, lo, st, c int) []any {
	out := make([]any, c)
	for k := range c {
		out[k] = items[lo+k*st]
	}
	return out
}
