package modules

// pyjson.go words JSON syntax errors as Python's json module does
// ("Expecting value: line 1 column 1 (char 0)"), for the json serializer.

import (
	"fmt"
	"strings"
)

// pyJSONScanner finds the first syntax error of a document the way
// Python's json.decoder scans it. Positions count code points.
type pyJSONScanner struct {
	s []rune
}

// pyJSONSyntaxError is the message json.loads raises for doc, or "" when
// Python would accept it.
func pyJSONSyntaxError(doc string) string {
	sc := &pyJSONScanner{s: []rune(doc)}
	msg, pos := sc.document()
	if msg == "" {
		return ""
	}
	lineno := 1 + strings.Count(string(sc.s[:pos]), "\n")
	col := pos + 1
	if i := strings.LastIndex(string(sc.s[:pos]), "\n"); i >= 0 {
		col = pos - len([]rune(string(sc.s[:pos])[:i]))
	}
	return fmt.Sprintf("%s: line %d column %d (char %d)", msg, lineno, col, pos)
}

func (sc *pyJSONScanner) ws(i int) int {
	for i < len(sc.s) && strings.ContainsRune(" \t\n\r", sc.s[i]) {
		i++
	}
	return i
}

func (sc *pyJSONScanner) at(i int) rune {
	if i < len(sc.s) {
		return sc.s[i]
	}
	return 0
}

func (sc *pyJSONScanner) document() (string, int) {
	i := sc.ws(0)
	end, msg, pos := sc.value(i)
	if msg != "" {
		return msg, pos
	}
	if end = sc.ws(end); end != len(sc.s) {
		return "Extra data", end
	}
	return "", 0
}

func (sc *pyJSONScanner) hasPrefix(i int, lit string) bool {
	return i+len(lit) <= len(sc.s) && string(sc.s[i:i+len(lit)]) == lit
}

// value scans one value at i and returns its end, or an error and its
// position ("Expecting value" at i when nothing starts there).
func (sc *pyJSONScanner) value(i int) (int, string, int) {
	switch c := sc.at(i); {
	case i >= len(sc.s):
		return 0, "Expecting value", i
	case c == '"':
		return sc.str(i + 1)
	case c == '{':
		return sc.object(i + 1)
	case c == '[':
		return sc.array(i + 1)
	}
	for _, lit := range []string{"null", "true", "false", "NaN", "Infinity", "-Infinity"} {
		if sc.hasPrefix(i, lit) {
			return i + len(lit), "", 0
		}
	}
	j := i
	if sc.at(j) == '-' {
		j++
	}
	switch {
	case sc.at(j) == '0':
		j++
	case sc.at(j) >= '1' && sc.at(j) <= '9':
		for sc.at(j) >= '0' && sc.at(j) <= '9' {
			j++
		}
	default:
		return 0, "Expecting value", i
	}
	if sc.at(j) == '.' && sc.at(j+1) >= '0' && sc.at(j+1) <= '9' {
		j += 2
		for sc.at(j) >= '0' && sc.at(j) <= '9' {
			j++
		}
	}
	if c := sc.at(j); c == 'e' || c == 'E' {
		k := j + 1
		if c := sc.at(k); c == '+' || c == '-' {
			k++
		}
		if sc.at(k) >= '0' && sc.at(k) <= '9' {
			for sc.at(k) >= '0' && sc.at(k) <= '9' {
				k++
			}
			j = k
		}
	}
	return j, "", 0
}

// str scans a string whose opening quote is at i-1, with the messages of
// CPython's C scanner.
func (sc *pyJSONScanner) str(i int) (int, string, int) {
	begin := i - 1
	for {
		if i >= len(sc.s) {
			return 0, "Unterminated string starting at", begin
		}
		c := sc.s[i]
		switch {
		case c == '"':
			return i + 1, "", 0
		case c < 0x20:
			return 0, "Invalid control character at", i
		case c == '\\':
			i++
			if i >= len(sc.s) {
				return 0, "Unterminated string starting at", begin
			}
			switch sc.s[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				hex := i + 1
				if hex+4 >= len(sc.s) {
					return 0, "Invalid \\uXXXX escape", i
				}
				for k := 0; k < 4; k++ {
					h := sc.at(hex + k)
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return 0, "Invalid \\uXXXX escape", i
					}
				}
				i = hex + 4
			default:
				return 0, "Invalid \\escape", i - 1
			}
		default:
			i++
		}
	}
}

func (sc *pyJSONScanner) object(i int) (int, string, int) {
	i = sc.ws(i)
	if sc.at(i) == '}' && i < len(sc.s) {
		return i + 1, "", 0
	}
	if sc.at(i) != '"' || i >= len(sc.s) {
		return 0, "Expecting property name enclosed in double quotes", i
	}
	i++
	for {
		end, msg, pos := sc.str(i)
		if msg != "" {
			return 0, msg, pos
		}
		i = sc.ws(end)
		if sc.at(i) != ':' || i >= len(sc.s) {
			return 0, "Expecting ':' delimiter", i
		}
		i = sc.ws(i + 1)
		if end, msg, pos = sc.value(i); msg != "" {
			return 0, msg, pos
		}
		i = sc.ws(end)
		switch {
		case i < len(sc.s) && sc.s[i] == '}':
			return i + 1, "", 0
		case i >= len(sc.s) || sc.s[i] != ',':
			return 0, "Expecting ',' delimiter", i
		}
		i = sc.ws(i + 1)
		if sc.at(i) != '"' || i >= len(sc.s) {
			return 0, "Expecting property name enclosed in double quotes", i
		}
		i++
	}
}

func (sc *pyJSONScanner) array(i int) (int, string, int) {
	i = sc.ws(i)
	if i < len(sc.s) && sc.s[i] == ']' {
		return i + 1, "", 0
	}
	for {
		end, msg, pos := sc.value(i)
		if msg != "" {
			return 0, msg, pos
		}
		i = sc.ws(end)
		switch {
		case i < len(sc.s) && sc.s[i] == ']':
			return i + 1, "", 0
		case i >= len(sc.s) || sc.s[i] != ',':
			return 0, "Expecting ',' delimiter", i
		}
		i = sc.ws(i + 1)
	}
}
