package modules

// user.go is salt/modules/useradd.py (the reading half): users from
// /etc/passwd, their groups from /etc/group.

import (
	"sort"

	"brine/internal/execmod"
	"brine/internal/system"
	"brine/internal/system/usermgr"
	"brine/internal/value"
)

func init() {
	execmod.Register("user.info", userInfo, "Return user information (gid, groups, home, name, passwd, shell, uid, fullname, ...); {} for a missing user.")
	execmod.Register("user.list_users", userListUsers, "Return the sorted names of all users.")
	execmod.Register("user.list_groups", userListGroups, "Return the sorted names of the groups of user name (primary group included).")
	execmod.Register("user.getent", userGetent, "Return the information of every user.")
	execmod.Register("user.primary_group", userPrimaryGroup, "Return the name of the primary group of user name.")
}

// userDB returns the user database, rooted at the root argument if given.
func userDB(root any) *usermgr.DB {
	db := usermgr.New(system.Exec{})
	if s, ok := root.(string); ok {
		db.Root = s
	}
	return db
}

func sysStrList(xs []string) *value.List {
	items := make([]any, len(xs))
	for i, x := range xs {
		items[i] = x
	}
	return value.NewList(items...)
}

func userGroupNames(db *usermgr.DB, name string) ([]string, error) {
	gs, err := db.UserGroups(name)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(gs))
	for _, g := range gs {
		if !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	sort.Strings(out)
	return out, nil
}

func userInfoMap(db *usermgr.DB, u usermgr.User) (*value.Map, error) {
	groups, err := userGroupNames(db, u.Name)
	if err != nil {
		return nil, err
	}
	return value.MapOf(
		"gid", u.GID,
		"groups", sysStrList(groups),
		"home", u.Home,
		"name", u.Name,
		"passwd", u.Passwd,
		"shell", u.Shell,
		"uid", u.UID,
		"fullname", u.FullName,
		"roomnumber", u.RoomNumber,
		"workphone", u.WorkPhone,
		"homephone", u.HomePhone,
		"other", u.Other,
	), nil
}

func userInfo(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("info", args, kwargs, execmod.Req("name"), execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	db := userDB(v[1])
	u, ok, err := db.User(execmod.String(v[0]))
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	if !ok {
		return value.NewMap(0), nil
	}
	return userInfoMap(db, u)
}

func userListUsers(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_users", args, kwargs, execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	us, err := userDB(v[0]).Users()
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	names := make([]string, len(us))
	for i, u := range us {
		names[i] = u.Name
	}
	sort.Strings(names)
	return sysStrList(names), nil
}

func userListGroups(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_groups", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	gs, err := userGroupNames(userDB(nil), execmod.String(v[0]))
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return sysStrList(gs), nil
}

func userGetent(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("getent", args, kwargs, execmod.Opt("refresh", false), execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	db := userDB(v[1])
	us, err := db.Users()
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	out := value.NewList()
	for _, u := range us {
		m, err := userInfoMap(db, u)
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		out.Append(m)
	}
	return out, nil
}

func userPrimaryGroup(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("primary_group", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	db := userDB(nil)
	u, ok, err := db.User(execmod.String(v[0]))
	if err != nil || !ok {
		return "", err
	}
	g, ok, err := db.GroupByGID(u.GID)
	if err != nil || !ok {
		return "", err
	}
	return g.Name, nil
}
