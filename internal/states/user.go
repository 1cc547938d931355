package states

// user.go is salt/states/user.py: user.present and user.absent, over
// internal/system/usermgr (the user database read natively, changed with
// useradd, usermod, userdel and chage).

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"brine/internal/statemod"
	"brine/internal/system"
	"brine/internal/system/usermgr"
	"brine/internal/value"
)

// userDBService is the execmod service name a test attaches its own
// *usermgr.DB under.
const userDBService = "usermgr"

const redacted = "XXX-REDACTED-XXX"

// defaultHash is shadow.default_hash on Linux: the password field of an
// account created without one.
const defaultHash = "!"

func init() {
	statemod.Register(&statemod.Function{Name: "user.present",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("uid", nil), statemod.Opt("gid", nil),
			statemod.Opt("usergroup", nil), statemod.Opt("groups", nil), statemod.Opt("optional_groups", nil),
			statemod.Opt("remove_groups", true), statemod.Opt("home", nil), statemod.Opt("createhome", true),
			statemod.Opt("password", nil), statemod.Opt("hash_password", false), statemod.Opt("enforce_password", true),
			statemod.Opt("empty_password", false), statemod.Opt("shell", nil), statemod.Opt("unique", true),
			statemod.Opt("system", false), statemod.Opt("fullname", nil), statemod.Opt("roomnumber", nil),
			statemod.Opt("workphone", nil), statemod.Opt("homephone", nil), statemod.Opt("other", nil),
			statemod.Opt("loginclass", nil), statemod.Opt("date", nil), statemod.Opt("mindays", nil),
			statemod.Opt("maxdays", nil), statemod.Opt("inactdays", nil), statemod.Opt("warndays", nil),
			statemod.Opt("expire", nil), statemod.Opt("win_homedrive", nil), statemod.Opt("win_profile", nil),
			statemod.Opt("win_logonscript", nil), statemod.Opt("win_description", nil), statemod.Opt("nologinit", false), statemod.Opt("allow_uid_change", false),
			statemod.Opt("allow_gid_change", false), statemod.Opt("password_lock", nil)},
		Doc: "Ensure that the named user is present with the given properties.",
		Run: userPresent})
	statemod.Register(&statemod.Function{Name: "user.absent",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("purge", false), statemod.Opt("force", false)},
		Doc:    "Ensure that the named user is absent.",
		Run:    userAbsent})
}

func userDB(c *statemod.Call) *usermgr.DB {
	if c.Env != nil && c.Env.Exec != nil {
		if db, ok := c.Env.Exec.Service(userDBService).(*usermgr.DB); ok {
			return db
		}
	}
	return usermgr.New(system.Exec{})
}

// userInfo is Salt's user.info for the useradd module ({} as nil).
func userInfo(db *usermgr.DB, name string) (*value.Map, error) {
	u, ok, err := db.User(name)
	if err != nil || !ok {
		return nil, err
	}
	gs, err := db.UserGroups(name)
	if err != nil {
		return nil, err
	}
	sort.Strings(gs)
	return value.MapOf("gid", u.GID, "groups", strsValue(gs), "home", u.Home, "name", u.Name, "passwd", u.Passwd,
		"shell", u.Shell, "uid", u.UID, "fullname", u.FullName, "roomnumber", u.RoomNumber,
		"workphone", u.WorkPhone, "homephone", u.HomePhone, "other", u.Other), nil
}

func strsValue(xs []string) *value.List {
	l := value.NewList()
	for _, x := range xs {
		l.Append(x)
	}
	return l
}

// listStrings reads a list argument (a list or a comma-separated string).
func listStrings(v any) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case *value.List:
		out := make([]string, 0, x.Len())
		for _, it := range x.Items {
			out = append(out, value.Str(it))
		}
		return out
	case string:
		if x == "" {
			return nil
		}
		return strings.Split(x, ",")
	}
	return []string{value.Str(v)}
}

// pyIterStrings is what Salt gets iterating over a groups argument: the
// items of a list, the characters of a string.
func pyIterStrings(v any) []string {
	if s, ok := v.(string); ok {
		out := make([]string, 0, len(s))
		for _, r := range s {
			out = append(out, string(r))
		}
		return out
	}
	return listStrings(v)
}

