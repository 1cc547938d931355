package states_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"brine/internal/execmod"
	"brine/internal/value"
)

// debInCache builds name_version_all.deb (a control file only) in root's
// apt cache.
func debInCache(t *testing.T, root, name, version string) {
	t.Helper()
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "DEBIAN"), 0o755)
	control := "Package: " + name + "\nVersion: " + version + "\nArchitecture: all\nMaintainer: Brine <brine@example.invalid>\nDescription: test\n"
	if err := os.WriteFile(filepath.Join(src, "DEBIAN/control"), []byte(control), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "var/cache/apt/archives")
	os.MkdirAll(dir, 0o755)
	if b, err := exec.Command("dpkg-deb", "--root-owner-group", "--build", src, filepath.Join(dir, name+"_"+version+"_all.deb")).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb: %v: %s", err, b)
	}
}

// TestPkgDownloaded checks pkg.downloaded against an apt cache under a
// root of its own (the root argument goes to pkg.list_downloaded), with
// the fake package manager for the download itself.
func TestPkgDownloaded(t *testing.T) {
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		t.Skip("needs dpkg-deb")
	}
	root := t.TempDir()
	debInCache(t, root, "cowsay", "3.03-1")
	ctx := pkgCtx(newFakePkg())
	for _, tc := range []struct {
		args    *value.Map
		test    bool
		result  string
		comment string
	}{
		{value.MapOf("name", "cowsay", "root", root), false, "True", "All specified packages are already downloaded"},
		{value.MapOf("name", "cowsay", "version", "3.03-1", "root", root), false, "True", "All specified packages (matching specified versions) are already downloaded"},
		{value.MapOf("name", "cowsay", "version", ">=4", "root", root), true, "None", "The following packages would be downloaded: cowsay"},
		{value.MapOf("name", "x", "pkgs", value.NewList("sl", "cowsay"), "root", root), true, "None", "The following packages would be downloaded: sl"},
		{value.MapOf("name", "x", "pkgs", value.NewList(), "root", root), false, "True", "No packages to download provided"},
		// The fake manager installs instead of downloading: nothing lands
		// in the cache, which the state reports.
		{value.MapOf("name", "sl", "root", root), false, "False", "The following packages failed to download: sl"},
		{value.MapOf("name", "nosuch", "root", root), false, "False", "Problem encountered installing package(s). Additional info follows:\n\nerrors:\n    - E: Unable to locate package nosuch"},
	} {
		ret := sysRun(t, ctx, "pkg.downloaded", tc.args, tc.test)
		if str(ret, "result") != tc.result || str(ret, "comment") != tc.comment {
			t.Errorf("pkg.downloaded %s (test=%v) = %s, want %s %q", value.Repr(tc.args), tc.test, value.Repr(ret), tc.result, tc.comment)
		}
	}
	ctx.Grains.Set("os_family", "RedHat")
	ret := sysRun(t, ctx, "pkg.downloaded", value.MapOf("name", "sl"), false)
	if str(ret, "comment") != "The pkg.downloaded state is not available on this platform" {
		t.Errorf("on RedHat: %s", value.Repr(ret))
	}
}

// TestPkgDownloadedRealApt downloads sl with the real apt and removes the
// file again; it runs only with BRINE_TEST_PKG=1 (it needs network).
func TestPkgDownloadedRealApt(t *testing.T) {
	if os.Getenv("BRINE_TEST_PKG") != "1" {
		t.Skip("set BRINE_TEST_PKG=1 to download the package sl with the real apt (needs root and network)")
	}
	if _, err := exec.LookPath("apt-get"); err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and apt-get")
	}
	before, _ := filepath.Glob("/var/cache/apt/archives/sl_*.deb")
	if len(before) > 0 {
		t.Skip("sl is already in apt's cache: not touching it")
	}
	t.Cleanup(func() {
		files, _ := filepath.Glob("/var/cache/apt/archives/sl_*.deb")
		for _, f := range files {
			os.Remove(f)
		}
	})
	ctx := execmod.NewContext()
	ctx.Grains.Set("os_family", "Debian")
	ret := sysRun(t, ctx, "pkg.downloaded", value.MapOf("name", "sl"), false)
	if str(ret, "result") != "True" || str(ret, "comment") != "Packages downloaded: sl" {
		t.Fatalf("pkg.downloaded sl = %s", value.Repr(ret))
	}
	ret = sysRun(t, ctx, "pkg.downloaded", value.MapOf("name", "sl"), false)
	if str(ret, "comment") != "All specified packages are already downloaded" {
		t.Errorf("again: %s", value.Repr(ret))
	}
}

