package render

import (
	"fmt"
	"unicode/utf8"
)

// UnicodeDecodeError is a template file that is not valid UTF-8: Salt reads
// templates with Python's utf-8 codec, whose exception it reports as is.
type UnicodeDecodeError struct {
	Start, End int // byte range of the bad sequence, End exclusive
	Byte       byte
	Reason     string
}

// Error gives Python's UnicodeDecodeError text.
func (e *UnicodeDecodeError) Error() string {
	if e.End-e.Start == 1 {
		return fmt.Sprintf("'utf-8' codec can't decode byte 0x%02x in position %d: %s", e.Byte, e.Start, e.Reason)
	}
	return fmt.Sprintf("'utf-8' codec can't decode bytes in position %d-%d: %s", e.Start, e.End-1, e.Reason)
}

// DecodeUTF8 returns data as a string, or the *UnicodeDecodeError Python's
// strict utf-8 decoder raises for its first bad sequence. A BOM is kept.
func DecodeUTF8(data []byte) (string, error) {
	if utf8.Valid(data) {
		return string(data), nil
	}
	for i := 0; i < len(data); {
		c := data[i]
		if c < 0x80 {
			i++
			continue
		}
		n, lo, hi := 0, byte(0x80), byte(0xbf)
		switch {
		case c >= 0xc2 && c <= 0xdf:
			n = 2
		case c == 0xe0:
			n, lo = 3, 0xa0
		case c >= 0xe1 && c <= 0xec, c == 0xee, c == 0xef:
			n = 3
		case c == 0xed:
			n, hi = 3, 0x9f
		case c == 0xf0:
			n, lo = 4, 0x90
		case c >= 0xf1 && c <= 0xf3:
			n = 4
		case c == 0xf4:
			n, hi = 4, 0x8f
		default:
			return "", &UnicodeDecodeError{Start: i, End: i + 1, Byte: c, Reason: "invalid start byte"}
		}
		for k := 1; k < n; k++ {
			if i+k >= len(data) {
				return "", &UnicodeDecodeError{Start: i, End: len(data), Byte: c, Reason: "unexpected end of data"}
			}
			b := data[i+k]
			l, h := byte(0x80), byte(0xbf)
			if k == 1 {
				l, h = lo, hi
			}
			if b < l || b > h {
				return "", &UnicodeDecodeError{Start: i, End: i + k, Byte: c, Reason: "invalid continuation byte"}
			}
		}
		i += n
	}
	return string(data), nil
}
