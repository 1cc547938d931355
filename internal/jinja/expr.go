package jinja

import (
	"errors"
	"html"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"brine/internal/pyops"
	"brine/internal/value"
)

func (r *renderer) eval(fr *frame, sc *scope, x Expr) (any, error) {
	v, err := r.evalInner(fr, sc, x)
	if err != nil {
		return nil, r.mark(x.exprPos(), err)
	}
	return v, nil
}

func (r *renderer) evalInner(fr *frame, sc *scope, x Expr) (any, error) {
	switch e := x.(type) {
	case *constExpr:
		return e.Val, nil
	case *nameExpr:
		v := r.lookupName(sc, e.Name)
		if e.Name == "self" {
			if _, u := v.(*Undefined); u {
				return &selfRef{r: r, fr: fr, sc: sc}, nil
			}
		}
		return v, nil
	case *getattrExpr:
		obj, err := r.eval(fr, sc, e.Obj)
		if err != nil {
			return nil, err
		}
		return r.getattr(obj, e.Attr)
	case *getitemExpr:
		obj, err := r.eval(fr, sc, e.Obj)
		if err != nil {
			return nil, err
		}
		if s, ok := e.Key.(*sliceExpr); ok {
			return r.slice(fr, sc, obj, s)
		}
		key, err := r.eval(fr, sc, e.Key)
		if err != nil {
			return nil, err
		}
		return r.getitem(obj, key)
	case *binExpr:
		return r.evalBin(fr, sc, e)
	case *unaryExpr:
		v, err := r.eval(fr, sc, e.X)
		if err != nil {
			return nil, err
		}
		if e.Op == "not" {
			t, err := r.truth(v)
			return !t, err
		}
		if u, ok := v.(*Undefined); ok {
			return nil, u.err()
		}
		return pyops.UnaryOp(e.Op, v)
	case *compareExpr:
		return r.evalCompare(fr, sc, e)
	case *condExpr:
		t, err := r.eval(fr, sc, e.Test)
		if err != nil {
			return nil, err
		}
		ok, err := r.truth(t)
		if err != nil {
			return nil, err
		}
		if ok {
			return r.eval(fr, sc, e.Then)
		}
		if e.Else == nil {
			return &Undefined{lenient: true, hint: "the inline if-expression on line " + itoa(lineOf(fr, e.P)) + " evaluated to false and no else section was defined."}, nil
		}
		return r.eval(fr, sc, e.Else)
	case *listExpr:
		items := make([]any, len(e.Items))
		for i, it := range e.Items {
			v, err := r.eval(fr, sc, it)
			if err != nil {
				return nil, err
			}
			items[i] = v
		}
		return value.NewList(items...), nil
	case *tupleExpr:
		items := make(value.Tuple, len(e.Items))
		for i, it := range e.Items {
			v, err := r.eval(fr, sc, it)
			if err != nil {
				return nil, err
			}
			items[i] = v
		}
		return items, nil
	case *dictExpr:
		m := value.NewMap(len(e.Keys))
		for i, k := range e.Keys {
			kv, err := r.eval(fr, sc, k)
			if err != nil {
				return nil, err
			}
			if !value.Hashable(kv) {
				return nil, errType("unhashable type: '%s'", pyops.TypeName(kv))
			}
			vv, err := r.eval(fr, sc, e.Vals[i])
			if err != nil {
				return nil, err
			}
			m.Set(kv, vv)
		}
		return m, nil
	case *callExpr:
		return r.evalCall(fr, sc, e, nil)
	case *filterExpr:
		return r.evalFilter(fr, sc, e, nil, false)
	case *testExpr:
		return r.evalTest(fr, sc, e)
	case *sliceExpr:
		return nil, errRuntime("slice outside subscript")
	}
	return nil, errRuntime("cannot evaluate %T", x)
}

func lineOf(fr *frame, pos int) int {
	l, _ := lineCol(fr.t.src, pos)
	return l
}

func itoa(i int) string { return value.Repr(int64(i)) }

