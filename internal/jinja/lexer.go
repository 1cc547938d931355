package jinja

import (
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokType is the kind of a lexer token.
type tokType uint8

const (
	tEOF tokType = iota
	tData
	tVarBegin
	tVarEnd
	tBlockBegin
	tBlockEnd
	tName
	tString
	tInt
	tFloat
	tOp
)

// token is one lexer token. pos is the byte offset in the normalized source.
type token struct {
	typ tokType
	val string // raw text; for strings the decoded value
	num any    // int64, *big.Int or float64 for number tokens
	pos int
}

// describeToken names a token the way Jinja's error messages do.
func describeToken(t token) string {
	switch t.typ {
	case tEOF:
		return "end of template"
	case tData:
		return "template data / text"
	case tVarBegin:
		return "begin of print statement"
	case tVarEnd:
		return "end of print statement"
	case tBlockBegin:
		return "begin of statement block"
	case tBlockEnd:
		return "end of statement block"
	case tName, tOp:
		return t.val
	case tString:
		return "string"
	case tInt:
		return "integer"
	case tFloat:
		return "float"
	}
	return "?"
}

// normalizeSource turns every line break into \n and, unless keep is set,
// drops one trailing newline, as Jinja's lexer does.
func normalizeSource(src string, keep bool) string {
	if strings.IndexByte(src, '\r') >= 0 {
		src = strings.ReplaceAll(src, "\r\n", "\n")
		src = strings.ReplaceAll(src, "\r", "\n")
	}
	if !keep && strings.HasSuffix(src, "\n") {
		src = src[:len(src)-1]
	}
	return src
}

type lexer struct {
	src    string
	name   string
	trim   bool
	lstrip bool
	toks   []token
}

// lex tokenizes a normalized source.
func lex(src, name string, trim, lstrip bool) ([]token, error) {
	lx := &lexer{src: src, name: name, trim: trim, lstrip: lstrip, toks: make([]token, 0, len(src)/5+8)}
	if err := lx.run(); err != nil {
		return nil, err
	}
	lx.toks = append(lx.toks, token{typ: tEOF, pos: lx.lastPos()})
	return lx.toks, nil
}

// lastPos is where Jinja places the end of the template: the start of
// the last token.
func (lx *lexer) lastPos() int {
	if n := len(lx.toks); n > 0 {
		return lx.toks[n-1].pos
	}
	return 0
}

func (lx *lexer) errAt(pos int, msg string) error {
	line, col := lineCol(lx.src, pos)
	return &Error{Kind: KindSyntax, Type: "TemplateSyntaxError", Msg: msg, Name: lx.name, Line: line, Col: col, Source: sourceLine(lx.src, line)}
}

func isSpace(r rune) bool { return unicode.IsSpace(r) }

func rstripSpace(s string) string { return strings.TrimRightFunc(s, isSpace) }

// findTagStart finds the next "{{", "{%" or "{#" at or after pos.
func (lx *lexer) findTagStart(pos int) int {
	s := lx.src
	for {
		i := strings.IndexByte(s[pos:], '{')
		if i < 0 || pos+i+1 >= len(s) {
			return -1
		}
		j := pos + i
		switch s[j+1] {
		case '{', '%', '#':
			return j
		}
		pos = j + 1
	}
}

func (lx *lexer) run() error {
	s := lx.src
	pos := 0
	lineStarting := true
	for pos < len(s) {
		start := lx.findTagStart(pos)
		if start < 0 {
			lx.toks = append(lx.toks, token{typ: tData, val: s[pos:], pos: pos})
			return nil
		}
		kind := s[start+1]
		sign := byte(0)
		after := start + 2
		if after < len(s) && (s[after] == '-' || s[after] == '+') {
			sign = s[after]
			after++
		}
		text := s[pos:start]
		// raw block?
		rawEnd := -1
		if kind == '%' {
			rawEnd = lx.matchRawBegin(after)
		}
		switch {
		case sign == '-':
			text = rstripSpace(text)
		case sign != '+' && lx.lstrip && kind != '{':
			lpos := strings.LastIndexByte(text, '\n') + 1
			if lpos > 0 || lineStarting {
				rest := text[lpos:]
				if rest != "" && strings.TrimLeftFunc(rest, isSpace) == "" {
					text = text[:lpos]
				}
			}
		}
		if text != "" {
			lx.toks = append(lx.toks, token{typ: tData, val: text, pos: pos})
		}
		if rawEnd >= 0 {
			np, err := lx.lexRaw(rawEnd, start)
			if err != nil {
				return err
			}
			pos = np
			lineStarting = pos > 0 && s[pos-1] == '\n'
			continue
		}
		switch kind {
		case '#':
			np, err := lx.lexComment(after, start)
			if err != nil {
				return err
			}
			pos = np
		case '{':
			lx.toks = append(lx.toks, token{typ: tVarBegin, val: "{{", pos: start})
			np, err := lx.lexTag(after, false)
			if err != nil {
				return err
			}
			pos = np
		default:
			lx.toks = append(lx.toks, token{typ: tBlockBegin, val: "{%", pos: start})
			np, err := lx.lexTag(after, true)
			if err != nil {
				return err
			}
			pos = np
		}
		lineStarting = pos > 0 && s[pos-1] == '\n'
	}
	return nil
}

// matchRawBegin checks for `\s*raw\s*(-%}\s*|%})` at p and returns the end
// of the match, or -1.
func (lx *lexer) matchRawBegin(p int) int {
	s := lx.src
	p = skipSpace(s, p)
	if !strings.HasPrefix(s[p:], "raw") {
		return -1
	}
	p = skipSpace(s, p+3)
	if strings.HasPrefix(s[p:], "-%}") {
		return skipSpace(s, p+3)
	}
	if strings.HasPrefix(s[p:], "%}") {
		return p + 2
	}
	return -1
}

func skipSpace(s string, p int) int {
	for p < len(s) {
		r, n := utf8.DecodeRuneInString(s[p:])
		if !isSpace(r) {
			break
		}
		p += n
	}
	return p
}

// blockSuffix consumes what follows a closing delimiter ending at p given
// the sign before it.
func (lx *lexer) blockSuffix(p int, sign byte) int {
	switch sign {
	case '-':
		return skipSpace(lx.src, p)
	case '+':
		return p
	}
	if lx.trim && p < len(lx.src) && lx.src[p] == '\n' {
		return p + 1
	}
	return p
}

// lexRaw reads raw text from p up to {% endraw %}.
func (lx *lexer) lexRaw(p, begin int) (int, error) {
	s := lx.src
	q := p
	for {
		i := strings.Index(s[q:], "{%")
		if i < 0 {
			if p >= len(s) {
				return p, nil // Jinja accepts an unterminated raw at the very end
			}
			return 0, lx.errAt(p, "Missing end of raw directive")
		}
		j := q + i
		k := j + 2
		sign := byte(0)
		if k < len(s) && (s[k] == '-' || s[k] == '+') {
			sign = s[k]
			k++
		}
		k = skipSpace(s, k)
		if strings.HasPrefix(s[k:], "endraw") {
			k = skipSpace(s, k+6)
			endSign := byte(0)
			if k < len(s) && (s[k] == '-' || s[k] == '+') {
				endSign = s[k]
				k++
			}
			if strings.HasPrefix(s[k:], "%}") {
				text := s[p:j]
				switch {
				case sign == '-':
					text = rstripSpace(text)
				case sign != '+' && lx.lstrip:
					lpos := strings.LastIndexByte(text, '\n') + 1
					if lpos > 0 || p > 0 && s[p-1] == '\n' {
						if rest := text[lpos:]; rest != "" && strings.TrimLeftFunc(rest, isSpace) == "" {
							text = text[:lpos]
						}
					}
				}
				if text != "" {
					lx.toks = append(lx.toks, token{typ: tData, val: text, pos: p})
				}
				return lx.blockSuffix(k+2, endSign), nil
			}
		}
		q = j + 2
	}
}

func (lx *lexer) lexComment(p, begin int) (int, error) {
	s := lx.src
	i := strings.Index(s[p:], "#}")
	if i < 0 {
		if p >= len(s) {
			return p, nil // Jinja accepts an unterminated comment at the very end
		}
		return 0, lx.errAt(p, "Missing end of comment tag")
	}
	j := p + i
	sign := byte(0)
	if j > p && (s[j-1] == '-' || s[j-1] == '+') {
		sign = s[j-1]
	}
	return lx.blockSuffix(j+2, sign), nil
}

var operators2 = []string{"**", "//", "==", "!=", ">=", "<="}

const operators1 = "+-/*%~[](){}><=.:|,;"

// lexTag tokenizes the inside of {{ }} or {% %} from p.
func (lx *lexer) lexTag(p int, block bool) (int, error) {
	s := lx.src
	var balance []byte
	for {
		p = skipSpace(s, p)
		if p >= len(s) {
			lx.toks = append(lx.toks, token{typ: tEOF, pos: lx.lastPos()})
			return p, nil
		}
		if len(balance) == 0 {
			if block {
				if strings.HasPrefix(s[p:], "+%}") {
					lx.toks = append(lx.toks, token{typ: tBlockEnd, val: "%}", pos: p})
					return p + 3, nil
				}
				if strings.HasPrefix(s[p:], "-%}") {
					lx.toks = append(lx.toks, token{typ: tBlockEnd, val: "%}", pos: p})
					return lx.blockSuffix(p+3, '-'), nil
				}
				if strings.HasPrefix(s[p:], "%}") {
					lx.toks = append(lx.toks, token{typ: tBlockEnd, val: "%}", pos: p})
					return lx.blockSuffix(p+2, 0), nil
				}
			} else {
				if strings.HasPrefix(s[p:], "-}}") {
					lx.toks = append(lx.toks, token{typ: tVarEnd, val: "}}", pos: p})
					return skipSpace(s, p+3), nil
				}
				if strings.HasPrefix(s[p:], "}}") {
					lx.toks = append(lx.toks, token{typ: tVarEnd, val: "}}", pos: p})
					return p + 2, nil
				}
			}
		}
		c := s[p]
		switch {
		case c >= '0' && c <= '9' && p > 0 && s[p-1] == '.':
			q := p
			for q < len(s) && s[q] >= '0' && s[q] <= '9' {
				q++
			}
			n, _ := new(big.Int).SetString(s[p:q], 10)
			lx.toks = append(lx.toks, token{typ: tInt, val: s[p:q], num: normBig(n), pos: p})
			p = q
		case c >= '0' && c <= '9':
			np, err := lx.lexNumber(p)
			if err != nil {
				return 0, err
			}
			p = np
		case c == '_' || c < utf8.RuneSelf && unicode.IsLetter(rune(c)) || c >= utf8.RuneSelf && isIdentStart(s[p:]):
			q := p
			for q < len(s) {
				r, n := utf8.DecodeRuneInString(s[q:])
				if r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || (q > p && unicode.Is(unicode.Mn, r)) {
					q += n
					continue
				}
				break
			}
			lx.toks = append(lx.toks, token{typ: tName, val: s[p:q], pos: p})
			p = q
		case c == '\'' || c == '"':
			np, err := lx.lexString(p)
			if err != nil {
				return 0, err
			}
			p = np
		default:
			op := ""
			for _, o := range operators2 {
				if strings.HasPrefix(s[p:], o) {
					op = o
					break
				}
			}
			if op == "" && strings.IndexByte(operators1, c) >= 0 {
				op = s[p : p+1]
			}
			if op == "" {
				r, _ := utf8.DecodeRuneInString(s[p:])
				return 0, lx.errAt(p, "unexpected char "+pyQuote(string(r))+" at "+strconv.Itoa(utf8.RuneCountInString(s[:p])))
			}
			switch op {
			case "{":
				balance = append(balance, '}')
			case "(":
				balance = append(balance, ')')
			case "[":
				balance = append(balance, ']')
			case "}", ")", "]":
				if len(balance) == 0 {
					return 0, lx.errAt(p, "unexpected '"+op+"'")
				}
				want := balance[len(balance)-1]
				balance = balance[:len(balance)-1]
				if want != op[0] {
					return 0, lx.errAt(p, "unexpected '"+op+"', expected '"+string(want)+"'")
				}
			}
			lx.toks = append(lx.toks, token{typ: tOp, val: op, pos: p})
			p += len(op)
		}
	}
}

func isIdentStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r)
}

