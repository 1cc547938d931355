package states_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/system/mysqlconn/mysqltest"
	"brine/internal/value"
)

// TestMySQLStates replays, against a throwaway MariaDB server, the runs
// of mysql_database, mysql_user and mysql_grants states recorded from
// Salt 3006 (with PyMySQL) against the same kind of server: creation in
// test mode and for real, a second run, changes (password, hash,
// passwordless, character set), the absent states in test mode, for real
// and again, and a server that cannot be reached. One context serves a
// whole run, as one salt-call does: an error a state leaves in
// __context__["mysql.error"] shows in the next state, as in Salt.
func TestMySQLStates(t *testing.T) {
	srv := mysqltest.Start(t)
	data, err := os.ReadFile("testdata/mysql_states_salt.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden []struct {
		Run  int             `json:"run"`
		SLS  string          `json:"sls"`
		Test bool            `json:"test"`
		ID   string          `json:"id"`
		Fun  string          `json:"fun"`
		Args json.RawMessage `json:"args"`
		Ret  json.RawMessage `json:"ret"`
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	nosock := filepath.Join(t.TempDir(), "nosock")
	var ctx *execmod.Context
	run := -1
	for _, g := range golden {
		if g.Run != run {
			run = g.Run
			ctx = execmod.NewContext()
			ctx.Opts.Set("mysql.unix_socket", srv.Socket)
			ctx.Opts.Set("mysql.user", "root")
		}
		av, err := value.FromJSON(g.Args)
		if err != nil {
			t.Fatal(err)
		}
		args := av.(*value.Map)
		args.Range(func(k, v any) bool {
			if v == "{nosock}" {
				args.Set(k, nosock)
			}
			return true
		})
		got := runIn(t, ctx, g.Fun, args, g.Test)
		want, err := value.FromJSON(g.Ret)
		if err != nil {
			t.Fatal(err)
		}
		if !value.Equal(got, want) {
			t.Errorf("run %d (%s test=%v) %s %s:\n got %s\nwant %s", g.Run, g.SLS, g.Test, g.ID, g.Fun, value.Repr(got), value.Repr(want))
		}
	}
	if rows := srv.Query(t, "SELECT User FROM mysql.user WHERE User LIKE 'brine%'"); len(rows) != 0 {
		t.Errorf("users left after the absent states: %v", rows)
	}
	if rows := srv.Query(t, "SHOW DATABASES LIKE 'brine%'"); len(rows) != 0 {
		t.Errorf("databases left after the absent states: %v", rows)
	}
}

var queryTimeRE = regexp.MustCompile(`'query time': \{'human': '[^']*', 'raw': '[^']*'\}`)

// TestMySQLQueryStates replays mysql_query.run states recorded from Salt
// 3006 (test mode, then for real): a SELECT into a file, an UPDATE, a
// missing database, a grain output without a grain, an output file not
// overwritten and an UPDATE's result into a file. The query time in the
// comments is not compared.
func TestMySQLQueryStates(t *testing.T) {
	srv := mysqltest.Start(t)
	srv.Exec(t, "create database cmpdb",
		"create table cmpdb.t1 (id int primary key, name varchar(20), f double, d decimal(5,2), n int null)",
		"insert into cmpdb.t1 values (1,'a',1.5,2.25,NULL),(2,'b',2,3,4)")
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/mysql_query_salt.json")
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.ReplaceAll(string(data), "{dir}", dir))
	var golden []struct {
		Run  int             `json:"run"`
		Test bool            `json:"test"`
		ID   string          `json:"id"`
		Fun  string          `json:"fun"`
		Args json.RawMessage `json:"args"`
		Ret  json.RawMessage `json:"ret"`
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	var ctx *execmod.Context
	run := -1
	for _, g := range golden {
		if g.Run != run {
			run = g.Run
			ctx = execmod.NewContext()
			ctx.Opts.Set("mysql.unix_socket", srv.Socket)
			ctx.Opts.Set("mysql.user", "root")
		}
		av, err := value.FromJSON(g.Args)
		if err != nil {
			t.Fatal(err)
		}
		got := runIn(t, ctx, g.Fun, av.(*value.Map), g.Test)
		want, err := value.FromJSON(g.Ret)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []*value.Map{got, want.(*value.Map)} {
			c, _ := m.Get("comment")
			m.Set("comment", queryTimeRE.ReplaceAllString(value.Str(c), "QT"))
		}
		if !value.Equal(got, want) {
			t.Errorf("run %d (test=%v) %s:\n got %s\nwant %s", g.Run, g.Test, g.ID, value.Repr(got), value.Repr(want))
		}
	}
	for file, want := range map[string]string{"qout.txt": "id:1\nname:a\nid:2\nname:b\n", "qout2.txt": "rows affected:1\n"} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if got := queryTimeRE.ReplaceAllString(strings.ReplaceAll(string(b), "query time:{", "'query time': {"), ""); strings.TrimLeft(got, "\n") != want {
			t.Errorf("%s = %q, want %q", file, got, want)
		}
	}
}
