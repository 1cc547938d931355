package modules

// postgres.go is salt/modules/postgres.py: PostgreSQL through psql, run
// with cmd.run_all (as the postgres user when connecting over a local
// socket), with the postgres.* options (host, port, user, pass,
// maintenance_db, bins_dir, timeout) read through config.option. The pure
// parts (password verifiers, role option text, CSV and versions) are in
// internal/system/pgcmd.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"brine/internal/execmod"
	"brine/internal/system/pgcmd"
	"brine/internal/value"
)

func init() {
	reg := func(name string, f execmod.Func, doc string) { execmod.Register("postgres."+name, f, doc) }
	reg("version", pgVersion, "Return the version of the PostgreSQL server.")
	reg("psql_query", pgPsqlQuery, "Run a SELECT query and return its rows as a list of dicts (write: in a READ WRITE transaction).")
	reg("db_list", pgDBList, "Return the databases with their owner, encoding, collation, ACL and tablespace.")
	reg("db_exists", pgDBExists, "True when database name exists.")
	reg("db_create", pgDBCreate, "Create database name (tablespace, encoding, lc_collate, lc_ctype, owner, template).")
	reg("db_alter", pgDBAlter, "Change the tablespace and/or owner of database name.")
	reg("db_remove", pgDBRemove, "Drop database name, terminating its connections first.")
	reg("tablespace_list", pgTablespaceList, "Return the tablespaces with owner, ACL, options and location.")
	reg("tablespace_exists", pgTablespaceExists, "True when tablespace name exists.")
	reg("tablespace_create", pgTablespaceCreate, "Create tablespace name at location (options, owner).")
	reg("tablespace_alter", pgTablespaceAlter, "Rename a tablespace, change its owner, set or reset an option.")
	reg("tablespace_remove", pgTablespaceRemove, "Drop tablespace name.")
	reg("user_list", pgUserList, "Return the roles and their attributes (return_password: with the password verifier).")
	reg("role_get", pgRoleGet, "Return the attributes of role name, or None.")
	reg("user_exists", pgUserExists, "True when role name exists.")
	reg("user_create", pgUserCreate, "Create a login role.")
	reg("user_update", pgUserUpdate, "Change the attributes of a role.")
	reg("user_remove", pgUserRemove, "Drop a role.")
	reg("group_create", pgGroupCreate, "Create a role that cannot log in.")
	reg("group_update", pgGroupUpdate, "Change the attributes of a group role.")
	reg("group_remove", pgGroupRemove, "Drop a group role.")
	reg("available_extensions", pgAvailableExtensions, "Return the extensions the server can install.")
	reg("installed_extensions", pgInstalledExtensions, "Return the extensions installed in the database.")
	reg("get_available_extension", pgGetAvailableExtension, "Return one available extension, or None.")
	reg("get_installed_extension", pgGetInstalledExtension, "Return one installed extension, or None.")
	reg("is_available_extension", pgIsAvailableExtension, "True when extension name can be installed.")
	reg("is_installed_extension", pgIsInstalledExtension, "True when extension name is installed.")
	reg("create_metadata", pgCreateMetadata, "Return the lifecycle flags of an extension (installed, to upgrade, to move).")
	reg("create_extension", pgCreateExtension, "Install, upgrade or move an extension.")
	reg("drop_extension", pgDropExtension, "Drop an installed extension.")
	reg("schema_list", pgSchemaList, "Return the schemas of database dbname with owner and ACL.")
	reg("schema_get", pgSchemaGet, "Return one schema of dbname, or None.")
	reg("schema_exists", pgSchemaExists, "True when schema name exists in dbname.")
	reg("schema_create", pgSchemaCreate, "Create schema name in dbname (owner).")
	reg("schema_remove", pgSchemaRemove, "Drop schema name from dbname.")
	reg("language_list", pgLanguageList, "Return the procedural languages of a database.")
	reg("language_exists", pgLanguageExists, "True when language name is installed in a database.")
	reg("language_create", pgLanguageCreate, "Install a procedural language in a database.")
	reg("language_remove", pgLanguageRemove, "Drop a procedural language from a database.")
	reg("privileges_list", pgPrivilegesList, "Return the privileges granted on an object, per role.")
	reg("has_privileges", pgHasPrivileges, "True when a role holds the privileges on an object.")
	reg("privileges_grant", pgPrivilegesGrant, "Grant privileges on an object to a role.")
	reg("privileges_revoke", pgPrivilegesRevoke, "Revoke privileges on an object from a role.")
	reg("datadir_init", pgDatadirInit, "Initialise a PostgreSQL data directory with initdb.")
	reg("datadir_exists", pgDatadirExists, "True when a data directory has been initialised.")
}

