package modules_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/system/mysqlconn/mysqltest"
	"brine/internal/value"
)

// TestMySQLAgainstSalt replays salt-call command lines of mysql.*
// functions (databases, tables, users, passwords, grants, tokenizing,
// queries, plugins, replication status, failed connections) on a
// throwaway MariaDB server set up as the one Salt 3006 ran against, and
// compares each return with Salt's (testdata/mysql_calls_salt.json;
// mysql.query without its timing).
func TestMySQLAgainstSalt(t *testing.T) {
	srv := mysqltest.Start(t)
	srv.Exec(t, "create database cmpdb",
		"create table cmpdb.t1 (id int primary key, name varchar(20), f double, d decimal(5,2), n int null)",
		"insert into cmpdb.t1 values (1,'a',1.5,2.25,NULL),(2,'b',2,3,4)",
		"create user 'cu'@'localhost' identified by 'pw'",
		"grant select, insert on cmpdb.* to 'cu'@'localhost'",
		"grant update on cmpdb.t1 to 'cu'@'localhost' with grant option",
		"grant replication client on *.* to 'cu'@'localhost'")
	data, err := os.ReadFile("testdata/mysql_calls_salt.json")
	if err != nil {
		t.Fatal(err)
	}
	var calls []struct {
		Argv []string        `json:"argv"`
		Ret  json.RawMessage `json:"ret"`
	}
	if err := json.Unmarshal(data, &calls); err != nil {
		t.Fatal(err)
	}
	nosock := filepath.Join(t.TempDir(), "nosock")
	for _, c := range calls {
		// One salt-call each: a fresh __context__.
		ctx := execmod.NewContext()
		ctx.Opts.Set("mysql.unix_socket", srv.Socket)
		ctx.Opts.Set("mysql.user", "root")
		var args []any
		kwargs := value.NewMap(0)
		for _, a := range c.Argv[1:] {
			a = strings.ReplaceAll(a, "{nosock}", nosock)
			var v any = a
			k, rest, isKw := strings.Cut(a, "=")
			if isKw && !strings.ContainsAny(k, " `'*") {
				v = rest
			}
			if v == "True" {
				v = true
			}
			if isKw && !strings.ContainsAny(k, " `'*") {
				kwargs.Set(k, v)
			} else {
				args = append(args, v)
			}
		}
		got, err := ctx.Call(c.Argv[0], args, kwargs)
		if err != nil {
			t.Errorf("%v: %v", c.Argv, err)
			continue
		}
		if m, ok := got.(*value.Map); ok && c.Argv[0] == "mysql.query" {
			m.Delete("query time")
		}
		norm, err := value.FromJSON([]byte(value.ToJSON(got, value.JSONOptions{})))
		if err != nil {
			t.Fatal(err)
		}
		want, err := value.FromJSON(c.Ret)
		if err != nil {
			t.Fatal(err)
		}
		if !value.Equal(norm, want) {
			t.Errorf("%v:\n got %s\nwant %s", c.Argv, value.Repr(norm), value.Repr(want))
		}
	}
}
