package version

import (
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	for _, tc := range []struct {
		b    Build
		want string
	}{
		{Build{Version: "devel"}, "brine devel, follows Salt 3006 (Sulfur)"},
		{Build{Version: "v0.3.0", Commit: "0123456789abcdef0123", Date: "2026-11-25T17:00:00Z"}, "brine v0.3.0 (commit 0123456789ab, 2026-11-25T17:00:00Z), follows Salt 3006 (Sulfur)"},
		{Build{Version: "v0.3.0-4-gabc", Commit: "abc", Modified: true}, "brine v0.3.0-4-gabc (commit abc-dirty), follows Salt 3006 (Sulfur)"},
	} {
		if got := tc.b.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.b, got, tc.want)
		}
	}
}

func TestReport(t *testing.T) {
	r := Build{Version: "v1", Go: "go1.26", Deps: []Dep{{"github.com/nats-io/nats.go", "v1.55.0"}}}.Report()
	for _, want := range []string{
		"Salt Version:\n  Salt: 3006 (Sulfur), as brine implements it\n",
		"brine Version:\n   brine: v1\n  commit: unknown\n",
		"      Go: go1.26\n",
		"Dependency Versions:\n  github.com/nats-io/nats.go: v1.55.0\n",
		"System Versions:\n",
		"   system: Linux\n",
	} {
		if !strings.Contains(r, want) {
			t.Errorf("report lacks %q:\n%s", want, r)
		}
	}
}

func TestReadStampsDevel(t *testing.T) {
	old := Version
	defer func() { Version = old }()
	Version = ""
	if b := Read(); b.Version == "" {
		t.Error("no version")
	}
	Version = "v9.9.9"
	if b := Read(); b.Version != "v9.9.9" {
		t.Errorf("stamped version ignored: %q", b.Version)
	}
}
