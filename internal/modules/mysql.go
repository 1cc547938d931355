package modules

// mysql.go is salt/modules/mysql.py: MySQL and MariaDB through
// go-sql-driver/mysql (internal/system/mysqlconn), one connection per
// call as Salt's _connect makes one with PyMySQL. Connection parameters
// come from the connection_* keyword arguments, else from the mysql.*
// options read through config.option. Failures Salt catches
// (OperationalError) are stored in __context__["mysql.error"], where the
// mysql_* states find them; the others are raised. The user and grant
// functions are in mysql_users.go, file_query and free_slave in
// mysql_file.go.

import (
	"context"
	"errors"
	"math"
	"strings"
	"time"

	"brine/internal/execmod"
	"brine/internal/system/mysqlconn"
	"brine/internal/value"
)

func init() {
	reg := func(name string, f execmod.Func, doc string) { execmod.Register("mysql."+name, f, doc) }
	reg("version", myVersion, "Return the server's version (SELECT VERSION()), or \"\" when it cannot be read.")
	reg("status", myStatus, "Return SHOW STATUS as a mapping.")
	reg("query", myQuery, "Run a query in a database: its rows, or the rows it affected, with the time it took.")
	reg("slave_lag", mySlaveLag, "Seconds a replica lags behind its master (-1 not a replica, -2 broken, -3 error).")
	reg("db_list", myDBList, "Return the databases (SHOW DATABASES).")
	reg("db_get", myDBGet, "Return the character set and collation of a database.")
	reg("alter_db", myAlterDB, "Change the character set and/or collation of a database.")
	reg("db_tables", myDBTables, "Return the tables of a database (False when it does not exist).")
	reg("db_exists", myDBExists, "True when the database exists.")
	reg("db_create", myDBCreate, "Create a database (character_set, collate).")
	reg("db_remove", myDBRemove, "Drop a database.")
	reg("db_check", myTableOp("CHECK"), "CHECK TABLE every table of a database, or one table.")
	reg("db_repair", myTableOp("REPAIR"), "REPAIR TABLE every table of a database, or one table.")
	reg("db_optimize", myTableOp("OPTIMIZE"), "OPTIMIZE TABLE every table of a database, or one table.")
	reg("quote_identifier", myQuoteIdentifier, "Quote an identifier as Salt does (backquotes, '%' doubled; for_grants: '_' escaped).")
	reg("processlist", myProcesslist, "Return SHOW FULL PROCESSLIST as a list of mappings.")
	reg("get_master_status", myRowsFirst("SHOW MASTER STATUS"), "Return SHOW MASTER STATUS as a mapping ([] when not a master).")
	reg("get_slave_status", myRowsFirst("SHOW SLAVE STATUS"), "Return SHOW SLAVE STATUS as a mapping ([] when not a replica).")
	reg("showvariables", myRowsAll("SHOW VARIABLES"), "Return SHOW VARIABLES as a list of mappings.")
	reg("showglobal", myRowsAll("SHOW GLOBAL VARIABLES"), "Return SHOW GLOBAL VARIABLES as a list of mappings.")
	reg("plugins_list", myPluginsList, "Return the plugins and their status (SHOW PLUGINS).")
	reg("plugin_status", myPluginStatus, "Return a plugin's status (ACTIVE, ...) or \"\".")
	reg("plugin_add", myPluginAdd, "Install a plugin (INSTALL PLUGIN name SONAME ...).")
	reg("plugin_remove", myPluginRemove, "Uninstall a plugin.")
	reg("verify_login", myVerifyLogin, "True when user (and password) can log in.")
}

// myPyError is a Python exception that Salt's function does not catch.
type myPyError struct{ class, msg string }

func (e *myPyError) Error() string { return e.msg }

// SaltExceptionClass names the Python exception.
func (e *myPyError) SaltExceptionClass() string { return e.class }

// myCall is one call's connection arguments (Salt's **connection_args).
type myCall struct {
	ctx *execmod.Context
	kw  *value.Map
}

