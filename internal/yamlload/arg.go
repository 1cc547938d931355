package yamlload

import (
	"math/big"
	"strings"
	"unicode"

	"brine/internal/value"
)

// LoadArg types one command-line argument the way Salt's yamlify_arg does:
// the text is read as YAML and the result kept when it is a scalar, or a
// mapping written in braces, or a sequence written in brackets; anything
// else (and anything that fails to load) stays the original string. So
// "True" is true, "0644" is 644, "{a: 1}" a map, "a: 1" the string.
func LoadArg(s string) any {
	t := pyStrip(s)
	if t == "" || t == "---" || t == "..." {
		return s
	}
	if strings.Contains(s, "_") && strings.Trim(t, "0123456789_") == "" {
		return s
	}
	if strings.ContainsAny(s, "\t\r\n") {
		return s
	}
	if strings.Contains(s, "#") {
		v, err := loadArgYAML(s)
		if err != nil {
			return s
		}
		if _, isStr := v.(string); isStr || v == nil {
			return s
		}
		return v
	}
	var v any
	if s != "None" {
		var err error
		if v, err = loadArgYAML(s); err != nil {
			return s
		}
	}
	switch x := v.(type) {
	case *value.Map:
		if !strings.HasPrefix(s, "{") {
			return s
		}
		return x
	case *value.List:
		if !strings.HasPrefix(s, "[") {
			return s
		}
		return x
	case nil:
		if strings.HasPrefix(t, "#") || s == "!" {
			return s
		}
		return nil
	case string:
		if x == "" && (s == "|" || s == "!") {
			return s
		}
		return x
	case bool, int64, *big.Int, float64:
		return x
	}
	return s // bytes and other types are not supported
}

// loadArgYAML is salt.utils.yaml.safe_load: Salt's loader with plain dicts,
// so a mapping used as a key is an error.
func loadArgYAML(s string) (any, error) {
	return SafeLoad([]byte(s), "")
}

// HasMapKey reports whether loaded data holds a mapping used as a mapping
// key (what `{{ x }}` left unrendered becomes). Salt's yaml renderer fails
// such data with "Invalid YAML, possible double curly-brace". Shared
// (aliased) collections are visited once.
func HasMapKey(v any) bool {
	// most data has no shared collections: walk it as a tree, and keep
	// track of what was seen only when the walk runs long
	budget := 1 << 16
	if found, ok := hasMapKeyTree(v, &budget); ok {
		return found
	}
	seen := map[any]bool{}
	var walk func(v any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case *value.Map:
			if seen[x] {
				return false
			}
			seen[x] = true
			found := false
			x.Range(func(k, v any) bool {
				if _, ok := k.(*value.Map); ok || walk(v) {
					found = true
					return false
				}
				return true
			})
			return found
		case *value.List:
			if seen[x] {
				return false
			}
			seen[x] = true
			for _, e := range x.Items {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}

// hasMapKeyTree is HasMapKey visiting shared collections again; ok is
// false when that took more than budget collections.
func hasMapKeyTree(v any, budget *int) (found, ok bool) {
	switch x := v.(type) {
	case *value.Map:
		if *budget--; *budget < 0 {
			return false, false
		}
		for i := 0; i < x.Len(); i++ {
			k, e := x.At(i)
			if _, isMap := k.(*value.Map); isMap {
				return true, true
			}
			if found, ok := hasMapKeyTree(e, budget); found || !ok {
				return found, ok
			}
		}
	case *value.List:
		if *budget--; *budget < 0 {
			return false, false
		}
		for _, e := range x.Items {
			if found, ok := hasMapKeyTree(e, budget); found || !ok {
				return found, ok
			}
		}
	}
	return false, true
}

// pyStrip is Python's str.strip() with no arguments.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || r == 0x1c || r == 0x1d || r == 0x1e || r == 0x1f
	})
}

// ParseKwarg splits "name=value" as Salt's parse_kwarg does: the name is a
// letter or underscore followed by word characters, dots and dashes, and
// the '=' may not be followed by another '='.
func ParseKwarg(s string) (name, val string, ok bool) {
	i := strings.IndexByte(s, '=')
	if i <= 0 || strings.HasPrefix(s[i+1:], "=") {
		return "", "", false
	}
	name, val = s[:i], s[i+1:]
	for j, r := range name {
		word := r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Nd, r)
		if j == 0 {
			if !word || unicode.IsDigit(r) {
				return "", "", false
			}
			continue
		}
		if !word && r != '.' && r != '-' {
			return "", "", false
		}
	}
	// Python's (.*)$ stops at a newline; $ may match before a final one.
	if k := strings.IndexByte(val, '\n'); k >= 0 {
		if k != len(val)-1 || strings.ContainsRune(name, '\n') {
			return "", "", false
		}
		val = val[:k]
	}
	return name, val, true
}

// ParseInput splits command-line arguments into positional arguments and
// keyword arguments as Salt's parse_input does for salt-call: key=value
// words become keyword arguments, everything is typed with LoadArg except
// the values of keywords named in noParse, and a positional integer that
// looks like a job id goes back to a string.
func ParseInput(args []string, noParse []string) (pos []any, kwargs *value.Map) {
	kwargs = value.NewMap(0)
	for _, a := range args {
		if name, val, ok := ParseKwarg(a); ok {
			var v any = val
			if !contains(noParse, name) {
				v = LoadArg(val)
			}
			kwargs.Set(name, v)
			continue
		}
		v := LoadArg(a)
		if isJIDInt(v) {
			v = value.Str(v)
		}
		pos = append(pos, v)
	}
	return pos, kwargs
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// isJIDInt reports an int whose decimal form is a 20-digit job id.
func isJIDInt(v any) bool {
	var s string
	switch x := v.(type) {
	case int64:
		s = value.Str(x)
	case *big.Int:
		s = x.String()
	default:
		return false
	}
	return len(s) == 20
}
