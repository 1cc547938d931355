package modules

// mysql_users.go is the user and grant half of salt/modules/mysql.py
// (see mysql.go): users checked, created and changed with the SQL Salt
// writes for MariaDB and for MySQL before and after 8.0.11, and grants
// compared after Salt's tokenizing of SHOW GRANTS.

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"strings"

	"brine/internal/execmod"
	"brine/internal/system/mysqlconn"
	"brine/internal/value"
)

func init() {
	reg := func(name string, f execmod.Func, doc string) { execmod.Register("mysql."+name, f, doc) }
	reg("user_list", myUserList, "Return the users as a list of {User, Host}.")
	reg("user_exists", myUserExists, "True when user@host exists (with this password, password hash, or passwordless login).")
	reg("user_info", myUserInfo, "Return the mysql.user row of user@host.")
	reg("user_create", myUserCreate, "Create user@host (password, password_hash, allow_passwordless, unix_socket).")
	reg("user_chpass", myUserChpass, "Change (or clear) the password of user@host.")
	reg("user_remove", myUserRemove, "Drop user@host.")
	reg("tokenize_grant", myTokenizeGrant, "Split a GRANT statement into user, host, grant list and database.")
	reg("user_grants", myUserGrants, "Return SHOW GRANTS of user@host (False when the user does not exist).")
	reg("grant_exists", myGrantExists, "True when user@host holds the grants on database (db.table).")
	reg("grant_add", myGrantAdd, "Grant privileges on database (db.table) to user@host.")
	reg("grant_revoke", myGrantRevoke, "Revoke privileges on database (db.table) from user@host.")
}

func myUserList(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	_, m, err := myBind(ctx, "user_list", args, kwargs)
	if err != nil {
		return nil, err
	}
	res, err := m.rows("SELECT User,Host FROM mysql.user")
	if res == nil {
		return value.NewList(), err
	}
	return rowsAsMaps(res), nil
}

// mysqlNativeHash is MySQL's PASSWORD(): "*" and the upper-case hex of
// SHA1(SHA1(password)).
func mysqlNativeHash(password string) string {
	a := sha1.Sum([]byte(password))
	b := sha1.Sum(a[:])
	return "*" + strings.ToUpper(hex.EncodeToString(b[:]))
}

func (m *myCall) cmpVersion(server, v string) int { return looseCmp(server, v, false) }

// passwordColumn is the password_column argument when given, else
// Salt's __password_column: Password where mysql.user has it, else
// authentication_string (cached in __context__).
func (m *myCall) passwordColumn(given any) (string, error) {
	if s := execmod.String(given); s != "" {
		return s, nil
	}
	if v, ok := m.ctx.Cache().Get("mysql.password_column").(string); ok {
		return v, nil
	}
	c := m.connect()
	if c == nil {
		return "Password", nil
	}
	defer c.Close()
	res, err := c.Query(bg, false, "SELECT column_name from information_schema.COLUMNS WHERE table_schema=? and table_name=? and column_name=?",
		"mysql", "user", "Password")
	if err != nil {
		// Salt does not catch errors here.
		return "", pyErr(err)
	}
	col := "authentication_string"
	if len(res.Rows) > 0 {
		col = "Password"
	}
	m.ctx.Cache().Store("mysql.password_column", col)
	return col, nil
}

// authPlugin is Salt's __get_auth_plugin.
func (m *myCall) authPlugin(user, host string) (string, error) {
	c := m.connect()
	if c == nil {
		return "", nil
	}
	defer c.Close()
	res, err := c.Query(bg, false, "SELECT plugin FROM mysql.user WHERE User=? and Host=?", user, host)
	if err != nil {
		if e := m.caught(err); e != nil {
			return "", e
		}
		return "mysql_native_password", nil
	}
	if len(res.Rows) == 0 {
		return "mysql_native_password", nil
	}
	return execmod.String(res.Rows[0][0]), nil
}

