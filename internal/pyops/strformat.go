package pyops

import (
	"strconv"
	"strings"

	"brine/internal/value"
)

// AttrGetter lets a foreign type expose attributes to str.format's
// "{0.name}" fields.
type AttrGetter interface {
	PyGetAttr(name string) (any, bool)
}

// AttrFunc resolves obj.name for a "{0.name}" field.
type AttrFunc func(obj any, name string) (any, error)

// DefaultAttr is the attribute lookup str.format uses when none is given.
// It follows Jinja's sandbox (where Salt's templates call str.format): an
// AttrGetter answers first, and a dict falls back to item lookup.
func DefaultAttr(obj any, name string) (any, error) {
	if g, ok := obj.(AttrGetter); ok {
		if v, ok := g.PyGetAttr(name); ok {
			return v, nil
		}
	}
	if m, ok := obj.(*value.Map); ok {
		if v, ok := m.Get(name); ok {
			return v, nil
		}
	}
	if n := toNum(obj); n.kind != notNum {
		switch name {
		case "real":
			return UnaryOp("+", obj)
		case "imag":
			if n.kind == floatNum {
				return 0.0, nil
			}
			return int64(0), nil
		case "numerator", "denominator":
			if n.isInt() {
				if name == "denominator" {
					return int64(1), nil
				}
				return UnaryOp("+", obj)
			}
		}
	}
	return nil, newErr("AttributeError", "'%s' object has no attribute '%s'", TypeName(obj), name)
}

// FormatString is Python's format.format(*args, **kwargs) (str.format).
// attr resolves attribute fields; nil means DefaultAttr. kwargs may be nil.
func FormatString(format string, args []any, kwargs *value.Map, attr AttrFunc) (string, error) {
	return FormatStringField(format, args, kwargs, attr, nil)
}

// FieldFunc formats one replacement field's value with its spec (after
// any !s/!r conversion); FormatValue when nil.
type FieldFunc func(v any, spec string) (string, error)

// FormatStringField is FormatString with a field formatter, as a
// string.Formatter subclass overriding format_field.
func FormatStringField(format string, args []any, kwargs *value.Map, attr AttrFunc, field FieldFunc) (string, error) {
	if attr == nil {
		attr = DefaultAttr
	}
	if field == nil {
		field = FormatValue
	}
	f := &strFormatter{args: args, kwargs: kwargs, attr: attr, format: field}
	var b strings.Builder
	b.Grow(len(format) + 16)
	if err := f.render(&b, format, 2); err != nil {
		return "", err
	}
	return b.String(), nil
}

type strFormatter struct {
	args   []any
	kwargs *value.Map
	attr   AttrFunc
	format FieldFunc
	auto   int // next automatic index; -1 once manual numbering is used
	manual bool
}

func (f *strFormatter) render(b *strings.Builder, s string, depth int) error {
	if depth < 0 {
		return valueErr("Max string recursion exceeded")
	}
	i := 0
	for i < len(s) {
		j := strings.IndexAny(s[i:], "{}")
		if j < 0 {
			b.WriteString(s[i:])
			return nil
		}
		b.WriteString(s[i : i+j])
		i += j
		c := s[i]
		i++
		if i < len(s) && s[i] == c {
			b.WriteByte(c)
			i++
			continue
		}
		if c == '}' {
			return valueErr("Single '}' encountered in format string")
		}
		if i == len(s) {
			return valueErr("Single '{' encountered in format string")
		}
		name, conv, spec, end, err := parseField(s, i)
		if err != nil {
			return err
		}
		i = end
		if err := f.field(b, name, conv, spec, depth); err != nil {
			return err
		}
		if err := CheckSize(int64(b.Len()), 0); err != nil {
			return err
		}
	}
	return nil
}

