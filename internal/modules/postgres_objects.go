package modules

// postgres_objects.go is the rest of salt/modules/postgres.py: extensions,
// schemas, languages, privileges and data directories.

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"brine/internal/execmod"
	"brine/internal/system/pgcmd"
	"brine/internal/value"
)

// Extension lifecycle flags of create_metadata.
const (
	extNotInstalled = "EXTENSION NOT INSTALLED"
	extInstalled    = "EXTENSION INSTALLED"
	extToUpgrade    = "EXTENSION TO UPGRADE"
	extToMove       = "EXTENSION TO MOVE"
)

func pgExtensions(ctx *execmod.Context, c pgConn, installed bool) (*value.Map, error) {
	q, name, ver := "select * from pg_available_extensions();", "name", "default_version"
	if installed {
		q, name, ver = "select a.*, b.nspname as schema_name from pg_extension a,  pg_namespace b where a.extnamespace = b.oid;", "extname", "extversion"
	}
	rows, err := pgQuery(ctx, c, q, false)
	if err != nil {
		return nil, err
	}
	out := value.NewMap(len(rows))
	for _, r := range rows {
		n, ok1 := r.Get(name)
		_, ok2 := r.Get(ver)
		if ok1 && ok2 {
			out.Set(n, rowMap(r))
		}
	}
	return out, nil
}

func extListFunc(fun string, installed bool) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		m, err := pgBind(fun, args, kwargs, connParams()...)
		if err != nil {
			return nil, err
		}
		return pgExtensions(ctx, connOf(m), installed)
	}
}

var (
	pgAvailableExtensions = extListFunc("available_extensions", false)
	pgInstalledExtensions = extListFunc("installed_extensions", true)
)

func pgExtension(ctx *execmod.Context, c pgConn, name string, installed bool) (*value.Map, error) {
	exts, err := pgExtensions(ctx, c, installed)
	if err != nil {
		return nil, err
	}
	v, _ := exts.Get(name)
	e, _ := v.(*value.Map)
	return e, nil
}

func extGetFunc(fun string, installed bool) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		m, err := nameThenConn(fun, "name", args, kwargs)
		if err != nil {
			return nil, err
		}
		e, err := pgExtension(ctx, connOf(m), execmod.String(m["name"]), installed)
		if err != nil || e == nil {
			return nil, err
		}
		return e, nil
	}
}

var (
	pgGetAvailableExtension = extGetFunc("get_available_extension", false)
	pgGetInstalledExtension = extGetFunc("get_installed_extension", true)
)

func pgExtAvailable(ctx *execmod.Context, c pgConn, name string) (bool, error) {
	exts, err := pgExtensions(ctx, c, false)
	if err != nil {
		return false, err
	}
	for _, k := range exts.Keys() {
		if strings.EqualFold(execmod.String(k), name) {
			return true, nil
		}
	}
	return false, nil
}

func pgIsAvailableExtension(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := nameThenConn("is_available_extension", "name", args, kwargs)
	if err != nil {
		return nil, err
	}
	return pgExtAvailable(ctx, connOf(m), strings.ToLower(execmod.String(m["name"])))
}

func pgExtInstalled(ctx *execmod.Context, c pgConn, name string) (bool, error) {
	e, err := pgExtension(ctx, c, name, true)
	return e != nil && e.Len() > 0, err
}

func pgIsInstalledExtension(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := nameThenConn("is_installed_extension", "name", args, kwargs)
	if err != nil {
		return nil, err
	}
	return pgExtInstalled(ctx, connOf(m), execmod.String(m["name"]))
}

// extMetadata is Salt's create_metadata.
func extMetadata(ctx *execmod.Context, c pgConn, name string, extVersion, schema any) ([]string, error) {
	e, err := pgExtension(ctx, c, name, true)
	if err != nil {
		return nil, err
	}
	if e == nil || e.Len() == 0 {
		return []string{extNotInstalled}, nil
	}
	out := []string{extInstalled}
	get := func(k, def string) string {
		if v, ok := e.Get(k); ok {
			return execmod.String(v)
		}
		return def
	}
	if extVersion != nil {
		want := execmod.String(extVersion)
		if pgcmd.LooseLess(get("extversion", want), want) {
			out = append(out, extToUpgrade)
		}
	}
	if schema != nil {
		s := execmod.String(schema)
		if get("extrelocatable", "f") == "t" && get("schema_name", s) != s {
			out = append(out, extToMove)
		}
	}
	return out, nil
}

