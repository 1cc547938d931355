package modules

import (
	"os"
	"os/exec"
	"os/user"
	"testing"

	"brine/internal/system/usermgr"
	"brine/internal/value"
)

// TestUserGroupReal creates a throwaway group and user with the user and
// group functions, changes them, and deletes them (the cleanup removes
// them too when the test fails half way).
func TestUserGroupChangesReal(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	for _, c := range []string{"useradd", "usermod", "userdel", "groupadd", "groupmod", "groupdel", "gpasswd"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("%s is not installed", c)
		}
	}
	const u, u2, g, g2 = "brineusr", "brineusr2", "brinegrp", "brinegrp2"
	for _, n := range []string{u, u2} {
		if _, err := user.Lookup(n); err == nil {
			t.Skipf("user %s exists already", n)
		}
	}
	for _, n := range []string{g, g2} {
		if _, err := user.LookupGroup(n); err == nil {
			t.Skipf("group %s exists already", n)
		}
	}
	t.Cleanup(func() {
		for _, n := range []string{u, u2, "brineusr3"} {
			exec.Command("userdel", n).Run()
		}
		for _, n := range []string{g, g2, u} {
			exec.Command("groupdel", n).Run()
		}
	})
	ctx := testContext()
	addNamedGroup := "True"
	if usermgr.UserGroupsEnabled() {
		addNamedGroup = "False"
	}
	for _, tc := range []struct {
		fun  string
		args []any
		kw   []any
		want string
	}{
		{"group.add", []any{g}, []any{"gid", int64(4711)}, "True"},
		{"group.add", []any{g}, nil, "False"},
		{"group.add", []any{g2}, []any{"system", true}, "True"},
		{"group.chgid", []any{g, int64(4712)}, nil, "True"},
		{"group.chgid", []any{"brine-no-group", int64(4713)}, nil, "False"},
		{"user.add", []any{u}, []any{"shell", "/bin/sh", "createhome", false, "fullname", "Brine User", "groups", value.NewList(g), "usergroup", true}, "True"},
		{"user.add", []any{u}, []any{"createhome", false}, "False"},
		{"user.list_groups", []any{u}, nil, "['brinegrp', 'brineusr']"},
		{"user.chshell", []any{u, "/bin/bash"}, nil, "True"},
		{"user.chhome", []any{u, "/nonexistent/brine"}, nil, "True"},
		{"user.chuid", []any{u, int64(4721)}, nil, "True"},
		{"user.chfullname", []any{u, "Brine Two"}, nil, "True"},
		{"user.chroomnumber", []any{u, "12"}, nil, "True"},
		{"user.chworkphone", []any{u, "555"}, nil, "True"},
		{"user.chgroups", []any{u, g2}, []any{"append", true}, "True"},
		{"user.list_groups", []any{u}, nil, "['brinegrp', 'brinegrp2', 'brineusr']"},
		{"user.chgroups", []any{u, "brinegrp2"}, nil, "True"},
		{"user.list_groups", []any{u}, nil, "['brinegrp2', 'brineusr']"},
		{"group.adduser", []any{g, u}, nil, "True"},
		{"group.deluser", []any{g, u}, nil, "True"},
		{"group.deluser", []any{g, u}, nil, "True"},
		{"group.members", []any{g, u}, nil, "True"},
		{"user.chloginclass", []any{u, "staff"}, nil, "False"},
		{"user.get_loginclass", []any{u}, nil, "False"},
		{"user.primary_group", []any{u}, nil, "'brineusr'"},
		// Salt checks the rename under the old name: False even when done.
		{"user.rename", []any{u, u2}, nil, "False"},
		{"user.list_groups", []any{u2}, nil, "['brinegrp', 'brinegrp2', 'brineusr']"},
		// groups naming the user (a substring of a string counts) makes
		// useradd take -g with that group's gid, "" when it is missing.
		{"user.add", []any{"brineusr3"}, []any{"createhome", false, "groups", "brinegrp,brineusr3"}, addNamedGroup},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, tc.args, tc.kw...)); got != tc.want {
			t.Errorf("%s%v%v = %s, want %s", tc.fun, tc.args, tc.kw, got, tc.want)
		}
	}
	info := call(t, ctx, "user.info", []any{u2}).(*value.Map)
	for k, want := range map[string]string{"shell": "'/bin/bash'", "home": "'/nonexistent/brine'", "uid": "4721",
		"fullname": "'Brine Two'", "roomnumber": "'12'", "workphone": "'555'"} {
		if got, _ := info.GetString(k); value.Repr(got) != want {
			t.Errorf("after the changes %s = %s, want %s", k, value.Repr(got), want)
		}
	}
	gi := call(t, ctx, "group.info", []any{g}).(*value.Map)
	if got := value.Repr(gi); got != "{'name': 'brinegrp', 'passwd': 'x', 'gid': 4712, 'members': ['brineusr2']}" {
		t.Errorf("group.info = %s", got)
	}
	if _, err := ctx.Call("user.rename", []any{u2, "root"}, nil); err == nil || err.Error() != "User 'root' already exists" {
		t.Errorf("rename onto root: %v", err)
	}
	if _, err := ctx.Call("user.chshell", []any{"brine-no-user", "/bin/sh"}, nil); err == nil || err.Error() != "User 'brine-no-user' does not exist" {
		t.Errorf("chshell of a missing user: %v", err)
	}
	for _, tc := range []struct {
		fun  string
		args []any
	}{{"user.delete", []any{u2}}, {"group.delete", []any{g}}, {"group.delete", []any{g2}}, {"group.delete", []any{u}}} {
		if got := call(t, ctx, tc.fun, tc.args); got != true {
			t.Errorf("%s%v = %v", tc.fun, tc.args, got)
		}
	}
	if got := call(t, ctx, "group.delete", []any{g}); got != false {
		t.Errorf("deleting a missing group = %v", got)
	}
}
