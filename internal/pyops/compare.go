package pyops

import (
	"strings"

	"brine/internal/value"
)

// Compare applies a Python comparison operator: == != < <= > >=.
func Compare(op string, a, b any) (bool, error) {
	switch op {
	case "==":
		return Equal(a, b), nil
	case "!=":
		return !Equal(a, b), nil
	case "<", "<=", ">", ">=":
		c, ok, err := order(op, a, b)
		if err != nil || !ok {
			return false, err
		}
		switch op {
		case "<":
			return c < 0, nil
		case "<=":
			return c <= 0, nil
		case ">":
			return c > 0, nil
		}
		return c >= 0, nil
	}
	return false, valueErr("unknown comparison operator %s", op)
}

// Less reports a < b as Python's sorted() needs it.
func Less(a, b any) (bool, error) { return Compare("<", a, b) }

// Cmp returns -1, 0 or 1 as a is less than, equal to or greater than b
// under Python ordering (NaN compares as equal to everything).
func Cmp(a, b any) (int, error) {
	c, _, err := order("<", a, b)
	return c, err
}

// order compares a and b for an ordering operator; ok is false when the
// comparison is unordered (NaN), which makes every ordering false.
func order(op string, a, b any) (c int, ok bool, err error) {
	na, nb := toNum(a), toNum(b)
	if na.kind != notNum && nb.kind != notNum {
		c, ok = numCmp(na, nb)
		return c, ok, nil
	}
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			// Byte order of UTF-8 is code point order.
			return strings.Compare(x, y), true, nil
		}
	case []byte:
		if y, ok := b.([]byte); ok {
			return strings.Compare(string(x), string(y)), true, nil
		}
	case *value.List:
		if y, ok := b.(*value.List); ok {
			return seqOrder(op, x.Items, y.Items)
		}
	case value.Tuple:
		if y, ok := b.(value.Tuple); ok {
			return seqOrder(op, x, y)
		}
	}
	return 0, false, typeErr("'%s' not supported between instances of '%s' and '%s'", op, TypeName(a), TypeName(b))
}

func seqOrder(op string, a, b []any) (int, bool, error) {
	for i := 0; i < len(a) && i < len(b); i++ {
		if Equal(a[i], b[i]) {
			continue
		}
		return order(op, a[i], b[i])
	}
	switch {
	case len(a) < len(b):
		return -1, true, nil
	case len(a) > len(b):
		return 1, true, nil
	}
	return 0, true, nil
}

// Contains is Python's item in container.
func Contains(container, item any) (bool, error) {
	switch c := container.(type) {
	case string:
		s, ok := item.(string)
		if !ok {
			return false, typeErr("'in <string>' requires string as left operand, not %s", TypeName(item))
		}
		return strings.Contains(c, s), nil
	case []byte:
		switch s := item.(type) {
		case []byte:
			return strings.Contains(string(c), string(s)), nil
		case int64, int, bool:
			n := toNum(s).i
			if n < 0 || n > 255 {
				return false, valueErr("byte must be in range(0, 256)")
			}
			return strings.IndexByte(string(c), byte(n)) >= 0, nil
		}
		return false, typeErr("a bytes-like object is required, not '%s'", TypeName(item))
	case *value.List:
		return seqContains(c.Items, item), nil
	case value.Tuple:
		return seqContains(c, item), nil
	case *value.Map:
		if !value.Hashable(item) {
			return false, typeErr("unhashable type: '%s'", TypeName(item))
		}
		return c.Has(item), nil
	case Iterable:
		items, err := c.PyIter()
		if err != nil {
			return false, err
		}
		return seqContains(items, item), nil
	}
	return false, typeErr("argument of type '%s' is not iterable", TypeName(container))
}

func seqContains(items []any, item any) bool {
	for _, e := range items {
		if Equal(e, item) {
			return true
		}
	}
	return false
}

// Equal is Python's ==. Unlike value.Equal it compares ints and floats
// exactly (2**53 + 1 != 2.0**53), also inside containers.
func Equal(a, b any) bool {
	na, nb := toNum(a), toNum(b)
	if na.kind != notNum && nb.kind != notNum {
		c, ok := numCmp(na, nb)
		return ok && c == 0
	}
	switch x := a.(type) {
	case *value.List:
		y, ok := b.(*value.List)
		return ok && (x == y || seqEqual(x.Items, y.Items))
	case value.Tuple:
		y, ok := b.(value.Tuple)
		return ok && seqEqual(x, y)
	case *value.Map:
		y, ok := b.(*value.Map)
		if !ok || x.Len() != y.Len() {
			return false
		}
		eq := true
		x.Range(func(k, v any) bool {
			w, found := y.Get(k)
			eq = found && Equal(v, w)
			return eq
		})
		return eq
	case nil, string, []byte:
		return value.Equal(a, b)
	}
	return identical(a, b)
}

// identical compares foreign values with Go's ==, which panics for
// uncomparable dynamic types (functions, slices): those are never equal
// unless they are the same interface value, which Go cannot tell; call them
// different.
func identical(a, b any) (eq bool) {
	defer func() {
		if recover() != nil {
			eq = false
		}
	}()
	return a == b
}

func seqEqual(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
