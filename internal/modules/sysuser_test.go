package modules

import (
	"os"
	"os/exec"
	"os/user"
	"testing"
)

// throwawayUser creates a system user for a test (no home) and deletes it,
// with its crontab, when the test ends. It skips when not root or when the
// user exists already.
func throwawayUser(t *testing.T, name string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to create a throwaway user")
	}
	if _, err := exec.LookPath("useradd"); err != nil {
		t.Skip("useradd is not installed")
	}
	if _, err := user.Lookup(name); err == nil {
		t.Skipf("user %s exists already: not touching it", name)
	}
	if out, err := exec.Command("useradd", "-M", "-s", "/usr/sbin/nologin", name).CombinedOutput(); err != nil {
		t.Fatalf("useradd %s: %v: %s", name, err, out)
	}
	t.Cleanup(func() {
		exec.Command("crontab", "-u", name, "-r").Run()
		exec.Command("userdel", name).Run()
	})
}
