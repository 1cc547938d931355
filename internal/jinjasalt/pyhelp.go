package jinjasalt

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"brine/internal/jinja"
	"brine/internal/pyops"
	"brine/internal/value"
)

// iterate lists the items Python's iter(v) yields.
func iterate(v any) ([]any, error) {
	switch x := v.(type) {
	case *value.List:
		return x.Items, nil
	case value.Tuple:
		return x, nil
	case *Set:
		return x.items, nil
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
	case pyops.Iterable:
		return x.PyIter()
	case interface{ Iterate() ([]any, error) }:
		return x.Iterate()
	}
	if s, ok := asString(v); ok {
		return iterate(s)
	}
	if jinja.IsUndefined(v) {
		return nil, nil // a lenient Undefined iterates as empty
	}
	return nil, pyErr(excTypeError, "'%s' object is not iterable", typeName(v))
}

// typeName is Python's type(v).__name__, honouring the engine's own types.
func typeName(v any) string {
	if n, ok := v.(interface{ PyTypeName() string }); ok {
		return n.PyTypeName()
	}
	if _, ok := v.(*Set); ok {
		return "set"
	}
	return value.TypeName(v)
}

// pyClass is str(type(v)): "<class 'int'>".
func pyClass(v any) string { return "<class '" + typeName(v) + "'>" }

// hashable is isinstance(v, collections.abc.Hashable): lists, dicts and sets
// are not; tuples are, whatever they hold.
func hashable(v any) bool {
	switch v.(type) {
	case *value.List, *value.Map, *Set:
		return false
	}
	return true
}

// pyStr is Python's str(v).
func pyStr(v any) string { return value.Str(v) }

// toBytes is salt.utils.stringutils.to_bytes: str and bytes only.
func toBytes(v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		return []byte(x), nil
	case []byte:
		return x, nil
	}
	if s, ok := v.(value.Stringer); ok && isMarkup(v) {
		return []byte(s.PyStr()), nil
	}
	return nil, pyErr(excTypeError, "expected str, bytes, or bytearray not %s", pyClass(v))
}

// toText is salt.utils.stringutils.to_str/to_unicode: str, or bytes decoded
// as UTF-8.
func toText(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case []byte:
		if !utf8.Valid(x) {
			return "", pyErr(excUnicodeError, "'utf-8' codec can't decode bytes")
		}
		return string(x), nil
	}
	if s, ok := v.(value.Stringer); ok && isMarkup(v) {
		return s.PyStr(), nil
	}
	return "", pyErr(excTypeError, "expected str, bytes, or bytearray not %s", pyClass(v))
}

// isMarkup reports whether v is a str subclass of the engine (Markup).
func isMarkup(v any) bool {
	n, ok := v.(interface{ PyTypeName() string })
	return ok && n.PyTypeName() == "Markup"
}

// asString returns v as a Go string when it is a str (or Markup).
func asString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case value.Stringer:
		if isMarkup(v) {
			return x.PyStr(), true
		}
	}
	return "", false
}

// parsePyInt parses text as Python's int(text) does (base 10): surrounding
// whitespace, a sign, digits with single underscores between them.
func parsePyInt(text string, base int) (any, bool) {
	s := strings.TrimSpace(text)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if base == 16 && len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
		if s != "" && s[0] == '_' {
			s = s[1:]
		}
	}
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return nil, false
	}
	var digits strings.Builder
	for _, r := range s {
		switch {
		case r == '_':
			continue
		case unicode.IsDigit(r):
			d := r
			if r > 0x7f {
				d = '0' + rune(unicodeDigit(r))
			}
			digits.WriteRune(d)
		case base == 16 && strings.ContainsRune("abcdefABCDEF", r):
			digits.WriteRune(r)
		default:
			return nil, false
		}
	}
	if base == 10 && digits.Len() > pyops.MaxStrDigits {
		return nil, false // CPython refuses the (quadratic) conversion
	}
	n, ok := new(big.Int).SetString(digits.String(), base)
	if !ok {
		return nil, false
	}
	if neg {
		n.Neg(n)
	}
	return value.NormInt(n), true
}

func unicodeDigit(r rune) int {
	// Unicode decimal digits come in runs of ten starting at a zero.
	for z := r; z > r-10; z-- {
		if !unicode.IsDigit(z - 1) {
			return int(r - z)
		}
	}
	return 0
}

