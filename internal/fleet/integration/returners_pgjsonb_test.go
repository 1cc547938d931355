package integration

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"brine/internal/fleet/returners/pgtest"
)

// TestReturnerPgjsonb runs `brine run --return pgjsonb` on two minions
// of a real master: each minion sends its return to the master, as
// always, and to a real PostgreSQL server (started by the test) in
// Salt's salt_returns table, with the returner's options read from the
// minions' pillar (returner.pgjsonb.*), and --return_kwargs redirecting
// to another database.
func TestReturnerPgjsonb(t *testing.T) {
	pg := pgtest.Start(t)
	pg.CreateDB(t, "salt")
	pg.CreateDB(t, "salt2")
	c := newCluster(t, "")
	c.write("srv/pillar/top.sls", "base:\n  '*': [returners]\n")
	c.write("srv/pillar/returners.sls", fmt.Sprintf(`returner.pgjsonb.host: %s
returner.pgjsonb.port: %d
returner.pgjsonb.user: %s
returner.pgjsonb.pass: unused
returner.pgjsonb.db: salt
returner.pgjsonb.sslmode: disable
`, pg.Host, pg.Port, pg.User))
	c.startMaster()
	c.startMinion("web1", "", true)
	c.startMinion("web2", "", true)
	c.acceptAll("web1", "web2")

	res, rc := c.run("--return", "pgjsonb", "-L", "web1,web2", "test.echo", "stored in postgres")
	if rc != 0 || res["web1"] != "stored in postgres" || res["web2"] != "stored in postgres" {
		t.Fatalf("brine run: rc %d, %v", rc, res)
	}
	// The returner runs once the master has the return: wait for it.
	var rows [][]string
	eventually(t, "two rows in salt_returns", func() bool {
		rows = pg.Query(t, "salt", `SELECT id, fun, jid, return::text, success, full_ret::text FROM salt_returns ORDER BY id`)
		return len(rows) == 2
	})
	jid := rows[0][2]
	for i, id := range []string{"web1", "web2"} {
		r := rows[i]
		if r[0] != id || r[1] != "test.echo" || r[2] != jid || r[3] != `"stored in postgres"` || r[4] != "true" {
			t.Errorf("row %d: %q", i, r)
		}
		var full map[string]any
		if err := json.Unmarshal([]byte(r[5]), &full); err != nil {
			t.Fatal(err)
		}
		if full["id"] != id || full["jid"] != jid || full["fun"] != "test.echo" || full["retcode"] != float64(0) ||
			full["success"] != true || jsonText(full["fun_args"]) != `["stored in postgres"]` {
			t.Errorf("full_ret of %s: %s", id, r[5])
		}
	}
	// The same job is in the master's job store.
	if got := c.lookup(jid); got["web1"] != "stored in postgres" || got["web2"] != "stored in postgres" {
		t.Errorf("jobs lookup %s: %v", jid, got)
	}

	// --return_kwargs overrides the configured database, for this job only.
	res, rc = c.run("--return", "pgjsonb", "--return_kwargs", `{"db": "salt2"}`, "web1", "test.ping")
	if rc != 0 || res["web1"] != true {
		t.Fatalf("brine run --return_kwargs: rc %d, %v", rc, res)
	}
	eventually(t, "a row in salt2", func() bool {
		rows = pg.Query(t, "salt2", `SELECT id, fun, return::text, full_ret->'ret_kwargs'->>'db' FROM salt_returns`)
		return len(rows) == 1
	})
	if r := rows[0]; r[0] != "web1" || r[1] != "test.ping" || r[2] != "true" || r[3] != "salt2" {
		t.Errorf("salt2 row: %q", r)
	}
	if n := pg.Query(t, "salt", `SELECT count(*) FROM salt_returns`); n[0][0] != "2" {
		t.Errorf("the salt database got the redirected return too: %v rows", n[0][0])
	}
}

// eventually calls check until it reports true; the deadline only stops
// a hang.
func eventually(t *testing.T, what string, check func() bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !check() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func jsonText(v any) string { b, _ := json.Marshal(v); return string(b) }
