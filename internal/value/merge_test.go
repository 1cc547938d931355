package value

import "testing"

func mustJSONMap(t *testing.T, s string) *Map {
	t.Helper()
	v, err := FromJSON([]byte(s))
	if err != nil {
		t.Fatalf("bad JSON %q: %v", s, err)
	}
	m, ok := v.(*Map)
	if !ok {
		t.Fatalf("not a mapping: %s", s)
	}
	return m
}

func TestMergeStrategies(t *testing.T) {
	tests := []struct {
		name, strategy, renderer string
		lists                    bool
		a, b, want               string
	}{
		{"recurse nested", "recurse", "", false,
			`{"d": {"a": 1, "b": {"c": 1}}, "l": [1, 2], "x": 1}`,
			`{"d": {"b": {"d": 2}, "e": 5}, "l": [3], "y": 2}`,
			`{"d": {"a": 1, "b": {"c": 1, "d": 2}, "e": 5}, "l": [3], "x": 1, "y": 2}`},
		{"smart is recurse", "smart", "jinja|yaml", false,
			`{"a": {"x": 1}}`, `{"a": {"y": 2}}`, `{"a": {"x": 1, "y": 2}}`},
		{"type change", "recurse", "", false,
			`{"a": {"x": 1}, "b": 1, "c": null}`, `{"a": 1, "b": {"k": 1}, "c": {"x": 1}}`,
			`{"a": 1, "b": {"k": 1}, "c": {"x": 1}}`},
		{"merge lists", "smart", "yaml", true,
			`{"p": ["vim", "git"], "u": [{"n": "a"}], "o": {"f": ["x"]}}`,
			`{"p": ["git", "curl"], "u": [{"n": "a"}, {"n": "b"}], "o": {"f": "y"}}`,
			`{"p": ["vim", "git", "curl"], "u": [{"n": "a"}, {"n": "b"}], "o": {"f": "y"}}`},
		{"none ignores merge lists", "none", "", true,
			`{"p": [1]}`, `{"p": [2]}`, `{"p": [2]}`},
		{"aggregate", "aggregate", "", false,
			`{"x": {"one": 1, "two": 2, "lst": [1, 2], "deep": {"keep": 1, "change": 1}}, "f": 1}`,
			`{"x": {"two": 22, "three": 3, "lst": [3], "deep": {"change": 2}}, "s": 2}`,
			`{"x": {"two": 22, "three": 3, "lst": [3], "deep": {"change": 2}}, "f": 1, "s": 2}`},
		{"smart yamlex", "smart", "jinja|yamlex", false,
			`{"x": {"one": 1}}`, `{"x": {"two": 2}}`, `{"x": {"two": 2}}`},
		{"overwrite", "overwrite", "", false,
			`{"app": {"name": "d", "port": 80, "tls": {"e": false}}, "keep": 1}`,
			`{"app": {"port": 8080, "tls": {"c": "p"}}, "added": 2}`,
			`{"app": {"port": 8080, "tls": {"c": "p"}}, "keep": 1, "added": 2}`},
		{"list", "list", "", false,
			`{"a": 1, "b": 2}`, `{"a": 3, "c": 4}`, `{"a": [1, 3], "b": 2}`},
		{"unknown is recurse", "bogus", "", false,
			`{"a": {"x": 1}}`, `{"a": {"y": 2}}`, `{"a": {"x": 1, "y": 2}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := mustJSONMap(t, tt.a), mustJSONMap(t, tt.b)
			aBefore, bBefore := DeepCopy(a), DeepCopy(b)
			got := Merge(a, b, tt.strategy, tt.renderer, tt.lists)
			want := mustJSONMap(t, tt.want)
			if ToJSON(got, JSONOptions{}) != ToJSON(want, JSONOptions{}) {
				t.Errorf("got %s\nwant %s", ToJSON(got, JSONOptions{}), ToJSON(want, JSONOptions{}))
			}
			if !Equal(a, aBefore) || !Equal(b, bBefore) {
				t.Errorf("inputs modified")
			}
		})
	}
}

func TestUpdateCopiesSource(t *testing.T) {
	dest := mustJSONMap(t, `{}`)
	src := mustJSONMap(t, `{"a": {"b": [1]}}`)
	Update(dest, src, false)
	inner, _ := dest.Get("a")
	inner.(*Map).Set("c", 1)
	if v, _ := src.Get("a"); v.(*Map).Has("c") {
		t.Fatal("Update shares containers with its source")
	}
}

func BenchmarkMergeInPlace(b *testing.B) {
	b.ReportAllocs()
	src := NewMap(0)
	for i := 0; i < 50; i++ {
		inner := NewMap(0)
		for j := 0; j < 20; j++ {
			inner.Set(Repr(int64(j)), int64(j))
		}
		src.Set(Repr(int64(i)), inner)
	}
	for i := 0; i < b.N; i++ {
		acc := NewMap(0)
		for j := 0; j < 20; j++ {
			acc = MergeInPlace(acc, src, "smart", "jinja|yaml", false)
		}
	}
}