// pgError is a Python exception other than Salt's own classes.
type pgError struct{ class, msg string }

func (e *pgError) Error() string { return e.msg }

// SaltExceptionClass names the Python exception this error stands for.
func (e *pgError) SaltExceptionClass() string { return e.class }

// pgConn holds the connection arguments of one call (Python None is nil).
type pgConn struct {
	user, host, port, db, password, runas any
}

// connParams are the trailing connection parameters most functions take,
// in Salt's order.
func connParams() []execmod.Param {
	return []execmod.Param{execmod.Opt("user", nil), execmod.Opt("host", nil), execmod.Opt("port", nil),
		execmod.Opt("maintenance_db", nil), execmod.Opt("password", nil), execmod.Opt("runas", nil)}
}

// pgBind binds a call and returns the values by parameter name.
func pgBind(fun string, args []any, kwargs *value.Map, params ...execmod.Param) (map[string]any, error) {
	v, _, err := execmod.Bind(fun, args, kwargs, params...)
	if err != nil {
		return nil, err
	}
	m := make(map[string]any, len(params))
	for i, p := range params {
		m[p.Name] = v[i]
	}
	return m, nil
}

func connOf(m map[string]any) pgConn {
	return pgConn{user: m["user"], host: m["host"], port: m["port"], db: m["maintenance_db"], password: m["password"], runas: m["runas"]}
}

func pgOption(ctx *execmod.Context, key string, def any) any {
	kw := value.NewMap(0)
	if def != nil {
		kw.Set("default", def)
	}
	v, err := ctx.Call("config.option", []any{key}, kw)
	if err != nil {
		return def
	}
	return v
}

// pgBinary finds a PostgreSQL program on PATH or in postgres.bins_dir.
func pgBinary(ctx *execmod.Context, util string) string {
	if p, err := exec.LookPath(util); err == nil {
		return p
	}
	if dir := execmod.String(pgOption(ctx, "postgres.bins_dir", nil)); dir != "" {
		if p, err := exec.LookPath(filepath.Join(dir, util)); err == nil {
			return p
		}
	}
	return ""
}

// psqlCmd is Salt's _psql_cmd: psql's fixed options, the connection
// (arguments, then the postgres.* options) and extra.
func psqlCmd(ctx *execmod.Context, c pgConn, extra ...string) ([]string, error) {
	opt := func(v any, key string) any {
		if !value.Truthy(v) {
			return pgOption(ctx, key, nil)
		}
		return v
	}
	user, host, port, db := opt(c.user, "postgres.user"), opt(c.host, "postgres.host"), opt(c.port, "postgres.port"), opt(c.db, "postgres.maintenance_db")
	bin := pgBinary(ctx, "psql")
	if bin == "" {
		return nil, execmod.Errorf("psql was not found")
	}
	cmd := []string{bin, "--no-align", "--no-readline", "--no-psqlrc", "--no-password"}
	if value.Truthy(user) {
		cmd = append(cmd, "--username", execmod.String(user))
	}
	if value.Truthy(host) {
		cmd = append(cmd, "--host", execmod.String(host))
	}
	if value.Truthy(port) {
		cmd = append(cmd, "--port", execmod.String(port))
	}
	if !value.Truthy(db) {
		db = "postgres"
	}
	cmd = append(cmd, "--dbname", execmod.String(db))
	return append(cmd, extra...), nil
}