func pgCreateMetadata(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	ps := append([]execmod.Param{execmod.Req("name"), execmod.Opt("ext_version", nil), execmod.Opt("schema", nil)}, connParams()...)
	m, err := pgBind("create_metadata", args, kwargs, ps...)
	if err != nil {
		return nil, err
	}
	md, err := extMetadata(ctx, connOf(m), execmod.String(m["name"]), m["ext_version"], m["schema"])
	if err != nil {
		return nil, err
	}
	return strList(md), nil
}

func pgDropExtension(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	ps := append([]execmod.Param{execmod.Req("name"), execmod.Opt("if_exists", nil), execmod.Opt("restrict", nil), execmod.Opt("cascade", nil)}, connParams()...)
	m, err := pgBind("drop_extension", args, kwargs, ps...)
	if err != nil {
		return nil, err
	}
	name, c := execmod.String(m["name"]), connOf(m)
	parts := []string{"DROP EXTENSION"}
	if value.Truthy(m["if_exists"]) {
		parts = append(parts, "IF EXISTS")
	}
	parts = append(parts, name)
	if m["cascade"] == nil || value.Truthy(m["cascade"]) {
		parts = append(parts, "CASCADE")
	}
	if value.Truthy(m["restrict"]) {
		parts = append(parts, "RESTRICT")
	}
	parts = append(parts, ";")
	if ok, err := pgExtInstalled(ctx, c, name); err != nil {
		return nil, err
	} else if ok {
		if _, err := pgRun(ctx, c, "-c", strings.Join(parts, " ")); err != nil {
			return nil, err
		}
	}
	ok, err := pgExtInstalled(ctx, c, name)
	return !ok, err
}

func hasFlag(flags []string, f string) bool {
	for _, x := range flags {
		if x == f {
			return true
		}
	}
	return false
}

func pgCreateExtension(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	ps := append([]execmod.Param{execmod.Req("name"), execmod.Opt("if_not_exists", nil), execmod.Opt("schema", nil),
		execmod.Opt("ext_version", nil), execmod.Opt("from_version", nil)}, connParams()...)
	m, err := pgBind("create_extension", args, kwargs, ps...)
	if err != nil {
		return nil, err
	}
	name, c := execmod.String(m["name"]), connOf(m)
	md, err := extMetadata(ctx, c, name, m["ext_version"], m["schema"])
	if err != nil {
		return nil, err
	}
	installable, err := pgExtAvailable(ctx, c, strings.ToLower(name))
	if err != nil {
		return nil, err
	}
	if installable {
		var parts []string
		if !hasFlag(md, extInstalled) {
			parts = []string{"CREATE EXTENSION"}
			if m["if_not_exists"] == nil || value.Truthy(m["if_not_exists"]) {
				parts = append(parts, "IF NOT EXISTS")
			}
			parts = append(parts, `"`+name+`"`)
			var with []string
			if value.Truthy(m["schema"]) {
				with = append(with, `SCHEMA "`+execmod.String(m["schema"])+`"`)
			}
			if value.Truthy(m["ext_version"]) {
				with = append(with, "VERSION "+execmod.String(m["ext_version"]))
			}
			if value.Truthy(m["from_version"]) {
				with = append(with, "FROM "+execmod.String(m["from_version"]))
			}
			if len(with) > 0 {
				parts = append(append(parts, "WITH"), with...)
			}
			parts = append(parts, ";")
		} else {
			if value.Truthy(m["schema"]) && hasFlag(md, extToMove) {
				parts = append(parts, `ALTER EXTENSION "`+name+`" SET SCHEMA "`+execmod.String(m["schema"])+`";`)
			}
			if value.Truthy(m["ext_version"]) && hasFlag(md, extToUpgrade) {
				parts = append(parts, `ALTER EXTENSION "`+name+`" UPDATE TO `+execmod.String(m["ext_version"])+";")
			}
		}
		if cmd := strings.TrimSpace(strings.Join(parts, " ")); cmd != "" {
			if _, err := pgRun(ctx, c, "-c", cmd); err != nil {
				return nil, err
			}
		}
	}
	md, err = extMetadata(ctx, c, name, m["ext_version"], m["schema"])
	if err != nil {
		return nil, err
	}
	for _, f := range md {
		if f != extInstalled {
			return false, nil
		}
	}
	return true, nil
}