// versionOrRetry is the opening of user_exists, user_create and
// user_chpass: the server version, asked again with the user's own
// password when the first try fails (the password may already have been
// changed). ok is false when that fails too.
func (m *myCall) versionOrRetry(password any) (string, *myCall, bool, error) {
	v, err := m.version()
	if err != nil {
		return "", m, false, err
	}
	if v == "" && value.Truthy(password) {
		m.ctx.Cache().Delete("mysql.error")
		m = m.with("connection_pass", password)
		if v, err = m.version(); err != nil || v == "" {
			return "", m, false, err
		}
	}
	return v, m, true, nil
}

type userArgs struct {
	user, host, password, passwordHash   any
	passwordless, unixSocket, passColumn any
}

func (m *myCall) userExists(u userArgs) (bool, error) {
	user, host := execmod.String(u.user), execmod.String(u.host)
	server, m, ok, err := m.versionOrRetry(u.password)
	if err != nil || !ok {
		return false, err
	}
	c := m.connect()
	if c == nil && value.Truthy(u.password) {
		if e, _ := m.lastError().(string); strings.HasPrefix(e, "MySQL Error 1045: Access denied for user '"+user+"'@") {
			m.ctx.Cache().Delete("mysql.error")
			m = m.with("connection_pass", u.password)
			c = m.connect()
		}
	}
	if c == nil {
		return false, nil
	}
	defer c.Close()
	col, err := m.passwordColumn(u.passColumn)
	if err != nil {
		return false, err
	}
	plugin, err := m.authPlugin(user, host)
	if err != nil {
		return false, err
	}
	q := "SELECT User,Host FROM mysql.user WHERE User = ? AND Host = ?"
	qa := []any{user, host}
	mariadb := strings.Contains(server, "MariaDB")
	switch {
	case value.Truthy(u.passwordless):
		if value.Truthy(u.unixSocket) {
			q += " AND plugin=?"
			if mariadb {
				qa = append(qa, "unix_socket")
			} else {
				qa = append(qa, "auth_socket")
			}
		} else {
			q += " AND " + col + " = ''"
		}
	case value.Truthy(u.password):
		pw := value.Str(u.password)
		switch {
		case mariadb || m.cmpVersion(server, "8.0.11") < 0:
			q += " AND " + col + " = PASSWORD(?)"
			qa = append(qa, pw)
		case plugin == "mysql_native_password":
			q += " AND " + col + " = ?"
			qa = append(qa, mysqlNativeHash(pw))
		default:
			m.setError("Unable to verify password.")
		}
	case value.Truthy(u.passwordHash):
		q += " AND " + col + " = ?"
		qa = append(qa, execmod.String(u.passwordHash))
	}
	res, err := c.Query(bg, false, q, qa...)
	if err != nil {
		return false, m.caught(err)
	}
	return len(res.Rows) == 1, nil
}

func userParams(extra ...execmod.Param) []execmod.Param {
	return append([]execmod.Param{execmod.Req("user"), execmod.Opt("host", "localhost"), execmod.Opt("password", nil),
		execmod.Opt("password_hash", nil)}, extra...)
}

func myUserExists(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "user_exists", args, kwargs, userParams(execmod.Opt("passwordless", false),
		execmod.Opt("unix_socket", false), execmod.Opt("password_column", nil))...)
	if err != nil {
		return nil, err
	}
	return m.userExists(userArgs{user: a["user"], host: a["host"], password: a["password"], passwordHash: a["password_hash"],
		passwordless: a["passwordless"], unixSocket: a["unix_socket"], passColumn: a["password_column"]})
}

