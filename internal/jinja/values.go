package jinja

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"sync/atomic"

	"brine/internal/pyops"
	"brine/internal/value"
)

// Getattrer is implemented by caller-supplied objects that expose
// attributes to templates (obj.name). ok=false means "no such attribute".
type Getattrer interface {
	Getattr(name string) (v any, ok bool)
}

// Getitemer is implemented by caller-supplied objects that support
// subscription (obj[key]). ok=false means "no such item".
type Getitemer interface {
	Getitem(key any) (v any, ok bool, err error)
}

// Iterable is implemented by caller-supplied objects that templates may
// loop over.
type Iterable interface {
	Iterate() ([]any, error)
}

// ContextCallable is a callable that also receives the render context
// (like Jinja's @pass_context functions).
type ContextCallable interface {
	CallContext(ctx *Context, args []any, kwargs *value.Map) (any, error)
}

// Undefined is the value of a name or attribute that does not exist.
type Undefined struct {
	name     any // string, or a key for item lookups
	obj      any
	hasObj   bool
	hint     string
	security bool
	lenient  bool   // always lenient (the else-less inline if)
	objName  string // the name of obj in the message, when the render gives one
}

func undefinedName(name string) *Undefined { return &Undefined{name: name} }

func undefinedAttr(obj, name any) *Undefined { return &Undefined{name: name, obj: obj, hasObj: true} }

// Message is Jinja's description of the undefined value.
func (u *Undefined) Message() string {
	if u.hint != "" {
		return u.hint
	}
	if !u.hasObj {
		return fmt.Sprintf("%s is undefined", value.Repr(u.name))
	}
	obj := u.objName
	if obj == "" {
		obj = objectTypeRepr(u.obj)
	}
	if _, ok := u.name.(string); !ok {
		return fmt.Sprintf("%s has no element %s", obj, value.Repr(u.name))
	}
	return fmt.Sprintf("%s has no attribute %s", value.Repr(obj), value.Repr(u.name))
}

func (u *Undefined) err() *Error {
	if u.security {
		return newError(KindSecurity, "SecurityError", u.Message())
	}
	return newError(KindUndefined, "UndefinedError", u.Message())
}

// PyTypeName names the type for pyops error messages.
func (u *Undefined) PyTypeName() string { return "Undefined" }

// Repr is Python's repr of a Jinja Undefined.
func (u *Undefined) Repr() string { return "Undefined" }

// PyStr is str(Undefined) in the lenient mode.
func (u *Undefined) PyStr() string { return "" }

// Truth is bool(Undefined) in the lenient mode.
func (u *Undefined) Truth() bool { return false }

// objectTypeRepr is Jinja's object_type_repr.
func objectTypeRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case ObjectReprer:
		return x.ObjectRepr()
	}
	return pyops.TypeName(v) + " object"
}

// ObjectReprer lets a value name itself in undefined messages the way
// Jinja's object_type_repr does ("salt.loader.lazy.LazyLoader object");
// other values are named "<python type name> object".
type ObjectReprer interface{ ObjectRepr() string }

// Markup is a string that is safe to print without escaping.
type Markup string

// PyTypeName names the type for pyops error messages.
func (Markup) PyTypeName() string { return "Markup" }

// Repr is Python's repr(Markup).
func (m Markup) Repr() string { return "Markup(" + value.QuoteString(string(m)) + ")" }

// PyStr is str(Markup).
func (m Markup) PyStr() string { return string(m) }

// ObjectRepr names the value in undefined messages as Jinja does.
func (Markup) ObjectRepr() string { return "markupsafe.Markup object" }

