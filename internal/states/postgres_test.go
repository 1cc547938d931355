package states_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"brine/internal/execmod"
	"brine/internal/system/pgcmd/pgtest"
	"brine/internal/value"
)

// pgStates are the SLS files the postgres_* golden was recorded with
// (Salt 3006 against a throwaway server): per file, its states in order.
type pgState struct {
	id, fun string
	args    []any
}

var pgStates = map[string][]pgState{
	"pgon": {
		{"w2grp", "postgres_group.present", []any{"createdb", true}},
		{"w2usr", "postgres_user.present", []any{"password", "s3cret", "groups", "w2grp", "valid_until", "2031-05-06 07:08:09"}},
		{"w2usr2", "postgres_user.present", []any{"password", "other", "encrypted", "scram-sha-256", "login", false}},
		{"w2db", "postgres_database.present", []any{"owner", "w2usr", "encoding", "UTF8"}},
		{"w2schema", "postgres_schema.present", []any{"dbname", "w2db", "owner", "w2usr"}},
		{"pg_trgm", "postgres_extension.present", []any{"maintenance_db", "w2db", "schema", "w2schema"}},
		{"w2priv", "postgres_privileges.present", []any{"name", "w2usr2", "object_name", "w2db", "object_type", "database",
			"privileges", value.NewList("CONNECT", "TEMPORARY")}},
		{"w2member", "postgres_privileges.present", []any{"name", "w2usr2", "object_name", "w2grp", "object_type", "group"}},
		{"plpgsql", "postgres_language.present", []any{"maintenance_db", "w2db"}},
	},
	"pgupd": {
		{"w2usr", "postgres_user.present", []any{"password", "changed", "createdb", true, "valid_until", "2032-01-01",
			"groups", value.NewList("w2grp", "pg_monitor")}},
		{"w2usr2", "postgres_user.present", []any{"password", "other", "encrypted", "scram-sha-256", "superuser", true}},
		{"w2db", "postgres_database.present", []any{"encoding", "LATIN1"}},
		{"w2db2", "postgres_database.present", []any{"name", "w2db", "owner", "w2usr2"}},
	},
	"pgoff": {
		{"w2member", "postgres_privileges.absent", []any{"name", "w2usr2", "object_name", "w2grp", "object_type", "group"}},
		{"w2priv", "postgres_privileges.absent", []any{"name", "w2usr2", "object_name", "w2db", "object_type", "database",
			"privileges", value.NewList("CONNECT")}},
		{"pg_trgm", "postgres_extension.absent", []any{"maintenance_db", "w2db"}},
		{"w2schema", "postgres_schema.absent", []any{"dbname", "w2db"}},
		{"w2db", "postgres_database.absent", nil},
		{"w2usr", "postgres_user.absent", nil},
		{"w2usr2", "postgres_user.absent", nil},
		{"w2grp", "postgres_group.absent", nil},
	},
}

// pgContext returns an execution context whose postgres.* options point
// at srv.
func pgContext(srv *pgtest.Server) *execmod.Context {
	ctx := execmod.NewContext()
	ctx.Opts.Set("postgres.host", srv.Host)
	ctx.Opts.Set("postgres.port", int64(srv.Port))
	ctx.Opts.Set("postgres.user", srv.User)
	return ctx
}

// TestPostgresStates runs present, update and absent, each in test mode
// and twice for real, and compares every return with Salt 3006's.
func TestPostgresStates(t *testing.T) {
	srv := pgtest.Start(t)
	pgReplay(t, pgContext(srv), "testdata/postgres_states_salt.json", pgStates)
	if rows := srv.Query(t, "postgres", "SELECT rolname FROM pg_roles WHERE rolname LIKE 'w2%'"); len(rows) != 0 {
		t.Errorf("roles left after the absent states: %v", rows)
	}
}

