package master

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/fileserver"
)

// tree builds a file root with files, an inner symlink and symlinks
// escaping the root.
func tree(t testing.TB) (*FileServer, string) {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	must(os.WriteFile(filepath.Join(root, "a.txt"), []byte("a"), 0o644))
	must(os.WriteFile(filepath.Join(root, "sub", "b.txt"), []byte("b"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("secret"), 0o600))
	must(os.Symlink("a.txt", filepath.Join(root, "inner-link")))
	must(os.Symlink("../secret.txt", filepath.Join(root, "escape-file")))
	must(os.Symlink(dir, filepath.Join(root, "escape-dir")))
	must(os.Symlink("/etc", filepath.Join(root, "etc")))
	dirs := map[string][]string{"base": {root}}
	return &FileServer{Roots: fileserver.FromDirs(dirs), Dirs: dirs}, root
}

func TestFileServerConfinement(t *testing.T) {
	fs, _ := tree(t)
	for _, tc := range []struct {
		env, path string
		ok        bool
	}{
		{"base", "a.txt", true},
		{"base", "sub/b.txt", true},
		{"base", "inner-link", true},
		{"base", "escape-file", false},
		{"base", "escape-dir/secret.txt", false},
		{"base", "etc/passwd", false},
		{"base", "../secret.txt", false},
		{"base", "sub/../../secret.txt", false},
		{"base", "/etc/passwd", false},
		{"base", `..\secret.txt`, false},
		{"base", "a.txt|id", false},
		{"base", "a.txt\x00.sls", false},
		{"base", "%2e%2e/secret.txt", false},
		{"base", "%2E%2E%2Fsecret.txt", false},
		{"base", "sub//b.txt", false},
		{"../base", "a.txt", false},
		{"", "a.txt", false},
		{"nope", "a.txt", false},
	} {
		_, err := fs.Open(tc.env, tc.path)
		if (err == nil) != tc.ok {
			t.Errorf("Open(%q, %q) = %v, want ok=%v", tc.env, tc.path, err, tc.ok)
		}
		_, _, cerr := fs.ReadChunk(tc.env, tc.path, 0)
		if (cerr == nil) != tc.ok {
			t.Errorf("ReadChunk(%q, %q) = %v, want ok=%v", tc.env, tc.path, cerr, tc.ok)
		}
	}
	if _, err := fs.Open("base", "../x"); !errors.Is(err, ErrRefused) {
		t.Errorf("refusal does not wrap ErrRefused: %v", err)
	}
	man, err := fs.Manifest("base")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range man {
		names = append(names, f.Path)
	}
	if got := strings.Join(names, ","); strings.Contains(got, "escape") || strings.Contains(got, "etc/") || !strings.Contains(got, "a.txt") {
		t.Errorf("manifest lists %s", got)
	}
}

// FuzzFileServerOpen checks that whatever path a minion sends, a file
// served lies inside the root once symlinks are resolved.
func FuzzFileServerOpen(f *testing.F) {
	for _, s := range []string{"a.txt", "sub/b.txt", "escape-file", "escape-dir/secret.txt", "../secret.txt", "etc/passwd", "%2e%2e/x", `a\b`} {
		f.Add(s)
	}
	fs, root := tree(f)
	realRoot, _ := filepath.EvalSymlinks(root)
	f.Fuzz(func(t *testing.T, p string) {
		full, err := fs.Open("base", p)
		if err != nil {
			return
		}
		real, err := filepath.EvalSymlinks(full)
		if err != nil {
			t.Fatalf("served %q -> %q, unresolvable: %v", p, full, err)
		}
		if !strings.HasPrefix(real, realRoot+string(filepath.Separator)) {
			t.Fatalf("served %q -> %q outside the root", p, real)
		}
	})
}
