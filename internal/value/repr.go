package value

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Repr is Python's repr(v). An int of more than MaxStrDigits digits,
// which Python refuses to convert, prints as "<int of more than 4300
// digits>"; ReprErr returns the error instead.
func Repr(v any) string {
	var err error
	return repr(v, &err)
}

// repr writes v, recording an int too long to convert in *err.
func repr(v any, err *error) string {
	var b strings.Builder
	writeRepr(&b, v, err)
	return b.String()
}

// Str is Python's str(v): strings print as themselves, containers as repr
// (StrErr: with the error of an int too long to convert).
func Str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case Stringer:
		return x.PyStr()
	}
	return Repr(v)
}

func writeRepr(b *strings.Builder, v any, err *error) {
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case int:
		b.WriteString(strconv.Itoa(x))
	case *big.Int:
		if IntStrTooLong(x) {
			if *err == nil {
				*err = &IntStrError{}
			}
			b.WriteString(intTooLong)
			return
		}
		b.WriteString(x.String())
	case float64:
		b.WriteString(FormatFloat(x))
	case string:
		b.WriteString(QuoteString(x))
	case []byte:
		b.WriteString(reprBytes(x))
	case *List:
		b.WriteByte('[')
		for i, e := range x.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, e, err)
		}
		b.WriteByte(']')
	case Tuple:
		b.WriteByte('(')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, e, err)
		}
		if len(x) == 1 {
			b.WriteByte(',')
		}
		b.WriteByte(')')
	case *Map:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, k, err)
			b.WriteString(": ")
			writeRepr(b, x.vals[i], err)
		}
		b.WriteByte('}')
	case Reprer:
		b.WriteString(x.Repr())
	default:
		fmt.Fprintf(b, "<%T object>", v)
	}
}

// QuoteString is Python's repr(str): single quotes unless the text holds a
// single quote and no double quote; printable Unicode kept as is.
func QuoteString(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(q)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, "\\x%02x", s[i])
			i++
			continue
		}
		i += size
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\x%02x", r)
		case r < 0x80:
			b.WriteRune(r)
		case isPyPrintable(r):
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(&b, "\\x%02x", r)
		case r <= 0xffff:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			fmt.Fprintf(&b, "\\U%08x", r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// isPyPrintable approximates Python's str.isprintable for one rune: letters,
// marks, numbers, punctuation and symbols, and the plain space.
func isPyPrintable(r rune) bool {
	if r == ' ' {
		return true
	}
	if unicode.Is(unicode.Zs, r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r) {
		return false
	}
	return unicode.IsGraphic(r) && !unicode.Is(unicode.Cf, r)
}

func reprBytes(x []byte) string {
	q := byte('\'')
	if strings.IndexByte(string(x), '\'') >= 0 && strings.IndexByte(string(x), '"') < 0 {
		q = '"'
	}
	var b strings.Builder
	b.WriteString("b")
	b.WriteByte(q)
	for _, c := range x {
		switch {
		case c == q || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, "\\x%02x", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(q)
	return b.String()
}