// TestPostgresTablespaceStates does the same for postgres_tablespace,
// whose directory must belong to the server's user. (Like Salt's, its
// test mode changes a differing owner: the recording shows it.)
func TestPostgresTablespaceStates(t *testing.T) {
	srv := pgtest.Start(t)
	dir, err := os.MkdirTemp("", "brine-pgts-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	uid, gid := srv.OwnerIDs(t)
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
	states := map[string][]pgState{
		"tson": {{"w2ts", "postgres_tablespace.present", []any{"directory", dir, "options", value.MapOf("seq_page_cost", 1.5)}}},
		"tsupd": {
			{"w2ts", "postgres_tablespace.present", []any{"directory", dir, "owner", "pg_monitor",
				"options", value.MapOf("seq_page_cost", 1.5, "random_page_cost", int64(3))}},
			{"w2tsbad", "postgres_tablespace.present", []any{"name", "w2ts", "directory", "/tmp/elsewhere"}},
		},
		"tsoff": {{"w2ts", "postgres_tablespace.absent", nil}},
	}
	pgReplay(t, pgContext(srv), "testdata/postgres_tablespace_salt.json", states)
}

// pgReplay runs the recorded sequence of golden (runs of SLS files, in
// test mode or not) with the states of each file and compares the returns.
func pgReplay(t *testing.T, ctx *execmod.Context, golden string, states map[string][]pgState) {
	t.Helper()
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var steps []struct {
		Run  int             `json:"run"`
		SLS  string          `json:"sls"`
		Test bool            `json:"test"`
		ID   string          `json:"id"`
		Ret  json.RawMessage `json:"ret"`
	}
	if err := json.Unmarshal(data, &steps); err != nil {
		t.Fatal(err)
	}
	i := 0
	for i < len(steps) {
		run := steps[i]
		for _, st := range states[run.SLS] {
			if i >= len(steps) || steps[i].Run != run.Run || steps[i].ID != st.id {
				t.Fatalf("%s out of step at run %d %s", golden, run.Run, st.id)
			}
			args := append([]any{"name", st.id}, st.args...)
			got := runIn(t, ctx, st.fun, value.MapOf(args...), run.Test)
			want, err := value.FromJSON(steps[i].Ret)
			if err != nil {
				t.Fatal(err)
			}
			if !value.Equal(got, want) {
				t.Errorf("run %d (%s test=%v) %s %s:\n got %s\nwant %s", run.Run, run.SLS, run.Test, st.id, st.fun,
					value.Repr(got), value.Repr(want))
			}
			i++
		}
	}
}

// TestPostgresClusterStates creates and drops a Debian cluster
// (pg_createcluster 15 brinetest, not started) and compares with Salt.
// It needs root and PostgreSQL 15's cluster tools; the cluster is dropped
// at the end even when the test fails.
func TestPostgresClusterStates(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("creating a cluster needs root")
	}
	if _, err := exec.LookPath("pg_createcluster"); err != nil {
		t.Skip("pg_createcluster is not installed")
	}
	if _, err := os.Stat("/usr/lib/postgresql/15/bin/initdb"); err != nil {
		t.Skip("the recording is of PostgreSQL 15")
	}
	if _, err := os.Stat("/etc/postgresql/15/brinetest"); err == nil {
		t.Skip("a cluster 15/brinetest already exists")
	}
	t.Cleanup(func() {
		if _, err := os.Stat("/etc/postgresql/15/brinetest"); err == nil {
			_ = exec.Command("pg_dropcluster", "--stop", "15", "brinetest").Run()
		}
	})
	states := map[string][]pgState{
		"clon": {
			{"brinetest", "postgres_cluster.present", []any{"version", int64(15), "encoding", "UTF8"}},
			{"w2cbad", "postgres_cluster.present", []any{"name", "brinetest", "version", int64(15), "port", int64(1)}},
		},
		"cloff": {{"brinetest", "postgres_cluster.absent", []any{"version", int64(15)}}},
	}
	pgReplay(t, execmod.NewContext(), "testdata/postgres_cluster_salt.json", states)
}