func myUserInfo(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "user_info", args, kwargs, execmod.Req("user"), execmod.Opt("host", "localhost"))
	if err != nil {
		return nil, err
	}
	c := m.connect()
	if c == nil {
		return false, nil
	}
	defer c.Close()
	res, err := c.Query(bg, false, "SELECT * FROM mysql.user WHERE User = ? AND Host = ?", execmod.String(a["user"]), execmod.String(a["host"]))
	if err != nil {
		return false, m.caught(err)
	}
	rows := rowsAsMaps(res)
	if rows.Len() == 0 {
		return nil, nil
	}
	return rows.Items[0], nil
}

// errUnboundErr is the UnboundLocalError Salt's user functions raise when
// unix_socket is asked for a host other than localhost.
var errUnboundErr = &myPyError{class: "UnboundLocalError", msg: "cannot access local variable 'err' where it is not associated with a value"}

func myUserCreate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "user_create", args, kwargs, userParams(execmod.Opt("allow_passwordless", false),
		execmod.Opt("unix_socket", false), execmod.Opt("password_column", nil), execmod.Opt("auth_plugin", "mysql_native_password"))...)
	if err != nil {
		return nil, err
	}
	user, host := execmod.String(a["user"]), execmod.String(a["host"])
	server, m, ok, err := m.versionOrRetry(a["password"])
	if err != nil || !ok {
		return false, err
	}
	if exists, err := m.userExists(userArgs{user: a["user"], host: a["host"]}); err != nil || exists {
		return false, err
	}
	c := m.connect()
	if c == nil {
		return false, nil
	}
	defer c.Close()
	col, err := m.passwordColumn(a["password_column"])
	if err != nil {
		return false, err
	}
	mariadb := strings.Contains(server, "MariaDB")
	modern := !mariadb && m.cmpVersion(server, "8.0.11") >= 0
	q := "CREATE USER ?@?"
	qa := []any{user, host}
	if value.Truthy(a["unix_socket"]) {
		plugin, via := "auth_socket", " IDENTIFIED WITH auth_socket"
		if mariadb {
			plugin, via = "unix_socket", " IDENTIFIED VIA unix_socket"
		}
		st, err := m.pluginStatus(plugin)
		if err != nil {
			return false, err
		}
		if !value.Truthy(st) {
			m.setError("The " + plugin + " plugin is not enabled.")
			return false, nil
		}
		if host != "localhost" {
			return nil, errUnboundErr
		}
		q += via
	} else if !value.Truthy(a["allow_passwordless"]) {
		switch {
		case a["password"] != nil:
			if modern {
				q += " IDENTIFIED WITH ? BY ?"
				qa = append(qa, execmod.String(a["auth_plugin"]))
			} else {
				q += " IDENTIFIED BY ?"
			}
			qa = append(qa, value.Str(a["password"]))
		case a["password_hash"] != nil:
			if modern {
				q += " IDENTIFIED WITH ? AS ?"
				qa = append(qa, execmod.String(a["auth_plugin"]))
			} else {
				q += " IDENTIFIED BY PASSWORD ?"
			}
			qa = append(qa, execmod.String(a["password_hash"]))
		default:
			return false, nil
		}
	}
	if _, err := c.Exec(bg, q, qa...); err != nil {
		return false, m.caught(err)
	}
	return m.userExists(userArgs{user: a["user"], host: a["host"], password: a["password"], passwordHash: a["password_hash"], passColumn: col})
}

