package states_test

import (
	"os"
	"path/filepath"
	"testing"

	"brine/internal/value"
)

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
