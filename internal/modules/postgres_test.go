package modules_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/system/pgcmd/pgtest"
	"brine/internal/value"
)

func pgCtx(srv *pgtest.Server) *execmod.Context {
	ctx := execmod.NewContext()
	ctx.Opts.Set("postgres.host", srv.Host)
	ctx.Opts.Set("postgres.port", int64(srv.Port))
	ctx.Opts.Set("postgres.user", srv.User)
	return ctx
}

// TestPostgresAgainstSalt replays a sequence of postgres.* calls (roles,
// databases, schemas, extensions, languages, privileges, queries) on a
// throwaway server and compares each return with what Salt 3006 returned
// for the same sequence (testdata/postgres_salt.json, recorded with
// salt-call against a server of the same version).
func TestPostgresAgainstSalt(t *testing.T) {
	srv := pgtest.Start(t)
	ctx := pgCtx(srv)
	data, err := os.ReadFile("testdata/postgres_salt.json")
	if err != nil {
		t.Fatal(err)
	}
	var calls []struct {
		Fun    string          `json:"fun"`
		Args   json.RawMessage `json:"args"`
		Kwargs json.RawMessage `json:"kwargs"`
		Ret    json.RawMessage `json:"ret"`
	}
	if err := json.Unmarshal(data, &calls); err != nil {
		t.Fatal(err)
	}
	for i, c := range calls {
		args, _ := value.FromJSON(c.Args)
		kw, _ := value.FromJSON(c.Kwargs)
		want, _ := value.FromJSON(c.Ret)
		got, err := ctx.Call("postgres."+c.Fun, args.(*value.List).Items, kw.(*value.Map))
		if err != nil {
			t.Fatalf("%d postgres.%s: %v", i, c.Fun, err)
		}
		if !value.Equal(got, want) {
			t.Errorf("%d postgres.%s %s %s:\n got %s\nwant %s", i, c.Fun, c.Args, c.Kwargs, value.Repr(got), value.Repr(want))
		}
	}
}

// TestPostgresServerFacts checks the calls whose results depend on the
// server (version, catalogue listings) against the server itself.
func TestPostgresServerFacts(t *testing.T) {
	srv := pgtest.Start(t)
	ctx := pgCtx(srv)
	call := func(fun string, args ...any) any {
		t.Helper()
		got, err := ctx.Call("postgres."+fun, args, value.NewMap(0))
		if err != nil {
			t.Fatalf("postgres.%s: %v", fun, err)
		}
		return got
	}
	ver := srv.Query(t, "postgres", "SHOW server_version")[0][0]
	if got := call("version"); got != ver {
		t.Errorf("version = %v, want %s", got, ver)
	}
	dbs := call("db_list").(*value.Map)
	for _, name := range []string{"postgres", "template0", "template1"} {
		m, ok := dbs.Get(name)
		if !ok {
			t.Fatalf("db_list lacks %s: %s", name, value.Repr(dbs))
		}
		if owner, _ := m.(*value.Map).Get("Owner"); owner != "salt" {
			t.Errorf("%s owner = %v", name, owner)
		}
		if enc, _ := m.(*value.Map).Get("Encoding"); enc != "UTF8" {
			t.Errorf("%s encoding = %v", name, enc)
		}
	}
	if ts := call("tablespace_list").(*value.Map); !ts.Has("pg_default") || !ts.Has("pg_global") {
		t.Errorf("tablespace_list = %s", value.Repr(ts))
	}
	if langs := call("language_list", "postgres").(*value.Map); !langs.Has("plpgsql") || !langs.Has("sql") {
		t.Errorf("language_list = %s", value.Repr(langs))
	}
	inst := call("installed_extensions").(*value.Map)
	if v, ok := inst.Get("plpgsql"); !ok {
		t.Errorf("installed_extensions = %s", value.Repr(inst))
	} else if s, _ := v.(*value.Map).Get("schema_name"); s != "pg_catalog" {
		t.Errorf("plpgsql schema_name = %v", s)
	}
	if av := call("get_available_extension", "plpgsql"); av == nil {
		t.Error("get_available_extension plpgsql = None")
	}
	if got := call("get_installed_extension", "nosuch"); got != nil {
		t.Errorf("get_installed_extension nosuch = %v", got)
	}
	if users := call("user_list").(*value.Map); !users.Has("salt") {
		t.Errorf("user_list = %s", value.Repr(users))
	}
	// A write query runs in a READ WRITE transaction; as in Salt 3006,
	// psql's "START TRANSACTION" line is taken for the CSV header and the
	// last row ("COMMIT") is dropped.
	srv.Exec(t, "postgres", "CREATE TABLE w2t (a int)")
	rows, err := ctx.Call("postgres.psql_query", []any{"WITH x AS (INSERT INTO w2t VALUES (7) RETURNING a) SELECT a FROM x"}, value.MapOf("write", true))
	if err != nil {
		t.Fatal(err)
	}
	if got := value.Repr(rows); got != "[{'START TRANSACTION': 'a'}, {'START TRANSACTION': '7'}]" {
		t.Errorf("write query = %s", got)
	}
	if got := srv.Query(t, "postgres", "SELECT count(*) FROM w2t"); got[0][0] != "1" {
		t.Errorf("rows after the write query: %v", got)
	}
}