func myUserChpass(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "user_chpass", args, kwargs, userParams(execmod.Opt("allow_passwordless", false),
		execmod.Opt("unix_socket", nil), execmod.Opt("password_column", nil))...)
	if err != nil {
		return nil, err
	}
	user, host := execmod.String(a["user"]), execmod.String(a["host"])
	server, m, ok, err := m.versionOrRetry(a["password"])
	if err != nil || !ok {
		return false, err
	}
	if exists, err := m.userExists(userArgs{user: a["user"], host: a["host"]}); err != nil || !exists {
		return false, err
	}
	c := m.connect()
	if c == nil {
		return false, nil
	}
	defer c.Close()
	col, err := m.passwordColumn(a["password_column"])
	if err != nil {
		return false, err
	}
	plugin, err := m.authPlugin(user, host)
	if err != nil {
		return false, err
	}
	mariadb := strings.Contains(server, "MariaDB")
	modern := m.cmpVersion(server, "8.0.11") >= 0
	if mariadb {
		modern = m.cmpVersion(server, "10.4") >= 0
	}
	var passSQL string
	var pa []any
	switch {
	case a["password"] != nil:
		passSQL, pa = "PASSWORD(?)", []any{value.Str(a["password"])}
		if !mariadb && modern {
			passSQL = "?"
		}
	case a["password_hash"] != nil:
		passSQL, pa = "?", []any{execmod.String(a["password_hash"])}
	case !value.Truthy(a["allow_passwordless"]):
		// Salt's helper returns False, which its caller cannot unpack.
		return nil, &myPyError{class: "TypeError", msg: "cannot unpack non-iterable bool object"}
	default:
		passSQL = "''"
	}
	var q string
	var qa []any
	update := func(extra string, extraArgs ...any) {
		q = "UPDATE mysql.user SET " + col + "=" + passSQL + extra + " WHERE User=? AND Host = ?;"
		qa = append(append(append([]any(nil), pa...), extraArgs...), user, host)
	}
	switch {
	case mariadb && modern:
		q = "ALTER USER ?@? IDENTIFIED VIA ? USING " + passSQL
		qa = append([]any{user, host, plugin}, pa...)
	case modern:
		q = "ALTER USER ?@? IDENTIFIED WITH ? "
		qa = []any{user, host, plugin}
		if a["password"] != nil {
			q += "BY ?;"
			qa = append(qa, pa...)
		} else if a["password_hash"] != nil {
			q += "AS ?;"
			qa = append(qa, pa...)
		}
	default:
		update("")
	}
	if value.Truthy(a["allow_passwordless"]) && value.Truthy(a["unix_socket"]) && host == "localhost" {
		name := "auth_socket"
		if mariadb {
			name = "unix_socket"
		}
		st, err := m.pluginStatus(name)
		if err != nil {
			return false, err
		}
		if !value.Truthy(st) {
			// Salt goes on with the query False, which fails to run.
			m.setError("The " + name + " plugin is not enabled.")
			return nil, &myPyError{class: "TypeError", msg: "object of type 'bool' has no len()"}
		}
		if !mariadb && modern {
			q, qa = "ALTER USER ?@? IDENTIFIED WITH ? AS ?;", []any{user, host, name, user}
		} else {
			update(", plugin=?", name)
		}
	}
	n, err := c.Exec(bg, q, qa...)
	if err != nil {
		return false, m.caught(err)
	}
	if modern || n > 0 {
		if _, err := c.Exec(bg, "FLUSH PRIVILEGES;"); err != nil {
			return nil, m.caught(err)
		}
		return true, nil
	}
	return false, nil
}

func myUserRemove(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "user_remove", args, kwargs, execmod.Req("user"), execmod.Opt("host", "localhost"))
	if err != nil {
		return nil, err
	}
	user, host := execmod.String(a["user"]), execmod.String(a["host"])
	exists, err := m.userExists(userArgs{user: a["user"], host: a["host"]})
	if err != nil {
		return false, err
	}
	if !exists {
		m.setError("User '" + user + "'@'" + host + "' does not exists")
		return false, nil
	}
	c := m.connect()
	if c == nil {
		return false, nil
	}
	defer c.Close()
	if _, err := c.Exec(bg, "DROP USER ?@?", user, host); err != nil {
		return false, m.caught(err)
	}
	exists, err = m.userExists(userArgs{user: a["user"], host: a["host"]})
	return !exists && err == nil, err
}

func tokensMap(t *mysqlconn.Tokens) *value.Map {
	g := make([]any, len(t.Grant))
	for i, s := range t.Grant {
		g[i] = s
	}
	return value.MapOf("user", t.User, "host", t.Host, "grant", value.NewList(g...), "database", t.Database)
}

