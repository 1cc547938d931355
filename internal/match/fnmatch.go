package match

import (
	"regexp"
	"strings"
	"sync"
)

// globCache holds compiled fnmatch patterns; targets and include globs repeat
// a lot, so compiling each once matters.
var globCache sync.Map // string -> *regexp.Regexp

// Fnmatch is Python's fnmatch.fnmatchcase (fnmatch.fnmatch on POSIX): the
// whole name must match; '*' matches any run of characters (slashes and dots
// included), '?' one character, '[seq]' and '[!seq]' a class; a '[' without
// a closing ']' is literal.
func Fnmatch(name, pattern string) bool {
	if !strings.ContainsAny(pattern, "*?[") {
		return name == pattern
	}
	return globRegexp(pattern).MatchString(name)
}

// FnmatchFilter is Python's fnmatch.filter: the names matching pattern, in
// their order.
func FnmatchFilter(names []string, pattern string) []string {
	var out []string
	if !strings.ContainsAny(pattern, "*?[") {
		for _, n := range names {
			if n == pattern {
				out = append(out, n)
			}
		}
		return out
	}
	re := globRegexp(pattern)
	for _, n := range names {
		if re.MatchString(n) {
			out = append(out, n)
		}
	}
	return out
}

// IsGlob reports whether pattern holds fnmatch metacharacters.
func IsGlob(pattern string) bool { return strings.ContainsAny(pattern, "*?[") }

func globRegexp(pattern string) *regexp.Regexp {
	if re, ok := globCache.Load(pattern); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(translateGlob(pattern))
	globCache.Store(pattern, re)
	return re
}

// translateGlob follows Python's fnmatch.translate.
func translateGlob(pat string) string {
	var b strings.Builder
	b.WriteString(`(?s)\A(?:`)
	rs := []rune(pat)
	n := len(rs)
	for i := 0; i < n; {
		c := rs[i]
		i++
		switch c {
		case '*':
			for i < n && rs[i] == '*' {
				i++
			}
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			j := i
			if j < n && rs[j] == '!' {
				j++
			}
			if j < n && rs[j] == ']' {
				j++
			}
			for j < n && rs[j] != ']' {
				j++
			}
			if j >= n {
				b.WriteString(`\[`)
				continue
			}
			stuff := rs[i:j]
			i = j + 1
			neg := false
			if len(stuff) > 0 && stuff[0] == '!' {
				neg = true
				stuff = stuff[1:]
			}
			cls := classBody(stuff)
			if cls == "" {
				if neg {
					b.WriteString(".") // Python: '[!]' matches any character
				} else {
					b.WriteString("[^\\x00-\\x{10FFFF}]") // matches nothing
				}
				continue
			}
			b.WriteByte('[')
			if neg {
				b.WriteByte('^')
			}
			b.WriteString(cls)
			b.WriteByte(']')
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`)\z`)
	return b.String()
}

// classBody turns the inside of a glob class into a regexp class body,
// keeping ranges and dropping reversed ones as Python does.
func classBody(stuff []rune) string {
	var b strings.Builder
	for k := 0; k < len(stuff); k++ {
		lo := stuff[k]
		if k+2 < len(stuff) && stuff[k+1] == '-' {
			hi := stuff[k+2]
			k += 2
			if lo > hi {
				continue
			}
			b.WriteString(escClass(lo))
			b.WriteByte('-')
			b.WriteString(escClass(hi))
			continue
		}
		b.WriteString(escClass(lo))
	}
	return b.String()
}

func escClass(r rune) string {
	switch r {
	case '\\', ']', '[', '^', '-':
		return `\` + string(r)
	}
	return string(r)
}

// FileIgnore returns Salt's is_file_ignored test for the file_ignore_regex
// and file_ignore_glob options: a path is ignored when one regex matches
// anywhere in it (re.search) or one glob matches all of it (fnmatch). A
// regex Go cannot compile is skipped. It returns nil when both are empty.
func FileIgnore(regexes, globs []string) func(path string) bool {
	var res []*regexp.Regexp
	for _, r := range regexes {
		if re, err := regexp.Compile(r); err == nil {
			res = append(res, re)
		}
	}
	if len(res) == 0 && len(globs) == 0 {
		return nil
	}
	globs = append([]string(nil), globs...)
	return func(path string) bool {
		for _, re := range res {
			if re.MatchString(path) {
				return true
			}
		}
		for _, g := range globs {
			if Fnmatch(path, g) {
				return true
			}
		}
		return false
	}
}