// myBind binds a call: the values by name and the connection arguments.
func myBind(ctx *execmod.Context, fun string, args []any, kwargs *value.Map, params ...execmod.Param) (map[string]any, *myCall, error) {
	v, rest, err := execmod.Bind(fun, args, kwargs, params...)
	if err != nil {
		return nil, nil, err
	}
	m := make(map[string]any, len(params))
	for i, p := range params {
		m[p.Name] = v[i]
	}
	return m, &myCall{ctx: ctx, kw: rest}, nil
}

// with returns a copy of the connection arguments with k set to v.
func (m *myCall) with(k string, v any) *myCall {
	kw := value.NewMap(m.kw.Len() + 1)
	m.kw.Range(func(a, b any) bool { kw.Set(a, b); return true })
	kw.Set(k, v)
	return &myCall{ctx: m.ctx, kw: kw}
}

func (m *myCall) setError(msg string) { m.ctx.Cache().Store("mysql.error", msg) }

func (m *myCall) lastError() any { return m.ctx.Cache().Get("mysql.error") }

// options merges the connection arguments with the mysql.* options as
// Salt's _connect does (a connection_default_file argument turns the
// options off, except the charset).
func (m *myCall) options() mysqlconn.Options {
	_, hasFile := m.kw.Get("connection_default_file")
	get := func(name string, opts bool) (any, bool) {
		if v, ok := m.kw.Get("connection_" + name); ok {
			return v, true
		}
		if !opts {
			return nil, false
		}
		kw := value.NewMap(1)
		kw.Set("default", nil)
		v, err := m.ctx.Call("config.option", []any{"mysql." + name}, kw)
		if err != nil || v == nil {
			return nil, false
		}
		return v, true
	}
	str := func(name string, opts bool) string {
		v, ok := get(name, opts)
		if !ok || !value.Truthy(v) {
			return ""
		}
		return execmod.String(v)
	}
	o := mysqlconn.Options{
		Host: str("host", !hasFile), User: str("user", !hasFile), Port: str("port", !hasFile), DB: str("db", !hasFile),
		Socket: str("unix_socket", !hasFile), DefaultFile: str("default_file", !hasFile), DefaultGroup: str("default_group", !hasFile),
		Charset: str("charset", true),
	}
	// Of PyMySQL's client flags, those the driver can set; Salt logs and
	// ignores names it does not know.
	if l, ok := m.kw.Get("client_flags"); ok {
		if fl, ok := l.(*value.List); ok {
			for _, f := range fl.Items {
				switch f {
				case "multi_statements":
					o.MultiStatements = true
				case "found_rows":
					o.FoundRows = true
				}
			}
		}
	}
	if v, ok := get("pass", !hasFile); ok && value.Truthy(v) {
		p := execmod.String(v)
		o.Pass = &p
	}
	return o
}

// connect is Salt's _connect: nil (and mysql.error set) when the server
// cannot be reached.
func (m *myCall) connect() *mysqlconn.Conn {
	c, err := m.connectDB("")
	if err != nil {
		return nil
	}
	return c
}

func (m *myCall) connectDB(db string) (*mysqlconn.Conn, error) {
	o := m.options()
	if db != "" {
		o.DB = db
	}
	c, err := mysqlconn.Open(context.Background(), o)
	if err != nil {
		m.setError(err.Error())
		return nil, err
	}
	return c, nil
}

// caught handles a failed statement as Salt's `except OperationalError`
// does: stored as mysql.error (nil returned), or, for the errors Salt
// does not catch, returned as the Python exception. Extra classes caught
// (ProgrammingError for grant_add) may be named.
func (m *myCall) caught(err error, also ...string) error {
	var me *mysqlconn.Error
	if !errors.As(err, &me) {
		return err
	}
	ok := me.Operational()
	for _, c := range also {
		ok = ok || me.Class == c
	}
	if ok {
		m.setError(me.Error())
		return nil
	}
	return &myPyError{class: me.Class, msg: me.PythonText()}
}

// rows runs q and returns its rows as mappings of column to value.
func rowsAsMaps(res *mysqlconn.Result) *value.List {
	out := value.NewList()
	for _, r := range res.Rows {
		row := value.NewMap(len(res.Columns))
		for i, c := range res.Columns {
			row.Set(c, r[i])
		}
		out.Append(row)
	}
	return out
}