// runPsql is Salt's _run_psql: psql as the postgres user for local
// socket connections, with a temporary PGPASSFILE when a password is set.
func runPsql(ctx *execmod.Context, cmd []string, c pgConn) (*value.Map, error) {
	kw := []any{"reset_system_locale", false, "clean_env", true, "timeout", pgOption(ctx, "postgres.timeout", int64(0))}
	runas, host, user := c.runas, c.host, c.user
	if runas == nil {
		if !value.Truthy(host) {
			host = pgOption(ctx, "postgres.host", nil)
		}
		if h := execmod.String(host); h == "" || strings.HasPrefix(h, "/") {
			runas = "postgres"
		}
	}
	if user == nil {
		user = runas
	}
	if value.Truthy(runas) {
		kw = append(kw, "runas", runas)
	}
	password := c.password
	if password == nil {
		password = pgOption(ctx, "postgres.pass", nil)
	}
	if password != nil {
		h := execmod.String(host)
		if h == "" || strings.HasPrefix(h, "/") {
			h = "localhost"
		}
		port, u := "*", "*"
		if value.Truthy(c.port) {
			port = execmod.String(c.port)
		}
		if value.Truthy(user) {
			u = execmod.String(user)
		}
		f, err := os.CreateTemp("", "brine-pgpass-")
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		defer os.Remove(f.Name())
		_, _ = f.WriteString(h + ":" + port + ":*:" + u + ":" + execmod.String(password))
		f.Close()
		if value.Truthy(runas) {
			_, _ = ctx.Call("file.chown", []any{f.Name(), runas, ""}, nil)
		}
		kw = append(kw, "env", value.MapOf("PGPASSFILE", f.Name()))
	}
	res, err := runArgv(ctx, "cmd.run_all", cmd, kw...)
	if err != nil {
		return nil, err
	}
	m, _ := res.(*value.Map)
	if m == nil {
		m = value.NewMap(0)
	}
	return m, nil
}

func pgRun(ctx *execmod.Context, c pgConn, extra ...string) (*value.Map, error) {
	cmd, err := psqlCmd(ctx, c, extra...)
	if err != nil {
		return nil, err
	}
	return runPsql(ctx, cmd, c)
}

func pgRC(m *value.Map) int64 {
	switch x := cmdGet(m, "retcode").(type) {
	case int64:
		return x
	case int:
		return int64(x)
	}
	return 0
}

// pgExec runs one SQL command and reports whether psql exited 0.
func pgExec(ctx *execmod.Context, c pgConn, sql string) (bool, error) {
	m, err := pgRun(ctx, c, "-c", sql)
	if err != nil {
		return false, err
	}
	return pgRC(m) == 0, nil
}

// pgQuery is Salt's psql_query: the rows of query as CSV.
func pgQuery(ctx *execmod.Context, c pgConn, query string, write bool) ([]pgcmd.Row, error) {
	q := "COPY (" + strings.TrimRight(strings.TrimSpace(query), ";") + ") TO STDOUT WITH CSV HEADER"
	if write {
		q = "START TRANSACTION READ WRITE; " + q + "; COMMIT TRANSACTION;"
	}
	m, err := pgRun(ctx, c, "-v", "datestyle=ISO,MDY", "-c", q)
	if err != nil {
		return nil, err
	}
	if pgRC(m) > 0 {
		return nil, nil
	}
	rows := pgcmd.ParseCSV(execmod.String(cmdGet(m, "stdout")))
	if write && len(rows) > 0 {
		rows = rows[:len(rows)-1]
	}
	return rows, nil
}

func rowMap(r pgcmd.Row) *value.Map {
	m := value.NewMap(len(r.Cols))
	for i, k := range r.Cols {
		m.Set(k, r.Vals[i])
	}
	return m
}

// keyedRows maps each row's key column to the row without it.
func keyedRows(rows []pgcmd.Row, key string) *value.Map {
	out := value.NewMap(len(rows))
	for _, r := range rows {
		m := rowMap(r)
		k, _ := m.Delete(key)
		out.Set(k, m)
	}
	return out
}

func pgVersionString(ctx *execmod.Context, c pgConn) (any, error) {
	m, err := pgRun(ctx, c, "-c", "SELECT setting FROM pg_catalog.pg_settings WHERE name = 'server_version'", "-t")
	if err != nil {
		return nil, err
	}
	line, _, _ := strings.Cut(execmod.String(cmdGet(m, "stdout")), "\n")
	return line, nil
}