// dpkgLocked says whether another process holds dpkg's lock.
func dpkgLocked() bool {
	c := exec.Command("dpkg", "--set-selections")
	c.Stdin = strings.NewReader("")
	out, err := c.CombinedOutput()
	return err != nil && strings.Contains(string(out), "lock")
}

// TestPkgHeldDpkgReal holds and releases bash in the real dpkg database
// with pkg.held and pkg.unheld (its selection is put back to install);
// the returns are those of Salt 3006 on Debian 12.
func TestPkgHeldDpkgReal(t *testing.T) {
	if _, err := exec.LookPath("dpkg"); err != nil || os.Geteuid() != 0 {
		t.Skip("needs dpkg and root")
	}
	out, _ := exec.Command("dpkg", "--get-selections", "bash").Output()
	if f := strings.Fields(string(out)); len(f) != 2 || f[1] != "install" {
		t.Skipf("bash's selection is %q, not install", out)
	}
	t.Cleanup(func() {
		c := exec.Command("dpkg", "--set-selections")
		c.Stdin = strings.NewReader("bash install\n")
		c.Run()
	})
	ctx := execmod.NewContext()
	ctx.Grains.Set("os_family", "Debian")
	held := "{'bash': {'name': 'bash', 'changes': {'old': 'install', 'new': 'hold'}, 'result': True, 'comment': 'Package bash is now being held.'}}"
	unheld := "{'bash': {'name': 'bash', 'changes': {'old': 'hold', 'new': 'install'}, 'result': True, 'comment': 'Package bash is no longer being held.'}}"
	for _, tc := range []struct {
		fun     string
		args    *value.Map
		test    bool
		result  string
		comment string
		changes string
	}{
		{"pkg.held", value.MapOf("name", "bash"), true, "True", "The following package would be held: bash", "{}"},
		{"pkg.held", value.MapOf("name", "x", "pkgs", value.NewList()), false, "True", "No packages to be held provided", "{}"},
		{"pkg.unheld", value.MapOf("name", "bash"), false, "True", "No changes made", "{}"},
		{"pkg.held", value.MapOf("name", "bash"), false, "True", "Package bash is now being held", held},
		{"pkg.held", value.MapOf("name", "bash"), false, "True", "No changes made", "{}"},
		{"pkg.unheld", value.MapOf("name", "bash", "version", "1.0"), true, "True", "The following package would be unheld: bash (version = None)", "{}"},
		{"pkg.unheld", value.MapOf("name", "bash"), false, "True", "Package bash is no longer being held.", unheld},
	} {
		ret := sysRun(t, ctx, tc.fun, tc.args, tc.test)
		for i := 0; str(ret, "comment") != tc.comment && i < 300 && dpkgLocked(); i++ {
			time.Sleep(2 * time.Second)
			ret = sysRun(t, ctx, tc.fun, tc.args, tc.test)
		}
		ch, _ := ret.Get("changes")
		if str(ret, "result") != tc.result || str(ret, "comment") != tc.comment || value.Repr(ch) != tc.changes {
			t.Errorf("%s %s (test=%v) = %s", tc.fun, value.Repr(tc.args), tc.test, value.Repr(ret))
		}
	}
}