var bg = context.Background()

func myVersion(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	_, m, err := myBind(ctx, "version", args, kwargs)
	if err != nil {
		return nil, err
	}
	return m.version()
}

// version is Salt's version(): cached in __context__.
func (m *myCall) version() (string, error) {
	if v, ok := m.ctx.Cache().Load("mysql.version"); ok {
		s, _ := v.(string)
		return s, nil
	}
	c := m.connect()
	if c == nil {
		return "", nil
	}
	defer c.Close()
	res, err := c.Query(bg, false, "SELECT VERSION()")
	if err != nil {
		return "", m.caught(err)
	}
	if len(res.Rows) == 0 {
		return "", nil
	}
	v := execmod.String(res.Rows[0][0])
	m.ctx.Cache().Store("mysql.version", v)
	return v, nil
}

func myStatus(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	_, m, err := myBind(ctx, "status", args, kwargs)
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(0)
	c := m.connect()
	if c == nil {
		return ret, nil
	}
	defer c.Close()
	res, err := c.Query(bg, false, "SHOW STATUS")
	if err != nil {
		return ret, m.caught(err)
	}
	for _, r := range res.Rows {
		ret.Set(r[0], r[1])
	}
	return ret, nil
}

// pyRoundStr is str(round(x, n)).
func pyRoundStr(x float64, n int) string {
	p := math.Pow(10, float64(n))
	return value.Str(math.RoundToEven(x*p) / p)
}

func myQuery(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "query", args, kwargs, execmod.Req("database"), execmod.Req("query"))
	if err != nil {
		return nil, err
	}
	q := execmod.String(a["query"])
	m = m.with("connection_db", a["database"])
	c := m.connect()
	if c == nil {
		return value.NewMap(0), nil
	}
	defer c.Close()
	start := time.Now()
	upper := strings.ToUpper(strings.TrimSpace(q))
	isSelect := strings.HasPrefix(upper, "SELECT") || strings.HasPrefix(upper, "SHOW") || strings.HasPrefix(upper, "DESC")
	var res *mysqlconn.Result
	var affected int64
	switch {
	case isSelect:
		res, err = c.Query(bg, true, q)
	case returnsRows(upper):
		// Salt reports the rows of other statements that return some
		// (PyMySQL's execute() counts them) as rows affected.
		var r *mysqlconn.Result
		if r, err = c.Query(bg, true, q); err == nil {
			affected = int64(len(r.Rows))
		}
	default:
		affected, err = c.Exec(bg, q)
	}
	if err != nil {
		if e := m.caught(err); e != nil {
			return nil, e
		}
		return false, nil
	}
	elapsed := time.Since(start).Seconds()
	human := pyRoundStr(elapsed*1000, 1) + "ms"
	if elapsed >= 0.2 {
		human = pyRoundStr(elapsed, 2) + "s"
	}
	ret := value.MapOf("query time", value.MapOf("human", human, "raw", pyRoundStr(elapsed, 5)))
	if !isSelect {
		ret.Set("rows affected", affected)
		return ret, nil
	}
	cols := make(value.Tuple, len(res.Columns))
	for i, c := range res.Columns {
		cols[i] = c
	}
	results := make(value.Tuple, len(res.Rows))
	for i, r := range res.Rows {
		results[i] = value.Tuple(r)
	}
	ret.Set("rows returned", int64(len(res.Rows)))
	ret.Set("columns", cols)
	ret.Set("results", results)
	return ret, nil
}

// returnsRows reports whether a statement Salt does not take for a
// SELECT returns rows (WITH ... SELECT, CALL, EXPLAIN, table maintenance).
func returnsRows(upper string) bool {
	for _, p := range []string{"WITH", "CALL", "VALUES", "TABLE", "EXPLAIN", "ANALYZE", "CHECK", "REPAIR", "OPTIMIZE", "HELP", "("} {
		if strings.HasPrefix(upper, p) {
			return true
		}
	}
	return false
}

