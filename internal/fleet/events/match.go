package events

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// globCache keeps compiled globs: the reactor matches every event against
// the same few patterns.
var globCache sync.Map // pattern -> *regexp.Regexp

// Match reports whether tag matches the shell-style pattern as Python's
// fnmatch.fnmatch does on POSIX (case-sensitive; "*" matches "/" too),
// which is how the reactor matches its tag globs.
func Match(pattern, tag string) bool {
	if re, ok := globCache.Load(pattern); ok {
		return re.(*regexp.Regexp).MatchString(tag)
	}
	re := regexp.MustCompile(translate(pattern))
	globCache.Store(pattern, re)
	return re.MatchString(tag)
}

// ExprMatch is Salt's expr_match, what `state.event` filters tags with:
// an exact match, an fnmatch glob, or a regular expression matching the
// whole tag (one RE2 cannot compile matches nothing).
func ExprMatch(expr, tag string) bool {
	if tag == expr || Match(expr, tag) {
		return true
	}
	re, err := regexp.Compile(`\A(?:` + expr + `)\z`)
	return err == nil && re.MatchString(tag)
}

// translate turns a glob into an anchored RE2 expression, following
// fnmatch.translate: "*", "?", "[seq]" and "[!seq]" (an unclosed "["
// is literal, a range running backwards is dropped, an empty set matches
// nothing).
func translate(pat string) string {
	var b strings.Builder
	b.WriteString(`(?s)\A`)
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
			b.WriteString(charClass(rs[i:j]))
			i = j + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`\z`)
	return b.String()
}

// charClass is the RE2 class of a glob set's content (without brackets).
func charClass(set []rune) string {
	neg := false
	if len(set) > 0 && set[0] == '!' {
		neg, set = true, set[1:]
		if len(set) == 0 {
			return "." // "[!]": Python turns it into any character
		}
	}
	var items []string
	for k := 0; k < len(set); k++ {
		lo := set[k]
		if k+2 < len(set) && set[k+1] == '-' {
			hi := set[k+2]
			k += 2
			if lo > hi {
				continue
			}
			items = append(items, fmt.Sprintf(`\x{%x}-\x{%x}`, lo, hi))
			continue
		}
		items = append(items, fmt.Sprintf(`\x{%x}`, lo))
	}
	if len(items) == 0 {
		if neg {
			return "."
		}
		return `[^\x00-\x{10FFFF}]`
	}
	if neg {
		return "[^" + strings.Join(items, "") + "]"
	}
	return "[" + strings.Join(items, "") + "]"
}
