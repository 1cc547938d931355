package jinjasalt

import (
	"brine/internal/value"
)

// The itertools filters SerializerExtension registers. Python returns lazy
// iterators; brine returns lists of tuples, which every later filter and
// loop accepts. maxCombos bounds the result size.
const maxCombos = 1 << 20

func tooMany() error {
	return pyErr("MemoryError", "itertools result too large (more than %d items)", maxCombos)
}

func combinations(pool []any, r int, replace bool) ([]any, error) {
	n := len(pool)
	var out []any
	if r < 0 {
		return nil, pyErr(excValueError, "r must be non-negative")
	}
	if (!replace && r > n) || (replace && n == 0 && r > 0) {
		return out, nil
	}
	if (!replace && countExceeds(n, min(r, n-r), true)) || (replace && countExceeds(n+r-1, min(r, n-1), true)) {
		return nil, tooMany()
	}
	idx := make([]int, r)
	if !replace {
		for i := range idx {
			idx[i] = i
		}
	}
	emit := func() {
		t := make(value.Tuple, r)
		for i, j := range idx {
			t[i] = pool[j]
		}
		out = append(out, t)
	}
	emit()
	for {
		i := r - 1
		if replace {
			for i >= 0 && idx[i] == n-1 {
				i--
			}
		} else {
			for i >= 0 && idx[i] == i+n-r {
				i--
			}
		}
		if i < 0 {
			return out, nil
		}
		idx[i]++
		for j := i + 1; j < r; j++ {
			if replace {
				idx[j] = idx[i]
			} else {
				idx[j] = idx[j-1] + 1
			}
		}
		if len(out) >= maxCombos {
			return nil, tooMany()
		}
		emit()
	}
}

// countExceeds reports whether n!/(n-r)! (divided by r! when choose)
// exceeds maxCombos.
func countExceeds(n, r int, choose bool) bool {
	c := 1.0
	for i := 0; i < r; i++ {
		c *= float64(n - i)
		if choose {
			c /= float64(i + 1)
		}
		if c > maxCombos {
			return true
		}
	}
	return false
}

func permutations(pool []any, r int) ([]any, error) {
	n := len(pool)
	var out []any
	if r < 0 {
		return nil, pyErr(excValueError, "r must be non-negative")
	}
	if r > n {
		return out, nil
	}
	if countExceeds(n, r, false) {
		return nil, tooMany()
	}
	used := make([]bool, n)
	cur := make(value.Tuple, 0, r)
	var rec func() error
	rec = func() error {
		if len(cur) == r {
			if len(out) >= maxCombos {
				return tooMany()
			}
			out = append(out, append(value.Tuple{}, cur...))
			return nil
		}
		for i := 0; i < n; i++ {
			if used[i] {
				continue
			}
			used[i] = true
			cur = append(cur, pool[i])
			if err := rec(); err != nil {
				return err
			}
			cur = cur[:len(cur)-1]
			used[i] = false
		}
		return nil
	}
	return out, rec()
}

func product(pools [][]any) ([]any, error) {
	out := []any{value.Tuple{}}
	for _, p := range pools {
		if len(out)*len(p) > maxCombos {
			return nil, tooMany()
		}
		next := make([]any, 0, len(out)*len(p))
		for _, prefix := range out {
			for _, it := range p {
				t := append(append(value.Tuple{}, prefix.(value.Tuple)...), it)
				next = append(next, t)
			}
		}
		out = next
	}
	return out, nil
}

func zipLists(pools [][]any, longest bool, fill any) []any {
	if len(pools) == 0 {
		return nil
	}
	n := len(pools[0])
	for _, p := range pools[1:] {
		if (longest && len(p) > n) || (!longest && len(p) < n) {
			n = len(p)
		}
	}
	out := make([]any, n)
	for i := 0; i < n; i++ {
		t := make(value.Tuple, len(pools))
		for j, p := range pools {
			if i < len(p) {
				t[j] = p[i]
			} else {
				t[j] = fill
			}
		}
		out[i] = t
	}
	return out
}

func iterAll(vals []any) ([][]any, error) {
	out := make([][]any, len(vals))
	for i, v := range vals {
		items, err := iterate(v)
		if err != nil {
			return nil, err
		}
		out[i] = items
	}
	return out, nil
}

func init() {
	const src = "salt/utils/jinja.py"
	combo := func(name string, replace bool) {
		filter(name, src, newSig(name, "iterable", required, "r", required), func(b *bound) (any, error) {
			pool, err := iterate(b.vals[0])
			if err != nil {
				return nil, err
			}
			r, err := asInt(b.vals[1])
			if err != nil {
				return nil, err
			}
			out, err := combinations(pool, r, replace)
			return newList(out), err
		})
	}
	combo("combinations", false)
	combo("combinations_with_replacement", true)
	filter("permutations", src, newSig("permutations", "iterable", required, "r", nil), func(b *bound) (any, error) {
		pool, err := iterate(b.vals[0])
		if err != nil {
			return nil, err
		}
		r := len(pool)
		if b.vals[1] != nil {
			if r, err = asInt(b.vals[1]); err != nil {
				return nil, err
			}
		}
		out, err := permutations(pool, r)
		return newList(out), err
	})
	filter("compress", src, newSig("compress", "data", required, "selectors", required), func(b *bound) (any, error) {
		pools, err := iterAll(b.vals)
		if err != nil {
			return nil, err
		}
		var out []any
		for i, it := range pools[0] {
			if i < len(pools[1]) && truthy(pools[1][i]) {
				out = append(out, it)
			}
		}
		return newList(out), nil
	})
	register(Filter, "product", src, func(args []any, kw *value.Map) (any, error) {
		repeat := 1
		var err error
		for _, k := range kw.Keys() {
			if k != "repeat" {
				return nil, pyErr(excTypeError, "product() got an unexpected keyword argument '%s'", pyStr(k))
			}
			if repeat, err = asInt(mustGet(kw, k)); err != nil {
				return nil, err
			}
		}
		pools, err := iterAll(args)
		if err != nil {
			return nil, err
		}
		var all [][]any
		for i := 0; i < repeat; i++ {
			all = append(all, pools...)
		}
		out, err := product(all)
		return newList(out), err
	})
	register(Filter, "zip", src, func(args []any, kw *value.Map) (any, error) {
		for _, k := range kw.Keys() {
			if k != "strict" {
				return nil, pyErr(excTypeError, "zip() got an unexpected keyword argument '%s'", pyStr(k))
			}
		}
		pools, err := iterAll(args)
		if err != nil {
			return nil, err
		}
		return newList(zipLists(pools, false, nil)), nil
	})
	register(Filter, "zip_longest", src, func(args []any, kw *value.Map) (any, error) {
		var fill any
		for _, k := range kw.Keys() {
			if k != "fillvalue" {
				return nil, pyErr(excTypeError, "zip_longest() got an unexpected keyword argument '%s'", pyStr(k))
			}
			fill = mustGet(kw, k)
		}
		pools, err := iterAll(args)
		if err != nil {
			return nil, err
		}
		return newList(zipLists(pools, true, fill)), nil
	})
}
