package jinja

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"

	"brine/internal/pyops"
	"brine/internal/value"
)

// builtinFunc is a Python builtin function or class exposed as a global.
type builtinFunc struct {
	name, typ string
	fn        value.Func
}

// Call calls the value.
func (b *builtinFunc) Call(args []any, kw *value.Map) (any, error) { return b.fn(args, kw) }

// PyTypeName is the Python type name used in error messages.
func (b *builtinFunc) PyTypeName() string { return b.typ }

// Repr is the value's Python repr.
func (b *builtinFunc) Repr() string {
	if b.typ == "type" {
		return "<class '" + b.name + "'>"
	}
	return "<function " + b.name + ">"
}

// MaxRange is the sandbox's limit on range() sizes.
const MaxRange = 100000

func builtinGlobals() map[string]any {
	return map[string]any{
		"range":     &builtinFunc{"safe_range", "function", globalRange},
		"dict":      &builtinFunc{"dict", "type", globalDict},
		"lipsum":    &builtinFunc{"generate_lorem_ipsum", "function", globalLipsum},
		"cycler":    &builtinFunc{"Cycler", "type", globalCycler},
		"joiner":    &builtinFunc{"Joiner", "type", globalJoiner},
		"namespace": &builtinFunc{"Namespace", "type", globalNamespace},
	}
}

func intArg(v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case *big.Int:
		return 0, newError(KindRuntime, "OverflowError", "Python int too large to convert to C ssize_t")
	case *Undefined:
		return 0, x.err()
	}
	return 0, errType("'%s' object cannot be interpreted as an integer", pyops.TypeName(v))
}

func globalRange(args []any, kw *value.Map) (any, error) {
	if kw.Len() > 0 {
		return nil, errType("range() takes no keyword arguments")
	}
	var start, stop, step int64 = 0, 0, 1
	var err error
	switch len(args) {
	case 1:
		if stop, err = intArg(args[0]); err != nil {
			return nil, err
		}
	case 2, 3:
		if start, err = intArg(args[0]); err != nil {
			return nil, err
		}
		if stop, err = intArg(args[1]); err != nil {
			return nil, err
		}
		if len(args) == 3 {
			if step, err = intArg(args[2]); err != nil {
				return nil, err
			}
			if step == 0 {
				return nil, errValue("range() arg 3 must not be zero")
			}
		}
	case 0:
		return nil, errType("range expected at least 1 argument, got 0")
	default:
		return nil, errType("range expected at most 3 arguments, got %d", len(args))
	}
	var n int64
	if step > 0 && stop > start {
		n = (stop - start + step - 1) / step
	} else if step < 0 && stop < start {
		n = (start - stop - step - 1) / -step
	}
	if n > MaxRange {
		return nil, newError(KindRuntime, "OverflowError", "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).")
	}
	items := make([]any, n)
	for i := range items {
		items[i] = start + int64(i)*step
	}
	return &rangeObj{items: items, start: start, stop: stop, step: step}, nil
}

// rangeObj is the value of range(): iterable, indexable, printed as
// Python prints a range.
type rangeObj struct {
	items             []any
	start, stop, step int64
}

// Iterate lists the items a loop over the value sees.
func (r *rangeObj) Iterate() ([]any, error) { return r.items, nil }

// Getattr exposes start, stop and step.
func (r *rangeObj) Getattr(name string) (any, bool) {
	switch name {
	case "start":
		return r.start, true
	case "stop":
		return r.stop, true
	case "step":
		return r.step, true
	}
	return nil, false
}

// Getitem returns an item of the value.
func (r *rangeObj) Getitem(key any) (any, bool, error) {
	v, err := pyops.GetItem(value.Tuple(r.items), key)
	if err != nil {
		if lookupErr(err) {
			return nil, false, nil
		}
		return nil, false, err
	}
	if t, ok := v.(value.Tuple); ok {
		return value.NewList(t...), true, nil
	}
	return v, true, nil
}

// Repr is the value's Python repr.
func (r *rangeObj) Repr() string {
	if r.step == 1 {
		return "range(" + itoa64(r.start) + ", " + itoa64(r.stop) + ")"
	}
	return "range(" + itoa64(r.start) + ", " + itoa64(r.stop) + ", " + itoa64(r.step) + ")"
}

// PyTypeName is the Python type name used in error messages.
func (*rangeObj) PyTypeName() string { return "range" }

// Truth is the value's Python truth.
func (r *rangeObj) Truth() bool { return len(r.items) > 0 }

func itoa64(i int64) string { return value.Repr(i) }