// parsePyFloat parses text as Python's float(text) does.
func parsePyFloat(text string) (float64, bool) {
	s := strings.TrimSpace(text)
	if s == "" || strings.ContainsAny(s, "xXpP") {
		return 0, false
	}
	if strings.Contains(s, "_") {
		// underscores only between digits
		for i := 0; i < len(s); i++ {
			if s[i] == '_' && (i == 0 || i == len(s)-1 || !isDigit(s[i-1]) || !isDigit(s[i+1])) {
				return 0, false
			}
		}
		s = strings.ReplaceAll(s, "_", "")
	}
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 {
		return 0, false
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		if s[0] == '-' {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case "nan":
		return math.NaN(), true
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !isDigit(c) && c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-' {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// pyInt is Python's int(v) for the types templates pass.
func pyInt(v any) (any, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return int64(1), nil
		}
		return int64(0), nil
	case int64, *big.Int:
		return x, nil
	case int:
		return int64(x), nil
	case float64:
		if math.IsInf(x, 0) {
			return nil, pyErr(excOverflowError, "cannot convert float infinity to integer")
		}
		if math.IsNaN(x) {
			return nil, pyErr(excValueError, "cannot convert float NaN to integer")
		}
		b, _ := new(big.Float).SetFloat64(math.Trunc(x)).Int(nil)
		return value.NormInt(b), nil
	case string, []byte:
		s := pyStr(x)
		if b, ok := x.([]byte); ok {
			s = string(b)
		}
		if n, ok := parsePyInt(s, 10); ok {
			return n, nil
		}
		if _, err := pyops.Int(s, 10); err != nil && strings.HasPrefix(err.Error(), "Exceeds the limit") {
			return nil, pyErr(excValueError, "%s", err.Error())
		}
		return nil, pyErr(excValueError, "invalid literal for int() with base 10: %s", value.Repr(v))
	}
	if s, ok := asString(v); ok {
		return pyInt(s)
	}
	return nil, pyErr(excTypeError, "int() argument must be a string, a bytes-like object or a real number, not '%s'", typeName(v))
}

// pyFloat is Python's float(v).
func pyFloat(v any) (float64, error) {
	switch x := v.(type) {
	case bool, int64, int, *big.Int, float64:
		return value.ToFloat(x), nil
	case string:
		if f, ok := parsePyFloat(x); ok {
			return f, nil
		}
		return 0, pyErr(excValueError, "could not convert string to float: %s", value.Repr(x))
	}
	if s, ok := asString(v); ok {
		return pyFloat(s)
	}
	return 0, pyErr(excTypeError, "float() argument must be a string or a real number, not '%s'", typeName(v))
}

// contains is Python's `item in container`.
func contains(container, item any) (bool, error) {
	switch c := container.(type) {
	case string:
		s, ok := asString(item)
		if !ok {
			return false, pyErr(excTypeError, "'in <string>' requires string as left operand, not %s", typeName(item))
		}
		return strings.Contains(c, s), nil
	case *value.Map:
		if !value.Hashable(item) {
			return false, pyErr(excTypeError, "unhashable type: '%s'", typeName(item))
		}
		return c.Has(item), nil
	}
	if s, ok := asString(container); ok {
		return contains(s, item)
	}
	items, err := iterate(container)
	if err != nil {
		return false, pyErr(excTypeError, "argument of type '%s' is not iterable", typeName(container))
	}
	for _, e := range items {
		if value.Equal(e, item) {
			return true, nil
		}
	}
	return false, nil
}

// compare is Python's ordering for <, used by min, max and sorted.
func compare(a, b any) (int, error) {
	if value.IsNumber(a) && value.IsNumber(b) {
		if ai, ok := value.AsBig(a); ok {
			if bi, ok := value.AsBig(b); ok {
				return ai.Cmp(bi), nil
			}
		}
		fa, fb := value.ToFloat(a), value.ToFloat(b)
		switch {
		case fa < fb:
			return -1, nil
		case fa > fb:
			return 1, nil
		}
		return 0, nil
	}
	if sa, ok := asString(a); ok {
		if sb, ok := asString(b); ok {
			return strings.Compare(sa, sb), nil
		}
	}
	switch x := a.(type) {
	case []byte:
		if y, ok := b.([]byte); ok {
			return strings.Compare(string(x), string(y)), nil
		}
	case *value.List:
		if y, ok := b.(*value.List); ok {
			return compareSeq(x.Items, y.Items)
		}
	case value.Tuple:
		if y, ok := b.(value.Tuple); ok {
			return compareSeq(x, y)
		}
	}
	return 0, pyErr(excTypeError, "'<' not supported between instances of '%s' and '%s'", typeName(a), typeName(b))
}

func compareSeq(a, b []any) (int, error) {
	for i := 0; i < len(a) && i < len(b); i++ {
		if value.Equal(a[i], b[i]) {
			continue
		}
		return compare(a[i], b[i])
	}
	switch {
	case len(a) < len(b):
		return -1, nil
	case len(a) > len(b):
		return 1, nil
	}
	return 0, nil
}

// truthy is Python's bool(v).
func truthy(v any) bool { return value.Truthy(v) }

// asInt returns v as an int for arguments such as counts and sizes.
func asInt(v any) (int, error) {
	switch x := v.(type) {
	case int64:
		return int(x), nil
	case int:
		return x, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	}
	return 0, pyErr(excTypeError, "'%s' object cannot be interpreted as an integer", typeName(v))
}

// newList wraps items in a new list.
func newList(items []any) *value.List { return value.NewList(items...) }

// pyQuote is repr(s) for a str.
func pyQuote(s string) string { return value.QuoteString(s) }

func asBigInt(v any) (*big.Int, bool) { return value.AsBig(v) }
