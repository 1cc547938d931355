package value

import (
	"math"
	"math/big"
	"testing"
)

func TestMapOrderAndKeys(t *testing.T) {
	m := NewMap(0)
	for i, k := range []any{"b", "a", int64(1), 2.5, nil} {
		m.Set(k, int64(i))
	}
	m.Set(true, "one") // True == 1: replaces in place
	m.Set(1.0, "uno")
	if m.Len() != 5 {
		t.Fatalf("len = %d, want 5", m.Len())
	}
	if got := Repr(m); got != "{'b': 0, 'a': 1, 1: 'uno', 2.5: 3, None: 4}" {
		t.Fatalf("repr = %s", got)
	}
	m.Delete("a")
	if got := Repr(m); got != "{'b': 0, 1: 'uno', 2.5: 3, None: 4}" {
		t.Fatalf("after delete: %s", got)
	}
}

func TestMapLarge(t *testing.T) {
	m := NewMap(0)
	for i := int64(0); i < 100; i++ {
		m.Set(i, i*i)
	}
	for i := int64(0); i < 100; i += 3 {
		m.Delete(i)
	}
	for i := int64(0); i < 100; i++ {
		v, ok := m.Get(float64(i))
		if want := i%3 != 0; ok != want || (ok && v != i*i) {
			t.Fatalf("key %d: got %v %v", i, v, ok)
		}
	}
	m.Insert(0, "first", nil)
	if k, _ := m.At(0); k != "first" {
		t.Fatalf("insert: first key %v", k)
	}
	if c := m.Copy(); !Equal(c, m) {
		t.Fatal("copy differs")
	}
}