func pgVersion(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("version", args, kwargs, connParams()...)
	if err != nil {
		return nil, err
	}
	return pgVersionString(ctx, connOf(m))
}

func pgPsqlQuery(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("psql_query", args, kwargs, append(append([]execmod.Param{execmod.Req("query")}, connParams()...), execmod.Opt("write", false))...)
	if err != nil {
		return nil, err
	}
	rows, err := pgQuery(ctx, connOf(m), execmod.String(m["query"]), value.Truthy(m["write"]))
	if err != nil {
		return nil, err
	}
	out := value.NewList()
	for _, r := range rows {
		out.Append(rowMap(r))
	}
	return out, nil
}

// nameThenConn binds (name, conn...).
func nameThenConn(fun, first string, args []any, kwargs *value.Map, more ...execmod.Param) (map[string]any, error) {
	ps := append([]execmod.Param{execmod.Req(first)}, connParams()...)
	return pgBind(fun, args, kwargs, append(ps, more...)...)
}

const dbListQuery = `SELECT datname as "Name", pga.rolname as "Owner", pg_encoding_to_char(encoding) as "Encoding", ` +
	`datcollate as "Collate", datctype as "Ctype", datacl as "Access privileges", spcname as "Tablespace" ` +
	`FROM pg_database pgd, pg_roles pga, pg_tablespace pgts WHERE pga.oid = pgd.datdba AND pgts.oid = pgd.dattablespace`

func pgDBs(ctx *execmod.Context, c pgConn) (*value.Map, error) {
	rows, err := pgQuery(ctx, c, dbListQuery, false)
	if err != nil {
		return nil, err
	}
	return keyedRows(rows, "Name"), nil
}

func pgDBList(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("db_list", args, kwargs, connParams()...)
	if err != nil {
		return nil, err
	}
	return pgDBs(ctx, connOf(m))
}

func pgDBExists(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := nameThenConn("db_exists", "name", args, kwargs)
	if err != nil {
		return nil, err
	}
	dbs, err := pgDBs(ctx, connOf(m))
	if err != nil {
		return nil, err
	}
	return dbs.Has(execmod.String(m["name"])), nil
}

// quoteDDL is Salt's _quote_ddl_value: v in quote characters, refusing
// values that hold one.
func quoteDDL(v any, quote string) (string, bool, error) {
	if v == nil {
		return "", false, nil
	}
	s := execmod.String(v)
	if strings.Contains(s, quote) {
		return "", false, &execmod.InvocationError{Msg: "Unsupported character " + quote + " in value: " + s}
	}
	return quote + s + quote, true, nil
}

func pgDBCreate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	ps := []execmod.Param{execmod.Req("name"), execmod.Opt("user", nil), execmod.Opt("host", nil), execmod.Opt("port", nil),
		execmod.Opt("maintenance_db", nil), execmod.Opt("password", nil), execmod.Opt("tablespace", nil), execmod.Opt("encoding", nil),
		execmod.Opt("lc_collate", nil), execmod.Opt("lc_ctype", nil), execmod.Opt("owner", nil), execmod.Opt("template", nil), execmod.Opt("runas", nil)}
	m, err := pgBind("db_create", args, kwargs, ps...)
	if err != nil {
		return nil, err
	}
	query := `CREATE DATABASE "` + execmod.String(m["name"]) + `"`
	var chunks []string
	for _, w := range []struct{ key, arg, quote string }{
		{"TABLESPACE", "tablespace", `"`}, {"OWNER", "owner", `"`}, {"TEMPLATE", "template", ""},
		{"ENCODING", "encoding", "'"}, {"LC_COLLATE", "lc_collate", "'"}, {"LC_CTYPE", "lc_ctype", "'"},
	} {
		v := m[w.arg]
		if v == nil {
			continue
		}
		s := execmod.String(v)
		if w.quote != "" {
			q, _, err := quoteDDL(v, w.quote)
			if err != nil {
				return nil, err
			}
			s = q
		}
		chunks = append(chunks, w.key, "=", s)
	}
	if len(chunks) > 0 {
		query += strings.Join(append([]string{" WITH"}, chunks...), " ")
	}
	return pgExec(ctx, connOf(m), query)
}