func mySlaveLag(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	_, m, err := myBind(ctx, "slave_lag", args, kwargs)
	if err != nil {
		return nil, err
	}
	c := m.connect()
	if c == nil {
		return int64(-3), nil
	}
	defer c.Close()
	res, err := c.Query(bg, false, "show slave status")
	if err != nil {
		if e := m.caught(err); e != nil {
			return nil, e
		}
		return int64(-3), nil
	}
	if len(res.Rows) == 0 {
		return int64(-1), nil
	}
	row := rowsAsMaps(res).Items[0].(*value.Map)
	if v, _ := row.Get("Slave_IO_Running"); v == "Yes" {
		lag, _ := row.Get("Seconds_Behind_Master")
		return lag, nil
	}
	return int64(-2), nil
}

// rows runs the query q on a connection of its own: nil when there is no
// connection (its error is stored) or the query fails (the error caught
// as Salt catches it), so that callers answer Salt's empty list.
func (m *myCall) rows(q string, args ...any) (*mysqlconn.Result, error) {
	c := m.connect()
	if c == nil {
		return nil, nil
	}
	defer c.Close()
	res, err := c.Query(bg, false, q, args...)
	if err != nil {
		return nil, m.caught(err)
	}
	return res, nil
}

// firstColumn runs q and returns its first column.
func (m *myCall) firstColumn(q string, args ...any) (*value.List, error) {
	res, err := m.rows(q, args...)
	if res == nil {
		return value.NewList(), err
	}
	out := value.NewList()
	for _, r := range res.Rows {
		out.Append(r[0])
	}
	return out, nil
}

func myDBList(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	_, m, err := myBind(ctx, "db_list", args, kwargs)
	if err != nil {
		return nil, err
	}
	return m.firstColumn("SHOW DATABASES")
}

// dbGet is Salt's db_get: the mapping, or an empty list when the server
// cannot be asked.
func (m *myCall) dbGet(name string) (any, error) {
	res, err := m.rows("SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM INFORMATION_SCHEMA.SCHEMATA WHERE SCHEMA_NAME=?;", name)
	if res == nil {
		return value.NewList(), err
	}
	if len(res.Rows) == 0 {
		return value.NewMap(0), nil
	}
	return value.MapOf("character_set", res.Rows[0][0], "collate", res.Rows[0][1]), nil
}

func myDBGet(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "db_get", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	return m.dbGet(execmod.String(a["name"]))
}

func myAlterDB(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "alter_db", args, kwargs, execmod.Req("name"), execmod.Opt("character_set", nil), execmod.Opt("collate", nil))
	if err != nil {
		return nil, err
	}
	name := execmod.String(a["name"])
	c := m.connect()
	if c == nil {
		return value.NewList(), nil
	}
	defer c.Close()
	existing, err := m.dbGet(name)
	if err != nil {
		return nil, err
	}
	pick := func(arg, key string) string {
		if value.Truthy(a[arg]) {
			return execmod.String(a[arg])
		}
		if em, ok := existing.(*value.Map); ok {
			v, _ := em.Get(key)
			return value.Str(v)
		}
		return "None"
	}
	q := "ALTER DATABASE " + mysqlconn.QuoteIdentifier(name, false) + " CHARACTER SET " + pick("character_set", "character_set") +
		" COLLATE " + pick("collate", "collate") + ";"
	n, err := c.Exec(bg, q)
	if err != nil {
		return false, m.caught(err)
	}
	return n > 0, nil
}

func myDBTables(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "db_tables", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	name := execmod.String(a["name"])
	ok, err := m.dbExists(name)
	if err != nil || !ok {
		return false, err
	}
	return m.firstColumn("SHOW TABLES IN " + mysqlconn.QuoteIdentifier(name, false))
}

func (m *myCall) dbExists(name string) (bool, error) {
	c := m.connect()
	if c == nil {
		return false, nil
	}
	defer c.Close()
	res, err := c.Query(bg, false, "SHOW DATABASES LIKE ?;", name)
	if err != nil {
		return false, m.caught(err)
	}
	return len(res.Rows) == 1, nil
}

func myDBExists(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "db_exists", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	return m.dbExists(execmod.String(a["name"]))
}