func (r *renderer) evalBin(fr *frame, sc *scope, e *binExpr) (any, error) {
	l, err := r.eval(fr, sc, e.L)
	if err != nil {
		return nil, err
	}
	switch e.Op {
	case "and":
		t, err := r.truth(l)
		if err != nil || !t {
			return l, err
		}
		return r.eval(fr, sc, e.R)
	case "or":
		t, err := r.truth(l)
		if err != nil || t {
			return l, err
		}
		return r.eval(fr, sc, e.R)
	}
	rv, err := r.eval(fr, sc, e.R)
	if err != nil {
		return nil, err
	}
	if e.Op == "~" {
		ls, err := r.str(l)
		if err != nil {
			return nil, err
		}
		rs, err := r.str(rv)
		if err != nil {
			return nil, err
		}
		if r.autoesc {
			_, lm := l.(Markup)
			_, rm := rv.(Markup)
			if lm || rm {
				return Markup(r.escapeIfNeeded(l, ls) + r.escapeIfNeeded(rv, rs)), nil
			}
		}
		if err := r.checkSize(len(ls) + len(rs)); err != nil {
			return nil, err
		}
		return ls + rs, nil
	}
	return r.binop(e.Op, l, rv)
}

func (r *renderer) escapeIfNeeded(v any, s string) string {
	if _, ok := v.(Markup); ok {
		return s
	}
	return escapeHTML(s)
}

// checkSize refuses a result of n bytes beyond the size limit
// (pyops.CheckSize, bounded further by the environment's MaxOutput).
func (r *renderer) checkSize(n int) error {
	return sizeErr(pyops.CheckSize(int64(n), r.env.MaxOutput))
}

// sizeErr turns pyops' size error into the engine's runtime error.
func sizeErr(err error) error {
	if err == nil {
		return nil
	}
	return newError(KindRuntime, "MemoryError", "result too large")
}

// binop applies an arithmetic operator with Python semantics.
func (r *renderer) binop(op string, l, rv any) (any, error) {
	if u, ok := l.(*Undefined); ok {
		return nil, u.err()
	}
	if u, ok := rv.(*Undefined); ok {
		// str % undefined formats it with str(): "" when lenient
		if _, isStr := l.(string); !isStr || op != "%" || r.strict(u) {
			return nil, u.err()
		}
	}
	if m, ok := l.(Markup); ok {
		switch op {
		case "+":
			if s, ok := rv.(string); ok {
				return Markup(string(m) + escapeHTML(s)), nil
			}
			if s, ok := rv.(Markup); ok {
				return Markup(string(m) + string(s)), nil
			}
		case "%":
			v, err := pyops.BinaryOp(op, string(m), escapeArgs(rv))
			if err != nil {
				return nil, err
			}
			return Markup(pyStrOf(v)), nil
		}
		l = string(m)
	}
	if m, ok := rv.(Markup); ok {
		if s, ok := l.(string); ok && op == "+" {
			return Markup(escapeHTML(s) + string(m)), nil
		}
		rv = string(m)
	}
	if op == "*" || op == "**" {
		if err := r.checkRepeat(op, l, rv); err != nil {
			return nil, err
		}
	}
	if s, ok := l.(string); ok && op == "%" && hugePercentRe.MatchString(s) {
		return nil, newError(KindRuntime, "MemoryError", "result too large")
	}
	return pyops.BinaryOp(op, l, rv)
}

var hugePercentRe = regexp.MustCompile(`%(\([^)]*\))?[-+ #0]*(\d{8,}|\.\d{8,})`)

// escapeArgs escapes the right operand of Markup % as markupsafe does:
// each item of a tuple, each value looked up in a mapping, else the
// operand itself.
func escapeArgs(v any) any {
	switch x := v.(type) {
	case value.Tuple:
		out := make(value.Tuple, len(x))
		for i, e := range x {
			out[i] = escapeArg(e)
		}
		return out
	case *value.Map:
		out := value.NewMap(x.Len())
		for _, k := range x.Keys() {
			e, _ := x.Get(k)
			out.Set(k, escapeArg(e))
		}
		return out
	}
	return escapeArg(v)
}

// escapeArg escapes one formatting argument: strings and other objects
// through their str(), numbers and Markup unchanged.
func escapeArg(v any) any {
	switch x := v.(type) {
	case string:
		return escapeHTML(x)
	case Markup, int64, float64, bool, *big.Int, nil:
		return v
	case value.Tuple, *value.List, *value.Map:
		return escapeHTML(pyStrOf(x))
	}
	return v
}

