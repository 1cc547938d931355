package pyops

import (
	"math/big"
	"sort"
	"strings"

	"brine/internal/value"
)

// methodFunc implements one Python method; recv is the receiver.
type methodFunc func(recv any, args []any, kw *value.Map) (any, error)

// methods maps a Python type name to its methods.
var methods = map[string]map[string]methodFunc{}

// register adds a method; it panics on a duplicate, at init time.
func register(typ, name string, f methodFunc) {
	m := methods[typ]
	if m == nil {
		m = map[string]methodFunc{}
		methods[typ] = m
	}
	if _, dup := m[name]; dup {
		panic("pyops: duplicate method " + typ + "." + name)
	}
	m[name] = f
}

// recvType names the method table for obj ("" when it has none).
func recvType(obj any) string {
	switch obj.(type) {
	case string:
		return "str"
	case []byte:
		return "bytes"
	case *value.Map:
		return "dict"
	case *value.List:
		return "list"
	case value.Tuple:
		return "tuple"
	case int64, int, *big.Int, bool:
		return "int"
	case float64:
		return "float"
	}
	return ""
}

func lookupMethod(obj any, name string) methodFunc {
	return methods[recvType(obj)][name]
}

// HasMethod reports whether obj has a Python method called name that
// CallMethod implements.
func HasMethod(obj any, name string) bool { return lookupMethod(obj, name) != nil }

// CallMethod calls obj.name(*args, **kwargs) with Python semantics; found
// is false when the type has no such method (the caller then raises its
// own AttributeError or falls back to item lookup). Methods of dict and
// list mutate the receiver in place. kwargs may be nil.
func CallMethod(obj any, name string, args []any, kwargs *value.Map) (result any, found bool, err error) {
	f := lookupMethod(obj, name)
	if f == nil {
		return nil, false, nil
	}
	r, err := f(obj, args, kwargs)
	return r, true, err
}

// BoundMethod returns obj.name as a callable, for templates that take a
// method without calling it at once.
func BoundMethod(obj any, name string) (value.Callable, bool) {
	f := lookupMethod(obj, name)
	if f == nil {
		return nil, false
	}
	return value.Func(func(args []any, kw *value.Map) (any, error) { return f(obj, args, kw) }), true
}

// MethodNames lists the methods of obj's type in sorted order.
func MethodNames(obj any) []string {
	m := methods[recvType(obj)]
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// absent marks a parameter the caller did not pass.
type absentT struct{}

var absent any = absentT{}

// params describes a method's parameters for bind.
type params struct {
	name     string   // method name for messages
	names    []string // parameter names, in order
	required int      // how many leading parameters are required
	kwNames  int      // parameters from this index on may be passed by keyword; -1: none
}

// bind matches args and kwargs to p's parameters; missing ones are absent.
func (p params) bind(args []any, kw *value.Map) ([]any, error) {
	n := len(p.names)
	bare := p.name[strings.IndexByte(p.name, '.')+1:]
	if len(args) > n {
		switch {
		case n == 0:
			return nil, typeErr("%s() takes no arguments (%d given)", p.name, len(args))
		case n == p.required && n == 1:
			return nil, typeErr("%s() takes exactly one argument (%d given)", p.name, len(args))
		case n == p.required:
			return nil, typeErr("%s expected %d arguments, got %d", bare, n, len(args))
		}
		return nil, typeErr("%s expected at most %d arguments, got %d", bare, n, len(args))
	}
	if len(args) == n && kw.Len() == 0 {
		return args, nil // every parameter given by position
	}
	out := make([]any, n)
	copy(out, args)
	for i := len(args); i < n; i++ {
		out[i] = absent
	}
	if kw.Len() > 0 {
		if p.kwNames < 0 {
			return nil, typeErr("%s() takes no keyword arguments", p.name)
		}
		var err error
		kw.Range(func(k, v any) bool {
			ks, _ := k.(string)
			for i := p.kwNames; i < n; i++ {
				if p.names[i] == ks {
					if out[i] != absent {
						err = typeErr("argument for %s() given by name ('%s') and position (%d)", bare, ks, i+1)
						return false
					}
					out[i] = v
					return true
				}
			}
			err = typeErr("'%s' is an invalid keyword argument for %s()", ks, bare)
			return false
		})
		if err != nil {
			return nil, err
		}
	}
	for i := 0; i < p.required; i++ {
		if out[i] == absent {
			if len(args) < p.required && kw.Len() == 0 {
				if p.required == n && n == 1 {
					return nil, typeErr("%s() takes exactly one argument (%d given)", p.name, len(args))
				}
				if p.required == n {
					return nil, typeErr("%s expected %d arguments, got %d", bare, n, len(args))
				}
				return nil, typeErr("%s expected at least %d argument%s, got %d", bare, p.required, plural(p.required), len(args))
			}
			return nil, typeErr("%s() missing required argument '%s' (pos %d)", bare, p.names[i], i+1)
		}
	}
	return out, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// argInt converts an optional int argument; dflt when absent (or None
// when noneOK).
func argInt(v any, dflt int, noneOK bool) (int, error) {
	if v == absent || (noneOK && v == nil) {
		return dflt, nil
	}
	n := toNum(v)
	switch n.kind {
	case smallInt:
		if n.i > 1<<62 {
			return 1 << 62, nil
		}
		if n.i < -1<<62 {
			return -1 << 62, nil
		}
		return int(n.i), nil
	case bigInt:
		if noneOK {
			// Slice-style bounds clamp.
			if n.b.Sign() > 0 {
				return 1 << 62, nil
			}
			return -1 << 62, nil
		}
		return 0, newErr("OverflowError", "Python int too large to convert to C ssize_t")
	}
	if noneOK {
		return 0, typeErr("slice indices must be integers or None or have an __index__ method")
	}
	return 0, typeErr("'%s' object cannot be interpreted as an integer", TypeName(v))
}

// Iterable lets a foreign type (a Jinja loop or generator) be iterated by
// Iterate, and so by list.extend, str.join, dict.update and `in`.
type Iterable interface {
	PyIter() ([]any, error)
}

// Sized lets a foreign type answer Len.
type Sized interface {
	PyLen() int
}

// Iterate returns the items Python's iter(v) yields: list and tuple items,
// dict keys, the characters of a str, the ints of bytes. The slice may be
// the container's own; do not modify it.
func Iterate(v any) ([]any, error) {
	switch x := v.(type) {
	case *value.List:
		return x.Items, nil
	case value.Tuple:
		return x, nil
	case *value.Map:
		return x.Keys(), nil
	case string:
		out := make([]any, 0, len(x))
		for _, r := range x {
			out = append(out, string(r))
		}
		return out, nil
	case []byte:
		out := make([]any, len(x))
		for i, c := range x {
			out[i] = int64(c)
		}
		return out, nil
	case Iterable:
		return x.PyIter()
	}
	return nil, typeErr("'%s' object is not iterable", TypeName(v))
}
