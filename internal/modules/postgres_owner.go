package modules

// postgres.owner_to of salt/modules/postgres.py. Salt 3006's fails on
// Python 3 before it connects (it writes text to a binary temporary
// file: "a bytes-like object is required, not 'str'"); brine does what it
// is documented to do. As Salt's would, it collects ALTER ... OWNER TO
// statements for the database, its schemas, tables, views, functions,
// aggregates and sequences, and runs them with psql -f in one
// transaction, returning psql's cmd.run_all result. Where Salt's
// statements could never have committed on a current server, brine's
// differ: system schemas (pg_*, information_schema) are left alone,
// functions are told from aggregates and procedures by prokind (proisagg
// is gone since PostgreSQL 11), sequences owned by a column follow their
// table (PostgreSQL refuses to change them alone), views, materialized
// views and foreign tables get their own ALTER, and the owner is quoted
// as an identifier everywhere.

import (
	"os"
	"strings"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("postgres.owner_to", pgOwnerTo,
		"Make ownername the owner of database dbname and of its schemas, tables, views, sequences and functions, in one transaction; psql's result.")
}

// pgOwnerQueries are the statements' templates, each with the query of
// the quoted names it applies to ({kind} picks the ALTER's object type).
var pgOwnerQueries = []string{
	// schemas
	`SELECT 'SCHEMA' AS k, quote_ident(nspname) AS n FROM pg_catalog.pg_namespace ` +
		`WHERE nspname !~ '^pg_' AND nspname <> 'information_schema' ORDER BY nspname`,
	// tables, views, materialized views, foreign tables
	`SELECT CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END AS k, ` +
		`quote_ident(ns.nspname) || '.' || quote_ident(c.relname) AS n FROM pg_catalog.pg_class c ` +
		`JOIN pg_catalog.pg_namespace ns ON c.relnamespace = ns.oid WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') ` +
		`AND ns.nspname !~ '^pg_' AND ns.nspname <> 'information_schema' ORDER BY 2`,
	// functions, aggregates, procedures (prokind, or proisagg before 11)
	`SELECT CASE COALESCE(to_jsonb(p) ->> 'prokind', CASE WHEN (to_jsonb(p) ->> 'proisagg')::boolean THEN 'a' ELSE 'f' END) ` +
		`WHEN 'a' THEN 'AGGREGATE' WHEN 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END AS k, p.oid::regprocedure::text AS n ` +
		`FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace ns ON p.pronamespace = ns.oid ` +
		`WHERE ns.nspname !~ '^pg_' AND ns.nspname <> 'information_schema' ORDER BY 2`,
	// sequences not owned by a column
	`SELECT 'SEQUENCE' AS k, quote_ident(ns.nspname) || '.' || quote_ident(c.relname) AS n FROM pg_catalog.pg_class c ` +
		`JOIN pg_catalog.pg_namespace ns ON c.relnamespace = ns.oid WHERE c.relkind = 'S' ` +
		`AND ns.nspname !~ '^pg_' AND ns.nspname <> 'information_schema' AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d ` +
		`WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = c.oid AND d.refclassid = 'pg_catalog.pg_class'::regclass ` +
		`AND d.deptype IN ('a', 'i')) ORDER BY 2`,
}

// pgIdent quotes an identifier as quote_ident does when it must.
func pgIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func pgOwnerTo(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	m, err := pgBind("owner_to", args, kwargs, execmod.Req("dbname"), execmod.Req("ownername"), execmod.Opt("user", nil),
		execmod.Opt("host", nil), execmod.Opt("port", nil), execmod.Opt("password", nil), execmod.Opt("runas", nil))
	if err != nil {
		return nil, err
	}
	dbname, owner := execmod.String(m["dbname"]), pgIdent(execmod.String(m["ownername"]))
	c := pgConn{user: m["user"], host: m["host"], port: m["port"], db: dbname, password: m["password"], runas: m["runas"]}
	var sql strings.Builder
	sql.WriteString("begin;\n")
	sql.WriteString("alter database " + pgIdent(dbname) + " owner to " + owner + ";\n")
	for _, q := range pgOwnerQueries {
		rows, err := pgQuery(ctx, c, q, false)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			row := rowMap(r)
			k, _ := row.Get("k")
			n, _ := row.Get("n")
			sql.WriteString("alter " + strings.ToLower(value.Str(k)) + " " + value.Str(n) + " owner to " + owner + ";\n")
		}
	}
	sql.WriteString("commit;\n")
	f, err := os.CreateTemp("", "brine-owner-to-")
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	defer os.Remove(f.Name())
	_, err = f.WriteString(sql.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// psql may run as the postgres user.
		err = os.Chmod(f.Name(), 0o644)
	}
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return pgRun(ctx, c, "-f", f.Name())
}