// checkRepeat refuses sequence repetition and powers whose result would be
// huge.
func (r *renderer) checkRepeat(op string, l, rv any) error {
	size := func(v any) int {
		switch x := v.(type) {
		case string:
			return len(x)
		case *value.List:
			return x.Len() * pyops.ItemSize
		case value.Tuple:
			return len(x) * pyops.ItemSize
		}
		return -1
	}
	count := func(v any) (int64, bool) {
		switch x := v.(type) {
		case int64:
			return x, true
		case bool:
			if x {
				return 1, true
			}
			return 0, true
		case *big.Int:
			if x.Sign() <= 0 {
				return 0, true
			}
			return 1 << 62, true
		}
		return 0, false
	}
	if op == "*" {
		if n, ok := count(rv); ok && size(l) > 0 && n > 0 {
			if err := r.checkSize(int(int64(size(l)) * min(n, 1<<32))); err != nil {
				return err
			}
		}
		if n, ok := count(l); ok && size(rv) > 0 && n > 0 {
			return r.checkSize(int(int64(size(rv)) * min(n, 1<<32)))
		}
		return nil
	}
	// **: bound the number of bits of an integer result
	base, ok1 := count(l)
	exp, ok2 := count(rv)
	if ok1 && ok2 && base > 1 && exp > 100000 {
		if _, isBig := l.(*big.Int); isBig || base > 1 {
			return newError(KindRuntime, "MemoryError", "result too large")
		}
	}
	if bl, ok := l.(*big.Int); ok && ok2 && int64(bl.BitLen())*exp > 1<<22 {
		return newError(KindRuntime, "MemoryError", "result too large")
	}
	return nil
}

func (r *renderer) evalCompare(fr *frame, sc *scope, e *compareExpr) (any, error) {
	l, err := r.eval(fr, sc, e.X)
	if err != nil {
		return nil, err
	}
	for _, op := range e.Ops {
		rv, err := r.eval(fr, sc, op.X)
		if err != nil {
			return nil, err
		}
		ok, err := r.compare(op.Op, l, rv)
		if err != nil {
			return nil, err
		}
		if !ok {
			return false, nil
		}
		l = rv
	}
	return true, nil
}

func (r *renderer) compare(op string, l, rv any) (bool, error) {
	switch op {
	case "in", "notin":
		if u, ok := rv.(*Undefined); ok {
			if r.strict(u) {
				return false, u.err()
			}
			return op == "notin", nil
		}
		if u, ok := l.(*Undefined); ok {
			found, err := r.undefinedIn(u, rv)
			if op == "notin" {
				found = !found
			}
			return found, err
		}
		ok, err := r.contains(rv, l)
		if op == "notin" {
			ok = !ok
		}
		return ok, err
	case "==", "!=":
		lu, lok := l.(*Undefined)
		ru, rok := rv.(*Undefined)
		if lok || rok {
			if lok && r.strict(lu) {
				return false, lu.err()
			}
			if rok && r.strict(ru) {
				return false, ru.err()
			}
			eq := lok && rok
			return eq == (op == "=="), nil
		}
		return pyops.Compare(op, unmark(l), unmark(rv))
	}
	if u, ok := l.(*Undefined); ok {
		return false, u.err()
	}
	if u, ok := rv.(*Undefined); ok {
		return false, u.err()
	}
	return pyops.Compare(op, unmark(l), unmark(rv))
}

// undefinedIn is `u in container` for an undefined u, following Python's
// order of failures.
func (r *renderer) undefinedIn(u *Undefined, container any) (bool, error) {
	switch c := container.(type) {
	case *value.List:
		if c.Len() == 0 {
			return false, nil
		}
	case value.Tuple:
		if len(c) == 0 {
			return false, nil
		}
	case string, Markup:
		return false, errType("'in <string>' requires string as left operand, not %s", r.undefTypeName(u))
	case *value.Map, Iterable, Getitemer:
	default:
		return false, errType("argument of type '%s' is not iterable", pyops.TypeName(container))
	}
	if r.strict(u) {
		return false, u.err()
	}
	items, err := r.iterate(container)
	if err != nil {
		return false, nil
	}
	for _, it := range items {
		if _, isU := it.(*Undefined); isU {
			return true, nil
		}
	}
	return false, nil
}

func unmark(v any) any {
	if m, ok := v.(Markup); ok {
		return string(m)
	}
	return v
}

