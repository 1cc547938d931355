package mysqlconn_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"brine/internal/system/mysqlconn"
	"brine/internal/system/mysqlconn/mysqltest"
)

// TestGrantsAgainstSalt compares tokenizing, identifier quoting and
// grant generation with what Salt 3006's functions returned for the same
// input (testdata/grants_salt.json).
func TestGrantsAgainstSalt(t *testing.T) {
	data, err := os.ReadFile("testdata/grants_salt.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Tokenize []struct {
			In  string
			Out *struct {
				User, Host, Database string
				Grant                []string
			}
			Err string
		}
		Quote    [][3]any
		Generate []struct {
			In  []any
			Out *struct {
				Qry  string
				Args struct{ User, Host string }
			}
			Err string
		}
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	for _, c := range g.Tokenize {
		got, err := mysqlconn.Tokenize(c.In)
		if c.Err != "" {
			var te *mysqlconn.TokenError
			if !errors.As(err, &te) || te.Class+": "+te.Msg != c.Err {
				t.Errorf("Tokenize(%q): err %v, want %s", c.In, err, c.Err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Tokenize(%q): %v", c.In, err)
			continue
		}
		want := mysqlconn.Tokens{User: c.Out.User, Host: c.Out.Host, Database: c.Out.Database, Grant: c.Out.Grant}
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("Tokenize(%q):\n got %+v\nwant %+v", c.In, *got, want)
		}
	}
	for _, c := range g.Quote {
		if got := mysqlconn.SaltQuoteIdentifier(c[0].(string), c[1].(bool)); got != c[2] {
			t.Errorf("SaltQuoteIdentifier(%q, %v) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
	truthy := func(v any) bool { b, ok := v.(bool); return !ok || b }
	for _, c := range g.Generate {
		var ssl []mysqlconn.SSLOption
		if l, ok := c.In[6].([]any); ok {
			for _, o := range l {
				for k, v := range o.(map[string]any) {
					ssl = append(ssl, mysqlconn.SSLOption{Key: k, Value: v})
				}
			}
		}
		got, err := mysqlconn.GenerateGrant(c.In[0].(string), c.In[1].(string), c.In[2].(string), c.In[3].(string), c.In[4].(bool), c.In[5].(bool), ssl, truthy)
		if c.Err != "" {
			if err == nil || !strings.HasSuffix(err.Error(), c.Err) {
				t.Errorf("GenerateGrant(%v): err %v, want %s", c.In, err, c.Err)
			}
			continue
		}
		if err != nil {
			t.Errorf("GenerateGrant(%v): %v", c.In, err)
			continue
		}
		// Salt's query has PyMySQL placeholders and "%" doubled.
		want := strings.ReplaceAll(strings.ReplaceAll(c.Out.Qry, "%(user)s@%(host)s", "?@?"), "%%", "%")
		if got.SQL != want || got.User != c.Out.Args.User || got.Host != c.Out.Args.Host {
			t.Errorf("GenerateGrant(%v) = %+v, want %q %+v", c.In, *got, want, c.Out.Args)
		}
	}
}

func TestRevokeSQL(t *testing.T) {
	for _, c := range []struct {
		grant, db string
		opt       bool
		want      string
	}{
		{"SELECT", "*.*", false, "REVOKE SELECT ON *.* FROM ?@?;"},
		{"SELECT, INSERT", "my_db.*", true, "REVOKE SELECT, INSERT, GRANT OPTION ON `my\\_db`.* FROM ?@?;"},
		{"UPDATE", "my_db.t`1", false, "REVOKE UPDATE ON `my_db`.`t``1` FROM ?@?;"},
	} {
		if got := mysqlconn.RevokeSQL(c.grant, c.db, c.opt); got != c.want {
			t.Errorf("RevokeSQL(%q, %q, %v) = %q, want %q", c.grant, c.db, c.opt, got, c.want)
		}
	}
}

// TestOpen connects through an option file, and words the failures as
// PyMySQL and Salt do.
func TestOpen(t *testing.T) {
	srv := mysqltest.Start(t)
	dir := t.TempDir()
	cnf := filepath.Join(dir, "my.cnf")
	if err := os.WriteFile(cnf, []byte("[mysqld]\nsocket = /nowhere\n[client]\nuser = root\nsocket = \""+srv.Socket+"\"\n!includedir /etc/mysql/conf.d/\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := "nope"
	for _, c := range []struct {
		name    string
		opts    mysqlconn.Options
		wantErr string
	}{
		{"option file", mysqlconn.Options{DefaultFile: cnf}, ""},
		{"arguments win over the file", mysqlconn.Options{DefaultFile: cnf, Socket: filepath.Join(dir, "none")},
			"MySQL Error 2003: Can't connect to MySQL server on 'localhost' ([Errno 2] No such file or directory)"},
		{"wrong password", mysqlconn.Options{Socket: srv.Socket, User: "root", Pass: &bad},
			"MySQL Error 1045: Access denied for user 'root'@'localhost' (using password: YES)"},
		{"unknown database", mysqlconn.Options{Socket: srv.Socket, User: "root", DB: "nodb"}, "MySQL Error 1049: Unknown database 'nodb'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := mysqlconn.Open(context.Background(), c.opts)
			if c.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				res, err := conn.Query(context.Background(), false, "SELECT 1, 'a', NULL, 1.5e0")
				if err != nil {
					t.Fatal(err)
				}
				if want := [][]any{{int64(1), "a", nil, 1.5}}; !reflect.DeepEqual(res.Rows, want) {
					t.Errorf("rows %#v, want %#v", res.Rows, want)
				}
				return
			}
			if err == nil {
				conn.Close()
				t.Fatal("connected")
			}
			if err.Error() != c.wantErr {
				t.Errorf("err %q, want %q", err, c.wantErr)
			}
		})
	}
}