// schemaParams are (dbname, [name,] user, db_user, db_password, db_host,
// db_port); the schema functions connect with the db_* arguments only.
func schemaParams(withName bool, extra ...execmod.Param) []execmod.Param {
	ps := []execmod.Param{execmod.Req("dbname")}
	if withName {
		ps = append(ps, execmod.Req("name"))
	}
	ps = append(ps, extra...)
	return append(ps, execmod.Opt("user", nil), execmod.Opt("db_user", nil), execmod.Opt("db_password", nil),
		execmod.Opt("db_host", nil), execmod.Opt("db_port", nil))
}

func schemaConn(m map[string]any) pgConn {
	return pgConn{user: m["db_user"], host: m["db_host"], port: m["db_port"], db: m["dbname"], password: m["db_password"]}
}

func pgSchemas(ctx *execmod.Context, c pgConn) (*value.Map, error) {
	rows, err := pgQuery(ctx, c, `SELECT pg_namespace.nspname as "name",pg_namespace.nspacl as "acl", pg_roles.rolname as "owner" `+
		`FROM pg_namespace LEFT JOIN pg_roles ON pg_roles.oid = pg_namespace.nspowner `, false)
	if err != nil {
		return nil, err
	}
	out := value.NewMap(len(rows))
	for _, r := range rows {
		owner, _ := r.Get("owner")
		acl, _ := r.Get("acl")
		name, _ := r.Get("name")
		out.Set(name, value.MapOf("owner", owner, "acl", acl))
	}
	return out, nil
}

func pgSchemaList(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("schema_list", args, kwargs, schemaParams(false)...)
	if err != nil {
		return nil, err
	}
	return pgSchemas(ctx, schemaConn(m))
}

func pgSchema(ctx *execmod.Context, m map[string]any) (*value.Map, error) {
	all, err := pgSchemas(ctx, schemaConn(m))
	if err != nil {
		return nil, err
	}
	v, _ := all.Get(execmod.String(m["name"]))
	s, _ := v.(*value.Map)
	return s, nil
}

func pgSchemaGet(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("schema_get", args, kwargs, schemaParams(true)...)
	if err != nil {
		return nil, err
	}
	s, err := pgSchema(ctx, m)
	if err != nil || s == nil {
		return nil, err
	}
	return s, nil
}

func pgSchemaExists(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("schema_exists", args, kwargs, schemaParams(true)...)
	if err != nil {
		return nil, err
	}
	s, err := pgSchema(ctx, m)
	return s != nil && s.Len() > 0, err
}

func pgSchemaCreate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("schema_create", args, kwargs, schemaParams(true, execmod.Opt("owner", nil))...)
	if err != nil {
		return nil, err
	}
	if s, err := pgSchema(ctx, m); err != nil {
		return nil, err
	} else if s != nil && s.Len() > 0 {
		return false, nil
	}
	sql := `CREATE SCHEMA "` + execmod.String(m["name"]) + `"`
	if m["owner"] != nil {
		sql += ` AUTHORIZATION "` + execmod.String(m["owner"]) + `"`
	}
	return pgExec(ctx, schemaConn(m), sql)
}

func pgSchemaRemove(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("schema_remove", args, kwargs, schemaParams(true)...)
	if err != nil {
		return nil, err
	}
	exists := func() (bool, error) {
		s, err := pgSchema(ctx, m)
		return s != nil && s.Len() > 0, err
	}
	if ok, err := exists(); err != nil || !ok {
		return false, err
	}
	if _, err := pgRun(ctx, schemaConn(m), "-c", `DROP SCHEMA "`+execmod.String(m["name"])+`"`); err != nil {
		return nil, err
	}
	ok, err := exists()
	return !ok, err
}

