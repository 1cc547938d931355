package renderers

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf16"

	"brine/internal/value"
)

// JSONDecodeError is a document Python's json.loads rejects, with its
// message and position: Salt's json renderer lets this exception through
// unchanged, so its text is what users see.
type JSONDecodeError struct {
	Msg       string
	Pos       int // in characters (code points) from the document start
	Line, Col int
}

// Error gives Python's "msg: line L column C (char P)" text.
func (e *JSONDecodeError) Error() string {
	return fmt.Sprintf("%s: line %d column %d (char %d)", e.Msg, e.Line, e.Col, e.Pos)
}

// pyJSONMaxDepth bounds nesting so hostile input cannot exhaust the stack
// (Python raises RecursionError near 1000 levels).
const pyJSONMaxDepth = 10000

// loadsPyJSON decodes src as Python's json.loads (its C scanner) does:
// NaN, Infinity and -Infinity are accepted, integers are exact, a repeated
// key keeps its first position and its last value, and errors carry
// Python's messages and character positions.
func loadsPyJSON(src string) (any, error) {
	d := &pyJSONDec{s: []rune(src)}
	if len(d.s) > 0 && d.s[0] == '\ufeff' {
		return nil, d.err("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0)
	}
	v, end, err := d.scan(d.ws(0), 0)
	if err != nil {
		return nil, err
	}
	if end = d.ws(end); end != len(d.s) {
		return nil, d.err("Extra data", end)
	}
	return v, nil
}

type pyJSONDec struct{ s []rune }

// stopIteration is the scanner finding no value at a position; the caller
// turns it into "Expecting value".
type stopIteration struct{ pos int }

func (stopIteration) Error() string { return "no JSON value" }

func (d *pyJSONDec) err(msg string, pos int) *JSONDecodeError {
	line, col := 1, pos+1
	for i := 0; i < pos && i < len(d.s); i++ {
		if d.s[i] == '\n' {
			line++
			col = pos - i
		}
	}
	return &JSONDecodeError{Msg: msg, Pos: pos, Line: line, Col: col}
}

func (d *pyJSONDec) ws(i int) int {
	for i < len(d.s) {
		switch d.s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (d *pyJSONDec) has(i int, word string) bool {
	r := []rune(word)
	if i+len(r) > len(d.s) {
		return false
	}
	for k, c := range r {
		if d.s[i+k] != c {
			return false
		}
	}
	return true
}

// scan parses the value at i and returns it with the index after it.
func (d *pyJSONDec) scan(i, depth int) (any, int, error) {
	v, end, err := d.scanOnce(i, depth)
	if st, ok := err.(stopIteration); ok {
		return nil, 0, d.err("Expecting value", st.pos)
	}
	return v, end, err
}

func (d *pyJSONDec) scanOnce(i, depth int) (any, int, error) {
	if i >= len(d.s) {
		return nil, 0, stopIteration{i}
	}
	if depth > pyJSONMaxDepth {
		return nil, 0, errors.New("maximum recursion depth exceeded while decoding a JSON object from a unicode string")
	}
	switch c := d.s[i]; {
	case c == '"':
		return d.str(i + 1)
	case c == '{':
		return d.object(i+1, depth+1)
	case c == '[':
		return d.array(i+1, depth+1)
	case c == 'n' && d.has(i, "null"):
		return nil, i + 4, nil
	case c == 't' && d.has(i, "true"):
		return true, i + 4, nil
	case c == 'f' && d.has(i, "false"):
		return false, i + 5, nil
	case c == 'N' && d.has(i, "NaN"):
		return math.NaN(), i + 3, nil
	case c == 'I' && d.has(i, "Infinity"):
		return math.Inf(1), i + 8, nil
	case c == '-' && d.has(i, "-Infinity"):
		return math.Inf(-1), i + 9, nil
	}
	return d.number(i)
}

func isDigit(c rune) bool { return c >= '0' && c <= '9' }

func (d *pyJSONDec) number(start int) (any, int, error) {
	i := start
	if i < len(d.s) && d.s[i] == '-' {
		i++
	}
	switch {
	case i < len(d.s) && d.s[i] >= '1' && d.s[i] <= '9':
		for i < len(d.s) && isDigit(d.s[i]) {
			i++
		}
	case i < len(d.s) && d.s[i] == '0':
		i++
	default:
		return nil, 0, stopIteration{start}
	}
	isFloat := false
	if i+1 < len(d.s) && d.s[i] == '.' && isDigit(d.s[i+1]) {
		isFloat = true
		i += 2
		for i < len(d.s) && isDigit(d.s[i]) {
			i++
		}
	}
	if i < len(d.s) && (d.s[i] == 'e' || d.s[i] == 'E') {
		j := i + 1
		if j < len(d.s) && (d.s[j] == '+' || d.s[j] == '-') {
			j++
		}
		if j < len(d.s) && isDigit(d.s[j]) {
			for j < len(d.s) && isDigit(d.s[j]) {
				j++
			}
			isFloat = true
			i = j
		}
	}
	text := string(d.s[start:i])
	if isFloat {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil && !isRangeErr(err) {
			return nil, 0, d.err("Expecting value", start)
		}
		return f, i, nil
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return n, i, nil
	}
	b, ok := new(big.Int).SetString(text, 10)
	if !ok {
		return nil, 0, d.err("Expecting value", start)
	}
	return b, i, nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// str parses a string whose opening quote is at begin-1.
func (d *pyJSONDec) str(begin int) (any, int, error) {
	var b strings.Builder
	i := begin
	for {
		j := i
		for j < len(d.s) && d.s[j] != '"' && d.s[j] != '\\' {
			if d.s[j] <= 0x1f {
				return nil, 0, d.err("Invalid control character at", j)
			}
			j++
		}
		if j >= len(d.s) {
			return nil, 0, d.err("Unterminated string starting at", begin-1)
		}
		b.WriteString(string(d.s[i:j]))
		if d.s[j] == '"' {
			return b.String(), j + 1, nil
		}
		j++ // past the backslash
		if j >= len(d.s) {
			return nil, 0, d.err("Unterminated string starting at", begin-1)
		}
		c := d.s[j]
		if c != 'u' {
			rep, ok := map[rune]rune{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[c]
			if !ok {
				return nil, 0, d.err(`Invalid \escape`, j-1)
			}
			b.WriteRune(rep)
			i = j + 1
			continue
		}
		j++
		end := j + 4
		if end >= len(d.s) {
			return nil, 0, d.err(`Invalid \uXXXX escape`, j-1)
		}
		r, ok := d.hex4(j)
		if !ok {
			return nil, 0, d.err(`Invalid \uXXXX escape`, end-5)
		}
		if utf16.IsSurrogate(r) && r < 0xdc00 && end+6 < len(d.s) && d.s[end] == '\\' && d.s[end+1] == 'u' {
			r2, ok := d.hex4(end + 2)
			if !ok {
				return nil, 0, d.err(`Invalid \uXXXX escape`, end+1)
			}
			if r2 >= 0xdc00 && r2 <= 0xdfff {
				r = utf16.DecodeRune(r, r2)
				end += 6
			}
		}
		// A lone surrogate is kept by Python; Go strings cannot hold it,
		// so it becomes U+FFFD.
		b.WriteRune(r)
		i = end
	}
}

func (d *pyJSONDec) hex4(i int) (rune, bool) {
	var r rune
	for k := i; k < i+4; k++ {
		c := d.s[k]
		var v rune
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | v
	}
	return r, true
}

// object parses a mapping whose "{" is at i-1.
func (d *pyJSONDec) object(i, depth int) (any, int, error) {
	m := value.NewMap(0)
	i = d.ws(i)
	if i < len(d.s) && d.s[i] == '}' {
		return m, i + 1, nil
	}
	for {
		if i >= len(d.s) || d.s[i] != '"' {
			return nil, 0, d.err("Expecting property name enclosed in double quotes", i)
		}
		k, next, err := d.str(i + 1)
		if err != nil {
			return nil, 0, err
		}
		i = d.ws(next)
		if i >= len(d.s) || d.s[i] != ':' {
			return nil, 0, d.err("Expecting ':' delimiter", i)
		}
		i = d.ws(i + 1)
		v, next, err := d.scanOnce(i, depth)
		if err != nil {
			return nil, 0, err
		}
		m.Set(k, v)
		i = d.ws(next)
		if i < len(d.s) && d.s[i] == '}' {
			return m, i + 1, nil
		}
		if i >= len(d.s) || d.s[i] != ',' {
			return nil, 0, d.err("Expecting ',' delimiter", i)
		}
		i = d.ws(i + 1)
	}
}

// array parses a list whose "[" is at i-1.
func (d *pyJSONDec) array(i, depth int) (any, int, error) {
	l := value.NewList()
	i = d.ws(i)
	if i < len(d.s) && d.s[i] == ']' {
		return l, i + 1, nil
	}
	for {
		v, next, err := d.scanOnce(i, depth)
		if err != nil {
			return nil, 0, err
		}
		l.Append(v)
		i = d.ws(next)
		if i < len(d.s) && d.s[i] == ']' {
			return l, i + 1, nil
		}
		if i >= len(d.s) || d.s[i] != ',' {
			return nil, 0, d.err("Expecting ',' delimiter", i)
		}
		i = d.ws(i + 1)
	}
}