// lexNumber reads an integer or float literal (with _ separators and
// 0b/0o/0x prefixes).
func (lx *lexer) lexNumber(p int) (int, error) {
	s := lx.src
	start := p
	if s[p] == '0' && p+1 < len(s) {
		base := 0
		switch s[p+1] {
		case 'b', 'B':
			base = 2
		case 'o', 'O':
			base = 8
		case 'x', 'X':
			base = 16
		}
		if base != 0 {
			q := p + 2
			for q < len(s) && (s[q] == '_' || digitVal(s[q]) < base) {
				q++
			}
			digits := strings.ReplaceAll(s[p+2:q], "_", "")
			if digits != "" {
				n, ok := new(big.Int).SetString(digits, base)
				if ok {
					lx.toks = append(lx.toks, token{typ: tInt, val: s[start:q], num: normBig(n), pos: start})
					return q, nil
				}
			}
		}
	}
	q := digitsEnd(s, p)
	isFloat := false
	if q < len(s) && s[q] == '.' && q+1 < len(s) && s[q+1] >= '0' && s[q+1] <= '9' {
		q = digitsEnd(s, q+1)
		isFloat = true
	}
	if q < len(s) && (s[q] == 'e' || s[q] == 'E') {
		r := q + 1
		if r < len(s) && (s[r] == '+' || s[r] == '-') {
			r++
		}
		if r < len(s) && s[r] >= '0' && s[r] <= '9' {
			q = digitsEnd(s, r)
			isFloat = true
		}
	}
	if !isFloat && s[start] == '0' {
		// Jinja's decimal integers cannot start with 0 unless all zeros:
		// "03" is the integer 0 followed by the integer 3.
		q = start + 1
		for q+1 < len(s) && s[q] == '_' && s[q+1] == '0' || q < len(s) && s[q] == '0' {
			if s[q] == '_' {
				q++
			}
			q++
		}
	}
	text := strings.ReplaceAll(s[start:q], "_", "")
	if isFloat {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil && !strings.Contains(err.Error(), "range") {
			return 0, lx.errAt(start, "invalid float literal")
		}
		lx.toks = append(lx.toks, token{typ: tFloat, val: s[start:q], num: f, pos: start})
		return q, nil
	}
	n, ok := new(big.Int).SetString(text, 10)
	if !ok {
		return 0, lx.errAt(start, "invalid integer literal")
	}
	lx.toks = append(lx.toks, token{typ: tInt, val: s[start:q], num: normBig(n), pos: start})
	return q, nil
}

