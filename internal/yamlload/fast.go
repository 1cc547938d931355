package yamlload

import (
	"strings"
	"unicode/utf8"

	"brine/internal/value"
)

// The fast path reads the plain subset of YAML that rendered SLS and pillar
// files are nearly always written in, straight into values, without
// go-yaml's token, event and node layers: block mappings and sequences
// (compact "- key: value" included), single-line plain and quoted scalars,
// literal block scalars ("|" and "|-") and single-line flow collections
// (what Jinja's json and yaml filters print). Anything else, and anything
// that would be an error, makes it give up and Load takes the full path, so
// the fast path never decides a result the full path would not give: it
// only skips work. TestFastPathAgrees and FuzzFastPath hold it to that.

// maxFastKey is the longest simple key YAML allows.
const maxFastKey = 1024

// fastLine is one line of the text: [start, end) without its line break,
// ind the number of leading spaces, sig whether it holds more than spaces
// and a comment.
type fastLine struct {
	start, end, ind int
	sig             bool
}

type fastLoader struct {
	src     string
	lines   []fastLine
	cur     int // current significant line, len(lines) at the end
	ind     int // column where the current content starts, -1 at the end
	pos     int // offset of the current content in src
	depth   int
	ordered bool
	stack   []any          // keys and values of the mappings being read
	keys    map[string]any // plain keys already boxed, reused
}

// fastLoad returns the value of data and true, or false when data is not in
// the subset the fast path reads.
func fastLoad(data []byte, plainDicts bool) (any, bool) {
	if !fastText(data) {
		return nil, false
	}
	p := fastLoader{src: string(data), ordered: !plainDicts}
	if !p.split() {
		return nil, false
	}
	p.cur = -1
	p.advance()
	if p.ind < 0 {
		return nil, false // empty document: the full path is cheap
	}
	v, ok := p.node(p.ind)
	if !ok || p.ind >= 0 {
		return nil, false
	}
	return v, true
}

// fastText reports whether data has only characters the fast path knows
// how to treat: no tabs, carriage returns, control characters, byte order
// marks or Unicode line breaks, and valid UTF-8.
func fastText(data []byte) bool {
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, w := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError || r < 0xA0 || r == 0x2028 || r == 0x2029 || r == 0xFEFF ||
			r >= 0xD800 && r <= 0xDFFF || r == 0xFFFE || r == 0xFFFF {
			return false
		}
		i += w
	}
	return true
}

// split cuts src into lines; document markers and directives give up.
func (p *fastLoader) split() bool {
	s := p.src
	n := strings.Count(s, "\n") + 1
	p.lines = make([]fastLine, 0, n)
	for start := 0; start <= len(s); {
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		ind := 0
		for start+ind < end && s[start+ind] == ' ' {
			ind++
		}
		sig := start+ind < end && s[start+ind] != '#'
		if ind == 0 && sig {
			if t := s[start:end]; strings.HasPrefix(t, "---") || strings.HasPrefix(t, "...") || t[0] == '%' {
				return false
			}
		}
		p.lines = append(p.lines, fastLine{start, end, ind, sig})
		if end == len(s) {
			break
		}
		start = end + 1
	}
	return true
}

// advance moves to the next significant line.
func (p *fastLoader) advance() {
	for p.cur++; p.cur < len(p.lines); p.cur++ {
		if l := p.lines[p.cur]; l.sig {
			p.ind, p.pos = l.ind, l.start+l.ind
			return
		}
	}
	p.cur, p.ind, p.pos = len(p.lines), -1, len(p.src)
}

// text is the rest of the current line from the current content.
func (p *fastLoader) text() string { return p.src[p.pos:p.lines[p.cur].end] }

// shift moves the current content start right by n bytes on the same line
// (the item of "- " or a compact nested collection).
func (p *fastLoader) shift(n int) {
	p.pos += n
	p.ind += n
}

func isSeqEntry(s string) bool { return s[0] == '-' && (len(s) == 1 || s[1] == ' ') }

// node reads the block collection starting on the current line at column
// ind.
func (p *fastLoader) node(ind int) (any, bool) {
	if isSeqEntry(p.text()) {
		return p.seq(ind)
	}
	return p.mapping(ind)
}

// enter counts one more enclosing collection; past value.MaxDepth the fast
// path gives up and the full path reports the document.
func (p *fastLoader) enter() bool {
	p.depth++
	return p.depth <= value.MaxDepth
}

