package pkgmgr

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"brine/internal/system"
)

// buildDeb makes a dependency-free package name_version_all.deb in dir.
func buildDeb(t *testing.T, dir, name, version string) string {
	t.Helper()
	root := filepath.Join(dir, name+"-"+version)
	if err := os.MkdirAll(filepath.Join(root, "DEBIAN"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "usr/share/doc", name), 0o755); err != nil {
		t.Fatal(err)
	}
	control := "Package: " + name + "\nVersion: " + version + "\nArchitecture: all\nMaintainer: brine tests <root@localhost>\nDescription: throwaway package of brine's pkgmgr tests\n"
	if err := os.WriteFile(filepath.Join(root, "DEBIAN/control"), []byte(control), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "usr/share/doc", name, "README"), []byte("test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A conffile makes a removed package stay in dpkg's config-files state.
	if err := os.MkdirAll(filepath.Join(root, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc", name+".conf"), []byte("x=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "DEBIAN/conffiles"), []byte("/etc/"+name+".conf\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deb := filepath.Join(dir, name+"_"+version+"_all.deb")
	if out, err := exec.Command("dpkg-deb", "--build", "--root-owner-group", root, deb).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb: %v\n%s", err, out)
	}
	return deb
}

// TestAptRealLocalPackage installs, holds and removes a throwaway local
// package with the real apt-get and dpkg, and leaves the machine without
// it. apt-get takes seconds per run, so -short skips it.
func TestAptRealLocalPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping real apt-get runs (several seconds each)")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to install a throwaway package")
	}
	for _, tool := range []string{"apt-get", "dpkg", "dpkg-deb"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed here", tool)
		}
	}
	const name = "brine-pkgmgr-test"
	ctx := context.Background()
	a := NewApt(system.Exec{})
	cleanup := func() {
		_ = withAptLock(t, func() error {
			out, err := exec.Command("dpkg", "--purge", name).CombinedOutput()
			if err != nil {
				return errString(string(out))
			}
			return nil
		})
	}
	cleanup()
	t.Cleanup(cleanup)
	dir := t.TempDir()
	deb1 := buildDeb(t, dir, name, "1.0-1")

	if err := withAptLock(t, func() error {
		_, err := a.Install(ctx, InstallRequest{Targets: []Target{{Name: deb1}}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if v, _ := InstalledVersion(ctx, a, name); v != "1.0-1" {
		t.Fatalf("installed version = %q", v)
	}
	if err := withAptLock(t, func() error { _, err := a.Hold(ctx, []string{name}, true); return err }); err != nil {
		t.Fatal(err)
	}
	if held, _ := a.Held(ctx); !held[name] {
		t.Error("not held after Hold")
	}
	if v, _ := InstalledVersion(ctx, a, name); v != "1.0-1" {
		t.Errorf("held package not listed as installed: %q", v)
	}
	if err := withAptLock(t, func() error { _, err := a.Hold(ctx, []string{name}, false); return err }); err != nil {
		t.Fatal(err)
	}
	if held, _ := a.Held(ctx); held[name] {
		t.Error("still held after unhold")
	}
	if err := withAptLock(t, func() error { _, err := a.Remove(ctx, []string{name}, false); return err }); err != nil {
		t.Fatal(err)
	}
	if in, _ := a.ListInstalled(ctx); len(in[name]) != 0 {
		t.Errorf("still installed after remove: %v", in[name])
	}
	if rm, _ := a.ListRemoved(ctx); len(rm[name]) != 1 {
		t.Errorf("removed package not in config-files state: %v", rm[name])
	}
	// apt-get purge is checked by command line in TestCommandLines; dpkg
	// purges here, faster than a third apt-get run.
	cleanup()
	if rm, _ := a.ListRemoved(ctx); len(rm[name]) != 0 {
		t.Errorf("still known after purge: %v", rm[name])
	}
}