// langParams are ([name,] maintenance_db, user, host, port, password, runas).
func langParams(withName bool) []execmod.Param {
	var ps []execmod.Param
	if withName {
		ps = append(ps, execmod.Req("name"))
	}
	return append(ps, execmod.Req("maintenance_db"), execmod.Opt("user", nil), execmod.Opt("host", nil),
		execmod.Opt("port", nil), execmod.Opt("password", nil), execmod.Opt("runas", nil))
}

func pgLanguages(ctx *execmod.Context, c pgConn) (*value.Map, error) {
	rows, err := pgQuery(ctx, c, `SELECT lanname AS "Name" FROM pg_language`, false)
	if err != nil {
		return nil, err
	}
	out := value.NewMap(len(rows))
	for _, r := range rows {
		n, _ := r.Get("Name")
		out.Set(n, n)
	}
	return out, nil
}

func pgLanguageList(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("language_list", args, kwargs, langParams(false)...)
	if err != nil {
		return nil, err
	}
	return pgLanguages(ctx, connOf(m))
}

func pgLanguageExists(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("language_exists", args, kwargs, langParams(true)...)
	if err != nil {
		return nil, err
	}
	langs, err := pgLanguages(ctx, connOf(m))
	if err != nil {
		return nil, err
	}
	return langs.Has(execmod.String(m["name"])), nil
}

// langChange creates or drops a language; like Salt, the existence check
// uses the configured connection with only the database given.
func langChange(fun string, create bool) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		m, err := pgBind(fun, args, kwargs, langParams(true)...)
		if err != nil {
			return nil, err
		}
		name := execmod.String(m["name"])
		langs, err := pgLanguages(ctx, pgConn{db: m["maintenance_db"]})
		if err != nil {
			return nil, err
		}
		if langs.Has(name) == create {
			return false, nil
		}
		verb := "DROP"
		if create {
			verb = "CREATE"
		}
		return pgExec(ctx, connOf(m), verb+" LANGUAGE "+name)
	}
}

var (
	pgLanguageCreate = langChange("language_create", true)
	pgLanguageRemove = langChange("language_remove", false)
)

// privObjects are the object types the privilege functions handle.
var privObjects = map[string]bool{"schema": true, "tablespace": true, "language": true, "sequence": true,
	"table": true, "group": true, "database": true, "function": true}

func privListQuery(name, typ, prepend string) string {
	switch typ {
	case "table", "sequence":
		kind := "relkind in ('r', 'v')"
		if typ == "sequence" {
			kind = "relkind = 'S'"
		}
		return "SELECT relacl AS name FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace " +
			"WHERE nspname = '" + prepend + "' AND relname = '" + name + "' AND " + kind + " ORDER BY relname"
	case "schema":
		return "SELECT nspacl AS name FROM pg_catalog.pg_namespace WHERE nspname = '" + name + "' ORDER BY nspname"
	case "function":
		return "SELECT proacl AS name FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace " +
			"WHERE nspname = '" + prepend + "' AND p.oid::regprocedure::text = '" + name + "' ORDER BY proname, proargtypes"
	case "tablespace":
		return "SELECT spcacl AS name FROM pg_catalog.pg_tablespace WHERE spcname = '" + name + "' ORDER BY spcname"
	case "language":
		return "SELECT lanacl AS name FROM pg_catalog.pg_language WHERE lanname = '" + name + "' ORDER BY lanname"
	case "database":
		return "SELECT datacl AS name FROM pg_catalog.pg_database WHERE datname = '" + name + "' ORDER BY datname"
	case "group":
		return "SELECT rolname, admin_option FROM pg_catalog.pg_auth_members m JOIN pg_catalog.pg_roles r ON m.member=r.oid " +
			"WHERE m.roleid IN (SELECT oid FROM pg_catalog.pg_roles WHERE rolname='" + name + "') ORDER BY rolname"
	}
	return ""
}

