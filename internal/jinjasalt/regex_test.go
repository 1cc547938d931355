package jinjasalt

import "testing"

func TestTranslatePy(t *testing.T) {
	tests := []struct {
		pat, s string
		match  bool
	}{
		{`^\w+$`, "café", true},
		{`^\d+$`, "١٢٣", true},
		{`^a{,2}$`, "aa", true},
		{`^a{,2}$`, "aaa", false},
		{`(?P<x>a)b`, "ab", true},
		{`a\Z`, "a", true},
		{`[\w-]+`, "-", true},
		{`[^\s]`, " ", false},
		{`(?i)ABC`, "abc", true},
		{`a(?#comment)b`, "ab", true},
		{`\x41\u0042`, "AB", true},
		{`[]a]`, "]", true},
	}
	for _, tt := range tests {
		re, err := compilePy(tt.pat, 0)
		if err != nil {
			t.Errorf("%s: %v", tt.pat, err)
			continue
		}
		if got := re.MatchString(tt.s); got != tt.match {
			t.Errorf("%s on %q: %v, want %v", tt.pat, tt.s, got, tt.match)
		}
	}
	for _, bad := range []string{`(?=a)`, `(?<=a)b`, `(a)\1`, `(?P=x)`, `(?x) a`, `\q`} {
		if _, err := compilePy(bad, 0); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestFnmatch(t *testing.T) {
	tests := []struct {
		name, pat string
		want      bool
	}{
		{"web01", "web*", true},
		{"web01", "web?1", true},
		{"web01", "db*", false},
		{"a.b", "a.b", true},
		{"axb", "a.b", false},
		{"b", "[abc]", true},
		{"d", "[!abc]", true},
		{"[", "[", true},
		{"Web", "web", false},
	}
	for _, tt := range tests {
		if got := fnmatch(tt.name, tt.pat, true); got != tt.want {
			t.Errorf("fnmatch(%q, %q) = %v", tt.name, tt.pat, got)
		}
	}
}

func TestItertoolsLimits(t *testing.T) {
	pool := make([]any, 30)
	for i := range pool {
		pool[i] = int64(i)
	}
	if out, err := combinations(pool, 29, false); err != nil || len(out) != 30 {
		t.Errorf("C(30,29): %d, %v", len(out), err)
	}
	if _, err := combinations(pool, 15, false); err == nil {
		t.Error("C(30,15) should be refused")
	}
	if _, err := permutations(pool, 10); err == nil {
		t.Error("P(30,10) should be refused")
	}
}
