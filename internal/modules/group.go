package modules

// group.go is salt/modules/groupadd.py: groups read from /etc/group
// (internal/system/usermgr) and changed with groupadd, groupmod, groupdel
// and gpasswd run as Salt runs them.

import (
	"os/exec"

	"brine/internal/execmod"
	"brine/internal/system/usermgr"
	"brine/internal/value"
)

func init() {
	execmod.Register("group.info", groupInfo, "Return information about group name (name, passwd, gid, members); {} when missing.")
	execmod.Register("group.getent", groupGetent, "Return the information of every group.")
}

func groupInfoMap(g usermgr.Group) *value.Map {
	return value.MapOf("name", g.Name, "passwd", g.Passwd, "gid", g.GID, "members", sysStrList(g.Members))
}

func groupInfo(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("info", args, kwargs, execmod.Req("name"), execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	g, ok, err := userDB(v[1]).Group(execmod.String(v[0]))
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	if !ok {
		return value.NewMap(0), nil
	}
	return groupInfoMap(g), nil
}

func groupGetent(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("getent", args, kwargs, execmod.Opt("refresh", false), execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	gs, err := userDB(v[1]).Groups()
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	out := value.NewList()
	for _, g := range gs {
		out.Append(groupInfoMap(g))
	}
	return out, nil
}

func init() {
	execmod.Register("group.add", groupAdd, "Create a group (gid, system, non_unique, root); True on success.")
	execmod.Register("group.delete", groupDelete, "Remove a group; True on success.")
	execmod.Register("group.chgid", groupChgid, "Change the gid of a group; True when it has gid afterwards (False for a missing group).")
	execmod.Register("group.adduser", groupAdduser, "Add user username to group name (gpasswd --add); True on success.")
	execmod.Register("group.deluser", groupDeluser, "Remove user username from group name (gpasswd --del); True on success or when not a member.")
	execmod.Register("group.members", groupMembers, "Make members_list (comma-separated) the members of group name (gpasswd --members); True on success.")
}

// which is Salt's _which: the command's path, or its error.
func which(cmd string) (string, error) {
	p, err := exec.LookPath(cmd)
	if err != nil {
		return "", execmod.Errorf("Command '%s' cannot be found", cmd)
	}
	return p, nil
}

// runOK runs argv through cmd.run_all: whether it exited 0, and the result.
func runOK(ctx *execmod.Context, argv []string) (bool, *value.Map, error) {
	res, err := runArgv(ctx, "cmd.run_all", argv)
	if err != nil {
		return false, nil, err
	}
	m, _ := res.(*value.Map)
	return value.Equal(cmdGet(m, "retcode"), int64(0)), m, nil
}

func groupAdd(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("add", args, kwargs, execmod.Req("name"), execmod.Opt("gid", nil), execmod.Opt("system", false),
		execmod.Opt("root", nil), execmod.Opt("non_unique", false))
	if err != nil {
		return nil, err
	}
	bin, err := which("groupadd")
	if err != nil {
		return nil, err
	}
	argv := []string{bin}
	if value.Truthy(v[1]) {
		argv = append(argv, "-g", value.Str(v[1]))
		if value.Truthy(v[4]) {
			argv = append(argv, "-o")
		}
	}
	if value.Truthy(v[2]) {
		argv = append(argv, "-r")
	}
	if v[3] != nil {
		argv = append(argv, "-R", value.Str(v[3]))
	}
	ok, _, err := runOK(ctx, append(argv, value.Str(v[0])))
	return ok, err
}

func groupDelete(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("delete", args, kwargs, execmod.Req("name"), execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	bin, err := which("groupdel")
	if err != nil {
		return nil, err
	}
	argv := []string{bin}
	if v[1] != nil {
		argv = append(argv, "-R", value.Str(v[1]))
	}
	ok, _, err := runOK(ctx, append(argv, value.Str(v[0])))
	return ok, err
}

func groupChgid(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("chgid", args, kwargs, execmod.Req("name"), execmod.Req("gid"), execmod.Opt("root", nil), execmod.Opt("non_unique", false))
	if err != nil {
		return nil, err
	}
	name := value.Str(v[0])
	db := userDB(v[2])
	g, ok, err := db.Group(name)
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	if !ok {
		return false, nil
	}
	if value.Equal(g.GID, v[1]) {
		return true, nil
	}
	bin, err := which("groupmod")
	if err != nil {
		return nil, err
	}
	param := "-g"
	if value.Truthy(v[3]) {
		param = "-og"
	}
	argv := []string{bin}
	if v[2] != nil {
		argv = append(argv, "-R", value.Str(v[2]))
	}
	if _, err := runArgv(ctx, "cmd.run", append(argv, param, value.Str(v[1]), name)); err != nil {
		return nil, err
	}
	g, ok, err = db.Group(name)
	return err == nil && ok && value.Equal(g.GID, v[1]), nil
}

func groupGpasswd(ctx *execmod.Context, root any, args ...string) (bool, error) {
	bin, err := which("gpasswd")
	if err != nil {
		return false, err
	}
	argv := append([]string{bin}, args...)
	if root != nil {
		argv = append(argv, "--root", value.Str(root))
	}
	rc, err := runArgv(ctx, "cmd.retcode", argv)
	if err != nil {
		return false, err
	}
	return value.Equal(rc, int64(0)), nil
}

func groupAdduser(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("adduser", args, kwargs, execmod.Req("name"), execmod.Req("username"), execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	return groupGpasswd(ctx, v[2], "--add", value.Str(v[1]), value.Str(v[0]))
}

func groupDeluser(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("deluser", args, kwargs, execmod.Req("name"), execmod.Req("username"), execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	g, ok, err := userDB(nil).Group(value.Str(v[0]))
	if err != nil || !ok || !contains(g.Members, value.Str(v[1])) {
		return true, nil
	}
	return groupGpasswd(ctx, v[2], "--del", value.Str(v[1]), value.Str(v[0]))
}

func groupMembers(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("members", args, kwargs, execmod.Req("name"), execmod.Req("members_list"), execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	return groupGpasswd(ctx, v[2], "--members", value.Str(v[1]), value.Str(v[0]))
}
