package states_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/fileserver"
	"brine/internal/system/mysqlconn/mysqltest"
	"brine/internal/value"
)

var fileQueryTimeRE = regexp.MustCompile(`'query time': \{'raw': [0-9.e-]+, 'human': '[0-9.]+s'\}`)

// TestMySQLQueryFileStates replays mysql_query.run_file states recorded
// from Salt 3006 (with sqlparse), each on a fresh table: test mode with
// and without outputs, SELECT and other statements, Salt's exceptions
// (a file of several SELECTs, output files), a failing statement, a
// missing database, file or salt:// file, bad client_flags, a server that
// cannot be reached. The comment (query time masked), the output files and
// the table afterwards are compared
// (testdata/mysql_query_file_salt.json, {dir} standing for the directory
// of the SQL files, also the salt:// root).
func TestMySQLQueryFileStates(t *testing.T) {
	srv := mysqltest.Start(t)
	data, err := os.ReadFile("testdata/mysql_query_file_salt.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden []struct {
		ID    string            `json:"id"`
		Test  bool              `json:"test"`
		Args  json.RawMessage   `json:"args"`
		Ret   json.RawMessage   `json:"ret"`
		Files map[string]string `json:"files"`
		After [][]string        `json:"after"`
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	nosock := filepath.Join(t.TempDir(), "nosock")
	for _, g := range golden {
		dir := t.TempDir()
		sqls, _ := filepath.Glob("testdata/mysql_query_file/*.sql")
		for _, f := range sqls {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		srv.Exec(t, "drop database if exists fqdb", "create database fqdb",
			"create table fqdb.t1 (id int primary key, name varchar(20))", "insert into fqdb.t1 values (1,'a'),(2,'b')")
		ctx := execmod.NewContext()
		ctx.Opts.Set("mysql.unix_socket", srv.Socket)
		ctx.Opts.Set("mysql.user", "root")
		ctx.Opts.Set("cachedir", t.TempDir())
		ctx.Files = &execmod.CachedFiles{Src: fileserver.FromDirs(map[string][]string{"base": {dir}}), Cachedir: t.TempDir()}
		av, err := value.FromJSON([]byte(strings.NewReplacer("{dir}", dir, "{nosock}", nosock).Replace(string(g.Args))))
		if err != nil {
			t.Fatal(err)
		}
		args := av.(*value.Map)
		args.Set("name", g.ID)
		got := runIn(t, ctx, "mysql_query.run_file", args, g.Test)
		want, err := value.FromJSON(g.Ret)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := got.Get("comment")
		got.Set("comment", strings.ReplaceAll(strings.ReplaceAll(fileQueryTimeRE.ReplaceAllString(value.Str(c), "'query time': QT"), dir, "{dir}"), nosock, "{nosock}"))
		if !value.Equal(got, want) {
			t.Errorf("%s (test=%v):\n got %s\nwant %s", g.ID, g.Test, value.Repr(got), value.Repr(want))
		}
		for _, f := range []string{"out1.txt", "out2.txt"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			want, ok := g.Files[f]
			switch {
			case ok != (err == nil):
				t.Errorf("%s: %s written: %v, want %v", g.ID, f, err == nil, ok)
			case ok && string(b) != want:
				t.Errorf("%s: %s = %q, want %q", g.ID, f, b, want)
			}
		}
		after := srv.StringRows(t, "select id, name from fqdb.t1 order by id")
		if a, b := fmt.Sprint(after), fmt.Sprint(g.After); a != b {
			t.Errorf("%v: table afterwards %s, want %s", g.ID, a, b)
		}
	}
}