func (r *renderer) contains(container, item any) (bool, error) {
	switch c := container.(type) {
	case Markup:
		container = string(c)
	case Iterable:
		items, err := c.Iterate()
		if err != nil {
			return false, err
		}
		for _, it := range items {
			if value.Equal(it, item) {
				return true, nil
			}
		}
		return false, nil
	case Getitemer:
		_, ok, err := c.Getitem(item)
		return ok, err
	}
	return pyops.Contains(container, unmark(item))
}

// undefTypeName is the Python class name of an undefined value.
func (r *renderer) undefTypeName(u *Undefined) string {
	if r.strict(u) {
		return "StrictUndefined"
	}
	return "Undefined"
}

// strict reports whether using u must fail.
func (r *renderer) strict(u *Undefined) bool {
	return u.security || !(r.env.Lenient || u.lenient)
}

// truth is bool(v), failing for strict undefined values.
func (r *renderer) truth(v any) (bool, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case *Undefined:
		if r.strict(x) {
			return false, x.err()
		}
		return false, nil
	case Markup:
		return x != "", nil
	}
	return value.Truthy(v), nil
}

// str is Python's str(v), failing for strict undefined values.
func (r *renderer) str(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case Markup:
		return string(x), nil
	case *Undefined:
		if r.strict(x) {
			return "", x.err()
		}
		return "", nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case bool:
		if x {
			return "True", nil
		}
		return "False", nil
	case nil:
		return "None", nil
	}
	return pyops.StrChecked(v)
}

// printable turns a printed value into output text.
func (r *renderer) printable(v any) (string, error) {
	if f := r.env.Finalize; f != nil {
		if _, isU := v.(*Undefined); !isU {
			v = f(v)
		}
	}
	if m, ok := v.(Markup); ok {
		return string(m), nil
	}
	s, err := r.str(v)
	if err != nil {
		return "", err
	}
	if r.autoesc {
		return escapeHTML(s), nil
	}
	return s, nil
}

// iterate lists the items of an iterable value.
func (r *renderer) iterate(v any) ([]any, error) {
	switch x := v.(type) {
	case *value.List:
		return x.Items, nil
	case value.Tuple:
		return x, nil
	case *value.Map:
		return x.Keys(), nil
	case string:
		return splitChars(x), nil
	case Markup:
		return splitChars(string(x)), nil
	case *Undefined:
		if r.strict(x) {
			return nil, x.err()
		}
		return nil, nil
	case Iterable:
		return x.Iterate()
	case []byte:
		out := make([]any, len(x))
		for i, c := range x {
			out[i] = int64(c)
		}
		return out, nil
	case *loopObj:
		return x.items, nil
	}
	return nil, errType("'%s' object is not iterable", pyops.TypeName(v))
}

func splitChars(s string) []any {
	out := make([]any, 0, len(s))
	for _, c := range s {
		out = append(out, string(c))
	}
	return out
}

// isDunder reports whether name looks like a Python special attribute.
func isDunder(name string) bool {
	return len(name) > 4 && strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__")
}

func unsafeAttr(obj any, name string) *Undefined {
	return &Undefined{name: name, obj: obj, hasObj: true, security: true,
		hint: "access to attribute " + value.Repr(name) + " of " + value.Repr(pyops.TypeName(obj)) + " object is unsafe."}
}

// getattr is the sandboxed obj.name: attributes first, then items.
func (r *renderer) getattr(obj any, name string) (any, error) {
	v, err := r.getattrOf(obj, name)
	return r.nameUndefined(v, obj), err
}

// nameUndefined gives an undefined attribute or item of a mapping the
// render names (RenderConfig.ObjectNames) that name in its message.
func (r *renderer) nameUndefined(v, obj any) any {
	if u, ok := v.(*Undefined); ok && r.objNames != nil && u.hasObj && !u.security {
		if m, ok := obj.(*value.Map); ok {
			if n, ok := r.objNames[m]; ok {
				u.objName = n
			}
		}
	}
	return v
}