func ownerQuery(name, typ, prepend string) string {
	switch typ {
	case "table":
		return "SELECT tableowner AS name FROM pg_tables WHERE schemaname = '" + prepend + "' AND tablename = '" + name + "'"
	case "sequence":
		return "SELECT rolname AS name FROM pg_catalog.pg_class c JOIN pg_roles r ON c.relowner = r.oid JOIN pg_catalog.pg_namespace n " +
			"ON n.oid = c.relnamespace WHERE relkind='S' AND nspname='" + prepend + "' AND relname = '" + name + "'"
	case "schema":
		return "SELECT rolname AS name FROM pg_namespace n JOIN pg_roles r ON n.nspowner = r.oid WHERE nspname = '" + name + "'"
	case "function":
		return "SELECT rolname AS name FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace " +
			"JOIN pg_catalog.pg_roles r ON p.proowner = r.oid WHERE nspname = '" + prepend + "' AND p.oid::regprocedure::text = '" +
			name + "' ORDER BY proname, proargtypes"
	case "tablespace":
		return "SELECT rolname AS name FROM pg_tablespace t JOIN pg_roles r ON t.spcowner = r.oid WHERE spcname = '" + name + "'"
	case "language":
		return "SELECT rolname AS name FROM pg_language l JOIN pg_roles r ON l.lanowner = r.oid WHERE lanname = '" + name + "'"
	case "database":
		return "SELECT rolname AS name FROM pg_database d JOIN pg_roles r ON d.datdba = r.oid WHERE datname = '" + name + "'"
	}
	return ""
}

var privSplitRe = regexp.MustCompile(`\s?,\s?`)

// privOpts is Salt's _mod_priv_opts plus _validate_privileges.
func privOpts(objType string, privileges any) (string, string, []string, error) {
	objType = strings.ToLower(objType)
	privs := ""
	if privileges != nil {
		privs = execmod.String(privileges)
	}
	list := privSplitRe.Split(strings.ToUpper(privs), -1)
	if objType != "group" {
		letters, ok := pgcmd.PrivilegeTypes[objType]
		if !ok || !privObjects[objType] {
			return "", "", nil, &execmod.InvocationError{Msg: "Invalid object_type: " + objType + " provided"}
		}
		allowed := map[string]bool{"ALL": true}
		for i := 0; i < len(letters); i++ {
			allowed[pgcmd.PrivilegeNames[letters[i]]] = true
		}
		for _, p := range list {
			if !allowed[p] {
				return "", "", nil, &execmod.InvocationError{Msg: "Invalid privilege(s): " + privs + " provided for object " + objType}
			}
		}
	} else if privs != "" {
		return "", "", nil, &execmod.InvocationError{Msg: "The privileges option should not be set for object_type group"}
	}
	return objType, privs, list, nil
}

// privConn binds the trailing (maintenance_db, user, host, port, password,
// runas) of the privilege functions.
func privParams(head ...execmod.Param) []execmod.Param {
	return append(head, execmod.Opt("maintenance_db", nil), execmod.Opt("user", nil), execmod.Opt("host", nil),
		execmod.Opt("port", nil), execmod.Opt("password", nil), execmod.Opt("runas", nil))
}

// privList is Salt's privileges_list: per role, privilege name -> grant
// option (for a group: role -> admin option).
func privList(ctx *execmod.Context, c pgConn, name, typ, prepend string) (*value.Map, error) {
	typ = strings.ToLower(typ)
	q := privListQuery(name, typ, prepend)
	if !privObjects[typ] {
		return nil, &execmod.InvocationError{Msg: "Invalid object_type: " + typ + " provided"}
	}
	rows, err := pgQuery(ctx, c, q, false)
	if err != nil {
		return nil, err
	}
	out := value.NewMap(0)
	for _, r := range rows {
		if typ == "group" {
			role, _ := r.Get("rolname")
			adm, _ := r.Get("admin_option")
			out.Set(role, adm == "t")
			continue
		}
		acl, _ := r.Get("name")
		for _, part := range strings.Split(strings.Trim(acl, "{}"), ",") {
			grant, _, ok := strings.Cut(part, "/")
			if !ok || strings.Count(part, "/") != 1 {
				return nil, &pgError{class: "ValueError", msg: "not enough values to unpack (expected 2, got 1)"}
			}
			role, perms, ok := strings.Cut(grant, "=")
			if !ok || strings.Contains(perms, "=") {
				return nil, &pgError{class: "ValueError", msg: "not enough values to unpack (expected 2, got 1)"}
			}
			if role == "" {
				role = "public"
			}
			pm := value.NewMap(0)
			prev := ""
			for i := 0; i < len(perms); i++ {
				p := perms[i]
				if prev != "" && p == '*' {
					pm.Set(prev, true)
					continue
				}
				n, known := pgcmd.PrivilegeNames[p]
				if !known {
					return nil, &pgError{class: "KeyError", msg: "'" + string(p) + "'"}
				}
				pm.Set(n, false)
				prev = n
			}
			out.Set(role, pm)
		}
	}
	return out, nil
}

