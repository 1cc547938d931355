package integration

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"brine/internal/config"
	"brine/internal/fleet/keys"
	"brine/internal/fleet/minion"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

func TestKeyAcceptFlow(t *testing.T) {
	c := newCluster(t, "")
	c.startMaster()
	c.startMinion("k1", "", false)
	c.startMinion("k2", "", true)
	waitKeyState(t, c, "k1", "minions_pre")
	waitKeyState(t, c, "k2", "minions_pre")

	// A pending minion receives nothing.
	if _, errs, rc := c.brine("run", "-c", c.mdir, "k1", "test.ping"); rc != 2 || !strings.Contains(errs, "No minions matched") {
		t.Errorf("run on a pending minion: rc %d, %q", rc, errs)
	}
	// The fingerprint shown is that of the minion's own key.
	pub, err := os.ReadFile(filepath.Join(c.minionDir("k1"), "pki", "minion.pub"))
	if err != nil {
		t.Fatal(err)
	}
	out, _, _ := c.brine("key", "-c", c.mdir, "-f", "k1")
	if want := "k1:  " + keys.Fingerprint(strings.TrimSpace(string(pub))); !strings.Contains(out, want) {
		t.Errorf("key -f: %q, want %q", out, want)
	}
	out, errs, rc := c.brine("key", "-c", c.mdir, "-a", "k1", "-y")
	if rc != 0 || !strings.Contains(out, "Key for minion k1 accepted.") {
		t.Fatalf("key -a: rc %d %q %q", rc, out, errs)
	}
	c.waitPing("k1")

	out, _, rc = c.brine("key", "-c", c.mdir, "-r", "k2", "-y")
	if rc != 0 || !strings.Contains(out, "Key for minion k2 rejected.") {
		t.Fatalf("key -r: %q", out)
	}
	if _, _, rc := c.brine("run", "-c", c.mdir, "k2", "test.ping"); rc != 2 {
		t.Errorf("run on a rejected minion: rc %d", rc)
	}

	// Another key claiming an accepted id is denied.
	c.write("impostor/minion", "id: k1\nmaster: 127.0.0.1\nmaster_port: "+itoa(c.port)+"\npki_dir: "+c.dir+"/impostor/pki\ncachedir: "+c.dir+"/impostor/cache\nsock_dir: "+c.dir+"/impostor/sock\nacceptance_wait_time: 0.3\n")
	imp := c.start("impostor", "minion", "-c", filepath.Join(c.dir, "impostor"))
	waitKeyState(t, c, "k1", "minions_denied")
	_ = imp.Process.Kill()

	out, _, _ = c.brine("key", "-c", c.mdir, "-L", "--out", "json")
	var listing map[string][]string
	if err := json.Unmarshal([]byte(out), &listing); err != nil {
		t.Fatalf("key -L --out json: %q", out)
	}
	want := map[string][]string{"minions": {"k1"}, "minions_denied": {"k1"}, "minions_pre": {}, "minions_rejected": {"k2"}}
	for k, v := range want {
		if !reflect.DeepEqual(append([]string{}, listing[k]...), v) {
			t.Errorf("%s = %v, want %v", k, listing[k], v)
		}
	}

	// Deleting the key cuts the minion off.
	if out, _, rc := c.brine("key", "-c", c.mdir, "-d", "k1", "-y"); rc != 0 || !strings.Contains(out, "Key for minion k1 deleted.") {
		t.Fatalf("key -d: %q", out)
	}
	if _, _, rc := c.brine("run", "-c", c.mdir, "k1", "test.ping"); rc != 2 {
		t.Errorf("run on a deleted minion: rc %d", rc)
	}
	// The minion, cut off, asks for acceptance again.
	waitKeyState(t, c, "k1", "minions_pre")
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func waitKeyState(t *testing.T, c *cluster, id, state string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		out, _, _ := c.brine("key", "-c", c.mdir, "-L", "--out", "json")
		var listing map[string][]string
		if json.Unmarshal([]byte(out), &listing) == nil {
			for _, x := range listing[state] {
				if x == id {
					return
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("key %s never in %s", id, state)
}

// fleet is the three-minion cluster most tests share.
func fleet(t *testing.T) *cluster {
	c := newCluster(t, "nodegroups:\n  webs: 'web*'\n  prod: 'G@env:prod'\n")
	c.write("srv/pillar/top.sls", "base:\n  '*': [common]\n  'web*': [web]\n  db1: [db]\n")
	c.write("srv/pillar/common.sls", "secret: {{ grains['id'] }}-secret\n")
	c.write("srv/pillar/web.sls", "tier: front\n")
	c.write("srv/pillar/db.sls", "tier: back\ndbpass: hunter2\n")
	c.write("srv/salt/top.sls", "base:\n  '*': [app]\n")
	c.write("srv/salt/app.sls", "{{ opts['cachedir'] }}/../app.txt:\n  file.managed:\n    - source: salt://files/app.conf\n    - template: jinja\n")
	c.write("srv/salt/files/app.conf", "id={{ grains['id'] }} secret={{ pillar['secret'] }} tier={{ pillar['tier'] }} dbpass={{ pillar.get('dbpass', 'none') }}\n")
	c.startMaster()
	c.startMinion("web1", "{roles: [web], env: prod}", true)
	c.startMinion("web2", "{roles: [web], env: dev}", false)
	c.startMinion("db1", "{roles: [db], env: prod}", true)
	c.acceptAll("web1", "web2", "db1")
	return c
}

func TestFleet(t *testing.T) {
	c := fleet(t)

	t.Run("targeting", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"web*"}, "web1,web2"},
			{[]string{"*"}, "db1,web1,web2"},
			{[]string{"-E", "^(web1|db1)$"}, "db1,web1"},
			{[]string{"-L", "web2,db1"}, "db1,web2"},
			{[]string{"-G", "roles:db"}, "db1"},
			{[]string{"-G", "env:prod"}, "db1,web1"},
			{[]string{"-I", "tier:front"}, "web1,web2"},
			{[]string{"-C", "web* and G@env:prod"}, "web1"},
			{[]string{"-C", "I@tier:back or web2"}, "db1,web2"},
			{[]string{"-N", "webs"}, "web1,web2"},
			{[]string{"-N", "prod"}, "db1,web1"},
			{[]string{"-S", "127.0.0.0/8"}, "db1,web1,web2"},
			{[]string{"-S", "10.0.0.0/8"}, ""},
		} {
			res, rc := c.run(append(tc.args, "test.ping")...)
			got := strings.Join(keysOf(res), ",")
			if got != tc.want {
				t.Errorf("%v: minions %q, want %q", tc.args, got, tc.want)
			}
			if (tc.want == "") != (rc == 2) {
				t.Errorf("%v: rc %d", tc.args, rc)
			}
			for id, v := range res {
				if v != true {
					t.Errorf("%v: %s returned %v", tc.args, id, v)
				}
			}
		}
	})

	t.Run("state.apply with files and per-minion pillar", func(t *testing.T) {
		res, rc := c.run("*", "state.apply")
		if rc != 0 {
			t.Errorf("state.apply rc %d: %v", rc, res)
		}
		for _, id := range []string{"web1", "web2", "db1"} {
			states, _ := res[id].(map[string]any)
			if len(states) != 1 {
				t.Errorf("%s: %v", id, res[id])
			}
			for _, st := range states {
				if st.(map[string]any)["result"] != true {
					t.Errorf("%s: %v", id, st)
				}
			}
			data, err := os.ReadFile(filepath.Join(c.minionDir(id), "app.txt"))
			if err != nil {
				t.Fatal(err)
			}
			tier, dbpass := "front", "none"
			if id == "db1" {
				tier, dbpass = "back", "hunter2"
			}
			want := "id=" + id + " secret=" + id + "-secret tier=" + tier + " dbpass=" + dbpass + "\n"
			if string(data) != want {
				t.Errorf("%s: app.txt = %q, want %q", id, data, want)
			}
		}
	})

	t.Run("brine call on a minion talks to its master", func(t *testing.T) {
		out, errs, rc := c.brine("call", "-c", c.minionDir("web2"), "pillar.items", "--out", "json")
		if rc != 0 {
			t.Fatalf("rc %d: %s %s", rc, out, errs)
		}
		var res map[string]map[string]any
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%q", out)
		}
		if res["local"]["secret"] != "web2-secret" || res["local"]["tier"] != "front" || res["local"]["dbpass"] != nil {
			t.Errorf("pillar %v", res["local"])
		}
	})

	t.Run("pillar isolation", func(t *testing.T) { isolation(t, c) })

	t.Run("master restart loses no returns", func(t *testing.T) {
		out, errs, rc := c.brine("run", "-c", c.mdir, "--async", "*", "cmd.run", "sleep 2; echo done")
		jid := strings.TrimSpace(strings.TrimPrefix(out, "Executed command with job ID:"))
		if rc != 0 || !proto.ValidJID(jid) {
			t.Fatalf("async run: %q %q", out, errs)
		}
		time.Sleep(300 * time.Millisecond)
		c.stopMaster()
		time.Sleep(500 * time.Millisecond)
		c.startMaster()
		waitReturns(t, c, jid, map[string]any{"web1": "done", "web2": "done", "db1": "done"})
	})

	t.Run("batches and the job list", func(t *testing.T) {
		out, errs, rc := c.brine("run", "-c", c.mdir, "-b", "2", "*", "test.echo", "batched", "--out", "json")
		if rc != 0 || strings.Count(errs, "Executing run on") != 2 || strings.Count(out, `"batched"`) != 3 {
			t.Errorf("batch run: rc %d\n%s\n%s", rc, out, errs)
		}
		out, _, rc = c.brine("jobs", "-c", c.mdir, "list", "--out", "json")
		var jobs map[string]map[string]any
		if err := json.Unmarshal([]byte(out), &jobs); rc != 0 || err != nil {
			t.Fatalf("jobs list: rc %d %q", rc, out)
		}
		echoes := 0
		for jid, j := range jobs {
			if !proto.ValidJID(jid) {
				t.Errorf("jobs list key %q", jid)
			}
			if j["Function"] == "test.echo" && j["Target-type"] == "list" {
				echoes++
			}
		}
		if echoes != 2 {
			t.Errorf("jobs list shows %d batch jobs, want 2", echoes)
		}
	})

	t.Run("a reconnecting minion catches up", func(t *testing.T) {
		c.stopMinion("db1")
		out, _, _ := c.brine("run", "-c", c.mdir, "--async", "*", "test.echo", "missed")
		jid := strings.TrimSpace(strings.TrimPrefix(out, "Executed command with job ID:"))
		c.startMinion("db1", "{roles: [db], env: prod}", true)
		waitReturns(t, c, jid, map[string]any{"web1": "missed", "web2": "missed", "db1": "missed"})
	})

	t.Run("returns print as they arrive, or together with --static", func(t *testing.T) {
		args := []string{"run", "-c", c.mdir, "--out", "json", "-L", "web1,db1", "test.echo", "hi"}
		out, errs, rc := c.brine(args...)
		if rc != 0 || strings.Count(out, "{") != 2 || !strings.Contains(out, `"web1": "hi"`) || !strings.Contains(out, `"db1": "hi"`) {
			t.Errorf("streamed: rc %d %q %q", rc, out, errs)
		}
		out, errs, rc = c.brine(append(args, "--static")...)
		var res map[string]any
		if err := json.Unmarshal([]byte(out), &res); rc != 0 || err != nil || len(res) != 2 || res["web1"] != "hi" {
			t.Errorf("static: rc %d %q %q", rc, out, errs)
		}
	})

	t.Run("Ctrl-C during batches publishes no further batch", func(t *testing.T) {
		cmd := exec.Command(brineBin, "run", "-c", c.mdir, "-b", "1", "-L", "web1,db1", "test.sleep", "4")
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1500 * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGINT)
		err := cmd.Wait()
		ee, _ := err.(*exec.ExitError)
		if ee == nil || ee.ExitCode() != 1 || strings.Count(errb.String(), "Executing run on") != 1 || !strings.Contains(errb.String(), "Exiting gracefully on Ctrl-c") {
			t.Errorf("err %v, stderr %q", err, errb.String())
		}
	})

	t.Run("timeout reports the minions that did not return", func(t *testing.T) {
		c.stopMinion("web2")
		res, rc := c.run("-t", "2", "*", "test.ping")
		if rc == 0 || res["web2"] != "Minion did not return. [Not connected]" || res["web1"] != true {
			t.Errorf("rc %d, %v", rc, res)
		}
	})
}