func (r *renderer) getattrOf(obj any, name string) (any, error) {
	if u, ok := obj.(*Undefined); ok {
		return nil, u.err()
	}
	if isDunder(name) {
		return unsafeAttr(obj, name), nil
	}
	if b, ok := obj.(*builtinFunc); ok && b.typ == "type" && name == "mro" {
		return unsafeAttr(obj, name), nil // the sandbox hides type.mro
	}
	switch x := obj.(type) {
	case *value.Map:
		if pyops.HasMethod(x, name) {
			return &boundMethod{x, name}, nil
		}
		if v, ok := x.Get(name); ok {
			return v, nil
		}
		return undefinedAttr(obj, name), nil
	case Getattrer:
		if strings.HasPrefix(name, "_") {
			return undefinedAttr(obj, name), nil
		}
		if v, ok := x.Getattr(name); ok {
			return v, nil
		}
		if gi, ok := obj.(Getitemer); ok {
			v, found, err := gi.Getitem(name)
			if err != nil {
				return nil, err
			}
			if found {
				return v, nil
			}
		}
		return undefinedAttr(obj, name), nil
	case Markup:
		if pyops.HasMethod(string(x), name) || name == "unescape" || name == "striptags" {
			return &markupMethod{string(x), name}, nil
		}
		return undefinedAttr(obj, name), nil
	case Getitemer:
		v, found, err := x.Getitem(name)
		if err != nil {
			return nil, err
		}
		if found {
			return v, nil
		}
		return undefinedAttr(obj, name), nil
	}
	if !strings.HasPrefix(name, "_") && pyops.HasMethod(obj, name) {
		return &boundMethod{obj, name}, nil
	}
	if v, ok := numberAttr(obj, name); ok {
		return v, nil
	}
	return undefinedAttr(obj, name), nil
}

// numberAttr gives the data attributes of ints and floats.
func numberAttr(obj any, name string) (any, bool) {
	switch obj.(type) {
	case int64, *big.Int, bool:
		switch name {
		case "real", "numerator":
			if b, ok := obj.(bool); ok {
				if b {
					return int64(1), true
				}
				return int64(0), true
			}
			return obj, true
		case "imag":
			return int64(0), true
		case "denominator":
			return int64(1), true
		}
	case float64:
		switch name {
		case "real":
			return obj, true
		case "imag":
			return 0.0, true
		}
	}
	return nil, false
}

// markupMethod calls a str method on a Markup and keeps the result safe.
type markupMethod struct {
	s    string
	name string
}

// Call calls the value.
func (m *markupMethod) Call(args []any, kw *value.Map) (any, error) {
	switch m.name {
	case "unescape", "striptags":
		if kw != nil && kw.Len() > 0 {
			return nil, errType("Markup.%s() got an unexpected keyword argument '%v'", m.name, kw.Keys()[0])
		}
		if len(args) > 0 {
			return nil, errType("Markup.%s() takes 1 positional argument but %d were given", m.name, len(args)+1)
		}
		if m.name == "unescape" {
			return html.UnescapeString(m.s), nil
		}
		return stripTags(m.s), nil
	case "format", "format_map":
		return m.format(args, kw)
	}
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = escapeHTML(s)
		} else if mm, ok := a.(Markup); ok {
			args[i] = string(mm)
		}
	}
	v, _, err := pyops.CallMethod(m.s, m.name, args, kw)
	if err != nil {
		return nil, err
	}
	if s, ok := v.(string); ok {
		return Markup(s), nil
	}
	return v, nil
}

// format is Markup.format and Markup.format_map: the sandbox's escaping
// formatter, which checks attribute fields and escapes each formatted
// field that is not Markup.
func (m *markupMethod) format(args []any, kw *value.Map) (any, error) {
	if m.name == "format_map" {
		if kw != nil && kw.Len() > 0 {
			return nil, errType("format_map() takes no keyword arguments")
		}
		if len(args) != 1 {
			return nil, errType("format_map() takes exactly one argument (%d given)", len(args))
		}
		mp, ok := args[0].(*value.Map)
		if !ok {
			v, _, err := callMethod(m.s, m.name, args, kw)
			if err != nil {
				return nil, err
			}
			return Markup(pyStrOf(v)), nil
		}
		args, kw = nil, mp
	}
	if err := checkHugeArgs(m.s, "format", nil); err != nil {
		return nil, err
	}
	out, err := pyops.FormatStringField(m.s, args, kw, sandboxFormatAttr, escapeFormatField)
	if err != nil {
		if pe, ok := err.(*pyops.Error); ok && pe.Type == "IndexError" && strings.HasPrefix(pe.Msg, "Replacement index") {
			return nil, &pyops.Error{Type: "IndexError", Msg: "tuple index out of range"}
		}
		return nil, err
	}
	return Markup(out), nil
}