func (p *fastLoader) seq(ind int) (any, bool) {
	defer func() { p.depth-- }()
	if !p.enter() {
		return nil, false
	}
	base := len(p.stack)
	defer func() { p.stack = p.stack[:base] }()
	for p.ind == ind {
		s := p.text()
		if !isSeqEntry(s) {
			break // a key after a sequence at its mapping's column
		}
		k := 1
		for k < len(s) && s[k] == ' ' {
			k++
		}
		var (
			v  any
			ok bool
		)
		if k == len(s) || s[k] == '#' {
			p.advance()
			v, ok = nil, true
			if p.ind > ind {
				v, ok = p.node(p.ind)
			}
		} else {
			p.shift(k)
			v, ok = p.inline(ind)
		}
		if !ok || p.ind > ind {
			return nil, false
		}
		p.stack = append(p.stack, v)
	}
	return value.NewList(append([]any(nil), p.stack[base:]...)...), true
}

// inline reads the node that starts at the current content, inside a
// sequence entry at column ind: a compact collection or a value.
func (p *fastLoader) inline(ind int) (any, bool) {
	s := p.text()
	if isSeqEntry(s) {
		return p.node(p.ind)
	}
	if _, _, ok := p.key(s); ok {
		return p.node(p.ind)
	}
	return p.value(ind)
}

func (p *fastLoader) mapping(ind int) (any, bool) {
	defer func() { p.depth-- }()
	if !p.enter() {
		return nil, false
	}
	base := len(p.stack)
	defer func() { p.stack = p.stack[:base] }()
	for p.ind == ind {
		s := p.text()
		if isSeqEntry(s) {
			return nil, false
		}
		k, rest, ok := p.key(s)
		if !ok {
			return nil, false
		}
		var v any
		r := strings.TrimLeft(s[rest:], " ")
		if r == "" || r[0] == '#' {
			p.advance()
			switch {
			case p.ind > ind:
				v, ok = p.node(p.ind)
			case p.ind == ind && isSeqEntry(p.text()):
				v, ok = p.seq(ind)
			}
		} else {
			p.shift(len(s) - len(r))
			v, ok = p.value(ind)
		}
		if !ok || p.ind > ind {
			return nil, false
		}
		p.stack = append(p.stack, k, v)
	}
	kv := p.stack[base:]
	m := value.NewMap(len(kv) / 2).SetOrdered(p.ordered)
	for i := 0; i < len(kv); i += 2 {
		m.Set(kv[i], kv[i+1])
	}
	if m.Len() != len(kv)/2 {
		return nil, false // a duplicate key: the full path reports it
	}
	return m, true
}

// key reads "key:" at the start of s and returns the key and the offset
// just after the colon.
func (p *fastLoader) key(s string) (any, int, bool) {
	var (
		k   any
		end int
	)
	switch s[0] {
	case '"', '\'':
		str, n, ok := quoted(s, 0)
		if !ok {
			return nil, 0, false
		}
		end = n
		for end < len(s) && s[end] == ' ' {
			end++
		}
		if end >= len(s) || s[end] != ':' || end+1 < len(s) && s[end+1] != ' ' {
			return nil, 0, false
		}
		k = str
	default:
		if !plainStart(s, false) {
			return nil, 0, false
		}
		i := 0
		for ; i < len(s); i++ {
			c := s[i]
			if c == ':' && (i+1 == len(s) || s[i+1] == ' ') {
				break
			}
			if c == '#' && s[i-1] == ' ' {
				return nil, 0, false
			}
		}
		if i == len(s) {
			return nil, 0, false
		}
		end = i
		ks := strings.TrimRight(s[:i], " ")
		if v, seen := p.keys[ks]; seen {
			k = v
		} else {
			var ok bool
			if k, ok = plainValue(ks); !ok {
				return nil, 0, false
			}
			if p.keys == nil {
				p.keys = make(map[string]any)
			}
			p.keys[ks] = k
		}
	}
	if end > maxFastKey {
		return nil, 0, false
	}
	return k, end + 1, true
}