// pyErr is the Python exception a failed statement raises where Salt
// does not catch it.
func pyErr(err error) error {
	var me *mysqlconn.Error
	if errors.As(err, &me) {
		return &myPyError{class: me.Class, msg: me.PythonText()}
	}
	return err
}

// tokenErr is the Python exception of a failed tokenizing.
func tokenErr(err error) error {
	var te *mysqlconn.TokenError
	if errors.As(err, &te) {
		return &myPyError{class: te.Class, msg: te.Msg}
	}
	return err
}

func myTokenizeGrant(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("tokenize_grant", args, kwargs, execmod.Req("grant"))
	if err != nil {
		return nil, err
	}
	t, err := mysqlconn.Tokenize(execmod.String(v[0]))
	if err != nil {
		return nil, tokenErr(err)
	}
	return tokensMap(t), nil
}

// userGrants is Salt's user_grants: the grant lines (IDENTIFIED BY parts
// cut), or nil when the user does not exist or the server fails.
func (m *myCall) userGrants(user, host any) ([]string, error) {
	exists, err := m.userExists(userArgs{user: user, host: host})
	if err != nil || !exists {
		return nil, err
	}
	c := m.connect()
	if c == nil {
		return nil, nil
	}
	defer c.Close()
	res, err := c.Query(bg, false, "SHOW GRANTS FOR ?@?", execmod.String(user), execmod.String(host))
	if err != nil {
		return nil, m.caught(err)
	}
	out := []string{}
	for _, r := range res.Rows {
		line := execmod.String(r[0])
		tmp, _, _ := strings.Cut(line, " IDENTIFIED BY")
		if strings.Contains(line, "WITH GRANT OPTION") && !strings.Contains(tmp, "WITH GRANT OPTION") {
			tmp += " WITH GRANT OPTION"
		}
		out = append(out, tmp)
	}
	return out, nil
}

func myUserGrants(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "user_grants", args, kwargs, execmod.Req("user"), execmod.Opt("host", "localhost"))
	if err != nil {
		return nil, err
	}
	g, err := m.userGrants(a["user"], a["host"])
	if err != nil || g == nil {
		return false, err
	}
	out := value.NewList()
	for _, s := range g {
		out.Append(s)
	}
	return out, nil
}

func grantParams(extra ...execmod.Param) []execmod.Param {
	return append([]execmod.Param{execmod.Req("grant"), execmod.Req("database"), execmod.Req("user"), execmod.Opt("host", "localhost"),
		execmod.Opt("grant_option", false), execmod.Opt("escape", true)}, extra...)
}

// sslOptions reads a grant's ssl_option: a list of one-key mappings.
func sslOptions(v any) []mysqlconn.SSLOption {
	l, ok := v.(*value.List)
	if !ok {
		return nil
	}
	var out []mysqlconn.SSLOption
	for _, it := range l.Items {
		if mp, ok := it.(*value.Map); ok && mp.Len() > 0 {
			k := mp.Keys()[0]
			v, _ := mp.Get(k)
			out = append(out, mysqlconn.SSLOption{Key: execmod.String(k), Value: v})
		}
	}
	return out
}