// escapeFormatField formats one field for Markup.format: Markup as is
// (no format spec allowed), anything else formatted, then escaped.
func escapeFormatField(v any, spec string) (string, error) {
	if mk, ok := v.(Markup); ok {
		if spec != "" {
			return "", &pyops.Error{Type: "ValueError", Msg: "Unsupported format specification for Markup."}
		}
		return string(mk), nil
	}
	out, err := pyops.FormatValue(v, spec)
	if err != nil {
		return "", err
	}
	return escapeHTML(out), nil
}

// getitem is the sandboxed obj[key]: items first, then attributes.
func (r *renderer) getitem(obj, key any) (any, error) {
	v, err := r.getitemOf(obj, key)
	return r.nameUndefined(v, obj), err
}

func (r *renderer) getitemOf(obj, key any) (any, error) {
	if u, ok := obj.(*Undefined); ok {
		return nil, u.err()
	}
	switch x := obj.(type) {
	case *value.Map:
		if value.Hashable(key) {
			if v, ok := x.Get(key); ok {
				return v, nil
			}
		}
	case *value.List, value.Tuple, string:
		v, err := pyops.GetItem(obj, key)
		if err == nil {
			return v, nil
		}
		if !lookupErr(err) {
			return nil, err
		}
	case Markup:
		v, err := pyops.GetItem(string(x), key)
		if err == nil {
			return Markup(pyStrOf(v)), nil
		}
		if !lookupErr(err) {
			return nil, err
		}
	case Getitemer:
		v, ok, err := x.Getitem(key)
		if err != nil {
			return nil, err
		}
		if ok {
			return v, nil
		}
	default:
		if _, isAttr := obj.(Getattrer); !isAttr {
			v, err := pyops.GetItem(obj, key)
			if err == nil {
				return v, nil
			}
			if !lookupErr(err) {
				return nil, err
			}
		}
	}
	if name, ok := key.(string); ok {
		if isDunder(name) {
			return unsafeAttr(obj, name), nil
		}
		if _, isMap := obj.(*value.Map); isMap {
			if pyops.HasMethod(obj, name) {
				return &boundMethod{obj, name}, nil
			}
			return undefinedAttr(obj, name), nil
		}
		if _, isGI := obj.(Getitemer); isGI {
			if ga, ok := obj.(Getattrer); ok && !strings.HasPrefix(name, "_") {
				if v, ok := ga.Getattr(name); ok {
					return v, nil
				}
			}
			return undefinedAttr(obj, name), nil
		}
		return r.getattr(obj, name)
	}
	return undefinedAttr(obj, key), nil
}

func lookupErr(err error) bool {
	var pe *pyops.Error
	if errors.As(err, &pe) {
		switch pe.Type {
		case "TypeError", "KeyError", "IndexError", "LookupError":
			return true
		}
	}
	return false
}

func (r *renderer) slice(fr *frame, sc *scope, obj any, s *sliceExpr) (any, error) {
	var parts [3]any
	for i, e := range []Expr{s.Start, s.Stop, s.Step} {
		if e == nil {
			continue
		}
		v, err := r.eval(fr, sc, e)
		if err != nil {
			return nil, err
		}
		if u, ok := v.(*Undefined); ok {
			return nil, u.err()
		}
		parts[i] = v
	}
	if u, ok := obj.(*Undefined); ok {
		return nil, u.err()
	}
	if m, ok := obj.(Markup); ok {
		v, err := pyops.Slice(string(m), parts[0], parts[1], parts[2])
		if err != nil {
			return nil, err
		}
		return Markup(pyStrOf(v)), nil
	}
	// Jinja compiles slices to plain Python subscripts: errors propagate.
	if it, ok := obj.(Iterable); ok {
		items, err := it.Iterate()
		if err != nil {
			return nil, err
		}
		obj = value.NewList(items...)
	}
	return pyops.Slice(obj, parts[0], parts[1], parts[2])
}

