package pkgmgr

import (
	"strings"
	"testing"
	"time"
)

// aptLockWait bounds how long a test waits for another apt or dpkg (an
// unattended upgrade, a concurrent test run) to release its lock.
const aptLockWait = 10 * time.Minute

// isLockError says whether an apt-get or dpkg failure is only that the
// lock is held by another process.
func isLockError(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "Could not get lock") ||
		strings.Contains(s, "Unable to acquire the dpkg frontend lock") ||
		strings.Contains(s, "Unable to lock") ||
		strings.Contains(s, "dpkg status database is locked")
}

// withAptLock runs op, again while it fails only because the apt/dpkg
// lock is held, for at most aptLockWait: a test needing the lock waits for
// it instead of failing.
func withAptLock(t *testing.T, op func() error) error {
	t.Helper()
	deadline := time.Now().Add(aptLockWait)
	for {
		err := op()
		if !isLockError(err) || time.Now().After(deadline) {
			return err
		}
		t.Logf("apt/dpkg lock held by another process, waiting: %v", err)
		time.Sleep(2 * time.Second)
	}
}

func TestIsLockError(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want bool
	}{
		{"E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 123 (apt-get)", true},
		{"E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another process using it?", true},
		{"dpkg: error: dpkg status database is locked by another process", true},
		{"E: Unable to locate package nope", false},
	} {
		if got := isLockError(errString(tc.msg)); got != tc.want {
			t.Errorf("isLockError(%q) = %v, want %v", tc.msg, got, tc.want)
		}
	}
	if isLockError(nil) {
		t.Error("isLockError(nil)")
	}
}

type errString string

func (e errString) Error() string { return string(e) }
