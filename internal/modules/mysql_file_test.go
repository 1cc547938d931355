package modules_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"brine/internal/execmod"
	"brine/internal/fileserver"
	"brine/internal/system/mysqlconn/mysqltest"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// TestMySQLFileQueryAgainstSalt replays salt-call command lines of
// mysql.file_query and mysql.free_slave on a throwaway MariaDB server,
// each on a fresh table as Salt 3006 (with sqlparse) ran them, and
// compares the return or the error, and the table afterwards, with
// Salt's (testdata/mysql_file_query_salt.json; "{timing}" stands for a
// query time, checked for its shape only).
func TestMySQLFileQueryAgainstSalt(t *testing.T) {
	srv := mysqltest.Start(t)
	data, err := os.ReadFile("testdata/mysql_file_query_salt.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Argv  []string        `json:"argv"`
		Ret   json.RawMessage `json:"ret"`
		Error string          `json:"error"`
		After [][]string      `json:"after"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.Abs("testdata/mysql_file_query")
	if err != nil {
		t.Fatal(err)
	}
	nosock := filepath.Join(t.TempDir(), "nosock")
	for _, c := range cases {
		srv.Exec(t, "drop database if exists fqdb", "create database fqdb",
			"create table fqdb.t1 (id int primary key, name varchar(20))", "insert into fqdb.t1 values (1,'a'),(2,'b')")
		ctx := execmod.NewContext()
		ctx.Opts.Set("mysql.unix_socket", srv.Socket)
		ctx.Opts.Set("mysql.user", "root")
		ctx.Opts.Set("cachedir", t.TempDir())
		ctx.Files = &execmod.CachedFiles{Src: fileserver.FromDirs(map[string][]string{"base": {dir}}), Cachedir: t.TempDir()}
		argv := make([]string, len(c.Argv)-1)
		for i, a := range c.Argv[1:] {
			argv[i] = strings.NewReplacer("{dir}", dir, "{nosock}", nosock).Replace(a)
		}
		args, kwargs := yamlload.ParseInput(argv, nil)
		got, err := ctx.Call(c.Argv[0], args, kwargs)
		switch {
		case c.Error != "":
			msg := ""
			var te *execmod.TypeError
			if errors.As(err, &te) {
				msg = "Passed invalid arguments: " + te.Msg + "."
			} else if err != nil {
				msg = err.Error()
			}
			if msg != c.Error {
				t.Errorf("%v: error %q, want %q", c.Argv, msg, c.Error)
			}
		case err != nil:
			t.Errorf("%v: %v", c.Argv, err)
		default:
			want, err := value.FromJSON(c.Ret)
			if err != nil {
				t.Fatal(err)
			}
			if m, ok := want.(*value.Map); ok {
				if qt, _ := m.Get("query time"); qt == "{timing}" {
					gm, _ := got.(*value.Map)
					if gm == nil {
						t.Errorf("%v: got %s", c.Argv, value.Repr(got))
						continue
					}
					gt, _ := gm.Get("query time")
					tm, _ := gt.(*value.Map)
					raw, _ := tm.Get("raw")
					human, _ := tm.Get("human")
					if _, ok := raw.(float64); !ok || !strings.HasSuffix(value.Str(human), "s") {
						t.Errorf("%v: query time %s", c.Argv, value.Repr(gt))
					}
					gm.Set("query time", "{timing}")
				}
			}
			norm, err := value.FromJSON([]byte(value.ToJSON(got, value.JSONOptions{})))
			if err != nil {
				t.Fatal(err)
			}
			if !value.Equal(norm, want) {
				t.Errorf("%v:\n got %s\nwant %s", c.Argv, value.Repr(norm), value.Repr(want))
			}
		}
		after := srv.StringRows(t, "select id, name from fqdb.t1 order by id")
		if a, b := fmt.Sprint(after), fmt.Sprint(c.After); a != b {
			t.Errorf("%v: table afterwards %s, want %s", c.Argv, a, b)
		}
	}
}

// TestMySQLFreeSlaveReplica runs mysql.free_slave on a running replica of
// a throwaway master, with and without a binary log of its own, and
// checks Salt 3006's outcome on the same setups: the replica is stopped,
// then RESET MASTER fails without a binary log (an OperationalError Salt
// does not catch), and with one Salt's "change master to MASTER_HOST="
// is refused by MariaDB's parser (a ProgrammingError).
func TestMySQLFreeSlaveReplica(t *testing.T) {
	master := mysqltest.StartWith(t, mysqltest.Options{TCP: true, ServerID: 11, LogBin: true})
	master.Exec(t, "create user 'repl'@'%' identified by 'rp'", "grant replication slave on *.* to 'repl'@'%'")
	for _, tc := range []struct {
		logBin bool
		want   string
	}{
		{false, "(1186, 'Binlog closed, cannot RESET MASTER')"},
		{true, `(1064, "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '' at line 1")`},
	} {
		replica := mysqltest.StartWith(t, mysqltest.Options{ServerID: 22, LogBin: tc.logBin})
		replica.Exec(t, "change master to master_host='127.0.0.1', master_port="+strconv.Itoa(master.Port)+
			", master_user='repl', master_password='rp', master_use_gtid=no", "start slave")
		ioRunning := func() any {
			rows := replica.Query(t, "select variable_value from information_schema.global_status where variable_name = 'Slave_running'")
			if len(rows) == 0 {
				return nil
			}
			return value.Str(rows[0][0])
		}
		for deadline := time.Now().Add(60 * time.Second); ioRunning() != "ON"; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the replica did not start: %v", replica.Query(t, "show slave status"))
			}
		}
		ctx := execmod.NewContext()
		ctx.Opts.Set("mysql.unix_socket", replica.Socket)
		ctx.Opts.Set("mysql.user", "root")
		_, err := ctx.Call("mysql.free_slave", nil, value.NewMap(0))
		if err == nil || err.Error() != tc.want {
			t.Errorf("free_slave (log_bin=%v): %v, want %s", tc.logBin, err, tc.want)
		}
		if got := ioRunning(); got != "OFF" {
			t.Errorf("free_slave (log_bin=%v): replica still running (%v)", tc.logBin, got)
		}
	}
}
