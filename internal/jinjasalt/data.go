package jinjasalt

import (
	"sort"
	"strconv"
	"strings"

	"brine/internal/value"
)

// Filters of salt/utils/data.py.

// compareDicts is salt.utils.data.compare_dicts. Python walks a set of the
// keys; brine walks new's keys then old's, which is stable.
func compareDicts(oldV, newV any) (any, error) {
	oldM, newM, err := twoMaps(oldV, newV)
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(4)
	keys := append(append([]any{}, newM.Keys()...), oldM.Keys()...)
	seen := value.NewMap(len(keys))
	for _, k := range keys {
		if seen.Has(k) {
			continue
		}
		seen.Set(k, nil)
		ov, inOld := oldM.Get(k)
		nv, inNew := newM.Get(k)
		switch {
		case !inOld:
			ret.Set(k, value.MapOf("old", "", "new", nv))
		case !inNew:
			ret.Set(k, value.MapOf("new", "", "old", ov))
		case !value.Equal(nv, ov):
			ret.Set(k, value.MapOf("old", ov, "new", nv))
		}
	}
	return ret, nil
}

func twoMaps(a, b any) (*value.Map, *value.Map, error) {
	conv := func(v any) (*value.Map, error) {
		if v == nil {
			return value.NewMap(0), nil
		}
		m, ok := v.(*value.Map)
		if !ok {
			return nil, pyErr(excTypeError, "argument of type '%s' is not iterable", typeName(v))
		}
		return m, nil
	}
	x, err := conv(a)
	if err != nil {
		return nil, nil, err
	}
	y, err := conv(b)
	return x, y, err
}

func compareLists(oldV, newV any) (any, error) {
	oldItems, err := iterate(oldV)
	if err != nil {
		return nil, err
	}
	newItems, err := iterate(newV)
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(2)
	add := func(key string, items, other []any, otherV any) error {
		for _, it := range items {
			in, err := contains(otherV, it)
			if err != nil {
				return err
			}
			if !in {
				l, ok := ret.Get(key)
				if !ok {
					l = value.NewList()
					ret.Set(key, l)
				}
				l.(*value.List).Append(it)
			}
		}
		return nil
	}
	if err := add("new", newItems, oldItems, oldV); err != nil {
		return nil, err
	}
	if err := add("old", oldItems, newItems, newV); err != nil {
		return nil, err
	}
	return ret, nil
}

// encodeStrings is salt.utils.data.encode_dict/encode_list: every str
// becomes UTF-8 bytes, tuples become lists.
func encodeStrings(v any) any {
	switch x := v.(type) {
	case string:
		return []byte(x)
	case *value.List:
		out := make([]any, len(x.Items))
		for i, e := range x.Items {
			out[i] = encodeStrings(e)
		}
		return newList(out)
	case value.Tuple:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = encodeStrings(e)
		}
		return newList(out)
	case *value.Map:
		m := value.NewMap(x.Len())
		x.Range(func(k, e any) bool {
			if s, ok := k.(string); ok {
				k = []byte(s)
			}
			m.Set(k, encodeStrings(e))
			return true
		})
		return m
	}
	if s, ok := asString(v); ok {
		return []byte(s)
	}
	return v
}

// exactlyN is salt.utils.data.exactly_n: exactly amount truthy items.
func exactlyN(v any, amount int) (bool, error) {
	items, err := iterate(v)
	if err != nil {
		return false, err
	}
	n := 0
	for _, it := range items {
		if truthy(it) {
			n++
			if n > amount {
				return false, nil
			}
		}
	}
	return n == amount, nil
}

// traverse is salt.utils.data.traverse_dict_and_list.
func traverse(data, key, def, delim any) any {
	d := pyStr(delim)
	var keys []string
	switch k := key.(type) {
	case string:
		if d == "" {
			return def
		}
		keys = strings.Split(k, d)
	case int64:
		keys = []string{strconv.FormatInt(k, 10)}
	default:
		items, err := iterate(key)
		if err != nil {
			return def
		}
		for _, it := range items {
			keys = append(keys, pyStr(it))
		}
	}
	if v, ok := value.TraverseKeys(data, keys); ok {
		return v
	}
	return def
}

