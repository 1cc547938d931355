package states_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/system"
	"brine/internal/system/usermgr"
	"brine/internal/value"
)

// needRootTools skips the test unless it runs as root with the
// shadow-utils commands; these tests change the real user database (a
// dedicated user and group that they remove at the end).
func needRootTools(t *testing.T, tools ...string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: it creates and removes a dedicated test user and group in the real user database")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
}

const (
	testUser   = "brinetu"
	testGroup  = "brinetg"
	testGroup2 = "brinetg2"
)

func cleanUsers(t *testing.T) {
	db := usermgr.New(system.Exec{})
	ctx := context.Background()
	if _, ok, _ := db.User(testUser); ok {
		db.DelUser(ctx, testUser, true, true)
	}
	for _, g := range []string{testUser, testGroup, testGroup2} {
		if _, ok, _ := db.Group(g); ok {
			db.DelGroup(ctx, g)
		}
	}
}

func TestUserGroupReal(t *testing.T) {
	needRootTools(t, "useradd", "usermod", "userdel", "groupadd", "groupdel", "gpasswd", "chage")
	db := usermgr.New(system.Exec{})
	if _, ok, _ := db.User(testUser); ok {
		t.Skipf("user %s exists already: not touching it", testUser)
	}
	cleanUsers(t)
	t.Cleanup(func() { cleanUsers(t) })
	ctx := execmod.NewContext()
	home := filepath.Join(t.TempDir(), "home")

	sysCase{"group.present", value.MapOf("name", testGroup, "gid", int64(47931)), true, "New group " + testGroup + " created"}.check(t, ctx)
	sysCase{"group.present", value.MapOf("name", testGroup2), true, "New group " + testGroup2 + " created"}.check(t, ctx)
	ret := sysCase{"user.present", value.MapOf("name", testUser, "home", home, "shell", "/bin/sh", "fullname", "Brine Test",
		"groups", value.NewList(testGroup), "optional_groups", value.NewList("nosuchgroup"),
		"password", "$6$salt$hash", "maxdays", int64(90)), true, "New user " + testUser + " created"}.check(t, ctx)
	ch := getMap(ret, "changes")
	if str(ch, "fullname") != "Brine Test" || str(ch, "password") != "XXX-REDACTED-XXX" || str(ch, "maxdays") != "90" {
		t.Errorf("create changes: %s", value.Repr(ch))
	}
	if st, err := os.Stat(home); err != nil || !st.IsDir() {
		t.Errorf("home not created: %v", err)
	}
	ret = sysCase{"user.present", value.MapOf("name", testUser, "home", home, "shell", "/bin/bash",
		"groups", value.NewList(testGroup, testGroup2), "fullname", "Brine Test"), true, "Updated user " + testUser}.check(t, ctx)
	ch = getMap(ret, "changes")
	if str(ch, "shell") != "/bin/bash" || !strings.Contains(str(ch, "groups"), testGroup2) {
		t.Errorf("update changes: %s", value.Repr(ch))
	}
	ret = sysRun(t, ctx, "user.present", value.MapOf("name", testUser, "uid", int64(47999)), true)
	if str(ret, "result") != "False" || !strings.Contains(str(ret, "comment"), "Changing uid") {
		t.Errorf("uid change without allow_uid_change: %s", value.Repr(ret))
	}
	ret = sysRun(t, ctx, "user.present", value.MapOf("name", testUser, "groups", value.NewList("nosuchgroup")), false)
	if str(ret, "comment") != "The following group(s) are not present: nosuchgroup" {
		t.Errorf("missing group: %s", value.Repr(ret))
	}
	sysCase{"group.present", value.MapOf("name", testGroup, "delusers", value.NewList(testUser)), true, "The following group attributes are set to be changed:\ndelusers: ['" + testUser + "']"}.check(t, ctx)
	sysCase{"group.present", value.MapOf("name", testGroup, "addusers", value.NewList(testUser)), true, "The following group attributes are set to be changed:\naddusers:"}.check(t, ctx)
	sysCase{"group.present", value.MapOf("name", testGroup, "members", value.NewList()), true, "The following group attributes are set to be changed:\ndelusers:"}.check(t, ctx)
	ret = sysCase{"user.absent", value.MapOf("name", testUser, "purge", true), true, "Removed user " + testUser}.check(t, ctx)
	if str(getMap(ret, "changes"), testUser) != "removed" {
		t.Errorf("absent changes: %s", value.Repr(ret))
	}
	sysCase{"group.absent", value.MapOf("name", testGroup), true, "Removed group " + testGroup}.check(t, ctx)
	sysCase{"group.absent", value.MapOf("name", testGroup2), true, "Removed group " + testGroup2}.check(t, ctx)
}

func getMap(m *value.Map, k string) *value.Map {
	v, _ := m.Get(k)
	out, _ := v.(*value.Map)
	if out == nil {
		return value.NewMap(0)
	}
	return out
}