// TestPostgresTablespaceAndDatadir creates, alters and drops a tablespace
// and initialises a data directory with initdb (as the server's user).
func TestPostgresTablespaceAndDatadir(t *testing.T) {
	srv := pgtest.Start(t)
	ctx := pgCtx(srv)
	dir, err := os.MkdirTemp("", "brine-pgts-") // not t.TempDir: its parent is private to root
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	loc := filepath.Join(dir, "ts")
	if err := os.Mkdir(loc, 0o700); err != nil {
		t.Fatal(err)
	}
	uid, gid := srv.OwnerIDs(t)
	for _, p := range []string{dir, loc} {
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		fun  string
		args []any
		kw   *value.Map
		want string
	}{
		{"tablespace_exists", []any{"w2ts"}, value.NewMap(0), "False"},
		{"tablespace_create", []any{"w2ts", loc}, value.MapOf("options", value.MapOf("seq_page_cost", 1.5)), "True"},
		{"tablespace_exists", []any{"w2ts"}, value.NewMap(0), "True"},
		{"tablespace_alter", []any{"w2ts"}, value.MapOf("set_option", value.MapOf("random_page_cost", 3)), "True"},
		{"tablespace_alter", []any{"w2ts"}, value.MapOf("new_name", "w2ts2"), "True"},
		{"tablespace_remove", []any{"w2ts"}, value.NewMap(0), "False"},
		{"tablespace_remove", []any{"w2ts2"}, value.NewMap(0), "True"},
		{"datadir_exists", []any{filepath.Join(dir, "data")}, value.NewMap(0), "False"},
	}
	if srv.RunAs != "" {
		data := filepath.Join(dir, "data")
		steps = append(steps, []struct {
			fun  string
			args []any
			kw   *value.Map
			want string
		}{
			{"datadir_init", []any{data}, value.MapOf("runas", srv.RunAs, "auth", "trust", "password", "pw"), "True"},
			{"datadir_exists", []any{data}, value.NewMap(0), "True"},
			{"datadir_init", []any{data}, value.MapOf("runas", srv.RunAs), "False"},
		}...)
	}
	for _, s := range steps {
		got, err := ctx.Call("postgres."+s.fun, s.args, s.kw)
		if err != nil {
			t.Fatalf("%s: %v", s.fun, err)
		}
		if value.Repr(got) != s.want {
			t.Errorf("%s %v %s = %s, want %s", s.fun, s.args, value.Repr(s.kw), value.Repr(got), s.want)
		}
		if s.fun == "tablespace_alter" && strings.Contains(value.Repr(s.kw), "random") {
			opts := srv.Query(t, "postgres", "SELECT array_to_string(spcoptions, ',') FROM pg_tablespace WHERE spcname = 'w2ts'")
			if len(opts) != 1 || opts[0][0] != "seq_page_cost=1.5,random_page_cost=3" {
				t.Errorf("tablespace options = %v", opts)
			}
		}
	}
}