// value reads a scalar, flow collection or literal block scalar at the
// current content, the value of a node at column ind, and moves past it.
func (p *fastLoader) value(ind int) (any, bool) {
	s := p.text()
	var (
		v  any
		n  int
		ok bool
	)
	switch s[0] {
	case '"', '\'':
		v, n, ok = quoted(s, 0)
	case '[', '{':
		v, n, ok = p.flow(s, 0, p.depth)
	case '|':
		return p.literal(s, ind)
	default:
		if !plainStart(s, false) {
			return nil, false
		}
		i := 0
		for ; i < len(s); i++ {
			c := s[i]
			if c == ':' && (i+1 == len(s) || s[i+1] == ' ') {
				return nil, false
			}
			if c == '#' && s[i-1] == ' ' {
				i--
				break
			}
		}
		v, ok = plainValue(strings.TrimRight(s[:i], " "))
		n = i
	}
	if !ok || !lineEnd(s, n) {
		return nil, false
	}
	p.advance()
	return v, true
}

// lineEnd reports whether s from n holds only spaces and a comment.
func lineEnd(s string, n int) bool {
	if n < len(s) && s[n] != ' ' {
		return false
	}
	r := strings.TrimLeft(s[n:], " ")
	return r == "" || r[0] == '#'
}

// plainStart reports whether s may start a plain scalar.
func plainStart(s string, flow bool) bool {
	switch c := s[0]; c {
	case ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ' ':
		return false
	case '-', '?', ':':
		if len(s) == 1 || s[1] == ' ' || c != '-' {
			return false
		}
		if flow && strings.IndexByte(",[]{}", s[1]) >= 0 {
			return false
		}
	}
	return true
}

// plainValue constructs a plain scalar as the full path does, or gives up
// on merge and value keys and on text its constructors refuse.
func plainValue(s string) (any, bool) {
	switch Resolve(s) {
	case tagNull:
		return nil, true
	case tagBool:
		b, ok := boolValue(s)
		return b, ok
	case tagInt:
		v, err := constructInt(saltInt(s))
		return v, err == nil
	case tagFloat:
		v, err := constructFloat(s)
		return v, err == nil
	case tagStr, tagTimestamp:
		return s, true
	}
	return nil, false
}

// quoted reads the single-line quoted scalar at s[i] and returns it and the
// offset after its closing quote.
func quoted(s string, i int) (string, int, bool) {
	q := s[i]
	j := i + 1
	if q == '\'' {
		var b []byte
		for start := j; j < len(s); j++ {
			if s[j] != '\'' {
				continue
			}
			if j+1 < len(s) && s[j+1] == '\'' {
				b = append(b, s[start:j+1]...)
				j++
				start = j + 1
				continue
			}
			if b == nil {
				return s[start:j], j + 1, true
			}
			return string(append(b, s[start:j]...)), j + 1, true
		}
		return "", 0, false
	}
	var b []byte
	for start := j; j < len(s); j++ {
		switch s[j] {
		case '"':
			if b == nil {
				return s[start:j], j + 1, true
			}
			return string(append(b, s[start:j]...)), j + 1, true
		case '\\':
			b = append(b, s[start:j]...)
			if j+1 >= len(s) {
				return "", 0, false
			}
			j++
			var r rune
			digits := 0
			switch s[j] {
			case '\\', '"', '/':
				r = rune(s[j])
			case 'n':
				r = '\n'
			case 't':
				r = '\t'
			case 'r':
				r = '\r'
			case '0':
				r = 0
			case 'a':
				r = 7
			case 'b':
				r = 8
			case 'e':
				r = 0x1b
			case 'f':
				r = 0xc
			case 'v':
				r = 0xb
			case 'x':
				digits = 2
			case 'u':
				digits = 4
			case 'U':
				digits = 8
			default:
				return "", 0, false
			}
			if digits > 0 {
				if j+digits >= len(s) {
					return "", 0, false
				}
				var u uint64
				for _, c := range []byte(s[j+1 : j+1+digits]) {
					if !isHex(c) {
						return "", 0, false
					}
					u = u<<4 | uint64(hexVal(c))
				}
				if u >= 0xD800 && u <= 0xDFFF || u > 0x10FFFF {
					return "", 0, false
				}
				r = rune(u)
				j += digits
			}
			b = utf8.AppendRune(b, r)
			start = j + 1
		}
	}
	return "", 0, false
}

