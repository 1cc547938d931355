package match

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"brine/internal/value"
)

// Target is one compound word split as Salt's parse_target does.
type Target struct {
	Engine    string // "G", "P", "I", "J", "L", "N", "S", "E", "R" or ""
	Delimiter string // only for G, P, I and J; "" for the default
	Pattern   string
}

// ParseTarget splits "G@os:Debian", "I|@a|b" or "web*" into engine,
// delimiter and pattern.
func ParseTarget(word string) Target {
	if word == "" {
		return Target{Pattern: word}
	}
	e := word[0]
	if strings.IndexByte("GPIJ", e) >= 0 && len(word) > 1 {
		_, sz := utf8.DecodeRuneInString(word[1:])
		if rest := word[1+sz:]; len(rest) > 1 && rest[0] == '@' {
			return Target{Engine: string(e), Delimiter: word[1 : 1+sz], Pattern: rest[1:]}
		}
	}
	if strings.IndexByte("GPIJLNSER", e) >= 0 && len(word) > 2 && word[1] == '@' {
		return Target{Engine: string(e), Pattern: word[2:]}
	}
	return Target{Pattern: word}
}

var engines = map[string]string{
	"G": "grain",
	"P": "grain_pcre",
	"I": "pillar",
	"J": "pillar_pcre",
	"L": "list",
	"S": "ipcidr",
	"E": "pcre",
}

func isOper(w string) bool {
	switch w {
	case "and", "or", "not", "(", ")":
		return true
	}
	return false
}

// token values of a compound expression after matching its words.
const (
	tokFalse = iota
	tokTrue
	tokEmpty // "[]" from an invalid ipcidr target: falsy
	tokAnd
	tokOr
	tokNot
	tokOpen
	tokClose
)

// Compound is Salt's compound matcher: tgt is a string of words or a list
// of words; words without an engine prefix are globs; N@ expands
// nodegroups in place. Any malformed expression is simply no match.
func Compound(c *Context, tgt any) bool {
	var words []string
	switch t := tgt.(type) {
	case string:
		words = strings.Fields(t)
	case *value.List:
		for _, w := range t.Items {
			words = append(words, value.Str(w))
		}
	case value.Tuple:
		for _, w := range t {
			words = append(words, value.Str(w))
		}
	default:
		return false
	}
	var toks []int
	for len(words) > 0 {
		word := words[0]
		words = words[1:]
		if isOper(word) {
			tok := map[string]int{"and": tokAnd, "or": tokOr, "not": tokNot, "(": tokOpen, ")": tokClose}[word]
			if len(toks) > 0 {
				last := toks[len(toks)-1]
				if last == tokOpen && (tok == tokAnd || tok == tokOr) {
					return false
				}
				if tok == tokNot && last != tokAnd && last != tokOr && last != tokOpen {
					toks = append(toks, tokAnd)
				}
				toks = append(toks, tok)
			} else {
				if tok != tokOpen && tok != tokNot {
					return false
				}
				toks = append(toks, tok)
			}
			continue
		}
		t := ParseTarget(word)
		if t.Engine == "" {
			toks = append(toks, boolTok(globMatch(c, word, "")))
			continue
		}
		if t.Engine == "N" {
			if dec := NodegroupComp(t.Pattern, c.Nodegroups); len(dec) > 0 {
				words = append(append([]string(nil), dec...), words...)
			}
			continue
		}
		name, ok := engines[t.Engine]
		if !ok {
			return false
		}
		if name == "ipcidr" && !validIPTarget(t.Pattern) {
			toks = append(toks, tokEmpty)
			continue
		}
		m, _ := Lookup(name)
		delim := t.Delimiter
		if delim == "" {
			delim = DefaultDelim
		}
		toks = append(toks, boolTok(m.Match(c, t.Pattern, delim)))
	}
	p := &boolParser{toks: toks}
	v, ok := p.orTest()
	if !ok || p.pos != len(toks) {
		return false
	}
	return v
}

func validIPTarget(s string) bool {
	_, err := parseNetwork(s)
	return err == nil
}

func boolTok(b bool) int {
	if b {
		return tokTrue
	}
	return tokFalse
}

// boolParser evaluates the joined results as Python's eval would: not binds
// tighter than and, and tighter than or; anything else is a syntax error.
type boolParser struct {
	toks []int
	pos  int
}