// evalArgs evaluates call arguments, expanding *args and **kwargs.
func (r *renderer) evalArgs(fr *frame, sc *scope, c *callArgs) ([]any, *value.Map, error) {
	var args []any
	if len(c.Args) > 0 {
		args = make([]any, 0, len(c.Args))
	}
	for _, a := range c.Args {
		v, err := r.eval(fr, sc, a)
		if err != nil {
			return nil, nil, err
		}
		args = append(args, v)
	}
	var kw *value.Map
	if len(c.KwNames) > 0 {
		kw = value.NewMap(len(c.KwNames))
		for i, n := range c.KwNames {
			v, err := r.eval(fr, sc, c.KwVals[i])
			if err != nil {
				return nil, nil, err
			}
			kw.Set(n, v)
		}
	}
	if c.DynArgs != nil {
		v, err := r.eval(fr, sc, c.DynArgs)
		if err != nil {
			return nil, nil, err
		}
		items, err := r.iterate(v)
		if err != nil {
			return nil, nil, err
		}
		args = append(args, items...)
	}
	if c.DynKwargs != nil {
		v, err := r.eval(fr, sc, c.DynKwargs)
		if err != nil {
			return nil, nil, err
		}
		m, ok := v.(*value.Map)
		if !ok {
			if u, isU := v.(*Undefined); isU {
				return nil, nil, u.err()
			}
			return nil, nil, errType("argument after ** must be a mapping, not %s", pyops.TypeName(v))
		}
		if kw == nil {
			kw = value.NewMap(m.Len())
		}
		var err2 error
		m.Range(func(k, v any) bool {
			ks, ok := k.(string)
			if !ok {
				err2 = errType("keywords must be strings")
				return false
			}
			kw.Set(ks, v)
			return true
		})
		if err2 != nil {
			return nil, nil, err2
		}
	}
	return args, kw, nil
}

func (r *renderer) evalCall(fr *frame, sc *scope, e *callExpr, caller *Macro) (any, error) {
	// fast path for method calls: obj.method(...)
	if ga, ok := e.Fn.(*getattrExpr); ok && caller == nil {
		obj, err := r.eval(fr, sc, ga.Obj)
		if err != nil {
			return nil, err
		}
		switch obj.(type) {
		case *value.Map, *value.List, string, value.Tuple:
			if !strings.HasPrefix(ga.Attr, "_") && pyops.HasMethod(obj, ga.Attr) {
				args, kw, err := r.evalArgs(fr, sc, &e.callArgs)
				if err != nil {
					return nil, err
				}
				if err := r.checkStrictArgs(args, kw); err != nil {
					return nil, err
				}
				v, _, err := callMethod(obj, ga.Attr, args, kw)
				return v, err
			}
		}
		fn, err := r.getattr(obj, ga.Attr)
		if err != nil {
			return nil, err
		}
		return r.callWith(fr, sc, fn, e, nil)
	}
	fn, err := r.eval(fr, sc, e.Fn)
	if err != nil {
		return nil, err
	}
	return r.callWith(fr, sc, fn, e, caller)
}

func (r *renderer) callWith(fr *frame, sc *scope, fn any, e *callExpr, caller *Macro) (any, error) {
	if u, ok := fn.(*Undefined); ok {
		return nil, u.err()
	}
	args, kw, err := r.evalArgs(fr, sc, &e.callArgs)
	if err != nil {
		return nil, err
	}
	if caller != nil {
		if kw == nil {
			kw = value.NewMap(1)
		}
		kw.Set("caller", caller)
	}
	return r.call(fr, sc, fn, args, kw)
}

// checkStrictArgs fails when a strict undefined value is passed to a
// Python method: every method would convert, compare or hash it.
func (r *renderer) checkStrictArgs(args []any, kw *value.Map) error {
	for _, a := range args {
		if u, ok := a.(*Undefined); ok && r.strict(u) {
			return u.err()
		}
	}
	if kw != nil {
		for _, a := range kw.Values() {
			if u, ok := a.(*Undefined); ok && r.strict(u) {
				return u.err()
			}
		}
	}
	return nil
}

// call invokes any callable template value.
func (r *renderer) call(fr *frame, sc *scope, fn any, args []any, kw *value.Map) (any, error) {
	switch fn.(type) {
	case *boundMethod, *markupMethod:
		if err := r.checkStrictArgs(args, kw); err != nil {
			return nil, err
		}
	}
	switch fn.(type) {
	case *boundMethod, *markupMethod:
	default:
		// A caller-supplied function may change the lists and dicts it is
		// given (Salt's defaults.merge does): what the namespace cycle
		// check knows of them is no longer sure.
		mutations.Add(1)
	}
	switch f := fn.(type) {
	case ContextCallable:
		return f.CallContext(&Context{r: r, fr: fr, sc: sc}, args, kw)
	case value.Callable:
		v, err := f.Call(args, kw)
		if err != nil {
			return nil, err
		}
		return v, nil
	case *Undefined:
		return nil, f.err()
	}
	return nil, errType("'%s' object is not callable", pyops.TypeName(fn))
}