func normBig(n *big.Int) any {
	if n.IsInt64() {
		return n.Int64()
	}
	return n
}

func digitsEnd(s string, p int) int {
	for p < len(s) && (s[p] >= '0' && s[p] <= '9' || s[p] == '_' && p+1 < len(s) && s[p+1] >= '0' && s[p+1] <= '9') {
		p++
	}
	return p
}

func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return 99
}

func (lx *lexer) lexString(p int) (int, error) {
	s := lx.src
	q := s[p]
	i := p + 1
	for i < len(s) {
		switch s[i] {
		case '\\':
			i += 2
			continue
		case q:
			v, err := unescapeString(s[p+1 : i])
			if err != "" {
				return 0, lx.errAt(p, err)
			}
			lx.toks = append(lx.toks, token{typ: tString, val: v, pos: p})
			return i + 1, nil
		}
		i++
	}
	r, _ := utf8.DecodeRuneInString(s[p:])
	return 0, lx.errAt(p, "unexpected char "+pyQuote(string(r))+" at "+strconv.Itoa(utf8.RuneCountInString(s[:p])))
}

// unescapeString applies Python's unicode-escape decoding to a literal
// body; a non-empty second result is the codec's error.
func unescapeString(s string) (string, string) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, ""
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case '\n':
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'f':
			b.WriteByte(12)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte(11)
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if i+1+n <= len(s) {
				if v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32); err == nil {
					if v > unicode.MaxRune {
						return "", "illegal Unicode character"
					}
					b.WriteRune(rune(v))
					i += n
					continue
				}
			}
			return "", map[byte]string{'x': `truncated \xXX escape`, 'u': `truncated \uXXXX escape`, 'U': `truncated \UXXXXXXXX escape`}[e]
		case 'N':
			end := strings.IndexByte(s[i+1:], '}')
			if i+1 >= len(s) || s[i+1] != '{' || end < 2 {
				return "", `malformed \N character escape`
			}
			r, ok := lookupRuneName(s[i+2 : i+1+end])
			if !ok {
				return "", "unknown Unicode character name"
			}
			b.WriteRune(r)
			i += 1 + end
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := 0
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				v = v*8 + int(s[j]-'0')
				j++
			}
			b.WriteRune(rune(v))
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String(), ""
}

// lineCol converts a byte offset into a 1-based line and column.
func lineCol(src string, pos int) (int, int) {
	if pos > len(src) {
		pos = len(src)
	}
	line := 1 + strings.Count(src[:pos], "\n")
	col := pos - strings.LastIndexByte(src[:pos], '\n')
	return line, col
}

// sourceLine returns the text of 1-based line n.
func sourceLine(src string, n int) string {
	for i := 1; i < n; i++ {
		j := strings.IndexByte(src, '\n')
		if j < 0 {
			return ""
		}
		src = src[j+1:]
	}
	if j := strings.IndexByte(src, '\n'); j >= 0 {
		return src[:j]
	}
	return src
}

// pyQuote is Python's repr of a string.
func pyQuote(s string) string { return quoteRepr(s) }