func (m *myCall) grantExists(grant, database, user, host string, grantOption, escape bool) (bool, error) {
	server, err := m.version()
	if err != nil || server == "" {
		return false, err
	}
	if strings.Contains(strings.ToUpper(grant), "ALL") {
		if m.cmpVersion(server, "8.0") >= 0 && !strings.Contains(server, "MariaDB") && database == "*.*" {
			grant = mysqlconn.AllPrivilegesMySQL8
		} else {
			grant = "ALL PRIVILEGES"
		}
	}
	target, err := mysqlconn.GenerateGrant(grant, database, user, host, grantOption, escape, nil, value.Truthy)
	if err != nil {
		return false, nil
	}
	grants, err := m.userGrants(user, host)
	if err != nil || grants == nil {
		return false, err
	}
	var order []string
	byDB := map[string]*mysqlconn.Tokens{}
	for _, g := range grants {
		t, err := mysqlconn.Tokenize(g)
		if err != nil {
			return false, tokenErr(err)
		}
		t.Grant = mysqlconn.ResolveAliases(t.Grant, server, func(a, b string) int { return looseCmp(a, b, false) })
		if prev, ok := byDB[t.Database]; ok {
			prev.Grant = append(prev.Grant, t.Grant...)
			continue
		}
		byDB[t.Database] = t
		order = append(order, t.Database)
	}
	tt, err := mysqlconn.TokenizeGenerated(target)
	if err != nil {
		return false, tokenErr(err)
	}
	tt.Grant = mysqlconn.ResolveAliases(tt.Grant, server, func(a, b string) int { return looseCmp(a, b, false) })
	clean := strings.NewReplacer(`"`, "", `\`, "", "`", "")
	for _, db := range order {
		g := byDB[db]
		all := true
		for _, want := range tt.Grant {
			found := false
			for _, have := range g.Grant {
				found = found || have == want
			}
			all = all && found
		}
		if clean.Replace(g.User) == clean.Replace(tt.User) && clean.Replace(g.Database) == clean.Replace(tt.Database) &&
			clean.Replace(g.Host) == clean.Replace(tt.Host) && all {
			return true, nil
		}
	}
	return false, nil
}

func myGrantExists(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "grant_exists", args, kwargs, grantParams()...)
	if err != nil {
		return nil, err
	}
	return m.grantExists(execmod.String(a["grant"]), execmod.String(a["database"]), execmod.String(a["user"]), execmod.String(a["host"]),
		value.Truthy(a["grant_option"]), value.Truthy(a["escape"]))
}

func myGrantAdd(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "grant_add", args, kwargs, grantParams(execmod.Opt("ssl_option", false))...)
	if err != nil {
		return nil, err
	}
	c := m.connect()
	if c == nil {
		return false, nil
	}
	defer c.Close()
	grant, database := strings.TrimSpace(execmod.String(a["grant"])), execmod.String(a["database"])
	user, host := execmod.String(a["user"]), execmod.String(a["host"])
	g, err := mysqlconn.GenerateGrant(grant, database, user, host, value.Truthy(a["grant_option"]), value.Truthy(a["escape"]),
		sslOptions(a["ssl_option"]), value.Truthy)
	if err != nil {
		return false, nil
	}
	if _, err := c.Exec(bg, g.SQL, g.User, g.Host); err != nil {
		return false, m.caught(err, "ProgrammingError")
	}
	return m.grantExists(grant, database, user, host, value.Truthy(a["grant_option"]), value.Truthy(a["escape"]))
}

func myGrantRevoke(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "grant_revoke", args, kwargs, grantParams()...)
	if err != nil {
		return nil, err
	}
	c := m.connect()
	if c == nil {
		return false, nil
	}
	defer c.Close()
	grant, err := mysqlconn.NormalizeGrant(execmod.String(a["grant"]))
	if err != nil {
		msg := err.Error()
		_, msg, _ = strings.Cut(msg, ": ")
		return nil, &myPyError{class: "Exception", msg: msg}
	}
	grantOption := value.Truthy(a["grant_option"])
	database, user, host := execmod.String(a["database"]), execmod.String(a["user"]), execmod.String(a["host"])
	if _, err := c.Exec(bg, mysqlconn.RevokeSQL(grant, database, grantOption), user, host); err != nil {
		return false, m.caught(err)
	}
	if grantOption {
		grant += ", GRANT OPTION"
	}
	exists, err := m.grantExists(grant, database, user, host, grantOption, value.Truthy(a["escape"]))
	return !exists && err == nil, err
}
