package jinjasalt

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"brine/internal/value"
)

// Salt's regex filters use Python's re module. brine runs them on Go's
// regexp (RE2) after translating Python syntax:
//
//   - \d, \w and \s match Unicode digits, word characters and spaces as in
//     Python 3 str patterns; \Z becomes \z; \uXXXX and \UXXXXXXXX escapes
//     become \x{...}; (?P<name>...) is kept (RE2 has it).
//   - Lookahead and lookbehind, backreferences (\1, (?P=name)), conditional
//     groups, atomic groups and verbose mode have no RE2 equivalent: such a
//     pattern fails with a re.error naming the construct.
//   - Without re.M, Python's $ also matches before a final newline; RE2's
//     only at the very end.
//   - regex_replace skips an empty match right after a previous match (RE2's
//     rule); Python 3.7+ replaces it too.

// Python re flags.
const (
	reIgnoreCase = 1 << iota
	reMultiline
	reDotAll
)

var reCache sync.Map // string -> *regexp.Regexp or error

// compilePy compiles a Python regular expression with flags.
func compilePy(pattern string, flags int) (*regexp.Regexp, error) {
	key := strconv.Itoa(flags) + "\x00" + pattern
	if v, ok := reCache.Load(key); ok {
		if re, ok := v.(*regexp.Regexp); ok {
			return re, nil
		}
		return nil, v.(error)
	}
	re, err := compilePyUncached(pattern, flags)
	if err != nil {
		reCache.Store(key, err)
		return nil, err
	}
	reCache.Store(key, re)
	return re, nil
}

func compilePyUncached(pattern string, flags int) (*regexp.Regexp, error) {
	tr, err := translatePy(pattern)
	if err != nil {
		return nil, err
	}
	prefix := ""
	if flags&reIgnoreCase != 0 {
		prefix += "i"
	}
	if flags&reMultiline != 0 {
		prefix += "m"
	}
	if flags&reDotAll != 0 {
		prefix += "s"
	}
	if prefix != "" {
		tr = "(?" + prefix + ")" + tr
	}
	re, err := regexp.Compile(tr)
	if err != nil {
		msg := err.Error()
		if i := strings.Index(msg, ": "); i >= 0 && strings.HasPrefix(msg, "error parsing regexp") {
			msg = msg[i+2:]
		}
		return nil, pyErr(excRegexError, "%s", msg)
	}
	return re, nil
}

