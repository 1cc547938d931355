package modules

// user.go is salt/modules/useradd.py: users read from /etc/passwd and
// their groups from /etc/group (internal/system/usermgr), changed with
// useradd, usermod and userdel run as Salt runs them. Login classes are
// OpenBSD's: those functions return False here, as in Salt.

import (
	"sort"
	"strings"

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

func userPrimaryGroup(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("primary_group", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	// Salt returns the output of id -g -n, an error message included.
	return runArgv(ctx, "cmd.run", []string{"id", "-g", "-n", value.Str(v[0])})
}

func init() {
	execmod.Register("user.add", userAdd, "Create a user with useradd (uid, gid, groups, home, shell, unique, system, GECOS fields, createhome, usergroup, root); True on success.")
	execmod.Register("user.delete", userDelete, "Remove a user with userdel (remove: its home, force); True on success.")
	execmod.Register("user.rename", userRename, "Rename user name to new_name; True when renamed.")
	execmod.Register("user.chgroups", userChgroups, "Set (append: add to) the supplementary groups of a user; True on success.")
	execmod.Register("user.chloginclass", userLoginclassUnsupported("chloginclass", "name", "loginclass"), "Change the login class (OpenBSD only: False elsewhere).")
	execmod.Register("user.get_loginclass", userLoginclassUnsupported("get_loginclass", "name"), "Return the login class (OpenBSD only: False elsewhere).")
	for _, a := range []struct{ fun, key, param, doc string }{
		{"chuid", "uid", "-u", "Change the uid of a user; True when it has uid afterwards."},
		{"chgid", "gid", "-g", "Change the primary gid of a user; True when it has gid afterwards."},
		{"chshell", "shell", "-s", "Change the login shell of a user; True when it has shell afterwards."},
		{"chhome", "home", "-d", "Change the home of a user (persist: move its content); True when it has home afterwards."},
	} {
		execmod.Register("user."+a.fun, userChattrib(a.fun, a.key, a.param), a.doc)
	}
	for _, g := range []string{"fullname", "roomnumber", "workphone", "homephone", "other"} {
		execmod.Register("user.ch"+g, userChgecos(g), "Change the "+g+" field of a user's GECOS; True when it has the value afterwards.")
	}
}

// userRoot appends Salt's "-R root" to a useradd/usermod/userdel command.
func userRoot(argv []string, root any) []string {
	if root != nil {
		return append(argv, "-R", value.Str(root))
	}
	return argv
}

func userAdd(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, _, err := gitBind("add", args, kwargs, execmod.Req("name"), execmod.Opt("uid", nil), execmod.Opt("gid", nil), execmod.Opt("groups", nil),
		execmod.Opt("home", nil), execmod.Opt("shell", nil), execmod.Opt("unique", true), execmod.Opt("system", false),
		execmod.Opt("fullname", ""), execmod.Opt("roomnumber", ""), execmod.Opt("workphone", ""), execmod.Opt("homephone", ""),
		execmod.Opt("other", ""), execmod.Opt("createhome", true), execmod.Opt("loginclass", nil), execmod.Opt("nologinit", false),
		execmod.Opt("root", nil), execmod.Opt("usergroup", nil))
	if err != nil {
		return nil, err
	}
	bin, err := which("useradd")
	if err != nil {
		return nil, err
	}
	name := a.str("name")
	argv := []string{bin}
	if value.Truthy(a["shell"]) {
		argv = append(argv, "-s", a.str("shell"))
	}
	if a["uid"] != nil && a["uid"] != "" {
		argv = append(argv, "-u", value.Str(a["uid"]))
	}
	groups := userGroupList(a["groups"])
	switch {
	case a["gid"] != nil && a["gid"] != "":
		argv = append(argv, "-g", value.Str(a["gid"]))
	case value.Truthy(a["usergroup"]):
		argv = append(argv, "-U")
	case a["groups"] != nil && userGroupsName(a["groups"], name) && usermgr.UserGroupsEnabled():
		// Salt passes file.group_to_gid(name): "" (and useradd fails)
		// when there is no such group.
		gid := ""
		if g, ok, _ := userDB(nil).Group(name); ok {
			gid = value.Str(g.GID)
		}
		argv = append(argv, "-g", gid)
	}
	if a["usergroup"] == false {
		argv = append(argv, "-N")
	}
	if value.Truthy(a["createhome"]) {
		argv = append(argv, "-m")
	} else {
		argv = append(argv, "-M")
	}
	if value.Truthy(a["nologinit"]) {
		argv = append(argv, "-l")
	}
	if a["home"] != nil {
		argv = append(argv, "-d", a.str("home"))
	}
	if !value.Truthy(a["unique"]) {
		argv = append(argv, "-o")
	}
	if value.Truthy(a["system"]) {
		argv = append(argv, "-r")
	}
	ok, _, err := runOK(ctx, userRoot(append(argv, name), a["root"]))
	if err != nil || !ok {
		return false, err
	}
	if value.Truthy(a["groups"]) {
		if _, err := userSetGroups(ctx, name, groups, false, a["root"]); err != nil {
			return nil, err
		}
	}
	for _, g := range []string{"fullname", "roomnumber", "workphone", "homephone", "other"} {
		if value.Truthy(a[g]) {
			if _, err := userSetGecos(ctx, name, g, a[g], a["root"]); err != nil {
				return nil, err
			}
		}
	}
	return true, nil
}

func userDelete(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("delete", args, kwargs, execmod.Req("name"), execmod.Opt("remove", false), execmod.Opt("force", false), execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	bin, err := which("userdel")
	if err != nil {
		return nil, err
	}
	argv := []string{bin}
	if value.Truthy(v[1]) {
		argv = append(argv, "-r")
	}
	if value.Truthy(v[2]) {
		argv = append(argv, "-f")
	}
	ok, m, err := runOK(ctx, userRoot(append(argv, value.Str(v[0])), v[3]))
	if err != nil || ok {
		return ok, err
	}
	// userdel exits 12 when the mail spool is missing: a known Debian bug
	// Salt treats as success.
	stderr := execmod.String(cmdGet(m, "stderr"))
	debian := strings.Contains(execmod.String(ctxGrain(ctx, "os_family")), "Debian")
	return value.Equal(cmdGet(m, "retcode"), int64(12)) && debian &&
		(strings.Contains(stderr, "var/mail") || strings.Contains(stderr, "var/spool/mail")), nil
}

// userField reads one info field of a user (nil when the user is missing).
func userField(name, key string, root any) (any, bool, error) {
	db := userDB(root)
	u, ok, err := db.User(name)
	if err != nil || !ok {
		return nil, false, err
	}
	m, err := userInfoMap(db, u)
	if err != nil {
		return nil, false, err
	}
	f, _ := m.GetString(key)
	return f, true, nil
}

// userChattrib is Salt's _chattrib: usermod param value when the field
// differs; True when it has the value afterwards.
func userChattrib(fun, key, param string) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		params := []execmod.Param{execmod.Req("name"), execmod.Req(key)}
		if key == "home" {
			params = append(params, execmod.Opt("persist", false))
		}
		v, _, err := execmod.Bind(fun, args, kwargs, append(params, execmod.Opt("root", nil))...)
		if err != nil {
			return nil, err
		}
		persist, root := false, v[len(v)-1]
		if key == "home" {
			persist = value.Truthy(v[2])
		}
		return userChange(ctx, value.Str(v[0]), key, v[1], param, persist, root)
	}
}

func userChange(ctx *execmod.Context, name, key string, want any, param string, persist bool, root any) (any, error) {
	cur, ok, err := userField(name, key, root)
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	if !ok {
		return nil, execmod.Errorf("User '%s' does not exist", name)
	}
	if value.Equal(cur, want) {
		return true, nil
	}
	bin, err := which("usermod")
	if err != nil {
		return nil, err
	}
	argv := []string{bin}
	if root != nil {
		argv = append(argv, "-R", value.Str(root))
	}
	if persist {
		argv = append(argv, "-m")
	}
	if _, err := runArgv(ctx, "cmd.run", append(argv, param, value.Str(want), name)); err != nil {
		return nil, err
	}
	// Salt looks the user up by its old name afterwards, so a rename
	// reports False even when it worked.
	after, _, err := userField(name, key, root)
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return value.Equal(after, want), nil
}

func userRename(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("rename", args, kwargs, execmod.Req("name"), execmod.Req("new_name"), execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	if _, ok, _ := userDB(v[2]).User(value.Str(v[1])); ok {
		return nil, execmod.Errorf("User '%s' already exists", value.Str(v[1]))
	}
	return userChange(ctx, value.Str(v[0]), "name", value.Str(v[1]), "-l", false, v[2])
}

// userGroupsName is Salt's "name in groups": a substring test when groups
// is a string.
func userGroupsName(groups any, name string) bool {
	if s, ok := groups.(string); ok {
		return strings.Contains(s, name)
	}
	return contains(userGroupList(groups), name)
}

func userGroupList(v any) []string {
	switch g := v.(type) {
	case nil:
		return nil
	case string:
		return strings.Split(g, ",")
	}
	return splitComma(v)
}

func userChgroups(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("chgroups", args, kwargs, execmod.Req("name"), execmod.Req("groups"), execmod.Opt("append", false), execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	return userSetGroups(ctx, value.Str(v[0]), userGroupList(v[1]), value.Truthy(v[2]), v[3])
}

func userSetGroups(ctx *execmod.Context, name string, groups []string, appendTo bool, root any) (bool, error) {
	cur, err := userGroupNames(userDB(nil), name)
	if err != nil {
		return false, execmod.Errorf("%s", err)
	}
	have, want := map[string]bool{}, map[string]bool{}
	for _, g := range cur {
		have[g] = true
	}
	for _, g := range groups {
		want[g] = true
	}
	same := len(have) == len(want)
	for g := range want {
		same = same && have[g]
	}
	if same {
		return true, nil
	}
	bin, err := which("usermod")
	if err != nil {
		return false, err
	}
	argv := []string{bin}
	if appendTo {
		argv = append(argv, "-a")
	}
	argv = userRoot(append(argv, "-G", strings.Join(groups, ","), name), root)
	ok, m, err := runOK(ctx, argv)
	if err != nil {
		return false, err
	}
	if !ok && strings.Contains(execmod.String(cmdGet(m, "stderr")), "not found in") {
		all := true
		for _, g := range groups {
			rc, err := runArgv(ctx, "cmd.retcode", []string{"gpasswd", "-a", name, g})
			if err != nil {
				return false, err
			}
			all = all && value.Equal(rc, int64(0))
		}
		return all, nil
	}
	return ok, nil
}

var gecosKeys = []string{"fullname", "roomnumber", "workphone", "homephone", "other"}

func userChgecos(key string) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind("ch"+key, args, kwargs, execmod.Req("name"), execmod.Req(key), execmod.Opt("root", nil))
		if err != nil {
			return nil, err
		}
		return userSetGecos(ctx, value.Str(v[0]), key, v[1], v[2])
	}
}

// userSetGecos is Salt's _update_gecos.
func userSetGecos(ctx *execmod.Context, name, key string, val, root any) (bool, error) {
	want := ""
	if val != nil {
		want = value.Str(val)
	}
	db := userDB(root)
	u, ok, err := db.User(name)
	if err != nil {
		return false, execmod.Errorf("%s", err)
	}
	if !ok {
		return false, execmod.Errorf("KeyError: 'getpwnam(): name not found: %s'", name)
	}
	fields := map[string]string{"fullname": u.FullName, "roomnumber": u.RoomNumber, "workphone": u.WorkPhone, "homephone": u.HomePhone, "other": u.Other}
	if fields[key] == want {
		return true, nil
	}
	fields[key] = want
	parts := make([]string, len(gecosKeys))
	for i, k := range gecosKeys {
		parts[i] = fields[k]
	}
	bin, err := which("usermod")
	if err != nil {
		return false, err
	}
	argv := []string{bin}
	if root != nil {
		argv = append(argv, "-R", value.Str(root))
	}
	if _, err := runArgv(ctx, "cmd.run", append(argv, "-c", strings.TrimRight(strings.Join(parts, ","), ","), name)); err != nil {
		return false, err
	}
	after, _, err := userField(name, key, root)
	return err == nil && value.Str(after) == want, nil
}

func userLoginclassUnsupported(fun string, params ...string) execmod.Func {
	return func(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		ps := make([]execmod.Param, len(params))
		for i, p := range params {
			ps[i] = execmod.Req(p)
		}
		if fun == "chloginclass" {
			ps = append(ps, execmod.Opt("root", nil))
		}
		if _, _, err := execmod.Bind(fun, args, kwargs, ps...); err != nil {
			return nil, err
		}
		return false, nil
	}
}
