package modules

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

// TestAlternativesReal registers a throwaway alternative on the real
// machine (its link in a temp dir) and removes it at the end.
func TestAlternativesReal(t *testing.T) {
	if _, err := exec.LookPath("update-alternatives"); err != nil {
		t.Skip("update-alternatives is not installed")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	const name = "brine-test-alt"
	if _, err := os.Lstat("/etc/alternatives/" + name); err == nil {
		t.Skipf("alternative %s exists already", name)
	}
	t.Cleanup(func() { exec.Command("update-alternatives", "--remove-all", name).Run() })
	dir := t.TempDir()
	link := filepath.Join(dir, "brine-alt")
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(b, []byte("#!/bin/sh\n"), 0o755)
	ctx := testContext()
	for _, tc := range []struct {
		fun  string
		args []any
		want string // repr, or a prefix when it ends with "*"
	}{
		{"alternatives.show_current", []any{name}, "False"},
		{"alternatives.show_link", []any{name}, "False"},
		{"alternatives.display", []any{name}, "'update-alternatives: error: no alternatives for brine-test-alt'"},
		{"alternatives.install", []any{name, link, a, int64(10)}, "'update-alternatives: using " + a + " to provide " + link + " (" + name + ") in auto mode'"},
		{"alternatives.install", []any{name, link, b, int64(5)}, "''"},
		{"alternatives.show_current", []any{name}, "'" + a + "'"},
		{"alternatives.show_link", []any{name}, "'" + link + "'"},
		{"alternatives.check_exists", []any{name, b}, "True"},
		{"alternatives.check_exists", []any{name, "/nope"}, "False"},
		{"alternatives.check_installed", []any{name, a}, "True"},
		{"alternatives.set", []any{name, b}, "'update-alternatives: using " + b + " to provide " + link + " (" + name + ") in manual mode'"},
		{"alternatives.check_installed", []any{name, b}, "True"},
		{"alternatives.display", []any{name}, "'" + name + " - manual mode*"},
		{"alternatives.auto", []any{name}, "'update-alternatives: using " + a + " to provide " + link + " (" + name + ") in auto mode'"},
		{"alternatives.set", []any{name, "/nope"}, "'update-alternatives: error: alternative /nope for " + name + " not registered; not setting'"},
		{"alternatives.remove", []any{name, a}, "'update-alternatives: using " + b + " to provide " + link + " (" + name + ") in auto mode'"},
		{"alternatives.show_current", []any{name}, "'" + b + "'"},
	} {
		got := value.Repr(call(t, ctx, tc.fun, tc.args))
		if p, ok := strings.CutSuffix(tc.want, "*"); ok && strings.HasPrefix(got, p) || got == tc.want {
			continue
		}
		t.Errorf("%s%v = %s, want %s", tc.fun, tc.args, got, tc.want)
	}
}
