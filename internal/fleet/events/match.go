package events

import (
	"regexp"

	"brine/internal/match"
)

// Match reports whether tag matches the shell-style pattern as Python's
// fnmatch.fnmatch does on POSIX (case-sensitive; "*" matches "/" too),
// which is how the reactor matches its tag globs.
func Match(pattern, tag string) bool { return match.Fnmatch(tag, pattern) }

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