func globalDict(args []any, kw *value.Map) (any, error) {
	m := value.NewMap(kw.Len())
	if len(args) > 1 {
		return nil, errType("dict expected at most 1 argument, got %d", len(args))
	}
	if len(args) == 1 {
		switch x := args[0].(type) {
		case *Undefined:
			return nil, x.err()
		case *value.Map:
			m.Update(x)
		default:
			items, err := pyops.Iterate(x)
			if err != nil {
				return nil, err
			}
			for i, it := range items {
				kv, err := pyops.Iterate(it)
				if err != nil {
					return nil, errType("cannot convert dictionary update sequence element #%d to a sequence", i)
				}
				if len(kv) != 2 {
					return nil, errValue("dictionary update sequence element #%d has length %d; 2 is required", i, len(kv))
				}
				m.Set(kv[0], kv[1])
			}
		}
	}
	if kw != nil {
		m.Update(kw)
	}
	return m, nil
}

func globalCycler(args []any, kw *value.Map) (any, error) {
	if len(args) == 0 {
		return nil, newError(KindRuntime, "RuntimeError", "at least one item has to be provided")
	}
	return &Cycler{items: append([]any(nil), args...)}, nil
}

func globalJoiner(args []any, kw *value.Map) (any, error) {
	a, err := bind("joiner", args, kw, "sep")
	if err != nil {
		return nil, err
	}
	return &Joiner{sep: or(a[0], ", ")}, nil
}

func globalNamespace(args []any, kw *value.Map) (any, error) {
	m := value.NewMap(kw.Len())
	if len(args) > 0 {
		if d, ok := args[0].(*value.Map); ok {
			m.Update(d)
		}
	}
	if kw != nil {
		m.Update(kw)
	}
	ns := &Namespace{}
	m.Range(func(k, v any) bool {
		ns.Setattr(pyStrOf(k), v)
		return true
	})
	return ns, nil
}

var lipsumWords = strings.Fields(`a ac accumsan ad adipiscing aenean aliquam aliquet amet ante
aptent arcu at auctor augue bibendum blandit class commodo condimentum congue
consectetuer consequat conubia convallis cras cubilia cum curabitur curae
cursus dapibus diam dictum dictumst dignissim dis dolor donec dui duis egestas
eget eleifend elementum elit enim erat eros est et etiam eu euismod facilisi
facilisis fames faucibus felis fermentum feugiat fringilla fusce gravida
habitant habitasse hac hendrerit hymenaeos iaculis id imperdiet in inceptos
integer interdum ipsum justo lacinia lacus laoreet lectus leo libero ligula
litora lobortis lorem luctus maecenas magna magnis malesuada massa mattis
mauris metus mi molestie mollis montes morbi mus nam nascetur natoque nec
neque netus nibh nisi nisl non nonummy nostra nulla nullam nunc odio orci
ornare parturient pede pellentesque penatibus per pharetra phasellus placerat
platea porta porttitor posuere potenti praesent pretium primis proin pulvinar
purus quam quis quisque rhoncus ridiculus risus rutrum sagittis sapien
scelerisque sed sem semper senectus sit sociis sociosqu sodales sollicitudin
suscipit suspendisse taciti tellus tempor tempus tincidunt torquent tortor
tristique turpis ullamcorper ultrices ultricies urna ut varius vehicula vel
velit venenatis vestibulum vitae vivamus viverra volutpat vulputate`)

func globalLipsum(args []any, kw *value.Map) (any, error) {
	a, err := bind("generate_lorem_ipsum", args, kw, "n", "html", "min", "max")
	if err != nil {
		return nil, err
	}
	n, _ := intArg(or(a[0], int64(5)))
	html := value.Truthy(or(a[1], true))
	lo, _ := intArg(or(a[2], int64(20)))
	hi, _ := intArg(or(a[3], int64(100)))
	if n > 1000 || hi > 10000 || lo > hi || lo < 1 {
		n, lo, hi = min(n, 1000), max(min(lo, hi), 1), min(hi, 10000)
	}
	var paras []string
	for i := int64(0); i < n; i++ {
		count := lo + rand.Int64N(hi-lo+1)
		var words []string
		next := true
		for j := int64(0); j < count; j++ {
			w := lipsumWords[rand.IntN(len(lipsumWords))]
			if next {
				w = strings.ToUpper(w[:1]) + w[1:]
				next = false
			}
			words = append(words, w)
		}
		p := strings.Join(words, " ") + "."
		paras = append(paras, p)
	}
	if !html {
		return strings.Join(paras, "\n\n"), nil
	}
	for i, p := range paras {
		paras[i] = "<p>" + escapeHTML(p) + "</p>"
	}
	return Markup(strings.Join(paras, "\n")), nil
}

func sprintf(format string, args ...any) string {
	if len(args) == 0 {
		return format
	}
	return fmtSprintf(format, args...)
}

var fmtSprintf = fmt.Sprintf
