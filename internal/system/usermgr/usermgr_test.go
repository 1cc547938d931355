package usermgr

import (
	"context"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"testing"

	"brine/internal/system"
)

func TestReadRealDatabase(t *testing.T) {
	d := New(system.Exec{})
	root, ok, err := d.User("root")
	if err != nil || !ok {
		t.Fatalf("root: %v %v", ok, err)
	}
	want, err := user.Lookup("root")
	if err != nil {
		t.Fatal(err)
	}
	if strconv.FormatInt(root.UID, 10) != want.Uid || root.Home != want.HomeDir {
		t.Errorf("root = %+v, os/user says %+v", root, want)
	}
	g, ok, _ := d.Group("root")
	if !ok || g.GID != 0 {
		t.Errorf("group root = %+v %v", g, ok)
	}
	if _, ok, _ := d.User("brine-no-such-user"); ok {
		t.Error("missing user found")
	}
}

func TestCommandLines(t *testing.T) {
	rec := &system.Recorder{}
	d := &DB{Runner: rec, Root: "/mnt/r"}
	ctx := context.Background()
	uid := int64(1234)
	yes := true
	full := "Ann Example"
	_ = d.AddUser(ctx, UserSpec{Name: "ann", UID: &uid, Group: "staff", Groups: []string{"a", "b"}, Home: "/home/ann", CreateHome: &yes, Shell: "/bin/bash", Fullname: &full, System: true, NoLogInit: true})
	_ = d.ModUser(ctx, "ann", UserSpec{SetGroups: true})
	_ = d.ModUser(ctx, "ann", UserSpec{})
	_ = d.DelUser(ctx, "ann", true, false)
	_ = d.SetMembers(ctx, "staff", []string{"ann", "bob"})
	want := []string{
		"useradd --root /mnt/r -u 1234 -g staff -G a,b -d /home/ann -m -s /bin/bash -c 'Ann Example' -r -l ann",
		"usermod --root /mnt/r -G '' ann",
		"userdel --root /mnt/r -r ann",
		"gpasswd --root /mnt/r -M ann,bob staff",
	}
	if got := rec.Lines(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestRealUserLifecycle creates, changes and removes a throwaway user and
// group with the real tools, then checks that nothing is left.
func TestRealUserLifecycle(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to create a throwaway user")
	}
	for _, tool := range []string{"useradd", "groupadd", "gpasswd", "userdel", "groupdel"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed here", tool)
		}
	}
	const uname, gname = "brinetestu", "brinetestg"
	d := New(system.Exec{})
	ctx := context.Background()
	cleanup := func() {
		if _, ok, _ := d.User(uname); ok {
			_ = d.DelUser(ctx, uname, true, true)
		}
		if _, ok, _ := d.Group(uname); ok {
			_ = d.DelGroup(ctx, uname)
		}
		if _, ok, _ := d.Group(gname); ok {
			_ = d.DelGroup(ctx, gname)
		}
	}
	cleanup()
	t.Cleanup(cleanup)

	if err := d.AddGroup(ctx, gname, nil, true, false); err != nil {
		t.Fatal(err)
	}
	no := false
	if err := d.AddUser(ctx, UserSpec{Name: uname, Shell: "/bin/sh", CreateHome: &no, System: true, Groups: []string{gname}}); err != nil {
		t.Fatal(err)
	}
	u, ok, err := d.User(uname)
	if err != nil || !ok || u.Shell != "/bin/sh" {
		t.Fatalf("user after add = %+v %v %v", u, ok, err)
	}
	gs, _ := d.UserGroups(uname)
	if len(gs) != 2 || gs[1] != gname {
		t.Errorf("groups = %v", gs)
	}
	if err := d.DelMember(ctx, gname, uname); err != nil {
		t.Error(err)
	}
	if g, _, _ := d.Group(gname); len(g.Members) != 0 {
		t.Errorf("members after gpasswd -d = %v", g.Members)
	}
	if err := d.SetMembers(ctx, gname, []string{uname}); err != nil {
		t.Error(err)
	}
	if g, _, _ := d.Group(gname); strings.Join(g.Members, ",") != uname {
		t.Errorf("members after gpasswd -M = %v", g.Members)
	}
	if err := d.SetPassword(ctx, uname, "$6$salt$hash"); err != nil {
		t.Error(err)
	}
	if s, ok, _ := d.Shadow(uname); !ok || s.Passwd != "$6$salt$hash" {
		t.Errorf("shadow = %+v %v", s, ok)
	}
	if err := d.ModUser(ctx, uname, UserSpec{Shell: "/bin/bash"}); err != nil {
		t.Error(err)
	}
	if u, _, _ := d.User(uname); u.Shell != "/bin/bash" {
		t.Errorf("shell after usermod = %q", u.Shell)
	}
	cleanup()
	if _, ok, _ := d.User(uname); ok {
		t.Error("user left behind")
	}
	if _, ok, _ := d.Group(gname); ok {
		t.Error("group left behind")
	}
}
