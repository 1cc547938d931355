package states_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/states"
	"brine/internal/value"
)

func TestPkgrepoApt(t *testing.T) {
	root, ctx := fakeRoot(t)
	ctx.Grains.Set("os_family", "Debian")
	f := newFakePkg()
	ctx.SetService("pkgmgr", f)
	os.MkdirAll(filepath.Join(root, "etc/apt/sources.list.d"), 0o755)
	os.WriteFile(filepath.Join(root, "etc/apt/sources.list"), []byte("deb http://deb.debian.org/debian bookworm main\n"), 0o644)
	line := "deb [signed-by=/etc/apt/keyrings/brine.asc] https://repo.example.com/apt bookworm main"
	file := "/etc/apt/sources.list.d/brine.list"
	key := "-----BEGIN PGP PUBLIC KEY BLOCK-----\nxyz\n-----END PGP PUBLIC KEY BLOCK-----\n"
	ret := sysCase{"pkgrepo.managed", value.MapOf("name", line, "file", file, "key_text", key), true, "Configured package repo '" + line + "'"}.check(t, ctx)
	if value.Repr(getMap(ret, "changes")) != "{'repo': '"+line+"'}" {
		t.Errorf("changes %s", value.Repr(getMap(ret, "changes")))
	}
	if b, _ := os.ReadFile(filepath.Join(root, file)); string(b) != line+"\n" {
		t.Errorf("list file %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "etc/apt/keyrings/brine.asc")); string(b) != key {
		t.Errorf("keyring %q", b)
	}
	// Adding a component changes the line in place.
	ret = sysCase{"pkgrepo.managed", value.MapOf("name", line+" contrib", "file", file), true, "Configured package repo"}.check(t, ctx)
	if !strings.Contains(value.Repr(getMap(ret, "changes")), "'line': {'new': '"+line+" contrib'") {
		t.Errorf("changes %s", value.Repr(getMap(ret, "changes")))
	}
	// Disabled comments the line out.
	sysCase{"pkgrepo.managed", value.MapOf("name", line+" contrib", "file", file, "disabled", true), true, "Configured package repo"}.check(t, ctx)
	if b, _ := os.ReadFile(filepath.Join(root, file)); string(b) != "# "+line+" contrib\n" {
		t.Errorf("disabled list file %q", b)
	}
	sysCase{"pkgrepo.absent", value.MapOf("name", line+" contrib"), true, "Removed repo " + line + " contrib"}.check(t, ctx)
	if _, err := os.Stat(filepath.Join(root, file)); !os.IsNotExist(err) {
		t.Errorf("empty list file left: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "etc/apt/sources.list")); string(b) != "deb http://deb.debian.org/debian bookworm main\n" {
		t.Errorf("sources.list changed: %q", b)
	}
	refreshes := 0
	for _, c := range f.calls {
		if c == "refresh" {
			refreshes++
		}
	}
	if refreshes != 3 {
		t.Errorf("refreshes %d, want 3 (one per changing managed run)", refreshes)
	}
	_ = states.SysRootService
}

func TestPkgrepoYum(t *testing.T) {
	root, ctx := fakeRoot(t)
	ctx.Grains.Set("os_family", "RedHat")
	ctx.SetService("pkgmgr", newFakePkg())
	args := value.MapOf("name", "brine", "humanname", "Brine packages", "baseurl", "https://repo.example.com/el9", "gpgcheck", true,
		"gpgkey", "https://repo.example.com/key.asc")
	sysCase{"pkgrepo.managed", args, true, "Configured package repo 'brine'"}.check(t, ctx)
	want := "[brine]\nname = Brine packages\nbaseurl = https://repo.example.com/el9\ngpgcheck = 1\ngpgkey = https://repo.example.com/key.asc\nenabled = 1\n"
	if b, _ := os.ReadFile(filepath.Join(root, "etc/yum.repos.d/brine.repo")); string(b) != want {
		t.Errorf("repo file\n got %q\nwant %q", b, want)
	}
	args.Set("enabled", false)
	ret := sysCase{"pkgrepo.managed", args, true, "Configured package repo 'brine'"}.check(t, ctx)
	if value.Repr(getMap(ret, "changes")) != "{'enabled': {'new': '0', 'old': '1'}}" {
		t.Errorf("changes %s", value.Repr(getMap(ret, "changes")))
	}
	sysCase{"pkgrepo.absent", value.MapOf("name", "brine"), true, "Removed repo brine"}.check(t, ctx)
}
