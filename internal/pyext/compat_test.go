package pyext

import (
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestSaltCompatPackage runs the unittest suite of the salt compatibility
// package (python/salt, tested by python/tests) and fails when any of its
// tests fails.
func TestSaltCompatPackage(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH: the salt compatibility tests need it")
	}
	cmd := exec.Command(py, "-B", "-m", "unittest", "discover", "-s", "python/tests", "-t", "python")
	// no __pycache__ in the source tree: python/salt is embedded with all:
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3 -m unittest discover -s python/tests -t python: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "\nOK") {
		t.Fatalf("unittest did not report OK:\n%s", out)
	}
}

// TestSaltCompatEmbedded checks that the embedded tree carries the
// package's __init__.py files (go:embed leaves out names starting with
// "_" unless the pattern says all:) and no byte-code caches.
func TestSaltCompatEmbedded(t *testing.T) {
	for _, p := range []string{
		"python/salt/__init__.py",
		"python/salt/utils/__init__.py",
		"python/salt/utils/validate/__init__.py",
		"python/salt/defaults/__init__.py",
		"python/salt/modules/__init__.py",
		"python/salt/exceptions.py",
		"python/salt/utils/yaml.py",
	} {
		if _, err := fs.Stat(pyFS, p); err != nil {
			t.Errorf("%s is not embedded: %v", p, err)
		}
	}
	_ = fs.WalkDir(pyFS, "python", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "__pycache__" {
			t.Errorf("%s is embedded: remove it (python -B, or PYTHONDONTWRITEBYTECODE=1) and rebuild", p)
		}
		return nil
	})
}
