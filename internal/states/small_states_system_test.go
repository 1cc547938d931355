package states_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/system"
	"brine/internal/system/usermgr"
	"brine/internal/value"
)

// withTestUser creates the dedicated test user with its home in a
// temporary directory, and removes it (and its crontab) at the end.
func withTestUser(t *testing.T) (home string) {
	t.Helper()
	needRootTools(t, "useradd", "userdel")
	db := usermgr.New(system.Exec{})
	if _, ok, _ := db.User(testUser); ok {
		t.Skipf("user %s exists already: not touching it", testUser)
	}
	cleanUsers(t)
	t.Cleanup(func() {
		exec.Command("crontab", "-u", testUser, "-r").Run()
		cleanUsers(t)
	})
	home = filepath.Join(t.TempDir(), "home")
	ctx := execmod.NewContext()
	if r := sysRun(t, ctx, "user.present", value.MapOf("name", testUser, "home", home, "createhome", true), false); str(r, "result") != "True" {
		t.Fatalf("creating the test user: %s", value.Repr(r))
	}
	return home
}

func TestCronFileReal(t *testing.T) {
	if _, err := exec.LookPath("crontab"); err != nil {
		t.Skip("crontab(1) is not installed (Debian package cron)")
	}
	withTestUser(t)
	src := filepath.Join(t.TempDir(), "tab")
	tab := "# from brine\n5 4 * * * /bin/true\n"
	os.WriteFile(src, []byte(tab), 0o644)
	src2 := filepath.Join(t.TempDir(), "tab2")
	os.WriteFile(src2, []byte("7 4 * * * /bin/false"), 0o644)
	src3 := filepath.Join(t.TempDir(), "tab3")
	os.WriteFile(src3, []byte("7 4 * * * /bin/false\n"), 0o644)
	ctx := execmod.NewContext()
	read := func() string {
		out, _ := exec.Command("crontab", "-u", testUser, "-l").Output()
		return string(out)
	}
	tr := sysRun(t, ctx, "cron.file", value.MapOf("name", src, "user", testUser), true)
	if str(tr, "result") != "None" || !strings.HasPrefix(str(tr, "comment"), "The following values are set to be changed:\ndiff: ") {
		t.Errorf("test mode: %s", value.Repr(tr))
	}
	for _, step := range []struct {
		args    *value.Map
		result  string
		comment string
		changes string // the keys of the changes
		tab     string
	}{
		{value.MapOf("name", src, "user", testUser), "True", "Crontab for user " + testUser + " was updated", "diff user group", tab},
		{value.MapOf("name", src, "user", testUser), "True", "Crontab for user " + testUser + " is in the correct state", "", tab},
		{value.MapOf("name", src2, "user", testUser), "False", "Unable to update user " + testUser + " crontab TMP. Error: new crontab file is missing newline before EOF, can't install.", "", tab},
		{value.MapOf("name", src3, "user", testUser), "True", "Crontab for user " + testUser + " was updated", "diff user group", "7 4 * * * /bin/false\n"},
		{value.MapOf("name", src, "user", testUser, "replace", false), "True", "User " + testUser + " already has a crontab. No changes made", "", "7 4 * * * /bin/false\n"},
		{value.MapOf("name", "/nonexistent/tab", "user", testUser), "False", "Local file source /nonexistent/tab does not exist", "", "7 4 * * * /bin/false\n"},
		{value.MapOf("name", src, "user", "brine-no-such-user"), "False", "Could not identify group for user brine-no-such-user", "", "7 4 * * * /bin/false\n"},
	} {
		r := sysRun(t, ctx, "cron.file", step.args, false)
		var keys []string
		if m, ok := field(r, "changes").(*value.Map); ok {
			for _, k := range m.Keys() {
				keys = append(keys, value.Str(k))
			}
		}
		comment := regexp.MustCompile(`/tmp/__salt\.tmp\.\d+`).ReplaceAllString(str(r, "comment"), "TMP")
		if str(r, "result") != step.result || comment != step.comment || strings.Join(keys, " ") != step.changes {
			t.Errorf("cron.file %s: %s", value.Repr(step.args), value.Repr(r))
		}
		if got := read(); got != step.tab {
			t.Errorf("crontab after %s: %q, want %q", value.Repr(step.args), got, step.tab)
		}
	}
}

func TestSSHAuthManageReal(t *testing.T) {
	home := withTestUser(t)
	cfg := filepath.Join(home, ".ssh", "authorized_keys")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	const keep, drop, add = "AAAAB3NzaC1yc2EAAAADAQABAAABAQC7", "AAAAC3NzaC1lZDI1NTE5AAAAIOMq", "AAAAC3NzaC1lZDI1NTE5AAAAIBBB"
	os.WriteFile(cfg, []byte("ssh-rsa "+keep+" keep@host\nssh-ed25519 "+drop+" drop@host\n"), 0o600)
	ctx := execmod.NewContext()
	keys := value.NewList("ssh-rsa "+keep+" keep@host", "ssh-ed25519 "+add+" add@host")
	args := func() *value.Map { return value.MapOf("name", "keys", "user", testUser, "ssh_keys", keys) }
	tr := sysRun(t, ctx, "ssh_auth.manage", args(), true)
	if got := stateJSON(tr); got != `{"name": "", "changes": {}, "result": null, "comment": "`+drop+` Key set for removal\nThe authorized host key `+keep+` is already present for user `+testUser+`\nKey `+add+` for user `+testUser+` is set to be added"}` {
		t.Errorf("test mode: %s", got)
	}
	r := sysRun(t, ctx, "ssh_auth.manage", args(), false)
	if got := stateJSON(r); got != `{"name": "", "changes": {"`+drop+`": "Key removed", "`+add+`": "New"}, "result": true, "comment": "The authorized host key `+keep+` is already present for user `+testUser+`"}` {
		t.Errorf("manage: %s", got)
	}
	data, _ := os.ReadFile(cfg)
	if want := "ssh-rsa " + keep + " keep@host\nssh-ed25519 " + add + " add@host\n"; string(data) != want {
		t.Errorf("authorized_keys %q, want %q", data, want)
	}
	again := sysRun(t, ctx, "ssh_auth.manage", args(), false)
	if got := stateJSON(again); got != `{"name": "", "changes": {}, "result": true, "comment": "The authorized host key `+keep+` is already present for user `+testUser+`\nThe authorized host key `+add+` is already present for user `+testUser+`"}` {
		t.Errorf("manage again: %s", got)
	}
}