// translatePy rewrites Python regex syntax into RE2 syntax.
func translatePy(p string) (string, error) {
	var b strings.Builder
	b.Grow(len(p) + 8)
	inClass := false
	classStart := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\':
			if i+1 >= len(p) {
				return "", pyErr(excRegexError, "bad escape (end of pattern) at position %d", i)
			}
			i++
			e := p[i]
			switch e {
			case 'd':
				b.WriteString(`\p{Nd}`)
			case 'w':
				if inClass {
					b.WriteString(`\p{L}\p{N}_`)
				} else {
					b.WriteString(`[\p{L}\p{N}_]`)
				}
			case 's':
				if inClass {
					b.WriteString(`\s\x0b\x1c-\x1f\x85\p{Z}`)
				} else {
					b.WriteString(`[\s\x0b\x1c-\x1f\x85\p{Z}]`)
				}
			case 'D':
				if inClass {
					b.WriteString(`\D`)
				} else {
					b.WriteString(`\P{Nd}`)
				}
			case 'W':
				if inClass {
					b.WriteString(`\W`)
				} else {
					b.WriteString(`[^\p{L}\p{N}_]`)
				}
			case 'S':
				if inClass {
					b.WriteString(`\S`)
				} else {
					b.WriteString(`[^\s\x0b\x1c-\x1f\x85\p{Z}]`)
				}
			case 'Z':
				b.WriteString(`\z`)
			case 'A', 'b', 'B':
				if inClass && e == 'b' {
					b.WriteString(`\x08`)
				} else {
					b.WriteByte('\\')
					b.WriteByte(e)
				}
			case 'u', 'U':
				n := 4
				if e == 'U' {
					n = 8
				}
				if i+n > len(p)-1 {
					return "", pyErr(excRegexError, "incomplete escape \\%c at position %d", e, i-1)
				}
				hex := p[i+1 : i+1+n]
				if _, err := strconv.ParseUint(hex, 16, 32); err != nil {
					return "", pyErr(excRegexError, "incomplete escape \\%c%s at position %d", e, hex, i-1)
				}
				b.WriteString(`\x{` + hex + `}`)
				i += n
			case 'x':
				if i+2 <= len(p)-1 {
					b.WriteString(`\x` + p[i+1:i+3])
					i += 2
				} else {
					return "", pyErr(excRegexError, "incomplete escape \\x at position %d", i-1)
				}
			case '0':
				b.WriteString(`\x00`)
			case 'a':
				b.WriteString(`\x07`)
			case 'n', 't', 'r', 'f', 'v':
				b.WriteByte('\\')
				b.WriteByte(e)
			default:
				if e >= '1' && e <= '9' && !inClass {
					return "", pyErr(excRegexError, "backreferences (\\%c) are not supported by brine's regex engine", e)
				}
				if isASCIILetter(e) {
					return "", pyErr(excRegexError, "bad escape \\%c at position %d", e, i-1)
				}
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		case inClass:
			if c == ']' && i > classStart {
				inClass = false
			} else if c == '[' {
				b.WriteString(`\[`)
				continue
			}
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
			classStart = i + 1
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
				classStart = i + 1
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteString(`\]`)
				i++
				classStart = i + 1
			}
		case c == '{' && i+1 < len(p) && p[i+1] == ',':
			// Python's {,n} is {0,n}.
			j := i + 2
			for j < len(p) && isDigit(p[j]) {
				j++
			}
			if j < len(p) && p[j] == '}' && j > i+2 {
				b.WriteString("{0,")
				i++
				continue
			}
			b.WriteByte(c)
		case c == '(' && i+1 < len(p) && p[i+1] == '?':
			rest := p[i+2:]
			switch {
			case strings.HasPrefix(rest, "P<"), strings.HasPrefix(rest, ":"):
				b.WriteByte(c)
			case strings.HasPrefix(rest, "<") && !strings.HasPrefix(rest, "<=") && !strings.HasPrefix(rest, "<!"):
				// (?<name>...) is accepted by Python 3.12+ and RE2 alike.
				b.WriteByte(c)
			case strings.HasPrefix(rest, "="), strings.HasPrefix(rest, "!"):
				return "", pyErr(excRegexError, "lookahead assertions are not supported by brine's regex engine")
			case strings.HasPrefix(rest, "<="), strings.HasPrefix(rest, "<!"):
				return "", pyErr(excRegexError, "lookbehind assertions are not supported by brine's regex engine")
			case strings.HasPrefix(rest, "P="):
				return "", pyErr(excRegexError, "backreferences are not supported by brine's regex engine")
			case strings.HasPrefix(rest, "#"):
				end := strings.IndexByte(rest, ')')
				if end < 0 {
					return "", pyErr(excRegexError, "missing ), unterminated comment at position %d", i)
				}
				i += 2 + end
				continue
			case strings.HasPrefix(rest, "("):
				return "", pyErr(excRegexError, "conditional groups are not supported by brine's regex engine")
			case strings.HasPrefix(rest, ">"):
				return "", pyErr(excRegexError, "atomic groups are not supported by brine's regex engine")
			default:
				// inline flags: (?aiLmsux) or (?i:...)
				j := 0
				for j < len(rest) && strings.IndexByte("aiLmsux-", rest[j]) >= 0 {
					j++
				}
				flags := rest[:j]
				if strings.ContainsAny(flags, "x") {
					return "", pyErr(excRegexError, "verbose mode (?x) is not supported by brine's regex engine")
				}
				flags = strings.NewReplacer("a", "", "L", "", "u", "").Replace(flags)
				b.WriteString("(?" + flags)
				i += 1 + j
				continue
			}
			b.WriteByte('?')
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func isASCIILetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// reFlags reads the ignorecase and multiline arguments of Salt's filters.
func reFlags(ignorecase, multiline any) int {
	f := 0
	if truthy(ignorecase) {
		f |= reIgnoreCase
	}
	if truthy(multiline) {
		f |= reMultiline
	}
	return f
}

func strArg(v any) (string, error) {
	if s, ok := asString(v); ok {
		return s, nil
	}
	return "", pyErr(excTypeError, "expected string or bytes-like object, got '%s'", typeName(v))
}

func patternArg(v any) (string, error) {
	if s, ok := asString(v); ok {
		return s, nil
	}
	return "", pyErr(excTypeError, "first argument must be string or compiled pattern")
}

// groupsTuple is match.groups(): every group, None where it did not take
// part.
func groupsTuple(s string, loc []int) value.Tuple {
	n := len(loc)/2 - 1
	t := make(value.Tuple, n)
	for g := 1; g <= n; g++ {
		if loc[2*g] < 0 {
			t[g-1] = nil
		} else {
			t[g-1] = s[loc[2*g]:loc[2*g+1]]
		}
	}
	return t
}

// regexFind is re.match (anchored) or re.search, returning groups or None.
func regexFind(txt, rgx any, flags int, anchored bool) (any, error) {
	pat, err := patternArg(rgx)
	if err != nil {
		return nil, err
	}
	if anchored {
		pat = `\A(?:` + pat + `)`
	}
	re, err := compilePy(pat, flags)
	if err != nil {
		return nil, err
	}
	s, err := strArg(txt)
	if err != nil {
		return nil, err
	}
	loc := re.FindStringSubmatchIndex(s)
	if loc == nil {
		return nil, nil
	}
	return groupsTuple(s, loc), nil
}

// expandPy expands a Python re.sub replacement template for one match.
func expandPy(re *regexp.Regexp, tmpl, s string, loc []int) (string, error) {
	var b strings.Builder
	group := func(g int) (string, error) {
		if g < 0 || 2*g+1 >= len(loc) {
			return "", pyErr(excRegexError, "invalid group reference %d", g)
		}
		if loc[2*g] < 0 {
			return "", nil
		}
		return s[loc[2*g]:loc[2*g+1]], nil
	}
	for i := 0; i < len(tmpl); i++ {
		c := tmpl[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(tmpl) {
			return "", pyErr(excRegexError, "bad escape (end of pattern) at position %d", i)
		}
		i++
		e := tmpl[i]
		switch {
		case e == 'g':
			if i+1 >= len(tmpl) || tmpl[i+1] != '<' {
				return "", pyErr(excRegexError, "missing < at position %d", i+1)
			}
			end := strings.IndexByte(tmpl[i+2:], '>')
			if end < 0 {
				return "", pyErr(excRegexError, "missing >, unterminated name at position %d", i+2)
			}
			name := tmpl[i+2 : i+2+end]
			i += 2 + end
			g, err := strconv.Atoi(name)
			if err != nil {
				g = re.SubexpIndex(name)
				if g < 0 {
					return "", pyErr(excIndexError, "unknown group name '%s'", name)
				}
			}
			v, err := group(g)
			if err != nil {
				return "", err
			}
			b.WriteString(v)
		case e == '0':
			// octal escape
			j := i + 1
			for j < len(tmpl) && j < i+3 && tmpl[j] >= '0' && tmpl[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(tmpl[i:j], 8, 32)
			b.WriteRune(rune(n))
			i = j - 1
		case e >= '1' && e <= '9':
			j := i + 1
			if j < len(tmpl) && isDigit(tmpl[j]) {
				j++
			}
			g, _ := strconv.Atoi(tmpl[i:j])
			v, err := group(g)
			if err != nil {
				return "", err
			}
			b.WriteString(v)
			i = j - 1
		default:
			if r, ok := pyEscapes[e]; ok {
				b.WriteByte(r)
			} else if isASCIILetter(e) {
				return "", pyErr(excRegexError, "bad escape \\%c at position %d", e, i-1)
			} else {
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		}
	}
	return b.String(), nil
}

var pyEscapes = map[byte]byte{'a': 7, 'b': 8, 'f': 12, 'n': 10, 'r': 13, 't': 9, 'v': 11, '\\': '\\'}

func regexReplace(txt, rgx, val any, flags int) (any, error) {
	pat, err := patternArg(rgx)
	if err != nil {
		return nil, err
	}
	re, err := compilePy(pat, flags)
	if err != nil {
		return nil, err
	}
	tmpl, err := strArg(val)
	if err != nil {
		return nil, err
	}
	s, err := strArg(txt)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	last := 0
	for _, loc := range re.FindAllStringSubmatchIndex(s, -1) {
		rep, err := expandPy(re, tmpl, s, loc)
		if err != nil {
			return nil, err
		}
		b.WriteString(s[last:loc[0]])
		b.WriteString(rep)
		last = loc[1]
	}
	b.WriteString(s[last:])
	return b.String(), nil
}

// regexEscape is Python 3.7+'s re.escape.
func regexEscape(v any) (any, error) {
	s, ok := asString(v)
	if !ok {
		return nil, pyErr(excTypeError, "'%s' object is not iterable", typeName(v))
	}
	var b strings.Builder
	for _, r := range s {
		if r < 128 && strings.ContainsRune("()[]{}?*+-|^$\\.&~# \t\n\r\v\f", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String(), nil
}

// fnmatch is Python's fnmatch.fnmatchcase (caseSensitive) for shell globs.
func fnmatch(name, pat string, caseSensitive bool) bool {
	key := "\x01" + pat
	if !caseSensitive {
		key = "\x02" + pat
	}
	var re *regexp.Regexp
	if v, ok := reCache.Load(key); ok {
		re = v.(*regexp.Regexp)
	} else {
		expr := "(?s)" + globToRE(pat)
		if !caseSensitive {
			expr = "(?i)" + expr
		}
		re = regexp.MustCompile(expr)
		reCache.Store(key, re)
	}
	return re.MatchString(name)
}

// globToRE is fnmatch.translate, anchored at both ends.
func globToRE(pat string) string {
	var b strings.Builder
	b.WriteString(`\A(?:`)
	rs := []rune(pat)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch c {
		case '*':
			b.WriteString(".*")
			for i+1 < len(rs) && rs[i+1] == '*' {
				i++
			}
		case '?':
			b.WriteByte('.')
		case '[':
			j := i + 1
			if j < len(rs) && rs[j] == '!' {
				j++
			}
			if j < len(rs) && rs[j] == ']' {
				j++
			}
			for j < len(rs) && rs[j] != ']' {
				j++
			}
			if j >= len(rs) {
				b.WriteString(`\[`)
				continue
			}
			body := string(rs[i+1 : j])
			i = j
			neg := strings.HasPrefix(body, "!")
			if neg {
				body = body[1:]
			}
			body = strings.ReplaceAll(body, `\`, `\\`)
			body = strings.ReplaceAll(body, `[`, `\[`)
			if body == "" {
				if neg {
					b.WriteByte('.')
				} else {
					b.WriteString(`[^\x00-\x{10FFFF}]`)
				}
				continue
			}
			if neg {
				b.WriteString("[^" + body + "]")
			} else {
				b.WriteString("[" + body + "]")
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`)\z`)
	return b.String()
}

func init() {
	const src = "salt/utils/jinja.py"
	reSig := func(py string) *sig {
		return newSig(py, "txt", required, "rgx", required, "ignorecase", false, "multiline", false)
	}
	filter("regex_search", src, reSig("regex_search"), func(b *bound) (any, error) {
		return regexFind(b.vals[0], b.vals[1], reFlags(b.vals[2], b.vals[3]), false)
	})
	filter("regex_match", src, reSig("regex_match"), func(b *bound) (any, error) {
		return regexFind(b.vals[0], b.vals[1], reFlags(b.vals[2], b.vals[3]), true)
	})
	filter("regex_replace", src, newSig("regex_replace", "txt", required, "rgx", required, "val", required, "ignorecase", false, "multiline", false), func(b *bound) (any, error) {
		return regexReplace(b.vals[0], b.vals[1], b.vals[2], reFlags(b.vals[3], b.vals[4]))
	})
	filter("regex_escape", src, newSig("regex_escape", "value", required), func(b *bound) (any, error) {
		return regexEscape(b.vals[0])
	})
	test("match", src, reSig("test_match"), func(b *bound) (any, error) {
		g, err := regexFind(b.vals[0], b.vals[1], reFlags(b.vals[2], b.vals[3]), true)
		if err != nil {
			return nil, err
		}
		return g != nil, nil
	})
	test("equalto", src, newSig("test_equalto", "value", required, "other", required), func(b *bound) (any, error) {
		return value.Equal(b.vals[0], b.vals[1]), nil
	})
}
