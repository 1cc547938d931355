package pyops

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"

	"brine/internal/value"
)

// Str is Python's str(v).
func Str(v any) string { return value.Str(v) }

// Repr is Python's repr(v).
func Repr(v any) string { return value.Repr(v) }

// Int is Python's int(v, base). Base 10 is also the "no base given" case,
// so int(3.7) is Int(3.7, 10); a base other than 10 requires a string.
func Int(v any, base int) (any, error) {
	switch x := v.(type) {
	case string:
		return parseInt(x, base)
	case []byte:
		return parseIntBytes(x, base)
	}
	if base != 10 {
		return nil, typeErr("int() can't convert non-string with explicit base")
	}
	n := toNum(v)
	switch n.kind {
	case smallInt:
		return n.i, nil
	case bigInt:
		return n.b, nil
	case floatNum:
		return floatToInt(n.f)
	}
	return nil, typeErr("int() argument must be a string, a bytes-like object or a real number, not '%s'", TypeName(v))
}

func parseIntBytes(b []byte, base int) (any, error) {
	r, err := parseInt(string(b), base)
	if e, ok := err.(*Error); ok && e.Type == "ValueError" && strings.HasPrefix(e.Msg, "invalid literal") {
		e.Msg = "invalid literal for int() with base " + strconv.Itoa(base) + ": " + value.Repr(b)
	}
	return r, err
}

func floatToInt(f float64) (any, error) {
	switch {
	case math.IsInf(f, 0):
		return nil, newErr("OverflowError", "cannot convert float infinity to integer")
	case math.IsNaN(f):
		return nil, valueErr("cannot convert float NaN to integer")
	}
	t := math.Trunc(f)
	if t >= -(1<<63) && t < 1<<63 {
		return int64(t), nil
	}
	b, _ := big.NewFloat(t).Int(nil)
	return b, nil
}

// parseInt parses a Python int literal as int(s, base) does.
func parseInt(s string, base int) (any, error) {
	if base != 0 && (base < 2 || base > 36) {
		return nil, valueErr("int() base must be >= 2 and <= 36, or 0")
	}
	bad := func() (any, error) {
		return nil, valueErr("invalid literal for int() with base %d: %s", base, value.Repr(s))
	}
	t := strings.TrimFunc(s, unicode.IsSpace)
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	b := base
	if len(t) >= 2 && t[0] == '0' {
		p := t[1] | 0x20
		switch {
		case p == 'x' && (b == 16 || b == 0):
			b, t = 16, t[2:]
		case p == 'o' && (b == 8 || b == 0):
			b, t = 8, t[2:]
		case p == 'b' && (b == 2 || b == 0):
			b, t = 2, t[2:]
		}
		// A prefix may be followed by an underscore: 0x_ff.
		if b != base && strings.HasPrefix(t, "_") {
			t = t[1:]
		}
	}
	if b == 0 {
		b = 10
		// Base 0 forbids leading zeros in a non-zero decimal literal.
		if len(t) > 1 && t[0] == '0' && strings.Trim(t, "0_") != "" {
			return bad()
		}
	}
	if t == "" || t[0] == '_' || t[len(t)-1] == '_' || strings.Contains(t, "__") {
		return bad()
	}
	digits := t
	if strings.IndexByte(t, '_') >= 0 {
		digits = strings.ReplaceAll(t, "_", "")
	}
	digits = asciiDigits(digits)
	if digits == "" {
		return bad()
	}
	if b&(b-1) != 0 && len(digits) > MaxStrDigits {
		return nil, errToInt(len(digits))
	}
	if n, err := strconv.ParseInt(digits, b, 64); err == nil {
		if neg {
			n = -n
		}
		return n, nil
	}
	z, ok := new(big.Int).SetString(digits, b)
	if !ok {
		return bad()
	}
	if neg {
		z.Neg(z)
	}
	return value.NormInt(z), nil
}

// asciiDigits maps Unicode decimal digits to ASCII ones (Python's int()
// accepts any Nd digit); it returns "" when s holds some other non-ASCII
// character.
func asciiDigits(s string) string {
	if isASCII(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x80:
			b.WriteRune(r)
		case unicode.IsDigit(r):
			b.WriteByte(byte('0' + digitValue(r)))
		default:
			return ""
		}
	}
	return b.String()
}

// digitValue returns the decimal value of a Unicode Nd digit: digits come
// in contiguous runs of ten starting at a code point ending in 0 in most
// scripts; find the run start.
func digitValue(r rune) int {
	z := r
	for z > 0 && unicode.IsDigit(z-1) && r-z < 9 {
		z--
	}
	return int(r-z) % 10
}

// Float is Python's float(v).
func Float(v any) (float64, error) {
	switch x := v.(type) {
	case string:
		return parseFloat(x)
	case []byte:
		f, err := parseFloat(string(x))
		if err != nil {
			return 0, valueErr("could not convert string to float: %s", value.Repr(x))
		}
		return f, nil
	}
	n := toNum(v)
	if n.kind == notNum {
		return 0, typeErr("float() argument must be a string or a real number, not '%s'", TypeName(v))
	}
	f, ok := n.float()
	if !ok {
		return 0, errIntTooLarge
	}
	return f, nil
}

func parseFloat(s string) (float64, error) {
	t := strings.TrimFunc(s, unicode.IsSpace)
	bad := func() (float64, error) {
		return 0, valueErr("could not convert string to float: %s", value.Repr(s))
	}
	body := t
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		if t[0] == '-' {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	case "nan":
		return math.NaN(), nil
	}
	if body == "" || strings.ContainsAny(body, "xXpP") || strings.HasPrefix(body, "0x") {
		return bad()
	}
	if strings.IndexByte(t, '_') >= 0 {
		// Underscores only between digits.
		for i := 0; i < len(t); i++ {
			if t[i] == '_' && (i == 0 || i == len(t)-1 || !isDigit(t[i-1]) || !isDigit(t[i+1])) {
				return bad()
			}
		}
		t = strings.ReplaceAll(t, "_", "")
	}
	t = asciiDigits(t)
	if t == "" {
		return bad()
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, nil // Python overflows to inf and underflows to 0
		}
		return bad()
	}
	return f, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