func pgPrivilegesList(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("privileges_list", args, kwargs, privParams(execmod.Req("name"), execmod.Req("object_type"), execmod.Opt("prepend", "public"))...)
	if err != nil {
		return nil, err
	}
	return privList(ctx, connOf(m), execmod.String(m["name"]), execmod.String(m["object_type"]), execmod.String(m["prepend"]))
}

// hasPrivileges is Salt's has_privileges.
func hasPrivileges(ctx *execmod.Context, c pgConn, name, object, objType string, privileges, grantOption any, prepend string) (bool, error) {
	objType, _, privs, err := privOpts(objType, privileges)
	if err != nil {
		return false, err
	}
	if objType != "group" {
		rows, err := pgQuery(ctx, c, ownerQuery(object, objType, prepend), false)
		if err != nil {
			return false, err
		}
		if len(rows) > 0 {
			if owner, ok := rows[0].Get("name"); ok && owner == name {
				return true, nil
			}
		}
	}
	have, err := privList(ctx, c, object, objType, prepend)
	if err != nil {
		return false, err
	}
	v, ok := have.Get(name)
	if !ok {
		return false, nil
	}
	if objType == "group" {
		if value.Truthy(grantOption) {
			return v == true, nil
		}
		return true, nil
	}
	held, _ := v.(*value.Map)
	letters := pgcmd.PrivilegeTypes[objType]
	var all []string
	for i := 0; i < len(letters); i++ {
		all = append(all, pgcmd.PrivilegeNames[letters[i]])
	}
	if value.Truthy(grantOption) {
		want := value.NewMap(0)
		for _, p := range all {
			want.Set(p, true)
		}
		return value.Equal(want, held), nil
	}
	var heldNames []string
	for _, k := range held.Keys() {
		heldNames = append(heldNames, execmod.String(k))
	}
	if hasFlag(privs, "ALL") {
		sort.Strings(all)
		sort.Strings(heldNames)
		return strings.Join(all, ",") == strings.Join(heldNames, ","), nil
	}
	for _, p := range privs {
		if !hasFlag(heldNames, p) {
			return false, nil
		}
	}
	return true, nil
}

func pgHasPrivileges(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("has_privileges", args, kwargs, privParams(execmod.Req("name"), execmod.Req("object_name"), execmod.Req("object_type"),
		execmod.Opt("privileges", nil), execmod.Opt("grant_option", nil), execmod.Opt("prepend", "public"))...)
	if err != nil {
		return nil, err
	}
	return hasPrivileges(ctx, connOf(m), execmod.String(m["name"]), execmod.String(m["object_name"]), execmod.String(m["object_type"]),
		m["privileges"], m["grant_option"], execmod.String(m["prepend"]))
}

func pgPrivilegesGrant(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("privileges_grant", args, kwargs, privParams(execmod.Req("name"), execmod.Req("object_name"), execmod.Req("object_type"),
		execmod.Opt("privileges", nil), execmod.Opt("grant_option", nil), execmod.Opt("prepend", "public"))...)
	if err != nil {
		return nil, err
	}
	name, object, prepend := execmod.String(m["name"]), execmod.String(m["object_name"]), execmod.String(m["prepend"])
	objType, _, privs, err := privOpts(execmod.String(m["object_type"]), m["privileges"])
	if err != nil {
		return nil, err
	}
	c := connOf(m)
	if ok, err := hasPrivileges(ctx, c, name, object, objType, m["privileges"], nil, prepend); err != nil || ok {
		return false, err
	}
	grants := strings.Join(privs, ",")
	var on string
	switch objType {
	case "table", "sequence":
		on = prepend + `."` + object + `"`
	case "function":
		on = object
	default:
		on = `"` + object + `"`
	}
	var q string
	switch {
	case objType == "group":
		q = "GRANT " + object + ` TO "` + name + `"`
	case (objType == "table" || objType == "sequence") && strings.ToUpper(object) == "ALL":
		q = "GRANT " + grants + " ON ALL " + strings.ToUpper(objType) + "S IN SCHEMA " + prepend + ` TO "` + name + `"`
	default:
		q = "GRANT " + grants + " ON " + strings.ToUpper(objType) + " " + on + ` TO "` + name + `"`
	}
	if value.Truthy(m["grant_option"]) {
		if objType == "group" {
			q += " WITH ADMIN OPTION"
		} else {
			q += " WITH GRANT OPTION"
		}
	}
	return pgExec(ctx, c, q)
}

