package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"brine/internal/fleet/events"
	"brine/internal/value"
)

// busListener listens to the cluster's bus with the master's key.
func busListener(t *testing.T, c *cluster) *events.Listener {
	t.Helper()
	l, err := events.Listen(masterConn(t, c), nil, 1<<14)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

// waitEvent returns the next event matching glob (skipping others); the
// deadline only keeps a broken master from hanging the test.
func waitEvent(t *testing.T, l *events.Listener, glob string) events.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	ev, err := l.Wait(ctx, glob)
	if err != nil {
		t.Fatalf("waiting for an event %s: %v", glob, err)
	}
	return ev
}

func get(m *value.Map, path string) any {
	var cur any = m
	for _, k := range strings.Split(path, ":") {
		mm, ok := cur.(*value.Map)
		if !ok {
			return nil
		}
		cur, _ = mm.Get(k)
	}
	return cur
}

func asJSON(v any) string { return value.ToJSON(v, value.JSONOptions{Indent: -1}) }

// TestEventBus runs a master and two minions and watches the bus: key
// and auth events, the start events, a job's new and return events in
// order, event.send and event.fire_master from a minion, and
// `brine event listen`.
func TestEventBus(t *testing.T) {
	c := newCluster(t, "")
	c.startMaster()
	l := busListener(t, c)
	c.startMinion("web1", "{roles: [web]}", true)
	c.startMinion("db1", "{roles: [db]}", true)

	pend := waitEvent(t, l, "salt/auth")
	if get(pend.Data, "act") != "pend" || get(pend.Data, "result") != true || get(pend.Data, "pub") == "" {
		t.Errorf("first salt/auth: %s", asJSON(pend.Data))
	}
	c.acceptAll("web1", "db1")

	t.Run("keys and start", func(t *testing.T) {
		accepted := map[string]bool{}
		started := map[string]bool{}
		legacy := 0
		for len(accepted) < 2 || len(started) < 2 || legacy < 2 {
			ev := waitEvent(t, l, "*")
			switch {
			case ev.Tag == "salt/key":
				if get(ev.Data, "act") != "accept" || get(ev.Data, "result") != true {
					t.Errorf("salt/key: %s", asJSON(ev.Data))
				}
				accepted[value.Str(get(ev.Data, "id"))] = true
			case ev.Tag == "minion_start":
				legacy++
			case strings.HasPrefix(ev.Tag, "salt/minion/"):
				id := value.Str(get(ev.Data, "id"))
				if ev.Tag != "salt/minion/"+id+"/start" || get(ev.Data, "cmd") != "_minion_event" || get(ev.Data, "tag") != ev.Tag ||
					!strings.HasPrefix(value.Str(get(ev.Data, "data")), "Minion "+id+" started at ") || get(ev.Data, "_stamp") == nil {
					t.Errorf("%s: %s", ev.Tag, asJSON(ev.Data))
				}
				if m, _ := ev.Data.Get("pretag"); m != nil || !ev.Data.Has("pretag") {
					t.Errorf("%s: pretag should be null: %s", ev.Tag, asJSON(ev.Data))
				}
				started[id] = true
			}
		}
		if !accepted["web1"] || !accepted["db1"] || !started["web1"] || !started["db1"] {
			t.Errorf("accepted %v, started %v", accepted, started)
		}
	})

	t.Run("job new and ret", func(t *testing.T) {
		res, _ := c.run("-L", "web1,ghost", "test.arg", "a", "k=v")
		if res["web1"] == nil {
			t.Fatalf("run: %v", res)
		}
		nw := waitEvent(t, l, "salt/job/*/new")
		jid := value.Str(get(nw.Data, "jid"))
		if nw.Tag != "salt/job/"+jid+"/new" || get(nw.Data, "fun") != "test.arg" || get(nw.Data, "tgt_type") != "list" ||
			asJSON(get(nw.Data, "minions")) != `["web1"]` || asJSON(get(nw.Data, "missing")) != `["ghost"]` ||
			asJSON(get(nw.Data, "arg")) != `["a", {"__kwarg__": true, "k": "v"}]` {
			t.Errorf("%s: %s", nw.Tag, asJSON(nw.Data))
		}
		// The return follows the announcement on the bus.
		ret := waitEvent(t, l, "salt/job/"+jid+"/*")
		if ret.Tag != "salt/job/"+jid+"/ret/web1" || get(ret.Data, "cmd") != "_return" || get(ret.Data, "id") != "web1" ||
			get(ret.Data, "success") != true || get(ret.Data, "retcode") != int64(0) || get(ret.Data, "fun") != "test.arg" ||
			get(ret.Data, "return:args") == nil {
			t.Errorf("%s: %s", ret.Tag, asJSON(ret.Data))
		}
	})

	t.Run("event.send", func(t *testing.T) {
		res, _ := c.run("web1", "event.send", "myco/build/done", `{"result": "ok"}`, "with_grains=[roles]", "extra=1")
		if res["web1"] != true {
			t.Fatalf("event.send returned %v", res)
		}
		ev := waitEvent(t, l, "myco/*")
		if ev.Tag != "myco/build/done" || get(ev.Data, "id") != "web1" || get(ev.Data, "cmd") != "_minion_event" ||
			get(ev.Data, "data:result") != "ok" || get(ev.Data, "data:extra") != int64(1) ||
			asJSON(get(ev.Data, "data:grains")) != `{"roles": ["web"]}` || get(ev.Data, "data:__pub_fun") != "event.send" {
			t.Errorf("%s: %s", ev.Tag, asJSON(ev.Data))
		}
	})

	t.Run("brine call", func(t *testing.T) {
		// salt-call's load: id, tag, data and cmd, no pretag; the data has
		// salt-call's __pub_* (tgt "salt-call") as Salt's has.
		out, errs, rc := c.brine("call", "-c", c.minionDir("web1"), "--out", "json", "event.send", "myco/call", "x=1")
		if rc != 0 || !strings.Contains(out, "true") {
			t.Fatalf("brine call event.send: %q %q", out, errs)
		}
		ev := waitEvent(t, l, "myco/call")
		var keys []string
		ev.Data.Range(func(k, _ any) bool { keys = append(keys, value.Str(k)); return true })
		if strings.Join(keys, " ") != "id tag data cmd _stamp" || get(ev.Data, "id") != "web1" || get(ev.Data, "cmd") != "_minion_event" ||
			get(ev.Data, "data:x") != int64(1) || get(ev.Data, "data:__pub_tgt") != "salt-call" {
			t.Errorf("myco/call: %s", asJSON(ev.Data))
		}
		// event.fire reaches the minion daemon's own bus, as salt-call's
		// does; under --local event.send and fire_master are False.
		if out, errs, _ := c.brine("call", "-c", c.minionDir("web1"), "--out", "json", "event.fire", "{}", "mytag"); !strings.Contains(out, `"local": true`) {
			t.Errorf("brine call event.fire: %q %q", out, errs)
		}
		for _, args := range [][]string{{"--local", "event.send", "mytag"}, {"--local", "event.fire_master", "{}", "mytag"}} {
			out, errs, _ := c.brine(append([]string{"call", "-c", c.minionDir("web1"), "--out", "json"}, args...)...)
			if !strings.Contains(out, `"local": false`) {
				t.Errorf("brine call %v: %q %q", args, out, errs)
			}
		}
	})

	t.Run("fire_master cannot forge", func(t *testing.T) {
		// db1 tries the master's tags and web1's, then fires a marker:
		// events from one minion arrive in order, so whatever the master
		// let through would come before the marker.
		forged := []string{"salt/job/20261125000000000000/ret/web1", "salt/key", "salt/minion/web1/start", "salt/auth"}
		for _, tag := range forged {
			if res, _ := c.run("db1", "event.fire_master", `{"id": "web1"}`, tag); res["db1"] != true {
				t.Fatalf("fire_master %s returned %v", tag, res)
			}
		}
		if res, _ := c.run("db1", "event.fire_master", `{"id": "web1", "n": 1}`, "myco/marker"); res["db1"] != true {
			t.Fatalf("fire_master returned %v", res)
		}
		for {
			ev := waitEvent(t, l, "*")
			if slices.Contains(forged, ev.Tag) {
				t.Errorf("forged event relayed: %s %s", ev.Tag, asJSON(ev.Data))
			}
			if ev.Tag == "myco/marker" {
				if get(ev.Data, "id") != "db1" || get(ev.Data, "data:id") != "web1" {
					t.Errorf("marker: %s", asJSON(ev.Data))
				}
				break
			}
		}
	})

	t.Run("brine event listen", func(t *testing.T) {
		cmd := exec.Command(brineBin, "event", "-c", c.mdir, "listen", "--tag", "myco/cli/*", "--count", "1", "--out", "json")
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Fire until the listener, once subscribed, has printed one.
		nc := masterConn(t, c)
		var line string
		deadline := time.After(60 * time.Second)
	loop:
		for {
			_ = events.Publish(nc, "myco/other", value.MapOf("skip", true))
			_ = events.Publish(nc, "myco/cli/x", value.MapOf("n", int64(7)))
			select {
			case s, ok := <-lines:
				if ok {
					line = s
				}
				break loop
			case <-deadline:
				_ = cmd.Process.Kill()
				t.Fatal("brine event listen printed nothing")
			case <-time.After(200 * time.Millisecond):
			}
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("brine event listen: %v", err)
		}
		var doc struct {
			Tag  string         `json:"tag"`
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal([]byte(line), &doc); err != nil || doc.Tag != "myco/cli/x" || doc.Data["n"] != float64(7) || doc.Data["_stamp"] == nil {
			t.Errorf("listen printed %q (%v)", line, err)
		}
	})

	t.Run("brine event listen --since", func(t *testing.T) {
		// An event fired before the listener starts, kept by the master.
		nc := masterConn(t, c)
		if err := events.Publish(nc, "myco/recent/1", value.MapOf("a", "b")); err != nil {
			t.Fatal(err)
		}
		waitEvent(t, l, "myco/recent/1")
		out, errs, rc := c.brine("event", "-c", c.mdir, "listen", "--since", "10m", "--tag", "myco/recent/*", "--count", "1")
		if rc != 0 || !strings.HasPrefix(out, "myco/recent/1\t{\n    \"_stamp\": ") || !strings.HasSuffix(out, "\",\n    \"a\": \"b\"\n}\n") {
			t.Errorf("listen --since: %q %q", out, errs)
		}
	})
}