func hexVal(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// flow reads the single-line flow collection at s[i] and returns it and the
// offset after its closing bracket; depth is the number of collections
// around it.
func (p *fastLoader) flow(s string, i, depth int) (any, int, bool) {
	if depth >= value.MaxDepth {
		return nil, 0, false
	}
	skip := func(i int) int {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		return i
	}
	if s[i] == '[' {
		l := value.NewList()
		i = skip(i + 1)
		if i < len(s) && s[i] == ']' {
			return l, i + 1, true
		}
		for i < len(s) {
			v, n, ok := p.flowNode(s, i, depth)
			if !ok {
				return nil, 0, false
			}
			l.Items = append(l.Items, v)
			i = skip(n)
			if i >= len(s) {
				break
			}
			switch s[i] {
			case ']':
				return l, i + 1, true
			case ',':
				if i = skip(i + 1); i < len(s) && s[i] == ']' {
					return nil, 0, false
				}
				continue
			}
			return nil, 0, false
		}
		return nil, 0, false
	}
	m := value.NewMap(0).SetOrdered(p.ordered)
	i = skip(i + 1)
	if i < len(s) && s[i] == '}' {
		return m, i + 1, true
	}
	for i < len(s) {
		if s[i] == '[' || s[i] == '{' {
			return nil, 0, false
		}
		k, n, ok := p.flowNode(s, i, depth)
		if !ok {
			return nil, 0, false
		}
		i = skip(n)
		if i+1 >= len(s) || s[i] != ':' || s[i+1] != ' ' {
			return nil, 0, false
		}
		i = skip(i + 1)
		if i >= len(s) || s[i] == ',' || s[i] == '}' {
			return nil, 0, false
		}
		v, n, ok := p.flowNode(s, i, depth)
		if !ok {
			return nil, 0, false
		}
		before := m.Len()
		m.Set(k, v)
		if m.Len() == before {
			return nil, 0, false
		}
		i = skip(n)
		if i >= len(s) {
			break
		}
		switch s[i] {
		case '}':
			return m, i + 1, true
		case ',':
			if i = skip(i + 1); i < len(s) && s[i] == '}' {
				return nil, 0, false
			}
			continue
		}
		return nil, 0, false
	}
	return nil, 0, false
}

// flowNode reads one node inside a flow collection.
func (p *fastLoader) flowNode(s string, i, depth int) (any, int, bool) {
	if i >= len(s) {
		return nil, 0, false
	}
	switch s[i] {
	case '"', '\'':
		return quoted(s, i)
	case '[', '{':
		return p.flow(s, i, depth+1)
	}
	if !plainStart(s[i:], true) {
		return nil, 0, false
	}
	j := i
	for ; j < len(s); j++ {
		c := s[j]
		if c == ',' || c == ']' || c == '}' {
			break
		}
		if c == ':' {
			if j+1 < len(s) && s[j+1] == ' ' {
				break
			}
			return nil, 0, false
		}
		if c == '[' || c == '{' || c == '?' || c == '#' && s[j-1] == ' ' {
			return nil, 0, false
		}
	}
	v, ok := plainValue(strings.TrimRight(s[i:j], " "))
	return v, j, ok
}

// literal reads a "|" or "|-" block scalar whose header is s, the value of
// a node at column ind.
func (p *fastLoader) literal(s string, ind int) (any, bool) {
	strip := false
	h := s[1:]
	if h != "" && h[0] == '-' {
		strip, h = true, h[1:]
	}
	if strings.TrimLeft(h, " ") != "" {
		return nil, false
	}
	first := p.cur + 1
	if first >= len(p.lines) {
		return nil, false
	}
	fl := p.lines[first]
	if fl.start+fl.ind == fl.end || fl.ind <= ind {
		return nil, false // leading blank lines or an empty scalar
	}
	ci := fl.ind
	var b strings.Builder
	breaks := 0
	last := first
	for j := first; j < len(p.lines); j++ {
		l := p.lines[j]
		blank := l.start+l.ind == l.end
		if !blank && l.ind < ci {
			break
		}
		if blank && l.end-l.start <= ci {
			breaks++
			continue
		}
		if blank && j == len(p.lines)-1 {
			return nil, false // go-yaml reads spaces ending the text as a line
		}
		for ; breaks > 0; breaks-- {
			b.WriteByte('\n')
		}
		b.WriteString(p.src[l.start+ci : l.end])
		breaks = 1
		last = j
	}
	if !strip && last < len(p.lines)-1 {
		b.WriteByte('\n') // clip keeps the last line's break, if it has one
	}
	p.cur = last
	p.advance()
	return b.String(), true
}