func pgDBAlter(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	ps := []execmod.Param{execmod.Req("name"), execmod.Opt("user", nil), execmod.Opt("host", nil), execmod.Opt("port", nil),
		execmod.Opt("maintenance_db", nil), execmod.Opt("password", nil), execmod.Opt("tablespace", nil), execmod.Opt("owner", nil),
		execmod.Opt("owner_recurse", false), execmod.Opt("runas", nil)}
	m, err := pgBind("db_alter", args, kwargs, ps...)
	if err != nil {
		return nil, err
	}
	if !value.Truthy(m["tablespace"]) && !value.Truthy(m["owner"]) {
		return true, nil
	}
	if value.Truthy(m["owner"]) && value.Truthy(m["owner_recurse"]) {
		// Salt 3006 hands this to postgres.owner_to, which fails on
		// Python 3 before running anything.
		return nil, &pgError{class: "TypeError", msg: "a bytes-like object is required, not 'str'"}
	}
	name := execmod.String(m["name"])
	var queries []string
	if value.Truthy(m["owner"]) {
		queries = append(queries, `ALTER DATABASE "`+name+`" OWNER TO "`+execmod.String(m["owner"])+`"`)
	}
	if value.Truthy(m["tablespace"]) {
		queries = append(queries, `ALTER DATABASE "`+name+`" SET TABLESPACE "`+execmod.String(m["tablespace"])+`"`)
	}
	ok := true
	for _, q := range queries {
		if ok, err = pgExec(ctx, connOf(m), q); err != nil {
			return nil, err
		}
	}
	return ok, nil
}

func pgDBRemove(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := nameThenConn("db_remove", "name", args, kwargs)
	if err != nil {
		return nil, err
	}
	name := execmod.String(m["name"])
	for _, q := range []string{
		`REVOKE CONNECT ON DATABASE "` + name + `" FROM public;`,
		"SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + name + "' AND pid <> pg_backend_pid();",
		`DROP DATABASE "` + name + `";`,
	} {
		res, err := pgRun(ctx, connOf(m), "-c", q)
		if err != nil {
			return nil, err
		}
		if pgRC(res) != 0 {
			return nil, &pgError{class: "Exception", msg: "Failed: ret=" + value.Repr(res)}
		}
	}
	return true, nil
}

const tablespaceQuery = `SELECT spcname as "Name", pga.rolname as "Owner", spcacl as "ACL", ` +
	`spcoptions as "Opts", pg_tablespace_location(pgts.oid) as "Location" ` +
	`FROM pg_tablespace pgts, pg_roles pga WHERE pga.oid = pgts.spcowner`

func pgTablespaces(ctx *execmod.Context, c pgConn) (*value.Map, error) {
	rows, err := pgQuery(ctx, c, tablespaceQuery, false)
	if err != nil {
		return nil, err
	}
	return keyedRows(rows, "Name"), nil
}

func pgTablespaceList(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("tablespace_list", args, kwargs, connParams()...)
	if err != nil {
		return nil, err
	}
	return pgTablespaces(ctx, connOf(m))
}

func pgTablespaceExists(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := nameThenConn("tablespace_exists", "name", args, kwargs)
	if err != nil {
		return nil, err
	}
	ts, err := pgTablespaces(ctx, connOf(m))
	if err != nil {
		return nil, err
	}
	return ts.Has(execmod.String(m["name"])), nil
}

func pgTablespaceCreate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	ps := append([]execmod.Param{execmod.Req("name"), execmod.Req("location"), execmod.Opt("options", nil), execmod.Opt("owner", nil)}, connParams()...)
	m, err := pgBind("tablespace_create", args, kwargs, ps...)
	if err != nil {
		return nil, err
	}
	ownerQ, optQ := "", ""
	if value.Truthy(m["owner"]) {
		ownerQ = `OWNER "` + execmod.String(m["owner"]) + `"`
	}
	if value.Truthy(m["options"]) {
		opts, ok := m["options"].(*value.Map)
		if !ok {
			return nil, &pgError{class: "AttributeError", msg: "'" + value.TypeName(m["options"]) + "' object has no attribute 'items'"}
		}
		var parts []string
		opts.Range(func(k, v any) bool {
			parts = append(parts, value.Str(k)+" = "+value.Str(v))
			return true
		})
		optQ = "WITH ( " + strings.Join(parts, ", ") + " )"
	}
	q := `CREATE TABLESPACE "` + execmod.String(m["name"]) + `" ` + ownerQ + " LOCATION '" + execmod.String(m["location"]) + "' " + optQ
	return pgExec(ctx, connOf(m), q)
}

