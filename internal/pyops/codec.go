package pyops

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// codecName normalizes an encoding name to "utf-8", "ascii" or "latin-1";
// "" for one brine does not know.
func codecName(enc string) string {
	e := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(enc)), "_", "-")
	switch e {
	case "", "utf-8", "utf8", "u8", "utf", "cp65001":
		return "utf-8"
	case "ascii", "us-ascii", "646":
		return "ascii"
	case "latin-1", "latin1", "iso-8859-1", "iso8859-1", "8859", "cp819", "l1", "latin":
		return "latin-1"
	}
	return ""
}

// Encode is Python's s.encode(encoding, errors) for UTF-8, ASCII and
// Latin-1 with the strict, ignore and replace error handlers.
func Encode(s, encoding, errors string) ([]byte, error) {
	codec := codecName(encoding)
	if codec == "" {
		return nil, newErr("LookupError", "unknown encoding: %s", encoding)
	}
	if codec == "utf-8" || isASCII(s) {
		return []byte(s), nil
	}
	limit := rune(0x80)
	if codec == "latin-1" {
		limit = 0x100
	}
	out := make([]byte, 0, len(s))
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r < limit {
			out = append(out, byte(r))
			continue
		}
		switch errors {
		case "ignore":
		case "replace":
			out = append(out, '?')
		case "", "strict":
			j := i
			for j+1 < len(rs) && rs[j+1] >= limit {
				j++
			}
			what := fmt.Sprintf("character %s in position %d", charRepr(r), i)
			if j > i {
				what = fmt.Sprintf("characters in position %d-%d", i, j)
			}
			return nil, newErr("UnicodeEncodeError", "'%s' codec can't encode %s: ordinal not in range(%d)", codec, what, limit)
		default:
			return nil, newErr("LookupError", "unknown error handler name '%s'", errors)
		}
	}
	return out, nil
}

func charRepr(r rune) string {
	switch {
	case r <= 0xff:
		return fmt.Sprintf("'\\x%02x'", r)
	case r <= 0xffff:
		return fmt.Sprintf("'\\u%04x'", r)
	}
	return fmt.Sprintf("'\\U%08x'", r)
}

// Decode is Python's b.decode(encoding, errors) for UTF-8, ASCII and
// Latin-1 with the strict, ignore and replace error handlers.
func Decode(b []byte, encoding, errors string) (string, error) {
	codec := codecName(encoding)
	if codec == "" {
		return "", newErr("LookupError", "unknown encoding: %s", encoding)
	}
	switch errors {
	case "", "strict", "ignore", "replace":
	default:
		return "", newErr("LookupError", "unknown error handler name '%s'", errors)
	}
	var sb strings.Builder
	sb.Grow(len(b))
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c < 0x80:
			sb.WriteByte(c)
			i++
			continue
		case codec == "latin-1":
			sb.WriteRune(rune(c))
			i++
			continue
		case codec == "utf-8":
			r, size := utf8.DecodeRune(b[i:])
			if r != utf8.RuneError || size > 1 {
				sb.WriteRune(r)
				i += size
				continue
			}
		}
		// An ill-formed sequence: its maximal valid prefix is one error.
		n, reason := utf8Invalid(b[i:])
		if codec == "ascii" {
			n, reason = 1, "ordinal not in range(128)"
		}
		switch errors {
		case "ignore":
		case "replace":
			sb.WriteRune(utf8.RuneError)
		default:
			if n == 1 {
				return "", newErr("UnicodeDecodeError", "'%s' codec can't decode byte 0x%02x in position %d: %s", codec, c, i, reason)
			}
			return "", newErr("UnicodeDecodeError", "'%s' codec can't decode bytes in position %d-%d: %s", codec, i, i+n-1, reason)
		}
		i += n
	}
	return sb.String(), nil
}

// utf8Invalid measures the ill-formed UTF-8 sequence at the start of b
// (its maximal subpart, as CPython reports it) and says why it is invalid.
func utf8Invalid(b []byte) (int, string) {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xbf)
	switch {
	case c >= 0xc2 && c <= 0xdf:
		need = 1
	case c == 0xe0:
		need, lo = 2, 0xa0
	case c >= 0xe1 && c <= 0xef:
		need = 2
		if c == 0xed {
			hi = 0x9f
		}
	case c == 0xf0:
		need, lo = 3, 0x90
	case c >= 0xf1 && c <= 0xf3:
		need = 3
	case c == 0xf4:
		need, hi = 3, 0x8f
	default:
		return 1, "invalid start byte"
	}
	k := 1
	for ; k <= need; k++ {
		if k >= len(b) {
			return k, "unexpected end of data"
		}
		if b[k] < lo || b[k] > hi {
			return k, "invalid continuation byte"
		}
		lo, hi = 0x80, 0xbf
	}
	return k, "invalid continuation byte"
}