// intArg returns an integer argument (nil when unset or not a number).
func intArg(v any) *int64 {
	switch x := v.(type) {
	case int64:
		return &x
	case string:
		if n, err := strconv.ParseInt(x, 10, 64); err == nil {
			return &n
		}
	case float64:
		n := int64(x)
		return &n
	}
	return nil
}

// pyEqualInt reports whether Python would find want == have: numbers
// compare by value (True is 1), anything else (a quoted "42") differs.
func pyEqualInt(want any, have int64) bool {
	switch x := want.(type) {
	case int64:
		return x == have
	case float64:
		return x == float64(have)
	case bool:
		return (x && have == 1) || (!x && have == 0)
	}
	return false
}

// groupGID resolves a gid argument (a number or a group name).
func groupGID(db *usermgr.DB, v any) (int64, bool) {
	if n := intArg(v); n != nil {
		return *n, true
	}
	g, ok, _ := db.Group(value.Str(v))
	return g.GID, ok
}

// gidMatches is Salt's test of a gid argument against a user's gid: the
// number itself, or the gid of the group it names (a quoted number names
// no group).
func gidMatches(db *usermgr.DB, want any, have int64) bool {
	if pyEqualInt(want, have) {
		return true
	}
	s, ok := want.(string)
	if !ok {
		return false
	}
	g, ok, _ := db.Group(s)
	return ok && g.GID == have
}

func gidName(db *usermgr.DB, gid int64) string {
	g, ok, _ := db.GroupByGID(gid)
	if !ok {
		return strconv.FormatInt(gid, 10)
	}
	return g.Name
}