func substringInList(s, list any) (bool, error) {
	items, err := iterate(list)
	if err != nil {
		return false, err
	}
	for _, it := range items {
		in, err := contains(it, s)
		if err != nil {
			return false, err
		}
		if in {
			return true, nil
		}
	}
	return false, nil
}

func isList(v any) bool { _, ok := v.(*value.List); return ok }

func isIter(v any) bool {
	if _, ok := asString(v); ok {
		return false
	}
	_, err := iterate(v)
	return err == nil
}

func sortedIgnorecase(v any) (any, error) {
	items, err := iterate(v)
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(items))
	for i, it := range items {
		s, ok := asString(it)
		if !ok {
			return nil, pyErr(excAttributeError, "'%s' object has no attribute 'lower'", typeName(it))
		}
		keys[i] = strings.ToLower(s)
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
	out := make([]any, len(items))
	for i, j := range idx {
		out[i] = items[j]
	}
	return newList(out), nil
}

func mysqlToDict(data, key any) (any, error) {
	lines, err := iterate(data)
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(4)
	headers := []string{""}
	for _, l := range lines {
		line, ok := asString(l)
		if !ok {
			return nil, pyErr(excAttributeError, "'%s' object has no attribute 'startswith'", typeName(l))
		}
		if line == "" || strings.HasPrefix(line, "+") {
			continue
		}
		comps := strings.Split(line, "|")
		for i, c := range comps {
			comps[i] = strings.TrimFunc(c, pyIsSpace)
		}
		if len(headers) <= 1 {
			headers = comps
			continue
		}
		row := value.NewMap(len(headers))
		for field := 1; field < len(headers)-1; field++ {
			if field >= len(comps) {
				return nil, pyErr(excIndexError, "list index out of range")
			}
			n, err := toNum(comps[field])
			if err != nil {
				return nil, err
			}
			row.Set(headers[field], n)
		}
		k, ok := row.Get(key)
		if !ok {
			return nil, pyErr(excKeyError, "%s", value.Repr(key))
		}
		if !value.Hashable(k) {
			return nil, pyErr(excTypeError, "unhashable type: '%s'", typeName(k))
		}
		ret.Set(k, row)
	}
	return ret, nil
}

// jsonQuery is salt.utils.data.json_query: jmespath.search(expr, data).
func jsonQuery(data, expr any) (any, error) {
	e, ok := asString(expr)
	if !ok {
		return nil, pyErr(excTypeError, "expected string, got '%s'", typeName(expr))
	}
	return jmesSearch(e, data)
}

