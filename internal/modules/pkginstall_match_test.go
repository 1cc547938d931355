package modules

import "testing"

func TestPkgMatchVersion(t *testing.T) {
	f := &fakePkg{}
	cands := []string{"2.10-3", "2.9-1", "1:1.0-1"}
	for _, tc := range []struct {
		desired string
		want    string
		ok      bool
	}{
		{">=2.10", "2.10-3", true},
		{">2.10-3", "1:1.0-1", true}, // an epoch outranks any upstream version
		{"<2.10", "2.9-1", true},
		{"<=2.9-1", "2.9-1", true},
		{"2.9-1", "2.9-1", true},
		{"!=2.10-3", "2.9-1", true},
		{">=99.0", "1:1.0-1", true},
		{"<1.0", "", false},
	} {
		got, ok := pkgMatchVersion(f, tc.desired, cands)
		if got != tc.want || ok != tc.ok {
			t.Errorf("pkgMatchVersion(%q) = %q, %v; want %q, %v", tc.desired, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := pkgMatchVersion(f, ">=1.0", nil); ok {
		t.Errorf("no candidates matched")
	}
	if v, ok := pkgMatchVersion(f, ">=99.0", cands[:2]); ok {
		t.Errorf(">=99.0 matched %q", v)
	}
}

func TestPkgHasComparison(t *testing.T) {
	for v, want := range map[string]bool{">=1": true, "<2": true, "=1.0": false, "1.0": false, "": false} {
		if got := pkgHasComparison(v); got != want {
			t.Errorf("pkgHasComparison(%q) = %v", v, got)
		}
	}
}