func setOf(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

func sortedUnique(xs []string) []string {
	m := setOf(xs)
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// userWant is the desired state of a user, from the state's arguments.
type userWant struct {
	uid, gid                       any
	groups, optGroups              []string
	hasGroups                      bool
	removeGroups                   bool
	home                           string
	createHome                     bool
	password                       string
	passwordSet                    bool // password was given (even "")
	enforcePassword, emptyPassword bool
	shell                          string
	gecos                          [5]*string // fullname, room, work, home phone, other
	date, mindays, maxdays         any        // as given: Salt compares them with ==
	inactdays, warndays, expire    any
	allowUIDChange, allowGIDChange bool
	passwordLock                   any
}

var gecosKeys = [5]string{"fullname", "roomnumber", "workphone", "homephone", "other"}

// userChanges is Salt's user._changes: the attributes to change, in
// Salt's order, or nil when the user does not exist.
func userChanges(db *usermgr.DB, name string, w *userWant) (*value.Map, error) {
	u, ok, err := db.User(name)
	if err != nil || !ok {
		return nil, err
	}
	sh, _, _ := db.Shadow(name)
	curGroups, _ := db.UserGroups(name)
	ch := value.NewMap(0)
	wanted := sortedUnique(append(append([]string(nil), w.groups...), w.optGroups...))
	if !w.removeGroups || (!w.hasGroups && len(w.optGroups) == 0) {
		wanted = sortedUnique(append(wanted, curGroups...))
	}
	if value.Truthy(w.uid) && !pyEqualInt(w.uid, u.UID) {
		ch.Set("uid", w.uid)
	}
	if w.gid != nil && !gidMatches(db, w.gid, u.GID) {
		ch.Set("gid", w.gid)
	}
	defGID := u.GID
	if w.gid != nil {
		if g, ok := groupGID(db, w.gid); ok {
			defGID = g
		}
	}
	defGrp, oldDefGrp := gidName(db, defGID), gidName(db, u.GID)
	cur := setOf(curGroups)
	delete(cur, defGrp)
	if oldDefGrp != defGrp {
		delete(cur, oldDefGrp)
	}
	wantSet := setOf(wanted)
	if cur[name] && !wantSet[name] {
		delete(cur, name)
	}
	delete(wantSet, defGrp)
	wanted = wanted[:0]
	for g := range wantSet {
		wanted = append(wanted, g)
	}
	sort.Strings(wanted)
	groupChange := false
	if w.removeGroups {
		groupChange = len(cur) != len(wantSet)
		for g := range wantSet {
			if !cur[g] {
				groupChange = true
			}
		}
	} else {
		for g := range wantSet {
			if !cur[g] {
				groupChange = true
			}
		}
	}
	if groupChange {
		ch.Set("groups", strsValue(wanted))
	}
	if w.home != "" && u.Home != w.home {
		ch.Set("home", w.home)
	}
	if w.createHome {
		newHome := w.home
		if newHome == "" {
			newHome = u.Home
		}
		if st, err := os.Stat(newHome); err != nil || !st.IsDir() {
			ch.Set("homeDoesNotExist", newHome)
		}
	}
	if w.shell != "" && u.Shell != w.shell {
		ch.Set("shell", w.shell)
	}
	if w.password != "" && !w.emptyPassword && (sh.Passwd == defaultHash || w.enforcePassword) && sh.Passwd != w.password {
		ch.Set("passwd", w.password)
	}
	if w.emptyPassword && sh.Passwd != "" {
		ch.Set("empty_password", true)
	}
	for _, a := range []struct {
		key  string
		want any
		have int64
	}{{"date", w.date, sh.LastChange}, {"mindays", w.mindays, sh.Min}, {"maxdays", w.maxdays, sh.Max},
		{"inactdays", w.inactdays, sh.Inact}, {"warndays", w.warndays, sh.Warn}} {
		if a.want != nil && !pyEqualInt(a.want, a.have) {
			ch.Set(a.key, a.want)
		}
	}
	if value.Truthy(w.expire) && !pyEqualInt(w.expire, sh.Expire) {
		ch.Set("expire", w.expire)
	}
	if (w.passwordLock == true && !strings.HasPrefix(sh.Passwd, "!")) || (w.passwordLock == false && strings.HasPrefix(sh.Passwd, "!")) {
		ch.Set("password_lock", w.passwordLock)
	}
	have := [5]string{u.FullName, u.RoomNumber, u.WorkPhone, u.HomePhone, u.Other}
	for i, g := range w.gecos {
		if g != nil && *g != have[i] {
			ch.Set(gecosKeys[i], *g)
		}
	}
	var errs []string
	if !w.allowUIDChange && ch.Has("uid") {
		errs = append(errs, fmt.Sprintf("Changing uid (%d -> %s) not permitted, set allow_uid_change to True to force this change. Note that this will not change file ownership.", u.UID, value.Str(w.uid)))
	}
	if !w.allowGIDChange && ch.Has("gid") {
		errs = append(errs, fmt.Sprintf("Changing gid (%d -> %s) not permitted, set allow_gid_change to True to force this change. Note that this will not change file ownership.", u.GID, value.Str(w.gid)))
	}
	if len(errs) > 0 {
		return nil, &changeCheckError{errs}
	}
	return ch, nil
}

// changeCheckError is the CommandExecutionError with info user._changes
// raises.
type changeCheckError struct{ info []string }

func (e *changeCheckError) Error() string {
	return "Encountered error checking for needed changes. Additional info follows:\n\n- " + strings.Join(e.info, "\n- ")
}

// gecosString is Salt's _build_gecos.
func gecosString(f [5]string) string {
	s := strings.Join(f[:4], ",")
	if f[4] != "" {
		s += "," + f[4]
	}
	return strings.TrimRight(s, ",")
}

// chage runs chage flag v name. Like Salt's shadow.set_* it does not
// fail on chage's errors: callers compare the shadow entry afterwards.
func chage(c *statemod.Call, db *usermgr.DB, name string, flag string, v any) {
	args := append(rootArgs(db), flag, value.Str(v), name)
	db.Runner.Run(bg(c), system.Cmd{Name: "chage", Args: args})
}

func shadowMap(db *usermgr.DB, name string) *value.Map {
	sh, ok, _ := db.Shadow(name)
	if !ok {
		return value.NewMap(0)
	}
	return value.MapOf("name", sh.Name, "passwd", sh.Passwd, "lstchg", sh.LastChange, "min", sh.Min, "max", sh.Max,
		"warn", sh.Warn, "inact", sh.Inact, "expire", sh.Expire)
}

func userPresent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	db := userDB(c)
	ret := statemod.Ret(c.Get("name"), true, "User "+name+" is present and up to date")
	w := &userWant{
		uid: c.Get("uid"), gid: c.Get("gid"), removeGroups: c.Bool("remove_groups"),
		home: c.Str("home"), createHome: c.Bool("createhome"), password: c.Str("password"),
		passwordSet: c.Get("password") != nil, enforcePassword: c.Bool("enforce_password"), emptyPassword: c.Bool("empty_password"),
		shell: c.Str("shell"), allowUIDChange: c.Bool("allow_uid_change"), allowGIDChange: c.Bool("allow_gid_change"),
		passwordLock: c.Get("password_lock"),
		date:         c.Get("date"), mindays: c.Get("mindays"), maxdays: c.Get("maxdays"),
		inactdays: c.Get("inactdays"), warndays: c.Get("warndays"), expire: c.Get("expire"),
	}
	for i, k := range gecosKeys {
		if c.Has(k) {
			s := c.Str(k)
			w.gecos[i] = &s
		}
	}
	for _, g := range w.gecos[:3] {
		if g != nil && strings.Contains(*g, ",") {
			return statemod.Ret(c.Get("name"), false, "Unsupported char ',' in "+*g), nil
		}
	}
	if w.password != "" && c.Bool("hash_password") {
		// Reuse the salt and algorithm of the current hash, as Salt does,
		// so that the state stays idempotent.
		kw := value.NewMap(0)
		if sh, ok, _ := db.Shadow(name); ok {
			if parts := strings.Split(sh.Passwd, "$"); len(parts) == 4 {
				algos := map[string]any{"1": "md5", "2a": "blowfish", "5": "sha256", "6": "sha512"}
				kw.Set("crypt_salt", parts[2])
				kw.Set("algorithm", algos[parts[1]])
			}
		}
		h, err := c.Salt("shadow.gen_password", []any{w.password}, kw)
		if err != nil {
			return nil, err
		}
		w.password = value.Str(h)
	}
	groups := pyIterStrings(c.Get("groups"))
	w.hasGroups = c.Get("groups") != nil
	w.groups = groups
	if len(groups) > 0 {
		var missing []string
		for _, g := range groups {
			if _, ok, _ := db.Group(g); !ok {
				missing = append(missing, g)
			}
		}
		if len(missing) > 0 {
			return statemod.Ret(c.Get("name"), false, "The following group(s) are not present: "+strings.Join(missing, ",")), nil
		}
	}
	for _, g := range pyIterStrings(c.Get("optional_groups")) {
		if _, ok, _ := db.Group(g); ok {
			w.optGroups = append(w.optGroups, g)
		}
	}
	// With usergroup and an existing group of the user's name, Salt checks
	// the user against that group, but creates it and re-checks it with the
	// gid argument.
	gid := w.gid
	if value.Truthy(c.Get("usergroup")) {
		if _, ok, _ := db.Group(name); ok {
			w.gid = name
		}
	}
	changes, err := userChanges(db, name, w)
	if err != nil {
		return statemod.Ret(c.Get("name"), false, err.Error()), nil
	}
	if changes != nil {
		if changes.Len() == 0 {
			return ret, nil
		}
		if c.Test {
			ret.Set("result", nil)
			var b strings.Builder
			b.WriteString("The following user attributes are set to be changed:\n")
			changes.Range(func(k, v any) bool {
				if k == "passwd" {
					v = redacted
				}
				fmt.Fprintf(&b, "%s: %s\n", value.Str(k), value.Str(v))
				return true
			})
			ret.Set("comment", b.String())
			return ret, nil
		}
		rc, err := userApply(c, db, name, w, changes)
		if err != nil {
			return statemod.Ret(c.Get("name"), false, err.Error()), nil
		}
		ret.Set("changes", rc)
		if rc.Len() > 0 {
			ret.Set("comment", "Updated user "+name)
		}
		w.allowUIDChange, w.allowGIDChange, w.gid = true, true, gid
		if left, _ := userChanges(db, name, w); left != nil && left.Len() > 0 {
			ret.Set("comment", "These values could not be changed: "+value.Repr(left))
			ret.Set("result", false)
		}
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "User "+name+" set to be added")
		return ret, nil
	}
	spec := usermgr.UserSpec{Name: name, UID: intArg(w.uid), Groups: append(append([]string(nil), groups...), w.optGroups...),
		Home: w.home, Shell: w.shell, System: c.Bool("system"), NoLogInit: c.Bool("nologinit")}
	// useradd's primary group as Salt's user.add picks it: gid, else a
	// group of the user's own (-U), else the existing group of that name
	// when groups lists it and USERGROUPS_ENAB is on.
	ug := c.Get("usergroup")
	switch {
	case gid != nil && gid != "":
		if n := intArg(gid); n != nil {
			spec.GID = n
		} else {
			spec.Group = value.Str(gid)
		}
	case value.Truthy(ug):
		t := true
		spec.UserGroup = &t
	case contains(spec.Groups, name) && usermgr.UserGroupsEnabled():
		if g, ok, _ := db.Group(name); ok {
			spec.GID = &g.GID
		}
	}
	if ug == false {
		f := false
		spec.UserGroup = &f
	}
	ch := w.createHome
	spec.CreateHome = &ch
	if !c.Bool("unique") {
		f := false
		spec.Unique = &f
	}
	var gf [5]string
	anyGecos := false
	for i, g := range w.gecos {
		if g != nil {
			gf[i], anyGecos = *g, true
		}
	}
	if anyGecos {
		s := gecosString(gf)
		spec.Fullname = &s
	}
	if err := db.AddUser(bg(c), spec); err != nil {
		ret.Set("result", false)
		ret.Set("comment", "Failed to create new user "+name)
		return ret, nil
	}
	info, _ := userInfo(db, name)
	if info == nil {
		info = value.NewMap(0)
	}
	ret.Set("comment", "New user "+name+" created")
	if !w.createHome {
		info.Set("home", "")
	}
	fail := func(what string) {
		ret.Set("comment", "User "+name+" created but failed to set "+what)
		ret.Set("result", false)
	}
	if w.password != "" && !w.emptyPassword {
		if err := db.SetPassword(bg(c), name, w.password); err != nil {
			fail("password to " + redacted)
		}
		info.Set("password", redacted)
	}
	if w.emptyPassword && w.password == "" {
		if err := db.SetPassword(bg(c), name, ""); err != nil {
			ret.Set("comment", "User "+name+" created but failed to empty password")
			ret.Set("result", false)
		}
		info.Set("password", "")
	}
	for _, a := range []struct {
		key, flag, what string
		v               any
		field           func(usermgr.Shadow) int64
	}{{"date", "-d", "last change date to", w.date, func(s usermgr.Shadow) int64 { return s.LastChange }},
		{"mindays", "-m", "minimum days to", w.mindays, func(s usermgr.Shadow) int64 { return s.Min }},
		{"maxdays", "-M", "maximum days to", w.maxdays, func(s usermgr.Shadow) int64 { return s.Max }},
		{"inactdays", "-I", "inactive days to", w.inactdays, func(s usermgr.Shadow) int64 { return s.Inact }},
		{"warndays", "-W", "warn days to", w.warndays, func(s usermgr.Shadow) int64 { return s.Warn }},
		{"expire", "-E", "expire days to", w.expire, func(s usermgr.Shadow) int64 { return s.Expire }}} {
		// date is set whenever given, the others only when truthy.
		if a.v == nil || (a.key != "date" && !value.Truthy(a.v)) {
			continue
		}
		chage(c, db, name, a.flag, a.v)
		if sh, _, _ := db.Shadow(name); !pyEqualInt(a.v, a.field(sh)) {
			fail(a.what + " " + value.Str(a.v))
		}
		info.Set(a.key, a.v)
	}
	ret.Set("changes", info)
	return ret, nil
}