// flatten is salt.utils.data.flatten.
func flatten(data any, levels any, preserveNulls bool, depth int) ([]any, error) {
	if depth > 1000 {
		return nil, pyErr(excRecursion, "Reference cycle detected. Check input list.")
	}
	items, err := iterate(data)
	if err != nil {
		return nil, err
	}
	var out []any
	for _, el := range items {
		if !preserveNulls && (el == nil || el == "None" || el == "null") {
			continue
		}
		if !isIter(el) {
			out = append(out, el)
			continue
		}
		if levels == nil {
			sub, err := flatten(el, nil, preserveNulls, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
			continue
		}
		lv, err := pyInt(levels)
		if err != nil {
			return nil, err
		}
		n, _ := lv.(int64)
		if n >= 1 {
			sub, err := flatten(el, n-1, preserveNulls, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		} else {
			out = append(out, el)
		}
	}
	return out, nil
}

func init() {
	const src = "salt/utils/data.py"
	filter("compare_dicts", src, newSig("compare_dicts", "old", nil, "new", nil), func(b *bound) (any, error) {
		return compareDicts(b.vals[0], b.vals[1])
	})
	filter("compare_lists", src, newSig("compare_lists", "old", nil, "new", nil), func(b *bound) (any, error) {
		return compareLists(b.vals[0], b.vals[1])
	})
	encSig := func(py string) *sig {
		return newSig(py, "data", required, "encoding", nil, "errors", "strict", "keep", false, "preserve_dict_class", false, "preserve_tuples", false)
	}
	for _, name := range []string{"json_decode_dict", "json_encode_dict"} {
		filter(name, src, encSig("encode_dict"), func(b *bound) (any, error) {
			if _, ok := b.vals[0].(*value.Map); !ok {
				return nil, pyErr(excAttributeError, "'%s' object has no attribute 'items'", typeName(b.vals[0]))
			}
			return encodeStrings(b.vals[0]), nil
		})
	}
	for _, name := range []string{"json_decode_list", "json_encode_list"} {
		filter(name, src, encSig("encode_list"), func(b *bound) (any, error) {
			items, err := iterate(b.vals[0])
			if err != nil {
				return nil, err
			}
			return encodeStrings(newList(items)), nil
		})
	}
	filter("exactly_n_true", src, newSig("exactly_n", "iterable", required, "amount", int64(1)), func(b *bound) (any, error) {
		n, err := asInt(b.vals[1])
		if err != nil {
			return nil, err
		}
		return exactlyN(b.vals[0], n)
	})
	filter("exactly_one_true", src, newSig("exactly_one", "iterable", required), func(b *bound) (any, error) {
		return exactlyN(b.vals[0], 1)
	})
	filter("traverse", src, newSig("traverse_dict_and_list", "data", required, "key", required, "default", nil, "delimiter", ":"), func(b *bound) (any, error) {
		return traverse(b.vals[0], b.vals[1], b.vals[2], b.vals[3]), nil
	})
	filter("substring_in_list", src, newSig("substr_in_list", "string_to_search_for", required, "list_to_search", required), func(b *bound) (any, error) {
		return substringInList(b.vals[0], b.vals[1])
	})
	filter("is_list", src, newSig("is_list", "value", required), func(b *bound) (any, error) {
		return isList(b.vals[0]), nil
	})
	test("list", src, newSig("is_list", "value", required), func(b *bound) (any, error) {
		return isList(b.vals[0]), nil
	})
	filter("is_iter", src, newSig("is_iter", "thing", required, "ignore", nil), func(b *bound) (any, error) {
		return isIter(b.vals[0]), nil
	})
	filter("sorted_ignorecase", src, newSig("sorted_ignorecase", "to_sort", required), func(b *bound) (any, error) {
		return sortedIgnorecase(b.vals[0])
	})
	filter("mysql_to_dict", src, newSig("mysql_to_dict", "data", required, "key", required), func(b *bound) (any, error) {
		return mysqlToDict(b.vals[0], b.vals[1])
	})
	filter("json_query", src, newSig("json_query", "data", required, "expr", required), func(b *bound) (any, error) {
		return jsonQuery(b.vals[0], b.vals[1])
	})
	filter("flatten", src, newSig("flatten", "data", required, "levels", nil, "preserve_nulls", false, "_ids", nil), func(b *bound) (any, error) {
		out, err := flatten(b.vals[0], b.vals[1], truthy(b.vals[2]), 0)
		if err != nil {
			return nil, err
		}
		return newList(out), nil
	})
	filter("random_sample", src, newSig("sample", "value", required, "size", required, "seed", nil), func(b *bound) (any, error) {
		return randomSample(b.vals[0], b.vals[1], b.vals[2])
	})
	filter("random_shuffle", src, newSig("shuffle", "value", required, "seed", nil), func(b *bound) (any, error) {
		items, err := iterate(b.vals[0])
		if err != nil {
			return nil, err
		}
		return randomSample(b.vals[0], int64(len(items)), b.vals[1])
	})
}
