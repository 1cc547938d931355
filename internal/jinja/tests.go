package jinja

import (
	"math"
	"math/big"
	"strings"

	"brine/internal/pyops"
	"brine/internal/value"
)

var builtinTests = map[string]testEntry{}

func regTest(name string, f TestFunc)    { builtinTests[name] = testEntry{fn: f} }
func regRawTest(name string, f TestFunc) { builtinTests[name] = testEntry{fn: f, raw: true} }

func regCtxTest(name string, f ContextTestFunc) { builtinTests[name] = testEntry{cfn: f} }

func arg0(name string, args []any, kw *value.Map, pname string) (any, error) {
	a, err := bind(name, args, kw, pname)
	if err != nil {
		return nil, err
	}
	if isMissing(a[0]) {
		return nil, errType("%s() missing 1 required positional argument: %s", name, pyQuote(pname))
	}
	return a[0], nil
}

func cmpTest(op string) TestFunc {
	return func(v any, args []any, kw *value.Map) (bool, error) {
		o, err := arg0("test", args, kw, "other")
		if err != nil {
			return false, err
		}
		if u, ok := o.(*Undefined); ok {
			return false, u.err()
		}
		return pyops.Compare(op, unmark(v), unmark(o))
	}
}

func isInteger(v any) bool {
	switch v.(type) {
	case int64, *big.Int, int:
		return true
	}
	return false
}

func init() {
	regTest("odd", func(v any, a []any, kw *value.Map) (bool, error) {
		r, err := pyops.BinaryOp("%", v, int64(2))
		if err != nil {
			return false, err
		}
		return value.Equal(r, int64(1)), nil
	})
	regTest("even", func(v any, a []any, kw *value.Map) (bool, error) {
		r, err := pyops.BinaryOp("%", v, int64(2))
		if err != nil {
			return false, err
		}
		return value.Equal(r, int64(0)), nil
	})
	regTest("divisibleby", func(v any, a []any, kw *value.Map) (bool, error) {
		n, err := arg0("divisibleby", a, kw, "num")
		if err != nil {
			return false, err
		}
		r, err := pyops.BinaryOp("%", v, n)
		if err != nil {
			return false, err
		}
		return value.Equal(r, int64(0)), nil
	})
	regRawTest("defined", func(v any, a []any, kw *value.Map) (bool, error) {
		_, u := v.(*Undefined)
		return !u, nil
	})
	regRawTest("undefined", func(v any, a []any, kw *value.Map) (bool, error) {
		_, u := v.(*Undefined)
		return u, nil
	})
	regCtxTest("filter", func(c *Context, v any, a []any, kw *value.Map) (bool, error) {
		if !value.Hashable(v) {
			return false, errType("unhashable type: '%s'", pyops.TypeName(v))
		}
		s, ok := v.(string)
		return ok && c.Env().HasFilter(s), nil
	})
	regCtxTest("test", func(c *Context, v any, a []any, kw *value.Map) (bool, error) {
		if !value.Hashable(v) {
			return false, errType("unhashable type: '%s'", pyops.TypeName(v))
		}
		s, ok := v.(string)
		return ok && c.Env().HasTest(s), nil
	})
	regRawTest("none", func(v any, a []any, kw *value.Map) (bool, error) { return v == nil, nil })
	regRawTest("boolean", func(v any, a []any, kw *value.Map) (bool, error) { _, ok := v.(bool); return ok, nil })
	regRawTest("false", func(v any, a []any, kw *value.Map) (bool, error) { return v == false, nil })
	regRawTest("true", func(v any, a []any, kw *value.Map) (bool, error) { return v == true, nil })
	regRawTest("integer", func(v any, a []any, kw *value.Map) (bool, error) { return isInteger(v), nil })
	regRawTest("float", func(v any, a []any, kw *value.Map) (bool, error) { _, ok := v.(float64); return ok, nil })
	regTest("lower", func(v any, a []any, kw *value.Map) (bool, error) {
		s := pyStrOf(v)
		r, _, err := pyops.CallMethod(s, "islower", nil, nil)
		return r == true, err
	})
	regTest("upper", func(v any, a []any, kw *value.Map) (bool, error) {
		s := pyStrOf(v)
		r, _, err := pyops.CallMethod(s, "isupper", nil, nil)
		return r == true, err
	})
	regRawTest("string", func(v any, a []any, kw *value.Map) (bool, error) {
		switch v.(type) {
		case string, Markup:
			return true, nil
		}
		return false, nil
	})
	regRawTest("mapping", func(v any, a []any, kw *value.Map) (bool, error) { _, ok := v.(*value.Map); return ok, nil })
	regRawTest("number", func(v any, a []any, kw *value.Map) (bool, error) {
		switch v.(type) {
		case int64, *big.Int, float64, bool, int:
			return true, nil
		}
		return false, nil
	})
	builtinTests["sequence"] = testEntry{raw: true, cfn: func(c *Context, v any, a []any, kw *value.Map) (bool, error) {
		switch x := v.(type) {
		case string, Markup, *value.List, value.Tuple, *value.Map, []byte, *groupTuple:
			return true, nil
		case *Undefined:
			return !c.r.strict(x), nil
		}
		return false, nil
	}}
	builtinTests["iterable"] = testEntry{raw: true, cfn: func(c *Context, v any, a []any, kw *value.Map) (bool, error) {
		switch x := v.(type) {
		case string, Markup, *value.List, value.Tuple, *value.Map, []byte, Iterable:
			return true, nil
		case *Undefined:
			if c.r.strict(x) {
				return false, x.err()
			}
			return true, nil
		}
		return false, nil
	}}
	regRawTest("callable", func(v any, a []any, kw *value.Map) (bool, error) {
		switch v.(type) {
		case value.Callable, ContextCallable, *Undefined:
			return true, nil
		}
		return false, nil
	})
	regRawTest("sameas", func(v any, a []any, kw *value.Map) (bool, error) {
		o, err := arg0("sameas", a, kw, "other")
		if err != nil {
			return false, err
		}
		return sameAs(v, o), nil
	})
	regRawTest("escaped", func(v any, a []any, kw *value.Map) (bool, error) { _, ok := v.(Markup); return ok, nil })
	regCtxTest("in", func(c *Context, v any, a []any, kw *value.Map) (bool, error) {
		seq, err := arg0("in", a, kw, "seq")
		if err != nil {
			return false, err
		}
		return c.r.compare("in", v, seq)
	})
	for _, n := range []string{"==", "eq", "equalto"} {
		regTest(n, cmpTest("=="))
	}
	for _, n := range []string{"!=", "ne"} {
		regTest(n, cmpTest("!="))
	}
	for _, n := range []string{">", "gt", "greaterthan"} {
		regTest(n, cmpTest(">"))
	}
	for _, n := range []string{">=", "ge"} {
		regTest(n, cmpTest(">="))
	}
	for _, n := range []string{"<", "lt", "lessthan"} {
		regTest(n, cmpTest("<"))
	}
	for _, n := range []string{"<=", "le"} {
		regTest(n, cmpTest("<="))
	}
}

// sameAs approximates Python's `is`.
func sameAs(a, b any) bool {
	switch x := a.(type) {
	case nil, bool:
		return a == b
	case int64:
		y, ok := b.(int64)
		return ok && x == y && x >= -5 && x <= 256
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || math.IsNaN(x) && math.IsNaN(y)) && false
	case string:
		y, ok := b.(string)
		return ok && x == y && (len(x) <= 1 || isIdentLike(x))
	case *value.Map, *value.List, *Undefined, *Macro, *Namespace:
		return a == b
	}
	return false
}

func isIdentLike(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0
}
