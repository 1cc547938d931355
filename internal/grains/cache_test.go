package grains

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSystemdCache runs a stand-in systemctl that counts its runs: the
// second collection uses the cached answer, and replacing the binary
// makes the next one run it again.
func TestSystemdCache(t *testing.T) {
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	count := filepath.Join(bin, "runs")
	script := func(version string) {
		body := "#!/bin/sh\necho x >> " + count + "\necho 'systemd " + version + " (" + version + ")'\necho '+PAM +AUDIT'\n"
		if err := os.WriteFile(filepath.Join(bin, "systemctl"), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "localectl"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	runs := func() int {
		data, _ := os.ReadFile(count)
		return strings.Count(string(data), "x")
	}
	script("252")
	for i, want := range []struct {
		version string
		runs    int
	}{{"252", 1}, {"252", 1}} {
		g := startSystemd()()
		if v, _ := g.Get("version"); v != want.version || runs() != want.runs {
			t.Errorf("collection %d: version %v after %d runs of systemctl, want %s after %d", i, v, runs(), want.version, want.runs)
		}
		if f, _ := g.Get("features"); f != "+PAM +AUDIT" {
			t.Errorf("collection %d: features %q", i, f)
		}
	}
	// an upgrade replaces the binary
	time.Sleep(10 * time.Millisecond)
	if err := os.Remove(filepath.Join(bin, "systemctl")); err != nil {
		t.Fatal(err)
	}
	script("254")
	if g := startSystemd()(); runs() != 2 {
		t.Errorf("after the binary changed: %v after %d runs, want a new run", g, runs())
	} else if v, _ := g.Get("version"); v != "254" {
		t.Errorf("after the binary changed: version %v, want 254", v)
	}
}
