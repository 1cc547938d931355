package jinjasalt

import (
	"math/big"
	"testing"

	"brine/internal/jinja"
	"brine/internal/value"
)

// Every filter, test and global returns a value or an error for odd
// input; none panics.
func TestEntriesNeverPanic(t *testing.T) {
	set, _ := NewSet([]any{int64(1), "a"})
	odd := []any{nil, true, int64(-3), int64(0), big.NewInt(0).Lsh(big.NewInt(1), 80), 1.5, "", "x", "10.0.0.1/24", "a:b",
		[]byte{0xff}, value.NewList(), value.NewList(int64(1), "a", nil), value.Tuple{int64(1)},
		value.MapOf("a", int64(1), "b", value.NewList()), set, jinja.Markup("<m>")}
	skip := map[string]bool{"dns_check": true, "which": true, "http_query": true}
	call := func(e *Entry, args []any, kw *value.Map) {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("%s %s%v panicked: %v", e.Kind, e.Name, args, r)
			}
		}()
		_, _ = e.Fn(args, kw)
	}
	for _, kind := range []Kind{Filter, Test, Global} {
		for _, e := range Entries(kind) {
			if skip[e.Name] {
				continue
			}
			call(e, nil, nil)
			for _, a := range odd {
				call(e, []any{a}, nil)
				for _, b := range odd {
					call(e, []any{a, b}, nil)
					call(e, []any{a, b, b}, nil)
				}
			}
			call(e, []any{"x"}, value.MapOf("nope", int64(1)))
		}
	}
}

func FuzzTranslatePy(f *testing.F) {
	for _, s := range []string{`^(\w+)\s*=\s*(?P<v>.*)$`, `[^]\d-]{,3}`, `(?i)a|b`, `\x4`, `\u12`, `(?`, `[`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pat string) {
		_, _ = compilePy(pat, reIgnoreCase)
		_, _ = regexFind("abc", pat, 0, true)
		_, _ = regexReplace("abc", pat, `\1\g<0>`, 0)
	})
}

// FuzzJMESPath runs arbitrary json_query expressions on a fixed document:
// a bad expression is an error, never a panic.
func FuzzJMESPath(f *testing.F) {
	for _, s := range []string{
		`a.b[0]`, `people[?age > ` + "`20`" + `].name`, `a[::-1]`, `{x: a, y: b[*]}`, `[a, b] | [0]`,
		`sort_by(people, &age)[].name`, `join(', ', names)`, `merge(a, {"z": 1})`, `max_by(people, &name)`,
		`a[1:2:0]`, `&a`, `contains(a, 'x') || !b`, `ends_with(@, 'x')`, `map(&[0], a)`,
	} {
		f.Add(s)
	}
	doc, err := value.FromJSON([]byte(`{"a": {"b": [1, 2, "x"]}, "b": [null, true, 2.5],
		"names": ["p", "q"], "people": [{"name": "p", "age": 30}, {"name": "q", "age": "old"}, 3]}`))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		_, _ = jmesSearch(expr, doc)
	})
}
