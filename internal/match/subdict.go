package match

import (
	"strings"

	"brine/internal/value"
)

// Modes of SubdictMatch.
const (
	modeGlob = iota
	modeRegex
	modeExact
)

// Match modes for SubdictMatch: fnmatch, regular expression (re.match) or
// plain equality; both sides are compared lower-cased as Salt does.
const (
	ModeGlob  = modeGlob
	ModeRegex = modeRegex
	ModeExact = modeExact
)

// SubdictMatch is Salt's salt.utils.data.subdict_match: expr is a delimited
// path ending in a pattern ("roles:web", "app:tier:fr*"); deeper splits are
// tried first, so "a:b:c" matches data[a][b] == "c" before data[a] == "b:c".
// A pattern that names a key of a nested dict matches too.
func SubdictMatch(data any, expr, delim string, mode int) bool {
	splits := strings.Split(expr, delim)
	if len(splits) == 1 {
		return false
	}
	for idx := len(splits) - 1; idx > 0; idx-- {
		key := strings.Join(splits[:idx], delim)
		var matchstr string
		var m any
		if key == "*" {
			matchstr, m = expr, data
		} else {
			matchstr = strings.Join(splits[idx:], delim)
			v, ok := value.TraverseKeys(data, splits[:idx])
			if !ok {
				continue
			}
			m = v
		}
		if mm, ok := m.(*value.Map); ok && mm.Len() == 0 {
			continue
		}
		switch x := m.(type) {
		case *value.Map:
			if dictMatch(x, matchstr, delim, mode) {
				return true
			}
			continue
		case *value.List:
			if seqMatch(x.Items, matchstr, delim, mode) {
				return true
			}
			continue
		case value.Tuple:
			if seqMatch(x, matchstr, delim, mode) {
				return true
			}
			continue
		}
		if scalarMatch(m, matchstr, mode) {
			return true
		}
	}
	return false
}

func seqMatch(items []any, pattern, delim string, mode int) bool {
	for _, member := range items {
		if d, ok := member.(*value.Map); ok && dictMatch(d, pattern, delim, mode) {
			return true
		}
		if scalarMatch(member, pattern, mode) {
			return true
		}
	}
	return false
}

func scalarMatch(target any, pattern string, mode int) bool {
	t := strings.ToLower(value.Str(target))
	p := strings.ToLower(pattern)
	switch mode {
	case modeRegex:
		re := pyRegexp(p)
		return re != nil && re.MatchString(t)
	case modeExact:
		return t == p
	}
	return Fnmatch(t, p)
}

func dictMatch(target *value.Map, pattern, delim string, mode int) bool {
	wildcard := strings.HasPrefix(pattern, "*:")
	if wildcard {
		pattern = pattern[2:]
	}
	if pattern == "*" || target.Has(pattern) {
		return true
	}
	// Salt calls subdict_match here with the default delimiter.
	if SubdictMatch(target, pattern, DefaultDelim, mode) {
		return true
	}
	if wildcard {
		for _, v := range target.Values() {
			switch x := v.(type) {
			case *value.Map:
				if dictMatch(x, pattern, delim, mode) {
					return true
				}
			case *value.List:
				for _, item := range x.Items {
					if scalarMatch(item, pattern, mode) {
						return true
					}
				}
			default:
				if scalarMatch(v, pattern, mode) {
					return true
				}
			}
		}
	}
	return false
}
