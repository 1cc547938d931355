package jinjasalt

import (
	"brine/internal/pyops"
	"brine/internal/value"
)

// Salt's Jinja globals (raise, odict, show_full_context) and the
// method_call filter.

// odict is OrderedDict(...): from a mapping or (key, value) pairs, then
// keyword arguments.
func odict(args []any, kw *value.Map) (any, error) {
	if len(args) > 1 {
		return nil, pyErr(excTypeError, "expected at most 1 arguments, got %d", len(args))
	}
	m := value.NewMap(4)
	if len(args) == 1 {
		switch x := args[0].(type) {
		case *value.Map:
			m.Update(x)
		default:
			items, err := iterate(x)
			if err != nil {
				return nil, err
			}
			for i, it := range items {
				pair, err := iterate(it)
				if err != nil {
					return nil, pyErr(excTypeError, "cannot convert dictionary update sequence element #%d to a sequence", i)
				}
				if len(pair) != 2 {
					return nil, pyErr(excValueError, "dictionary update sequence element #%d has length %d; 2 is required", i, len(pair))
				}
				if !value.Hashable(pair[0]) {
					return nil, pyErr(excTypeError, "unhashable type: '%s'", typeName(pair[0]))
				}
				m.Set(pair[0], pair[1])
			}
		}
	}
	m.Update(kw)
	return m, nil
}

// raiseGlobal is Salt's raise(): a TemplateError with the message.
func raiseGlobal(args []any, kw *value.Map) (any, error) {
	b, err := newSig("jinja_raise", "msg", required).bind(args, kw)
	if err != nil {
		return nil, err
	}
	return nil, pyErr(excTemplateError, "%s", pyStr(b.vals[0]))
}

// simpleTypes is salt.utils.data.simple_types_filter: containers kept,
// scalars of other types turned into their repr.
func simpleTypes(v any) any {
	switch x := v.(type) {
	case nil, string, bool, int64, int, float64:
		return v
	case *value.List:
		out := make([]any, len(x.Items))
		for i, e := range x.Items {
			out[i] = simpleValue(e)
		}
		return newList(out)
	case value.Tuple:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = simpleValue(e)
		}
		return newList(out)
	case *value.Map:
		m := value.NewMap(x.Len())
		x.Range(func(k, e any) bool {
			switch k.(type) {
			case nil, string, bool, int64, int, float64:
			default:
				k = value.Repr(k)
			}
			m.Set(k, simpleValue(e))
			return true
		})
		return m
	}
	return v
}

func simpleValue(e any) any {
	switch e.(type) {
	case nil, string, bool, int64, int, float64:
		return e
	case *value.Map, *value.List, value.Tuple:
		return simpleTypes(e)
	}
	if value.IsNumber(e) {
		return e
	}
	return value.Repr(e)
}

// methodCall is Salt's method_call filter: obj.f_name(*args, **kwargs), or
// None when obj has no such method.
func methodCall(args []any, kw *value.Map) (any, error) {
	if len(args) < 2 {
		return nil, pyErr(excTypeError, "method_call() missing %d required positional argument", 2-len(args))
	}
	name, ok := asString(args[1])
	if !ok {
		return nil, pyErr(excTypeError, "attribute name must be string, not '%s'", typeName(args[1]))
	}
	if g, ok := args[0].(interface{ Getattr(string) (any, bool) }); ok {
		if fn, ok := g.Getattr(name); ok {
			if c, ok := fn.(value.Callable); ok {
				return c.Call(args[2:], kw)
			}
			return nil, pyErr(excTypeError, "'%s' object is not callable", typeName(fn))
		}
		return nil, nil
	}
	v, found, err := pyops.CallMethod(args[0], name, args[2:], kw)
	if !found {
		return nil, nil
	}
	return v, err
}

func init() {
	register(Global, "raise", "salt/utils/jinja.py", raiseGlobal)
	register(Global, "odict", "salt/utils/odict.py", odict)
	register(Filter, "method_call", "salt/utils/jinja.py", methodCall)
}
