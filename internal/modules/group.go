package modules

// group.go is salt/modules/groupadd.py (the reading half): groups from
// /etc/group.

import (
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
