package modules_test

import (
	"strings"
	"testing"

	"brine/internal/system/pgcmd/pgtest"
	"brine/internal/value"
)

// TestPostgresOwnerTo hands a database with one object of each kind
// (schema, table with a serial column, sequence, view, materialized
// view, function, aggregate, procedure) to another role, whose name needs
// quoting, and checks every owner afterwards; then to a role that does not
// exist, which changes nothing (one transaction) and reports psql's error.
func TestPostgresOwnerTo(t *testing.T) {
	srv := pgtest.Start(t)
	ctx := pgCtx(srv)
	srv.Exec(t, "postgres", `CREATE ROLE "Owner One"`)
	srv.Exec(t, "postgres", `CREATE DATABASE "ot-db"`)
	for _, q := range []string{
		`CREATE SCHEMA s1`,
		`CREATE TABLE s1.t (id serial PRIMARY KEY, v int)`,
		`CREATE SEQUENCE s1.seq`,
		`CREATE VIEW s1.v AS SELECT id FROM s1.t`,
		`CREATE MATERIALIZED VIEW s1.mv AS SELECT id FROM s1.t`,
		`CREATE FUNCTION s1.f(a int) RETURNS int LANGUAGE sql AS 'SELECT a + 1'`,
		`CREATE AGGREGATE s1.agg(int) (SFUNC = int4pl, STYPE = int)`,
		`CREATE PROCEDURE s1.p() LANGUAGE sql AS 'SELECT 1'`,
	} {
		srv.Exec(t, "ot-db", q)
	}
	owners := func() string {
		rows := srv.Query(t, "ot-db", `SELECT k || ' ' || n || ': ' || o FROM (
			SELECT 'database' AS k, datname AS n, pg_get_userbyid(datdba) AS o FROM pg_database WHERE datname = 'ot-db'
			UNION ALL SELECT 'schema', nspname, pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname IN ('s1', 'public')
			UNION ALL SELECT 'relation', relname, pg_get_userbyid(relowner) FROM pg_class
				WHERE relnamespace = 's1'::regnamespace AND relkind IN ('r', 'S', 'v', 'm')
			UNION ALL SELECT 'routine', proname, pg_get_userbyid(proowner) FROM pg_proc WHERE pronamespace = 's1'::regnamespace
			) x ORDER BY 1`)
		var out []string
		for _, r := range rows {
			out = append(out, r[0])
		}
		return strings.Join(out, "\n")
	}
	before := owners()

	ret, err := ctx.Call("postgres.owner_to", []any{"ot-db", "nosuch"}, value.NewMap(0))
	if err != nil {
		t.Fatal(err)
	}
	m := ret.(*value.Map)
	if stderr, _ := m.Get("stderr"); !strings.Contains(value.Str(stderr), `role "nosuch" does not exist`) {
		t.Errorf("owner_to a missing role: %s", value.Repr(m))
	}
	if got := owners(); got != before {
		t.Errorf("owner_to a missing role changed owners:\n%s", got)
	}

	ret, err = ctx.Call("postgres.owner_to", []any{"ot-db", "Owner One"}, value.NewMap(0))
	if err != nil {
		t.Fatal(err)
	}
	m = ret.(*value.Map)
	if rc, _ := m.Get("retcode"); rc != int64(0) {
		t.Fatalf("owner_to: %s", value.Repr(m))
	}
	if stderr, _ := m.Get("stderr"); stderr != "" {
		t.Errorf("owner_to stderr: %s", stderr)
	}
	want := strings.Join([]string{
		"database ot-db: Owner One",
		"relation mv: Owner One", "relation seq: Owner One", "relation t: Owner One", "relation t_id_seq: Owner One", "relation v: Owner One",
		"routine agg: Owner One", "routine f: Owner One", "routine p: Owner One",
		"schema public: Owner One", "schema s1: Owner One",
	}, "\n")
	if got := owners(); got != want {
		t.Errorf("owners after owner_to:\n%s\nwant\n%s", got, want)
	}
}