func myDBCreate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "db_create", args, kwargs, execmod.Req("name"), execmod.Opt("character_set", nil), execmod.Opt("collate", nil))
	if err != nil {
		return nil, err
	}
	name := execmod.String(a["name"])
	if ok, err := m.dbExists(name); err != nil || ok {
		return false, err
	}
	c := m.connect()
	if c == nil {
		return false, nil
	}
	defer c.Close()
	q := "CREATE DATABASE IF NOT EXISTS " + mysqlconn.QuoteIdentifier(name, false)
	var qa []any
	if a["character_set"] != nil {
		q += " CHARACTER SET ?"
		qa = append(qa, execmod.String(a["character_set"]))
	}
	if a["collate"] != nil {
		q += " COLLATE ?"
		qa = append(qa, execmod.String(a["collate"]))
	}
	n, err := c.Exec(bg, q+";", qa...)
	if err != nil {
		return false, m.caught(err)
	}
	return n > 0, nil
}

func myDBRemove(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "db_remove", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	name := execmod.String(a["name"])
	if ok, err := m.dbExists(name); err != nil || !ok {
		return false, err
	}
	if name == "mysql" || name == "information_scheme" {
		return false, nil
	}
	c := m.connect()
	if c == nil {
		return false, nil
	}
	defer c.Close()
	if _, err := c.Exec(bg, "DROP DATABASE "+mysqlconn.QuoteIdentifier(name, false)+";"); err != nil {
		return false, m.caught(err)
	}
	ok, err := m.dbExists(name)
	return !ok && err == nil, err
}

// myTableOp is db_check, db_repair and db_optimize: OP TABLE on one table
// (its rows) or on every table of the database (a list of those).
func myTableOp(op string) execmod.Func {
	fun := map[string]string{"CHECK": "db_check", "REPAIR": "db_repair", "OPTIMIZE": "db_optimize"}[op]
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		a, m, err := myBind(ctx, fun, args, kwargs, execmod.Req("name"), execmod.Opt("table", nil))
		if err != nil {
			return nil, err
		}
		name := execmod.String(a["name"])
		one := func(table string) (any, error) {
			c := m.connect()
			if c == nil {
				return value.NewMap(0), nil
			}
			defer c.Close()
			res, err := c.Query(bg, false, op+" TABLE "+mysqlconn.QuoteIdentifier(name, false)+"."+mysqlconn.QuoteIdentifier(table, false))
			if err != nil {
				return nil, pyErr(err)
			}
			return rowsAsMaps(res), nil
		}
		if a["table"] != nil {
			return one(execmod.String(a["table"]))
		}
		ok, err := m.dbExists(name)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &myPyError{class: "TypeError", msg: "'bool' object is not iterable"}
		}
		tables, err := m.firstColumn("SHOW TABLES IN " + mysqlconn.QuoteIdentifier(name, false))
		if err != nil {
			return nil, err
		}
		out := value.NewList()
		for _, t := range tables.Items {
			r, err := one(execmod.String(t))
			if err != nil {
				return nil, err
			}
			out.Append(r)
		}
		return out, nil
	}
}

func myQuoteIdentifier(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("quote_identifier", args, kwargs, execmod.Req("identifier"), execmod.Opt("for_grants", false))
	if err != nil {
		return nil, err
	}
	return mysqlconn.SaltQuoteIdentifier(execmod.String(v[0]), value.Truthy(v[1])), nil
}

func myProcesslist(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	_, m, err := myBind(ctx, "processlist", args, kwargs)
	if err != nil {
		return nil, err
	}
	c := m.connect()
	if c == nil {
		return value.NewList(), nil
	}
	defer c.Close()
	res, err := c.Query(bg, false, "SHOW FULL PROCESSLIST")
	if err != nil {
		return nil, pyErr(err)
	}
	return rowsAsMaps(res), nil
}

// queryHash is Salt's __do_query_into_hash: the rows as mappings, none
// when the query fails.
func (m *myCall) queryHash(q string) (*value.List, bool) {
	c := m.connect()
	if c == nil {
		return nil, false
	}
	defer c.Close()
	res, err := c.Query(bg, false, q)
	if err != nil {
		return value.NewList(), true
	}
	return rowsAsMaps(res), true
}

