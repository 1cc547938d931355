package value

import (
	"strconv"
	"strings"
)

// Traverse follows a delimited path ("a:b:0:c") through nested maps and
// lists as Salt's traverse_dict_and_list does: list steps take an index or
// look into the mappings the list holds, and a map step that misses retries
// with the key read as a number.
func Traverse(data any, path, delim string) (any, bool) {
	if delim == "" {
		delim = ":"
	}
	return TraverseKeys(data, strings.Split(path, delim))
}

// TraverseKeys is Traverse with the path already split.
func TraverseKeys(data any, keys []string) (any, bool) {
	ptr := data
	for _, k := range keys {
		switch x := ptr.(type) {
		case *List:
			idx, err := strconv.Atoi(k)
			var key any = k
			if err == nil {
				key = int64(idx)
			}
			found := false
			for _, e := range x.Items {
				if m, ok := e.(*Map); ok {
					if v, ok := m.Get(key); ok {
						ptr, found = v, true
						break
					}
				}
			}
			if found {
				continue
			}
			if err != nil {
				return nil, false
			}
			if idx < 0 {
				idx += len(x.Items)
			}
			if idx < 0 || idx >= len(x.Items) {
				return nil, false
			}
			ptr = x.Items[idx]
		case *Map:
			if v, ok := x.Get(k); ok {
				ptr = v
				continue
			}
			alt, ok := numericKey(k)
			if !ok {
				return nil, false
			}
			v, ok := x.Get(alt)
			if !ok {
				return nil, false
			}
			ptr = v
		default:
			return nil, false
		}
	}
	return ptr, true
}

// numericKey reads k as YAML would for the common numeric and boolean cases.
func numericKey(k string) (any, bool) {
	if i, err := strconv.ParseInt(k, 10, 64); err == nil {
		return i, true
	}
	if f, err := strconv.ParseFloat(k, 64); err == nil && strings.Contains(k, ".") {
		return f, true
	}
	switch strings.ToLower(k) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off":
		return false, true
	case "null", "~":
		return nil, true
	}
	return nil, false
}
