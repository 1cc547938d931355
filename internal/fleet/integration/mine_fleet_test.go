package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"brine/internal/fleet/keys"
)

// acceptedCluster starts a master whose store holds the keys of minions
// (accepted beforehand), then each minion with its extra options, and
// waits until all answer.
func acceptedCluster(t *testing.T, setup func(c *cluster), minions map[string]string) *cluster {
	t.Helper()
	c := newCluster(t, "")
	if setup != nil {
		setup(c)
	}
	store, err := keys.OpenStore(filepath.Join(c.mdir, "pki"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for id := range minions {
		kp, err := keys.LoadOrCreate(filepath.Join(c.minionDir(id), "pki", "minion.nk"))
		if err != nil {
			t.Fatal(err)
		}
		pub, _ := kp.PublicKey()
		if _, err := store.Submit(id, pub, true); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	c.startMaster()
	for id, extra := range minions {
		c.startAccepted(id, extra)
	}
	c.waitPing(ids...)
	return c
}

// callJSON runs fun on minion id through the master and returns its
// return, decoded from JSON.
func (c *cluster) callJSON(id, fun string, args ...string) any {
	c.t.Helper()
	res, rc := c.run(append([]string{id, fun}, args...)...)
	if _, ok := res[id]; !ok {
		c.t.Fatalf("%s %v on %s: rc %d, no return: %v", fun, args, id, rc, res)
	}
	return res[id]
}

// waitFor calls check until it reports true; the deadline only stops a
// hang.
func waitFor(t *testing.T, what string, check func() bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !check() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func asJSONString(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestMineAcrossMinions has web1 publish mine data (mine_functions in its
// config, with an alias, and in its pillar) and db1 use it in a template,
// rendered in a job process during a state run; allow_tgt restricts who
// reads an entry, and delete and flush touch the caller's data only.
func TestMineAcrossMinions(t *testing.T) {
	c := acceptedCluster(t, func(c *cluster) {
		c.write("srv/pillar/top.sls", "base:\n  web1: [mine]\n")
		c.write("srv/pillar/mine.sls", "mine_functions:\n  role:\n    - mine_function: test.echo\n    - frontend\n")
		c.write("srv/salt/peers.sls", `{% set peers = salt['mine.get']('web*', 'ident') %}
{{ opts['cachedir'] }}/peers.txt:
  file.managed:
    - contents: |
        {%- for id, v in peers | dictsort %}
        {{ id }}={{ v }}
        {%- endfor %}
        role={{ salt['mine.get']('web1', 'role')['web1'] }}
`)
	}, map[string]string{
		"web1": "mine_functions:\n  ident:\n    mine_function: test.echo\n    text: web1-ident\n",
		"db1":  "",
	})

	// The __mine_interval job runs mine.update when the minion starts.
	waitFor(t, "web1's mine data", func() bool {
		got := c.callJSON("db1", "mine.get", "web1", "ident,role")
		return asJSONString(got) == `{"ident":{"web1":"web1-ident"},"role":{"web1":"frontend"}}`
	})

	t.Run("a template on another minion reads it", func(t *testing.T) {
		res, rc := c.run("db1", "state.apply", "peers")
		if rc != 0 {
			t.Fatalf("state.apply: rc %d %v", rc, res)
		}
		b, err := os.ReadFile(filepath.Join(c.minionDir("db1"), "cache", "peers.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(b), "web1=web1-ident\nrole=frontend\n"; got != want {
			t.Errorf("peers.txt = %q, want %q", got, want)
		}
	})

	t.Run("the mine.get runner reads it as the master's minion", func(t *testing.T) {
		got, rc := c.runner("mine.get", "*", "ident,role")
		if want := `{"ident":{"web1":"web1-ident"},"role":{"web1":"frontend"}}`; rc != 0 || asJSONString(got) != want {
			t.Errorf("mine.get runner: rc %d %s, want %s", rc, asJSONString(got), want)
		}
		if got, _ := c.runner("mine.get", "db*", "ident"); asJSONString(got) != `{}` {
			t.Errorf("mine.get runner for db*: %s", asJSONString(got))
		}
	})

	t.Run("valid lists the configured functions", func(t *testing.T) {
		got := asJSONString(c.callJSON("web1", "mine.valid"))
		if want := `{"ident":{"test.echo":[{"text":"web1-ident"}]},"role":{"test.echo":["frontend"]}}`; got != want {
			t.Errorf("mine.valid = %s, want %s", got, want)
		}
	})

	t.Run("allow_tgt", func(t *testing.T) {
		if got := c.callJSON("db1", "mine.send", "secret", "mine_function=test.echo", "s3cr3t", "allow_tgt=web1"); got != true {
			t.Fatalf("mine.send: %v", got)
		}
		if got := asJSONString(c.callJSON("web1", "mine.get", "db1", "secret")); got != `{"db1":"s3cr3t"}` {
			t.Errorf("web1 reads %s", got)
		}
		// Not even the minion that sent it may read it back.
		if got := asJSONString(c.callJSON("db1", "mine.get", "*", "secret")); got != `{}` {
			t.Errorf("db1 reads %s", got)
		}
	})

	t.Run("delete and flush touch the caller's data only", func(t *testing.T) {
		if got := c.callJSON("db1", "mine.send", "ident", "mine_function=test.echo", "db1-ident"); got != true {
			t.Fatalf("mine.send: %v", got)
		}
		if got := asJSONString(c.callJSON("db1", "mine.get", "*", "ident", "exclude_minion=True")); got != `{"web1":"web1-ident"}` {
			t.Errorf("exclude_minion: %s", got)
		}
		if got := c.callJSON("web1", "mine.delete", "ident"); got != true {
			t.Fatalf("mine.delete: %v", got)
		}
		if got := asJSONString(c.callJSON("db1", "mine.get", "*", "ident")); got != `{"db1":"db1-ident"}` {
			t.Errorf("after web1's delete: %s", got)
		}
		if got := c.callJSON("db1", "mine.flush"); got != true {
			t.Fatalf("mine.flush: %v", got)
		}
		if got := asJSONString(c.callJSON("web1", "mine.get", "*", "ident,role")); got != `{"role":{"web1":"frontend"}}` {
			t.Errorf("after db1's flush: %s", got)
		}
		// mine.update with clear replaces the minion's data.
		if got := c.callJSON("web1", "mine.update", "clear=True"); got != true {
			t.Fatalf("mine.update: %v", got)
		}
		if got := asJSONString(c.callJSON("db1", "mine.get", "web1", "ident")); got != `{"web1":"web1-ident"}` {
			t.Errorf("after update: %s", got)
		}
	})
	if strings.Contains(c.log("master"), "panic") {
		t.Error("the master panicked")
	}
}