func pgPrivilegesRevoke(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("privileges_revoke", args, kwargs, privParams(execmod.Req("name"), execmod.Req("object_name"), execmod.Req("object_type"),
		execmod.Opt("privileges", nil), execmod.Opt("prepend", "public"))...)
	if err != nil {
		return nil, err
	}
	name, object, prepend := execmod.String(m["name"]), execmod.String(m["object_name"]), execmod.String(m["prepend"])
	objType, _, privs, err := privOpts(execmod.String(m["object_type"]), m["privileges"])
	if err != nil {
		return nil, err
	}
	c := connOf(m)
	if ok, err := hasPrivileges(ctx, c, name, object, objType, m["privileges"], nil, prepend); err != nil || !ok {
		return false, err
	}
	on := object
	if objType == "table" || objType == "sequence" {
		on = prepend + "." + object
	}
	q := "REVOKE " + strings.Join(privs, ",") + " ON " + strings.ToUpper(objType) + " " + on + " FROM " + name
	if objType == "group" {
		q = "REVOKE " + object + " FROM " + name
	}
	return pgExec(ctx, c, q)
}

func datadirExists(name string) bool {
	isFile := func(p string) bool {
		st, err := os.Stat(p)
		return err == nil && st.Mode().IsRegular()
	}
	return isFile(filepath.Join(name, "PG_VERSION")) && isFile(filepath.Join(name, "postgresql.conf"))
}

func pgDatadirExists(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("datadir_exists", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	return datadirExists(execmod.String(v[0])), nil
}

func pgDatadirInit(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("datadir_init", args, kwargs, execmod.Req("name"), execmod.Opt("auth", "password"), execmod.Opt("user", nil),
		execmod.Opt("password", nil), execmod.Opt("encoding", "UTF8"), execmod.Opt("locale", nil), execmod.Opt("waldir", nil),
		execmod.Opt("checksums", false), execmod.Opt("runas", nil))
	if err != nil {
		return nil, err
	}
	name := execmod.String(m["name"])
	if datadirExists(name) {
		return false, nil
	}
	runas := m["runas"]
	if runas == nil {
		runas = "postgres"
	}
	user := m["user"]
	if user == nil {
		user = runas
	}
	bin := pgBinary(ctx, "initdb")
	if bin == "" {
		return nil, execmod.Errorf("initdb executable not found.")
	}
	cmd := []string{bin, "--pgdata=" + name, "--username=" + execmod.String(user), "--auth=" + execmod.String(m["auth"]),
		"--encoding=" + execmod.String(m["encoding"])}
	if m["locale"] != nil {
		cmd = append(cmd, "--locale="+execmod.String(m["locale"]))
	}
	if m["waldir"] != nil {
		cmd = append(cmd, "-X", execmod.String(m["waldir"]))
	}
	if value.Truthy(m["checksums"]) {
		cmd = append(cmd, "--data-checksums")
	}
	if m["password"] != nil {
		f, err := os.CreateTemp("", "brine-pwfile-")
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		defer os.Remove(f.Name())
		_, _ = f.WriteString(execmod.String(m["password"]))
		f.Close()
		_, _ = ctx.Call("file.chown", []any{f.Name(), runas, ""}, nil)
		cmd = append(cmd, "--pwfile="+f.Name())
	}
	res, err := runArgv(ctx, "cmd.run_all", cmd, "runas", runas, "clean_env", true, "timeout", pgOption(ctx, "postgres.timeout", int64(0)))
	if err != nil {
		return nil, err
	}
	rm, _ := res.(*value.Map)
	return rm != nil && pgRC(rm) == 0, nil
}