// parseField splits the replacement field starting at s[i] (just after
// its '{') into name, conversion (0 when none) and spec, following
// CPython's parser, and returns the index after the closing '}'.
func parseField(s string, i int) (name string, conv byte, spec string, end int, err error) {
	start := i
	var c byte
	for i < len(s) {
		c = s[i]
		i++
		if c == '{' {
			return "", 0, "", 0, valueErr("unexpected '{' in field name")
		}
		if c == '[' {
			for i < len(s) && s[i] != ']' {
				i++
			}
			continue
		}
		if c == '}' || c == ':' || c == '!' {
			break
		}
	}
	if c != '}' && c != ':' && c != '!' || i == start && c == 0 {
		return "", 0, "", 0, valueErr("expected '}' before end of string")
	}
	name = s[start : i-1]
	if c == '}' {
		return name, 0, "", i, nil
	}
	if c == '!' {
		if i >= len(s) {
			return "", 0, "", 0, valueErr("end of string while looking for conversion specifier")
		}
		conv = s[i]
		i++
		if i < len(s) {
			c = s[i]
			i++
			if c == '}' {
				return name, conv, "", i, nil
			}
			if c != ':' {
				return "", 0, "", 0, valueErr("expected ':' after conversion specifier")
			}
		}
	}
	specStart := i
	count := 1
	for i < len(s) {
		c = s[i]
		i++
		switch c {
		case '{':
			count++
		case '}':
			count--
			if count == 0 {
				return name, conv, s[specStart : i-1], i, nil
			}
		}
	}
	return "", 0, "", 0, valueErr("unmatched '{' in format spec")
}

func (f *strFormatter) field(b *strings.Builder, name string, conv byte, spec string, depth int) error {
	v, err := f.lookup(name)
	if err != nil {
		return err
	}
	var cerr error
	switch conv {
	case 0:
	case 's':
		v, cerr = StrChecked(v)
	case 'r':
		v, cerr = ReprChecked(v)
	case 'a':
		var t string
		t, cerr = ReprChecked(v)
		v = asciiRepr(t)
	default:
		return valueErr("Unknown conversion specifier %s", string(rune(conv)))
	}
	if cerr != nil {
		return cerr
	}
	if strings.ContainsAny(spec, "{}") {
		var sb strings.Builder
		if err := f.render(&sb, spec, depth-1); err != nil {
			return err
		}
		spec = sb.String()
	}
	out, err := f.format(v, spec)
	if err != nil {
		return err
	}
	b.WriteString(out)
	return nil
}

// lookup resolves a field name: arg_name ("." attr | "[" key "]")*.
func (f *strFormatter) lookup(name string) (any, error) {
	k := strings.IndexAny(name, ".[")
	first, rest := name, ""
	if k >= 0 {
		first, rest = name[:k], name[k:]
	}
	var v any
	if first == "" {
		if f.manual {
			return nil, valueErr("cannot switch from manual field specification to automatic field numbering")
		}
		i := f.auto
		f.auto++
		if i >= len(f.args) {
			return nil, newErr("IndexError", "Replacement index %d out of range for positional args tuple", i)
		}
		v = f.args[i]
	} else if n, err := strconv.Atoi(first); err == nil && isAllDigits(first) {
		if f.auto > 0 {
			return nil, valueErr("cannot switch from automatic field numbering to manual field specification")
		}
		f.manual = true
		if n >= len(f.args) {
			return nil, newErr("IndexError", "Replacement index %d out of range for positional args tuple", n)
		}
		v = f.args[n]
	} else {
		val, ok := f.kwargs.Get(first)
		if !ok {
			return nil, keyErr(first)
		}
		v = val
	}
	for rest != "" {
		switch rest[0] {
		case '.':
			rest = rest[1:]
			k := strings.IndexAny(rest, ".[")
			attr := rest
			if k >= 0 {
				attr, rest = rest[:k], rest[k:]
			} else {
				rest = ""
			}
			if attr == "" {
				return nil, valueErr("Empty attribute in format string")
			}
			var err error
			if v, err = f.attr(v, attr); err != nil {
				return nil, err
			}
		case '[':
			k := strings.IndexByte(rest, ']')
			if k < 0 {
				return nil, valueErr("Missing ']' in format string")
			}
			key := rest[1:k]
			rest = rest[k+1:]
			if key == "" {
				return nil, valueErr("Empty attribute in format string")
			}
			var idx any = key
			if n, err := strconv.ParseInt(key, 10, 64); err == nil && isAllDigits(key) {
				idx = n
			}
			var err error
			if v, err = GetItem(v, idx); err != nil {
				return nil, err
			}
			if rest != "" && rest[0] != '.' && rest[0] != '[' {
				return nil, valueErr("Only '.' or '[' may follow ']' in format field specifier")
			}
		default:
			return nil, valueErr("Only '.' or '[' may follow ']' in format field specifier")
		}
	}
	return v, nil
}

func isAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}