// myRowsFirst is get_master_status and get_slave_status: the first row,
// or [] when there is none.
func myRowsFirst(q string) execmod.Func {
	fun := map[string]string{"SHOW MASTER STATUS": "get_master_status", "SHOW SLAVE STATUS": "get_slave_status"}[q]
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		_, m, err := myBind(ctx, fun, args, kwargs)
		if err != nil {
			return nil, err
		}
		rows, ok := m.queryHash(q)
		if !ok || rows.Len() == 0 {
			return value.NewList(), nil
		}
		return rows.Items[0], nil
	}
}

// myRowsAll is showvariables and showglobal: the rows ([[]] when none).
func myRowsAll(q string) execmod.Func {
	fun := map[string]string{"SHOW VARIABLES": "showvariables", "SHOW GLOBAL VARIABLES": "showglobal"}[q]
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		_, m, err := myBind(ctx, fun, args, kwargs)
		if err != nil {
			return nil, err
		}
		rows, ok := m.queryHash(q)
		if !ok {
			return value.NewList(), nil
		}
		if rows.Len() == 0 {
			rows.Append(value.NewList())
		}
		return rows, nil
	}
}

func myPluginsList(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	_, m, err := myBind(ctx, "plugins_list", args, kwargs)
	if err != nil {
		return nil, err
	}
	res, err := m.rows("SHOW PLUGINS")
	if res == nil {
		return value.NewList(), err
	}
	out := value.NewList()
	for _, r := range res.Rows {
		out.Append(value.MapOf("name", r[0], "status", r[1]))
	}
	return out, nil
}

// pluginStatus is Salt's plugin_status: the status text or "".
func (m *myCall) pluginStatus(name string) (any, error) {
	if name == "" {
		return false, nil
	}
	c := m.connect()
	if c == nil {
		return "", nil
	}
	defer c.Close()
	res, err := c.Query(bg, false, "SELECT PLUGIN_STATUS FROM INFORMATION_SCHEMA.PLUGINS WHERE PLUGIN_NAME = ?", name)
	if err != nil {
		return "", m.caught(err)
	}
	if len(res.Rows) == 0 {
		return "", nil
	}
	return res.Rows[0][0], nil
}

func myPluginStatus(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "plugin_status", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	return m.pluginStatus(execmod.String(a["name"]))
}

func myPluginAdd(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "plugin_add", args, kwargs, execmod.Req("name"), execmod.Opt("soname", nil))
	if err != nil {
		return nil, err
	}
	name := execmod.String(a["name"])
	if name == "" {
		return false, nil
	}
	if st, err := m.pluginStatus(name); err != nil || value.Truthy(st) {
		return true, err
	}
	c := m.connect()
	if c == nil {
		return false, nil
	}
	defer c.Close()
	so := name + ".so"
	if value.Truthy(a["soname"]) {
		so = execmod.String(a["soname"])
	}
	if _, err := c.Exec(bg, "INSTALL PLUGIN "+name+` SONAME "`+so+`"`); err != nil {
		return false, m.caught(err)
	}
	return true, nil
}

func myPluginRemove(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "plugin_remove", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	name := execmod.String(a["name"])
	if name == "" {
		return false, nil
	}
	if st, err := m.pluginStatus(name); err != nil || !value.Truthy(st) {
		return true, err
	}
	c := m.connect()
	if c == nil {
		return false, nil
	}
	defer c.Close()
	if _, err := c.Exec(bg, "UNINSTALL PLUGIN "+name); err != nil {
		return false, m.caught(err)
	}
	return true, nil
}

func myVerifyLogin(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, m, err := myBind(ctx, "verify_login", args, kwargs, execmod.Req("user"), execmod.Opt("password", nil))
	if err != nil {
		return nil, err
	}
	m = m.with("connection_user", a["user"]).with("connection_pass", a["password"])
	c := m.connect()
	if c == nil {
		m.ctx.Cache().Delete("mysql.error")
		return false, nil
	}
	c.Close()
	return true, nil
}
