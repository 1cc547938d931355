package atomicfile

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// deadPID is the id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	return cmd.Process.Pid
}

// TestWriteAtomicTempFiles: the temporary file is named recognisably, a
// killed writer's leftover is removed by the next write to the directory,
// and the files of live writers are kept.
func TestWriteAtomicTempFiles(t *testing.T) {
	dir := t.TempDir()
	dead := filepath.Join(dir, tempPrefix+strconv.Itoa(deadPID(t))+".123.target")
	live := filepath.Join(dir, tempPrefix+"1.456.target") // pid 1 always runs
	mine := filepath.Join(dir, tempPrefix+strconv.Itoa(os.Getpid())+".789.target")
	other := filepath.Join(dir, ".brine-tmp-not-ours")
	for _, p := range []string{dead, live, mine, other} {
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(dir, "target")
	if err := Write(target, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new\n" {
		t.Errorf("target = %q", b)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Error("a dead writer's temporary file is left")
	}
	for _, p := range []string{live, mine, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(p), err)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if pid, ok := tempOwner(e.Name()); ok && pid == os.Getpid() && e.Name() != filepath.Base(mine) {
			t.Errorf("own temporary file %s left after the write", e.Name())
		}
	}
	// A long target name still gives a valid temporary name.
	long := filepath.Join(dir, strings.Repeat("x", 250))
	if err := Write(long, []byte("x")); err != nil {
		t.Errorf("long name: %v", err)
	}
}

func TestTempOwner(t *testing.T) {
	for name, want := range map[string]int{
		".brine-tmp.42.1234.motd": 42, ".brine-tmp.x.1.a": 0, ".brine-tmp.42": 0, "motd": 0, ".brine-tmp.-3.1.a": 0,
	} {
		pid, ok := tempOwner(name)
		if want == 0 && ok || want != 0 && pid != want {
			t.Errorf("tempOwner(%q) = %d, %v", name, pid, ok)
		}
	}
}