// userApply makes the changes of an existing user and reports them as
// Salt does: the user.info and shadow.info fields that differ afterwards.
func userApply(c *statemod.Call, db *usermgr.DB, name string, w *userWant, changes *value.Map) (*value.Map, error) {
	ctx := bg(c)
	pre, err := userInfo(db, name)
	if err != nil {
		return nil, err
	}
	preShadow := shadowMap(db, name)
	u, _, _ := db.User(name)
	if changes.Has("passwd") && !w.emptyPassword {
		if err := db.SetPassword(ctx, name, w.password); err != nil {
			return nil, err
		}
	}
	if changes.Has("empty_password") {
		if err := db.SetPassword(ctx, name, ""); err != nil {
			return nil, err
		}
	}
	if lock, ok := changes.Get("password_lock"); ok {
		flag := "-U"
		if lock == true {
			flag = "-L"
		}
		args := append(rootArgs(db), flag, name)
		if _, err := system.Must(ctx, db.Runner, system.Cmd{Name: "usermod", Args: args}); err != nil {
			return nil, err
		}
	}
	for _, a := range []struct {
		key, flag string
		v         any
	}{{"date", "-d", w.date}, {"mindays", "-m", w.mindays}, {"maxdays", "-M", w.maxdays},
		{"inactdays", "-I", w.inactdays}, {"warndays", "-W", w.warndays}, {"expire", "-E", w.expire}} {
		if changes.Has(a.key) {
			chage(c, db, name, a.flag, a.v)
		}
	}
	// Like Salt's user.ch* functions, each change is its own command whose
	// failure is not an error: the state's final check reports what is
	// left as "These values could not be changed".
	mod := func(spec usermgr.UserSpec) { _ = db.ModUser(ctx, name, spec) }
	homeChanged := false
	if h, ok := changes.Get("home"); ok && !changes.Has("homeDoesNotExist") {
		mod(usermgr.UserSpec{Home: value.Str(h)})
		homeChanged = true
	}
	if h, ok := changes.Get("homeDoesNotExist"); ok {
		p := value.Str(h)
		if !homeChanged && p != u.Home {
			mod(usermgr.UserSpec{Home: p})
		}
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return nil, err
			}
			os.Chown(p, int(u.UID), int(u.GID))
		}
	}
	gecos := [5]string{u.FullName, u.RoomNumber, u.WorkPhone, u.HomePhone, u.Other}
	gecosChanged := false
	changes.Range(func(k, v any) bool {
		switch k {
		case "uid":
			mod(usermgr.UserSpec{UID: intArg(v)})
		case "gid":
			if n := intArg(v); n != nil {
				mod(usermgr.UserSpec{GID: n})
			} else {
				mod(usermgr.UserSpec{Group: value.Str(v)})
			}
		case "shell":
			mod(usermgr.UserSpec{Shell: value.Str(v)})
		default:
			for i, g := range gecosKeys {
				if k == g {
					gecos[i], gecosChanged = value.Str(v), true
				}
			}
		}
		return true
	})
	if gecosChanged {
		s := gecosString(gecos)
		mod(usermgr.UserSpec{Fullname: &s})
	}
	if v, ok := changes.Get("groups"); ok {
		gs := listStrings(v)
		if !w.removeGroups {
			cur, _ := db.UserGroups(name)
			nu, _, _ := db.User(name)
			pg := gidName(db, nu.GID)
			var keep []string
			for _, g := range sortedUnique(append(gs, cur...)) {
				if g != pg {
					keep = append(keep, g)
				}
			}
			gs = keep
		}
		mod(usermgr.UserSpec{Groups: gs, SetGroups: true})
	}
	post, err := userInfo(db, name)
	if err != nil {
		return nil, err
	}
	rc := value.NewMap(0)
	post.Range(func(k, v any) bool {
		if pv, _ := pre.Get(k); !value.Equal(pv, v) {
			rc.Set(k, v)
		}
		return true
	})
	if pp, _ := preShadow.Get("passwd"); !w.passwordSet || value.Str(pp) != w.password {
		shadowMap(db, name).Range(func(k, v any) bool {
			if pv, _ := preShadow.Get(k); !value.Equal(pv, v) {
				if k == "passwd" {
					v = redacted
				}
				rc.Set(k, v)
			}
			return true
		})
	}
	return rc, nil
}

func rootArgs(db *usermgr.DB) []string {
	if db.Root == "" {
		return nil
	}
	return []string{"--root", db.Root}
}

func userAbsent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	db := userDB(c)
	ret := statemod.Ret(c.Get("name"), true, "")
	if _, ok, err := db.User(name); err != nil {
		return statemod.Ret(c.Get("name"), false, err.Error()), nil
	} else if !ok {
		ret.Set("comment", "User "+name+" is not present")
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "User "+name+" set for removal")
		return ret, nil
	}
	before, _ := db.UserGroups(name)
	before = sortedUnique(before)
	if err := db.DelUser(bg(c), name, c.Bool("purge"), c.Bool("force")); err != nil {
		ret.Set("result", false)
		ret.Set("comment", "Failed to remove user "+name)
		return ret, nil
	}
	changes := value.NewMap(0)
	for _, g := range before {
		if _, ok, _ := db.Group(g); !ok {
			changes.Set(g+" group", "removed")
		}
	}
	changes.Set(name, "removed")
	ret.Set("changes", changes)
	ret.Set("comment", "Removed user "+name)
	return ret, nil
}
