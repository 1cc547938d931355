package modules

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"brine/internal/execmod"
	"brine/internal/grains"
	"brine/internal/value"
)

// TestPkgInstallSourcesReal installs a package file built here
// (dpkg-deb) through pkg.install sources=..., as Salt's aptpkg does
// (apt-get install of the file; its control data decides new, same and
// reinstall), then purges it. Salt 3006 returned the same on this
// machine for the hello package's file.
func TestPkgInstallSourcesReal(t *testing.T) {
	for _, tool := range []string{"dpkg-deb", "apt-get", "dpkg"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("needs " + tool)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	const pkg = "brine-sources-test"
	dir := t.TempDir()
	root := filepath.Join(dir, "pkg")
	if err := os.MkdirAll(filepath.Join(root, "DEBIAN"), 0o755); err != nil {
		t.Fatal(err)
	}
	control := "Package: " + pkg + "\nVersion: 1.0-1\nArchitecture: all\nMaintainer: brine <brine@example.test>\nDescription: brine test package\n"
	if err := os.WriteFile(filepath.Join(root, "DEBIAN/control"), []byte(control), 0o644); err != nil {
		t.Fatal(err)
	}
	deb := filepath.Join(dir, pkg+".deb")
	if out, err := exec.Command("dpkg-deb", "--build", root, deb).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("dpkg", "--purge", pkg).Run() })

	ctx := execmod.NewContext()
	ctx.Grains = grains.Core("m1")
	sources := value.NewList(value.MapOf(pkg, deb))
	for _, tc := range []struct {
		kw   []any
		want string
	}{
		{nil, "{'" + pkg + "': {'old': '', 'new': '1.0-1'}}"},
		{nil, "{}"},
		{[]any{"reinstall", true}, "{'" + pkg + "': {'old': '1.0-1', 'new': '1.0-1'}}"},
	} {
		got, err := ctx.Call("pkg.install", nil, value.MapOf(append([]any{"sources", sources}, tc.kw...)...))
		// another apt holding the lock: wait for it as the other apt tests do
		for i := 0; err != nil && i < 300 && dpkgLocked(); i++ {
			time.Sleep(2 * time.Second)
			got, err = ctx.Call("pkg.install", nil, value.MapOf(append([]any{"sources", sources}, tc.kw...)...))
		}
		if err != nil {
			t.Fatalf("pkg.install %v: %v", tc.kw, err)
		}
		if r := value.Repr(got); r != tc.want {
			t.Errorf("pkg.install %v = %s, want %s", tc.kw, r, tc.want)
		}
	}
	_, err := ctx.Call("pkg.install", nil, value.MapOf("sources", value.NewList(value.MapOf(pkg, filepath.Join(dir, "missing.deb")))))
	if want := filepath.Join(dir, "missing.deb") + " does not exist on minion"; err == nil || err.Error() != want {
		t.Errorf("missing file: %v, want %s", err, want)
	}
}