// escapeHTML is markupsafe.escape on a plain string.
func escapeHTML(s string) string {
	if !strings.ContainsAny(s, "&<>'\"") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\'':
			b.WriteString("&#39;")
		case '"':
			b.WriteString("&#34;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// boundMethod is a Python method of a value (d.items, s.split, ...).
type boundMethod struct {
	obj  any
	name string
}

// Call calls the value.
func (m *boundMethod) Call(args []any, kwargs *value.Map) (any, error) {
	v, found, err := callMethod(m.obj, m.name, args, kwargs)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, errType("'%s' object has no attribute '%s'", pyops.TypeName(m.obj), m.name)
	}
	return v, nil
}

// Repr is the value's Python repr.
func (m *boundMethod) Repr() string {
	return fmt.Sprintf("<built-in method %s of %s object>", m.name, pyops.TypeName(m.obj))
}

// PyTypeName is the Python type name used in error messages.
func (m *boundMethod) PyTypeName() string { return "builtin_function_or_method" }

// callMethod calls a Python method, rewording the errors that Jinja's
// sandboxed str.format words differently.
func callMethod(obj any, name string, args []any, kwargs *value.Map) (any, bool, error) {
	if s, ok := obj.(string); ok && name == "format" {
		// Jinja's sandboxed formatter: no private attributes in fields.
		v, err := pyops.FormatString(s, args, kwargs, sandboxFormatAttr)
		if err != nil {
			if pe, ok := err.(*pyops.Error); ok && pe.Type == "IndexError" && strings.HasPrefix(pe.Msg, "Replacement index") {
				return nil, true, &pyops.Error{Type: "IndexError", Msg: "tuple index out of range"}
			}
			return nil, true, err
		}
		return v, true, nil
	}
	if s, ok := obj.(string); ok && name == "format_map" {
		// Jinja's sandbox words the arity errors itself and formats with
		// its sandboxed formatter.
		if kwargs != nil && kwargs.Len() > 0 {
			return nil, true, errType("format_map() takes no keyword arguments")
		}
		if len(args) != 1 {
			return nil, true, errType("format_map() takes exactly one argument (%d given)", len(args))
		}
		if m, ok := args[0].(*value.Map); ok {
			if err := checkHugeArgs(obj, name, args); err != nil {
				return nil, true, err
			}
			v, err := pyops.FormatString(s, nil, m, sandboxFormatAttr)
			return v, true, err
		}
	}
	if err := checkNoCycle(obj, name, args, kwargs); err != nil {
		return nil, true, err
	}
	if err := checkHugeArgs(obj, name, args); err != nil {
		return nil, true, err
	}
	v, found, err := pyops.CallMethod(obj, name, args, kwargs)
	if err == nil {
		if _, isMap := obj.(*value.Map); isMap {
			switch name {
			case "keys", "values", "items":
				if l, ok := v.(*value.List); ok {
					return &dictView{kind: "dict_" + name, items: l.Items}, found, nil
				}
			}
		}
	}
	if err != nil && (name == "format" || name == "format_map") {
		if pe, ok := err.(*pyops.Error); ok && pe.Type == "IndexError" && strings.HasPrefix(pe.Msg, "Replacement index") {
			return nil, true, &pyops.Error{Type: "IndexError", Msg: "tuple index out of range"}
		}
	}
	return v, found, err
}

// widthMethods take a result width as first argument.
var widthMethods = map[string]bool{"center": true, "ljust": true, "rjust": true, "zfill": true, "expandtabs": true}

var hugeFormatRe = regexp.MustCompile(`\{[^{}]*:[^{}]*\d{8,}[^{}]*\}`)

// checkHugeArgs refuses string methods whose result would be enormous
// (a guard of the sandbox: Python would try to allocate it).
func checkHugeArgs(obj any, name string, args []any) error {
	s, ok := obj.(string)
	if !ok {
		return nil
	}
	if widthMethods[name] && len(args) > 0 {
		if n, ok := args[0].(int64); ok && n > 1<<24 {
			return newError(KindRuntime, "MemoryError", "result too large")
		}
		if _, ok := args[0].(*big.Int); ok {
			return newError(KindRuntime, "OverflowError", "Python int too large to convert to C ssize_t")
		}
	}
	if (name == "format" || name == "format_map") && hugeFormatRe.MatchString(s) {
		return newError(KindRuntime, "MemoryError", "result too large")
	}
	return nil
}

// mutators are the list and dict methods that store their arguments.
var mutators = map[string]bool{"append": true, "extend": true, "insert": true, "update": true, "setdefault": true}

// checkNoCycle refuses a mutation that would make a container contain
// itself: Python allows it, but such values cannot be printed, compared or
// serialized safely, so brine reports it when it happens.
func checkNoCycle(obj any, name string, args []any, kwargs *value.Map) error {
	switch obj.(type) {
	case *value.List, *value.Map:
	default:
		return nil
	}
	if !mutators[name] {
		return nil
	}
	mutations.Add(1)
	seen := map[any]bool{}
	for _, a := range args {
		if reaches(a, obj, seen) {
			return cycleErr()
		}
	}
	if kwargs != nil {
		for _, a := range kwargs.Values() {
			if reaches(a, obj, seen) {
				return cycleErr()
			}
		}
	}
	return nil
}

// mutations counts the in-place mutations of lists and dicts (the
// mutators above): a container found free of namespaces stays free until
// the next one.
var mutations atomic.Uint64

// nsFreeCache remembers the containers found to hold no namespace, with
// the mutation count at the time, so that assigning a namespace attribute
// does not walk the same data again and again ({% set ns.x = [ns.x] %} in
// a loop would be quadratic).
type nsFreeCache map[any]uint64

// reachesNS reports whether the namespace target is v or is inside v,
// skipping the containers the cache knows hold no namespace at all. free
// says whether v holds no namespace (then it is remembered).
func (c nsFreeCache) reachesNS(v any, target *Namespace, epoch uint64, seen map[any]bool) (found, free bool) {
	switch x := v.(type) {
	case *value.List, *value.Map:
		if e, ok := c[x]; ok && e == epoch {
			return false, true
		}
		if seen[x] {
			return false, false
		}
		seen[x] = true
		var items []any
		if l, ok := x.(*value.List); ok {
			items = l.Items
		} else {
			items = x.(*value.Map).Values()
		}
		free = true
		for _, e := range items {
			f, fr := c.reachesNS(e, target, epoch, seen)
			if f {
				return true, false
			}
			free = free && fr
		}
		if free {
			c[x] = epoch
		}
		return false, free
	case value.Tuple:
		free = true
		for _, e := range x {
			f, fr := c.reachesNS(e, target, epoch, seen)
			if f {
				return true, false
			}
			free = free && fr
		}
		return false, free
	case *Namespace:
		if x == target {
			return true, false
		}
		if seen[x] {
			return false, false
		}
		seen[x] = true
		for _, e := range x.vals {
			if f, _ := c.reachesNS(e, target, epoch, seen); f {
				return true, false
			}
		}
		return false, false
	}
	return false, true
}

func cycleErr() error {
	return newError(KindRuntime, "RecursionError", "a container cannot be made to contain itself")
}

// reaches reports whether target is v or is inside v.
func reaches(v, target any, seen map[any]bool) bool {
	switch x := v.(type) {
	case *value.List:
		if any(x) == target {
			return true
		}
		if seen[x] {
			return false
		}
		seen[x] = true
		for _, e := range x.Items {
			if reaches(e, target, seen) {
				return true
			}
		}
	case *value.Map:
		if any(x) == target {
			return true
		}
		if seen[x] {
			return false
		}
		seen[x] = true
		for _, e := range x.Values() {
			if reaches(e, target, seen) {
				return true
			}
		}
	case value.Tuple:
		for _, e := range x {
			if reaches(e, target, seen) {
				return true
			}
		}
	case *Namespace:
		if any(x) == target {
			return true
		}
		if seen[x] {
			return false
		}
		seen[x] = true
		for _, e := range x.vals {
			if reaches(e, target, seen) {
				return true
			}
		}
	}
	return false
}

// sandboxFormatAttr resolves "{0.attr}" fields of str.format as Jinja's
// sandbox does: special attributes are refused.
func sandboxFormatAttr(obj any, name string) (any, error) {
	var r renderer // getattr uses no render state
	v, err := r.getattr(obj, name)
	if err != nil {
		return nil, err
	}
	if u, ok := v.(*Undefined); ok {
		return nil, u.err()
	}
	return v, nil
}

// dictView is the result of dict.keys(), .values() and .items().
type dictView struct {
	kind  string
	items []any
}

// Iterate lists the items a loop over the value sees.
func (d *dictView) Iterate() ([]any, error) { return d.items, nil }

// Repr is the value's Python repr.
func (d *dictView) Repr() string { return d.kind + "(" + value.Repr(value.NewList(d.items...)) + ")" }

// PyTypeName is the Python type name used in error messages.
func (d *dictView) PyTypeName() string { return d.kind }

// Truth is the value's Python truth.
func (d *dictView) Truth() bool { return len(d.items) > 0 }

// Namespace is the object namespace() returns: attributes can be set with
// {% set ns.attr = ... %}.
type Namespace struct {
	names []string
	vals  []any
}

// Getattr returns an attribute.
func (n *Namespace) Getattr(name string) (any, bool) {
	for i, k := range n.names {
		if k == name {
			return n.vals[i], true
		}
	}
	return nil, false
}

// Setattr sets an attribute.
func (n *Namespace) Setattr(name string, v any) {
	for i, k := range n.names {
		if k == name {
			n.vals[i] = v
			return
		}
	}
	n.names = append(n.names, name)
	n.vals = append(n.vals, v)
}

// Repr prints the namespace as Jinja does.
func (n *Namespace) Repr() string {
	m := value.NewMap(len(n.names))
	for i, k := range n.names {
		m.Set(k, n.vals[i])
	}
	return "<Namespace " + value.Repr(m) + ">"
}

// ObjectRepr names the value in undefined messages as Jinja does.
func (n *Namespace) ObjectRepr() string { return "jinja2.utils.Namespace object" }

// PyTypeName is the Python type name used in error messages.
func (*Namespace) PyTypeName() string { return "Namespace" }

// Module is an imported template: its exported top-level names.
type Module struct {
	name string
	vars *value.Map
	body string
}

// Getattr returns an exported name.
func (m *Module) Getattr(name string) (any, bool) { return m.vars.Get(name) }

// Repr prints the module as Jinja does.
func (m *Module) Repr() string {
	if m.name == "" {
		return "<template module memory>"
	}
	return "<template module " + value.Repr(m.name) + ">"
}

// PyStr is the module's rendered output.
func (m *Module) PyStr() string { return m.body }

// ObjectRepr names the value in undefined messages as Jinja does.
func (m *Module) ObjectRepr() string { return "jinja2.environment.TemplateModule object" }

// PyTypeName is the Python type name used in error messages.
func (*Module) PyTypeName() string { return "TemplateModule" }

// Cycler is the object cycler() returns.
type Cycler struct {
	items []any
	pos   int
}

// Getattr exposes current, next and reset.
func (c *Cycler) Getattr(name string) (any, bool) {
	switch name {
	case "current":
		return c.items[c.pos], true
	case "next":
		return value.Func(func(args []any, kw *value.Map) (any, error) {
			v := c.items[c.pos]
			c.pos = (c.pos + 1) % len(c.items)
			return v, nil
		}), true
	case "reset":
		return value.Func(func(args []any, kw *value.Map) (any, error) {
			c.pos = 0
			return nil, nil
		}), true
	case "items":
		return value.NewList(c.items...), true
	}
	return nil, false
}

// ObjectRepr names the value in undefined messages as Jinja does.
func (c *Cycler) ObjectRepr() string { return "jinja2.utils.Cycler object" }

// PyTypeName is the Python type name used in error messages.
func (*Cycler) PyTypeName() string { return "Cycler" }

// Joiner is the object joiner() returns.
type Joiner struct {
	sep   any
	begun bool
}

// Call returns "" the first time and the separator afterwards.
func (j *Joiner) Call(args []any, kw *value.Map) (any, error) {
	if !j.begun {
		j.begun = true
		return "", nil
	}
	return j.sep, nil
}

// PyTypeName is the Python type name used in error messages.
func (*Joiner) PyTypeName() string { return "Joiner" }

// pyStrOf is Python's str() for any template value (no undefined checks).
func pyStrOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case Markup:
		return string(x)
	}
	return value.Str(v)
}

// quoteRepr is repr() of a str.
func quoteRepr(s string) string { return value.QuoteString(s) }