func waitReturns(t *testing.T, c *cluster, jid string, want map[string]any) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var got map[string]any
	for time.Now().Before(deadline) {
		got = c.lookup(jid)
		if reflect.DeepEqual(got, want) {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("returns of %s: %v, want %v", jid, got, want)
}

// isolation connects with web1's own key, as a malicious minion would,
// and tries to reach web2's subjects, the returns and JetStream.
func isolation(t *testing.T, c *cluster) {
	seed, err := os.ReadFile(filepath.Join(c.minionDir("web1"), "pki", "minion.nk"))
	if err != nil {
		t.Fatal(err)
	}
	kp, err := nkeys.FromSeed([]byte(strings.TrimSpace(string(seed))))
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := kp.PublicKey()
	violations := make(chan string, 64)
	url := "tls://127.0.0.1:" + itoa(c.port)
	ca := filepath.Join(c.dir, "master", "pki", "tls", "ca.crt")
	nc, err := nats.Connect(url, nats.Nkey(pub, kp.Sign), nats.RootCAs(ca), nats.CustomInboxPrefix("_INBOX_web1"),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { violations <- err.Error() }))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	expectViolation := func(what, subject string) {
		t.Helper()
		select {
		case v := <-violations:
			if !strings.Contains(v, "Permissions Violation") || !strings.Contains(v, subject) {
				t.Errorf("%s: unexpected error %q", what, v)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("%s: no permissions violation", what)
		}
	}
	var seen int
	count := func(*nats.Msg) { seen++ }
	for _, subj := range []string{"brine.job.web2.>", "brine.job.*.>", "_INBOX_web2.>", "$KV.BRINE_RET.>", "brine.req.web2.*", ">"} {
		if _, err := nc.Subscribe(subj, count); err != nil {
			t.Fatal(err)
		}
		_ = nc.Flush()
		expectViolation("subscribe "+subj, subj)
	}
	// Asking the master for web2's pillar under web2's name is refused.
	_, req, _ := proto.NewRequest(map[string]any{"grains": map[string]any{"id": "web2"}})
	if msg, err := nc.Request("brine.req.web2.pillar", req, 500*time.Millisecond); err == nil {
		t.Errorf("pillar request as web2 answered: %s", msg.Data)
	}
	expectViolation("publish as web2", "brine.req.web2.pillar")
	// Writing a return into the bucket, in web2's name or its own (returns
	// go through the master), or using JetStream, is refused.
	for _, subj := range []string{"$KV.BRINE_RET.20260101000000000000.web2", "$KV.BRINE_RET.20260101000000000000.web1"} {
		_ = nc.Publish(subj, []byte(`{}`))
		_ = nc.Flush()
		expectViolation("write "+subj, subj)
	}
	if _, err := nc.Request("$JS.API.STREAM.INFO.KV_BRINE_RET", nil, 500*time.Millisecond); err == nil {
		t.Error("JetStream API answered a minion")
	}
	expectViolation("jetstream api", "$JS.API")
	// A job for web2 is not seen by web1's connection.
	if _, rc := c.run("web2", "test.ping"); rc != 0 {
		t.Errorf("ping web2: rc %d", rc)
	}
	time.Sleep(200 * time.Millisecond)
	if seen != 0 {
		t.Errorf("web1's connection saw %d messages meant for others", seen)
	}

	// web1's own pillar request works and holds only its pillar.
	cfg, err := config.Load(c.minionDir("web1"), nil)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := minion.Dial(cfg.Opts(), "web1", kp, minion.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	p, err := minion.NewSession(conn, cfg.Opts(), value.MapOf("id", "web1")).Pillar("", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := p.Get("secret"); s != "web1-secret" {
		t.Errorf("own pillar: %v", s)
	}
	if _, has := p.Get("dbpass"); has {
		t.Error("web1 received db1's pillar")
	}

	// An unknown key cannot connect at all; the key-request user can
	// publish its request and nothing else.
	stranger, _ := nkeys.CreateUser()
	spub, _ := stranger.PublicKey()
	if nc2, err := nats.Connect(url, nats.Nkey(spub, stranger.Sign), nats.RootCAs(ca)); err == nil {
		nc2.Close()
		t.Error("an unaccepted key connected")
	}
	kr, err := nats.Connect(url, nats.UserInfo(proto.KeyReqUser, proto.KeyReqUser), nats.RootCAs(ca),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { violations <- err.Error() }))
	if err != nil {
		t.Fatal(err)
	}
	defer kr.Close()
	_, _ = kr.Subscribe("brine.>", count)
	_ = kr.Flush()
	expectViolation("key-request user subscribing", "brine.>")
	_ = kr.Publish("brine.req.web2.pillar", req)
	_ = kr.Flush()
	expectViolation("key-request user publishing", "brine.req.web2.pillar")
}