func pgTablespaceAlter(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	ps := []execmod.Param{execmod.Req("name"), execmod.Opt("user", nil), execmod.Opt("host", nil), execmod.Opt("port", nil),
		execmod.Opt("maintenance_db", nil), execmod.Opt("password", nil), execmod.Opt("new_name", nil), execmod.Opt("new_owner", nil),
		execmod.Opt("set_option", nil), execmod.Opt("reset_option", nil), execmod.Opt("runas", nil)}
	m, err := pgBind("tablespace_alter", args, kwargs, ps...)
	if err != nil {
		return nil, err
	}
	if !value.Truthy(m["new_name"]) && !value.Truthy(m["new_owner"]) && !value.Truthy(m["set_option"]) && !value.Truthy(m["reset_option"]) {
		return true, nil
	}
	name := execmod.String(m["name"])
	var queries []string
	if value.Truthy(m["new_name"]) {
		queries = append(queries, `ALTER TABLESPACE "`+name+`" RENAME TO "`+execmod.String(m["new_name"])+`"`)
	}
	if value.Truthy(m["new_owner"]) {
		queries = append(queries, `ALTER TABLESPACE "`+name+`" OWNER TO "`+execmod.String(m["new_owner"])+`"`)
	}
	if value.Truthy(m["set_option"]) {
		opt, ok := m["set_option"].(*value.Map)
		if !ok || opt.Len() == 0 {
			return nil, &pgError{class: "AttributeError", msg: "'" + value.TypeName(m["set_option"]) + "' object has no attribute 'items'"}
		}
		k, v := opt.At(0)
		queries = append(queries, `ALTER TABLESPACE "`+name+`" SET (`+value.Str(k)+" = "+value.Str(v)+")")
	}
	if value.Truthy(m["reset_option"]) {
		queries = append(queries, `ALTER TABLESPACE "`+name+`" RESET (`+execmod.String(m["reset_option"])+")")
	}
	for _, q := range queries {
		ok, err := pgExec(ctx, connOf(m), q)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

func pgTablespaceRemove(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := nameThenConn("tablespace_remove", "name", args, kwargs)
	if err != nil {
		return nil, err
	}
	return pgExec(ctx, connOf(m), `DROP TABLESPACE "`+execmod.String(m["name"])+`"`)
}

// pgUsers is Salt's user_list: nil (Python False) when the server's
// version cannot be read.
func pgUsers(ctx *execmod.Context, c pgConn, withPassword bool) (*value.Map, error) {
	ver, err := pgVersionString(ctx, c)
	if err != nil {
		return nil, err
	}
	vs := execmod.String(ver)
	if vs == "" {
		return nil, nil
	}
	repl, catupdate := "NULL", "NULL"
	if !pgcmd.LooseLess(vs, "9.1") {
		repl = "pg_roles.rolreplication"
	}
	if pgcmd.LooseLess(vs, "9.5") {
		catupdate = "pg_roles.rolcatupdate"
	}
	q := `SELECT pg_roles.rolname as "name",pg_roles.rolsuper as "superuser", pg_roles.rolinherit as "inherits privileges", ` +
		`pg_roles.rolcreaterole as "can create roles", pg_roles.rolcreatedb as "can create databases", ` + catupdate +
		` as "can update system catalogs", pg_roles.rolcanlogin as "can login", ` + repl +
		` as "replication", pg_roles.rolconnlimit as "connections", (SELECT array_agg(pg_roles2.rolname)    FROM pg_catalog.pg_auth_members    ` +
		`JOIN pg_catalog.pg_roles pg_roles2 ON (pg_auth_members.roleid = pg_roles2.oid)    WHERE pg_auth_members.member = pg_roles.oid) as "groups",` +
		`pg_roles.rolvaliduntil::timestamp(0) as "expiry time", pg_roles.rolconfig  as "defaults variables" `
	if withPassword {
		q += `, COALESCE(pg_shadow.passwd, pg_authid.rolpassword) as "password" `
	}
	q += "FROM pg_roles "
	if withPassword {
		q += "LEFT JOIN pg_authid ON pg_roles.oid = pg_authid.oid LEFT JOIN pg_shadow ON pg_roles.oid = pg_shadow.usesysid"
	}
	rows, err := pgQuery(ctx, c, q, false)
	if err != nil {
		return nil, err
	}
	out := value.NewMap(len(rows))
	for _, r := range rows {
		u := value.NewMap(12)
		for _, k := range []string{"superuser", "inherits privileges", "can create roles", "can create databases",
			"can update system catalogs", "can login", "replication", "connections"} {
			var b any
			switch v, _ := r.Get(k); v {
			case "t":
				b = true
			case "f":
				b = false
			}
			u.Set(k, b)
		}
		exp, _ := r.Get("expiry time")
		if d, ok := pgcmd.PyDatetime(exp); ok {
			u.Set("expiry time", d)
		} else {
			u.Set("expiry time", nil)
		}
		dv, _ := r.Get("defaults variables")
		u.Set("defaults variables", dv)
		if withPassword {
			pw, _ := r.Get("password")
			u.Set("password", pw)
		}
		groups, _ := r.Get("groups")
		u.Set("groups", strList(pgcmd.SplitArray(groups)))
		name, _ := r.Get("name")
		out.Set(name, u)
	}
	return out, nil
}

func pgUserList(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("user_list", args, kwargs, append(connParams(), execmod.Opt("return_password", false))...)
	if err != nil {
		return nil, err
	}
	users, err := pgUsers(ctx, connOf(m), value.Truthy(m["return_password"]))
	if err != nil || users == nil {
		return false, err
	}
	return users, nil
}

// pgRole is Salt's role_get: the role's attributes or nil.
func pgRole(ctx *execmod.Context, c pgConn, name string, withPassword bool) (*value.Map, error) {
	users, err := pgUsers(ctx, c, withPassword)
	if err != nil || users == nil {
		return nil, err
	}
	v, _ := users.Get(name)
	r, _ := v.(*value.Map)
	return r, nil
}

func pgRoleGet(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := nameThenConn("role_get", "name", args, kwargs, execmod.Opt("return_password", false))
	if err != nil {
		return nil, err
	}
	r, err := pgRole(ctx, connOf(m), execmod.String(m["name"]), value.Truthy(m["return_password"]))
	if err != nil || r == nil {
		return nil, err
	}
	return r, nil
}

func pgUserExists(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := nameThenConn("user_exists", "name", args, kwargs)
	if err != nil {
		return nil, err
	}
	r, err := pgRole(ctx, connOf(m), execmod.String(m["name"]), false)
	if err != nil {
		return nil, err
	}
	return r != nil && r.Len() > 0, nil
}

// roleGroups reads a groups argument: a list, or a comma separated string.
func roleGroups(v any) []string {
	if !value.Truthy(v) {
		return nil
	}
	s := ""
	if l, ok := v.(*value.List); ok {
		parts := make([]string, len(l.Items))
		for i, x := range l.Items {
			parts[i] = execmod.String(x)
		}
		s = strings.Join(parts, ",")
	} else {
		s = execmod.String(v)
	}
	return strings.Split(s, ",")
}

func roleOpts(kind string, m map[string]any) pgcmd.RoleOpts {
	return pgcmd.RoleOpts{Kind: kind, Encrypted: m["encrypted"], Login: m["login"], Connlimit: m["connlimit"],
		Inherit: m["inherit"], Createdb: m["createdb"], Createroles: m["createroles"], Superuser: m["superuser"],
		Groups: roleGroups(m["groups"]), Replication: m["replication"], Password: m["rolepassword"], ValidUntil: m["valid_until"]}
}

func roleArgs(prefix, name string, o pgcmd.RoleOpts) (string, error) {
	s, err := pgcmd.RoleArgs(prefix, name, o, execmod.String)
	if err != nil {
		return "", &pgError{class: "ValueError", msg: err.Error()}
	}
	return s, nil
}

func pgRoleCreate(ctx *execmod.Context, kind, name string, m map[string]any) (any, error) {
	c := connOf(m)
	if r, err := pgRole(ctx, c, name, false); err != nil {
		return nil, err
	} else if r != nil && r.Len() > 0 {
		return false, nil
	}
	sql, err := roleArgs(`CREATE ROLE "`+name+`" WITH`, name, roleOpts(kind, m))
	if err != nil {
		return nil, err
	}
	return pgExec(ctx, c, sql)
}

func pgRoleUpdate(ctx *execmod.Context, name string, m map[string]any) (any, error) {
	c := connOf(m)
	r, err := pgRole(ctx, c, name, false)
	if err != nil {
		return nil, err
	}
	if r == nil || r.Len() == 0 {
		return false, nil
	}
	o := roleOpts("role", m)
	o.DBSuperuser, _ = r.Get("superuser")
	sql, err := roleArgs(`ALTER ROLE "`+name+`" WITH`, name, o)
	if err != nil {
		return nil, err
	}
	return pgExec(ctx, c, sql)
}

func pgRoleRemove(ctx *execmod.Context, name string, m map[string]any) (any, error) {
	c := connOf(m)
	exists := func() (bool, error) {
		r, err := pgRole(ctx, c, name, false)
		return r != nil && r.Len() > 0, err
	}
	if ok, err := exists(); err != nil || !ok {
		return false, err
	}
	if _, err := pgRun(ctx, c, "-c", `DROP ROLE "`+name+`"`); err != nil {
		return nil, err
	}
	ok, err := exists()
	return !ok, err
}

func roleParams(first string, names ...string) []execmod.Param {
	ps := []execmod.Param{execmod.Req(first), execmod.Opt("user", nil), execmod.Opt("host", nil), execmod.Opt("port", nil),
		execmod.Opt("maintenance_db", nil), execmod.Opt("password", nil)}
	for _, n := range names {
		ps = append(ps, execmod.Opt(n, nil))
	}
	return append(ps, execmod.Opt("runas", nil))
}

func pgUserCreate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("user_create", args, kwargs, roleParams("username", "createdb", "createroles", "inherit", "login",
		"connlimit", "encrypted", "superuser", "replication", "rolepassword", "valid_until", "groups")...)
	if err != nil {
		return nil, err
	}
	return pgRoleCreate(ctx, "user", execmod.String(m["username"]), m)
}

func pgUserUpdate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("user_update", args, kwargs, roleParams("username", "createdb", "createroles", "encrypted", "superuser",
		"inherit", "login", "connlimit", "replication", "rolepassword", "valid_until", "groups")...)
	if err != nil {
		return nil, err
	}
	return pgRoleUpdate(ctx, execmod.String(m["username"]), m)
}

func pgUserRemove(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := nameThenConn("user_remove", "username", args, kwargs)
	if err != nil {
		return nil, err
	}
	return pgRoleRemove(ctx, execmod.String(m["username"]), m)
}

func pgGroupCreate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("group_create", args, kwargs, roleParams("groupname", "createdb", "createroles", "encrypted", "login",
		"inherit", "superuser", "replication", "rolepassword", "groups")...)
	if err != nil {
		return nil, err
	}
	return pgRoleCreate(ctx, "group", execmod.String(m["groupname"]), m)
}

func pgGroupUpdate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("group_update", args, kwargs, roleParams("groupname", "createdb", "createroles", "encrypted", "inherit",
		"login", "superuser", "replication", "rolepassword", "groups")...)
	if err != nil {
		return nil, err
	}
	return pgRoleUpdate(ctx, execmod.String(m["groupname"]), m)
}

func pgGroupRemove(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := nameThenConn("group_remove", "groupname", args, kwargs)
	if err != nil {
		return nil, err
	}
	return pgRoleRemove(ctx, execmod.String(m["groupname"]), m)
}