func (p *boolParser) peek() (int, bool) {
	if p.pos < len(p.toks) {
		return p.toks[p.pos], true
	}
	return 0, false
}

func (p *boolParser) orTest() (bool, bool) {
	v, ok := p.andTest()
	if !ok {
		return false, false
	}
	for {
		t, more := p.peek()
		if !more || t != tokOr {
			return v, true
		}
		p.pos++
		w, ok := p.andTest()
		if !ok {
			return false, false
		}
		v = v || w
	}
}

func (p *boolParser) andTest() (bool, bool) {
	v, ok := p.notTest()
	if !ok {
		return false, false
	}
	for {
		t, more := p.peek()
		if !more || t != tokAnd {
			return v, true
		}
		p.pos++
		w, ok := p.notTest()
		if !ok {
			return false, false
		}
		v = v && w
	}
}

func (p *boolParser) notTest() (bool, bool) {
	t, more := p.peek()
	if !more {
		return false, false
	}
	switch t {
	case tokNot:
		p.pos++
		v, ok := p.notTest()
		return !v, ok
	case tokTrue, tokFalse, tokEmpty:
		p.pos++
		return t == tokTrue, true
	case tokOpen:
		p.pos++
		if t, more := p.peek(); more && t == tokClose {
			p.pos++
			return false, true // () is an empty tuple
		}
		v, ok := p.orTest()
		if !ok {
			return false, false
		}
		if t, more := p.peek(); !more || t != tokClose {
			return false, false
		}
		p.pos++
		return v, true
	}
	return false, false
}

// NodegroupComp is Salt's nodegroup_comp: the compound words a nodegroup
// stands for, nested N@ groups expanded in parentheses; nil for an unknown
// or recursive group.
func NodegroupComp(name string, groups *value.Map) []string {
	return nodegroupComp(name, groups, map[string]bool{}, true)
}

var groupTypeRe = regexp.MustCompile(`^[A-Z]@`)

func nodegroupComp(name string, groups *value.Map, skip map[string]bool, first bool) []string {
	if skip[name] {
		return nil
	}
	def, ok := groups.Get(name)
	if !ok {
		return nil
	}
	var words []string
	switch d := def.(type) {
	case string:
		words = strings.Fields(d)
	case *value.List:
		for _, w := range d.Items {
			words = append(words, value.Str(w))
		}
	case value.Tuple:
		for _, w := range d {
			words = append(words, value.Str(w))
		}
	default:
		return nil
	}
	skip[name] = true
	expanded := false
	var ret []string
	for _, w := range words {
		switch {
		case isOper(w):
			ret = append(ret, w)
		case len(w) >= 3 && strings.HasPrefix(w, "N@"):
			expanded = true
			ret = append(ret, nodegroupComp(w[2:], groups, skip, false)...)
		default:
			ret = append(ret, w)
		}
	}
	if len(ret) > 0 {
		ret = append(append([]string{"("}, ret...), ")")
	}
	delete(skip, name)
	if expanded || !first {
		if !first {
			if j := nodegroupRegex(words); j != nil {
				return j
			}
		}
		return ret
	}
	if j := nodegroupRegex(words); j != nil {
		return j
	}
	return words
}

// nodegroupRegex turns a plain word list (no operators, no engines, no
// wildcards) into one E@ or L@ word, as Salt's _nodegroup_regex does.
func nodegroupRegex(words []string) []string {
	for _, w := range words {
		if isOper(w) {
			return nil
		}
	}
	for _, w := range words {
		if strings.Contains(w, "*") || groupTypeRe.MatchString(w) {
			return nil
		}
	}
	for _, w := range words {
		if strings.ContainsAny(w, `([{\?}])`) {
			return []string{"E@" + strings.Join(words, ",")}
		}
	}
	return []string{"L@" + strings.Join(words, ",")}
}

func nodegroupMatch(c *Context, tgt any, _ string) bool {
	s, ok := tgt.(string)
	if !ok || c.Nodegroups.Len() == 0 || !c.Nodegroups.Has(s) {
		return false
	}
	words := NodegroupComp(s, c.Nodegroups)
	l := value.NewList()
	for _, w := range words {
		l.Append(w)
	}
	return Compound(c, l)
}