func (r *renderer) evalFilter(fr *frame, sc *scope, e *filterExpr, in any, useIn bool) (any, error) {
	var v any
	if e.X != nil {
		var err error
		if inner, ok := e.X.(*filterExpr); ok && useIn {
			v, err = r.evalFilter(fr, sc, inner, in, true)
		} else {
			v, err = r.eval(fr, sc, e.X)
		}
		if err != nil {
			return nil, err
		}
	} else {
		v = in
	}
	args, kw, err := r.evalArgs(fr, sc, &e.callArgs)
	if err != nil {
		return nil, err
	}
	out, err := r.applyFilter(fr, sc, e.Name, v, args, kw)
	if err != nil {
		return nil, r.mark(e.P, err)
	}
	return out, nil
}

// applyFilterChain applies a filter chain whose innermost input is v.
func (r *renderer) applyFilterChain(fr *frame, sc *scope, f *filterExpr, v any) (any, error) {
	return r.evalFilter(fr, sc, f, v, true)
}

func (r *renderer) applyFilter(fr *frame, sc *scope, name string, v any, args []any, kw *value.Map) (any, error) {
	f, ok := r.env.filters[name]
	if !ok {
		return nil, newError(KindSyntax, "TemplateAssertionError", "No filter named "+pyQuote(name)+".")
	}
	if u, isU := v.(*Undefined); isU && !f.raw && undefFailsFilter[name] {
		return nil, u.err()
	}
	if mayMutate(v, args, kw) {
		mutations.Add(1) // as in call: a filter may change a container it is given
	}
	if f.cfn != nil {
		return f.cfn(&Context{r: r, fr: fr, sc: sc}, v, args, kw)
	}
	if u, isU := v.(*Undefined); isU && !f.raw && r.strict(u) {
		return nil, u.err()
	}
	return f.fn(v, args, kw)
}

// mayMutate says whether a filter is given a list or dict (which it might
// change in place).
func mayMutate(v any, args []any, kw *value.Map) bool {
	isContainer := func(x any) bool {
		switch x.(type) {
		case *value.List, *value.Map:
			return true
		}
		return false
	}
	if isContainer(v) {
		return true
	}
	for _, a := range args {
		if isContainer(a) {
			return true
		}
	}
	return kw != nil && kw.Len() > 0
}

func (r *renderer) evalTest(fr *frame, sc *scope, e *testExpr) (any, error) {
	v, err := r.eval(fr, sc, e.X)
	if err != nil {
		return nil, err
	}
	args, kw, err := r.evalArgs(fr, sc, &e.callArgs)
	if err != nil {
		return nil, err
	}
	return r.applyTest(fr, sc, e.Name, v, args, kw)
}

func (r *renderer) applyTest(fr *frame, sc *scope, name string, v any, args []any, kw *value.Map) (bool, error) {
	t, ok := r.env.tests[name]
	if !ok {
		return false, newError(KindSyntax, "TemplateAssertionError", "No test named "+pyQuote(name)+".")
	}
	if u, isU := v.(*Undefined); isU && !t.raw && (r.strict(u) || undefFailsTest[name]) {
		return false, u.err()
	}
	if t.cfn != nil {
		return t.cfn(&Context{r: r, fr: fr, sc: sc}, v, args, kw)
	}
	return t.fn(v, args, kw)
}

// undefFailsFilter and undefFailsTest name the builtin filters and tests
// that fail even on a lenient undefined value (they do arithmetic,
// comparisons or conversions on it, which Jinja's Undefined refuses).
var undefFailsFilter = map[string]bool{
	"dictsort": true, "filesizeformat": true, "float": true, "indent": true, "int": true,
	"wordwrap": true, "xmlattr": true,
}

var undefFailsTest = map[string]bool{
	"odd": true, "even": true, "divisibleby": true, "gt": true, "ge": true, "lt": true, "le": true,
	">": true, ">=": true, "<": true, "<=": true, "greaterthan": true, "lessthan": true,
}

// runeLen counts code points.
func runeLen(s string) int { return utf8.RuneCountInString(s) }