func TestRepr(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{nil, "None"},
		{true, "True"},
		{int64(-3), "-3"},
		{1.0, "1.0"},
		{0.1, "0.1"},
		{1e15, "1000000000000000.0"},
		{1e16, "1e+16"},
		{1.5e-5, "1.5e-05"},
		{math.Inf(1), "inf"},
		{"it's", `"it's"`},
		{`a'b"c`, `'a\'b"c'`},
		{"tab\there\n", `'tab\there\n'`},
		{"é ü", "'é ü'"},
		{"\u00a0", `'\xa0'`},
		{NewList("a", int64(1), nil), "['a', 1, None]"},
		{Tuple{int64(1)}, "(1,)"},
		{Tuple{int64(1), "x"}, "(1, 'x')"},
		{MapOf("a", int64(1), "b", NewList()), "{'a': 1, 'b': []}"},
		{[]byte("a'"), `b"a'"`},
		{new(big.Int).Lsh(big.NewInt(1), 70), "1180591620717411303424"},
	}
	for _, tc := range tests {
		if got := Repr(tc.in); got != tc.want {
			t.Errorf("Repr(%#v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestTruthyEqual(t *testing.T) {
	for _, v := range []any{nil, false, int64(0), 0.0, "", NewList(), NewMap(0), Tuple{}} {
		if Truthy(v) {
			t.Errorf("Truthy(%s) = true", Repr(v))
		}
	}
	eq := [][2]any{
		{int64(1), true}, {1.0, int64(1)}, {NewList(int64(1)), NewList(1.0)},
		{MapOf("a", int64(1), "b", int64(2)), MapOf("b", int64(2), "a", true)},
	}
	for _, p := range eq {
		if !Equal(p[0], p[1]) {
			t.Errorf("Equal(%s, %s) = false", Repr(p[0]), Repr(p[1]))
		}
	}
	ne := [][2]any{{NewList(), Tuple{}}, {"1", int64(1)}, {nil, false}}
	for _, p := range ne {
		if Equal(p[0], p[1]) {
			t.Errorf("Equal(%s, %s) = true", Repr(p[0]), Repr(p[1]))
		}
	}
}

func TestJSON(t *testing.T) {
	v, err := FromJSON([]byte(`{"z": 1, "a": [1.5, "é", null, true], "n": 12345678901234567890}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ToJSON(v, JSONOptions{Indent: -1}), `{"z": 1, "a": [1.5, "é", null, true], "n": 12345678901234567890}`; got != want {
		t.Errorf("one line: %s", got)
	}
	if got, want := ToJSON(v, JSONOptions{Indent: -1, SortKeys: true, EnsureASCII: true}), `{"a": [1.5, "\u00e9", null, true], "n": 12345678901234567890, "z": 1}`; got != want {
		t.Errorf("sorted ascii: %s", got)
	}
	want := "{\n    \"k\": [\n        1,\n        {}\n    ]\n}"
	if got := ToJSON(MapOf("k", NewList(int64(1), NewMap(0))), JSONOptions{Indent: 4}); got != want {
		t.Errorf("indented:\n%s", got)
	}
	if got := ToJSON(MapOf(int64(1), math.Inf(-1), nil, "😀"), JSONOptions{Indent: -1, EnsureASCII: true}); got != `{"1": -Infinity, "null": "\ud83d\ude00"}` {
		t.Errorf("keys/specials: %s", got)
	}
	if _, err := FromJSON([]byte(`{"a": 1} x`)); err == nil {
		t.Error("trailing data accepted")
	}
}

func TestTraverse(t *testing.T) {
	data := MapOf("a", MapOf("b", NewList(MapOf("c", "hit"), "x")), "n", MapOf(int64(2), "two"))
	tests := []struct {
		path string
		want any
		ok   bool
	}{
		{"a:b:c", "hit", true},
		{"a:b:1", "x", true},
		{"a:b:5", nil, false},
		{"n:2", "two", true},
		{"a:missing", nil, false},
		{"a:b:c:d", nil, false},
	}
	for _, tc := range tests {
		got, ok := Traverse(data, tc.path, ":")
		if ok != tc.ok || !Equal(got, tc.want) {
			t.Errorf("Traverse(%q) = %v, %v", tc.path, got, ok)
		}
	}
}

func BenchmarkMapSetGet(b *testing.B) {
	keys := make([]string, 64)
	for i := range keys {
		keys[i] = string(rune('a'+i%26)) + string(rune('A'+i/26))
	}
	b.ReportAllocs()
	for b.Loop() {
		m := NewMap(0)
		for _, k := range keys {
			m.Set(k, k)
		}
		for _, k := range keys {
			m.Get(k)
		}
	}
}

// TestMapIndexed checks lookups once a map is past its linear-scan size,
// with string and other keys mixed, across Delete, Insert and Copy.
func TestMapIndexed(t *testing.T) {
	for _, n := range []int{3, hashSmall, hashSmall + 1, 40} {
		m := NewMap(0)
		for i := 0; i < n; i++ {
			m.Set(Str(int64(i)), int64(i))
		}
		m.Set(int64(1), "one")
		m.Set(true, "true") // 1 == True
		m.Set(2.0, "two")
		if v, _ := m.Get(int64(1)); v != "true" || m.Len() != n+2 {
			t.Fatalf("n=%d: Get(1) = %v, Len %d", n, v, m.Len())
		}
		if v, ok := m.Get(int64(2)); !ok || v != "two" {
			t.Errorf("n=%d: Get(2) = %v %v", n, v, ok)
		}
		m.Delete("0")
		m.Insert(0, "first", nil)
		c := m.Copy()
		for _, mm := range []*Map{m, c} {
			if _, ok := mm.Get("0"); ok {
				t.Errorf("n=%d: deleted key found", n)
			}
			if k, _ := mm.At(0); k != "first" || !mm.Has(1.0) || mm.Has(int64(3)) {
				t.Errorf("n=%d: bad map %s", n, Repr(mm))
			}
			if v, _ := mm.Get(Str(int64(n - 1))); n > 1 && v != int64(n-1) {
				t.Errorf("n=%d: last key lost", n)
			}
		}
	}
}

func TestJSONQuote(t *testing.T) {
	for _, c := range []struct {
		in, want, ascii string
	}{
		{"plain", `"plain"`, `"plain"`},
		{"a\"b\\c\n\t\r\b\f", `"a\"b\\c\n\t\r\b\f"`, `"a\"b\\c\n\t\r\b\f"`},
		{"\x01\x1f\x7f", `"\u0001\u001f` + "\x7f" + `"`, `"\u0001\u001f\u007f"`},
		{"caf\u00e9 \U0001F600", "\"caf\u00e9 \U0001F600\"", `"caf\u00e9 \ud83d\ude00"`},
		{"bad\xffutf8", "\"bad\ufffdutf8\"", `"bad\ufffdutf8"`},
		{"", `""`, `""`},
	} {
		if got := JSONQuote(c.in, false); got != c.want {
			t.Errorf("JSONQuote(%q) = %s, want %s", c.in, got, c.want)
		}
		if got := JSONQuote(c.in, true); got != c.ascii {
			t.Errorf("JSONQuote(%q, ascii) = %s, want %s", c.in, got, c.ascii)
		}
	}
	m := MapOf("b", int64(-12), "a", NewList(1.5, nil, true, "x"), int64(3), MapOf())
	if got := ToJSON(m, JSONOptions{Indent: 2}); got != "{\n  \"b\": -12,\n  \"a\": [\n    1.5,\n    null,\n    true,\n    \"x\"\n  ],\n  \"3\": {}\n}" {
		t.Errorf("ToJSON = %q", got)
	}
	if got := ToJSON(m, JSONOptions{Indent: -1, SortKeys: true}); got != `{"3": {}, "a": [1.5, null, true, "x"], "b": -12}` {
		t.Errorf("ToJSON sorted = %q", got)
	}
}
