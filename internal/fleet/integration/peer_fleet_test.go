package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"brine/internal/fleet/keys"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// peerMaster is the master's peer configuration of the peer tests: pub1
// may publish test functions and schedule.add and run manage.up; evil
// may publish nothing and run no runner (its entries match other ids).
const peerMaster = `
peer:
  pub1:
    - test\..*
    - schedule.add
  ^web:
    - cmd.run
peer_run:
  pub1:
    - manage\.up
  nobody:
    - .*
`

// peerRequest sends a request body from nc on minion id's request
// subject and decodes the master's reply body into out.
func peerRequest(t *testing.T, nc *nats.Conn, id, kind string, body, out any) error {
	t.Helper()
	_, data, err := proto.NewRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := nc.Request(proto.ReqSubject(id, kind), data, 10*time.Second)
	if err != nil {
		return err
	}
	var rep proto.Reply
	if _, err := proto.Open(msg.Data, "", &rep); err != nil {
		t.Fatalf("reply: %v", err)
	}
	if rep.Error != "" {
		t.Fatalf("%s: %s", kind, rep.Error)
	}
	if out != nil && len(rep.Body) > 0 {
		return json.Unmarshal(rep.Body, out)
	}
	return nil
}

// TestPeerPublish runs publish.publish, publish.full_data and
// publish.runner, schedule.copy and schedule.move between minions, as
// far as the master's peer and peer_run options allow each of them, and
// has an unauthorised minion (through brine and through a raw NATS
// client holding its key) try to publish, run runners and read another
// minion's job returns.
func TestPeerPublish(t *testing.T) {
	c := acceptedCluster(t, func(c *cluster) {
		b, err := os.ReadFile(filepath.Join(c.mdir, "master"))
		if err != nil {
			t.Fatal(err)
		}
		c.write("master/master", string(b)+peerMaster)
	}, map[string]string{"pub1": "", "evil": "", "tgt1": "", "tgt2": ""})

	t.Run("allowed publications", func(t *testing.T) {
		if got := asJSONString(c.callJSON("pub1", "publish.publish", "tgt*", "test.ping")); got != `{"tgt1":true,"tgt2":true}` {
			t.Errorf("publish.publish tgt* test.ping = %s", got)
		}
		got := c.callJSON("pub1", "publish.publish", "tgt1", "test.arg", "arg=['a', 'b=1']").(map[string]any)
		ret, _ := got["tgt1"].(map[string]any)
		kw, _ := ret["kwargs"].(map[string]any)
		if asJSONString(ret["args"]) != `["a"]` || kw["b"] != float64(1) {
			t.Errorf("publish.publish test.arg = %s", asJSONString(got))
		}
		full := c.callJSON("pub1", "publish.full_data", "tgt2", "test.echo", "arg=hello").(map[string]any)
		if d, _ := full["tgt2"].(map[string]any); d == nil || d["ret"] != "hello" {
			t.Errorf("publish.full_data = %s", asJSONString(full))
		}
		if got := asJSONString(c.callJSON("pub1", "publish.publish", "nomatch*", "test.ping")); got != `{}` {
			t.Errorf("publish.publish to no minion = %s", got)
		}
		up := asJSONString(c.callJSON("pub1", "publish.runner", "manage.up"))
		for _, id := range []string{"pub1", "evil", "tgt1", "tgt2"} {
			if !strings.Contains(up, `"`+id+`"`) {
				t.Errorf("publish.runner manage.up = %s, lacks %s", up, id)
			}
		}
	})

	t.Run("refused publications", func(t *testing.T) {
		marker := filepath.Join(c.dir, "peer-marker")
		for _, tc := range []struct {
			id   string
			args []string
		}{
			{"evil", []string{"publish.publish", "tgt*", "test.ping"}},
			{"evil", []string{"publish.full_data", "tgt1", "test.ping"}},
			{"evil", []string{"publish.publish", "tgt1", "cmd.run", "arg=touch " + marker}},
			{"pub1", []string{"publish.publish", "tgt1", "cmd.run", "arg=touch " + marker}},
			{"pub1", []string{"publish.publish", "tgt1", "publish.publish", "arg=['tgt2', 'test.ping']"}},
			{"evil", []string{"publish.runner", "manage.up"}},
			{"pub1", []string{"publish.runner", "manage.down"}},
		} {
			if got := asJSONString(c.callJSON(tc.id, tc.args[0], tc.args[1:]...)); got != `{}` {
				t.Errorf("%s %v = %s, want {}", tc.id, tc.args, got)
			}
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("a refused publication ran cmd.run")
		}
	})

	t.Run("a raw client cannot publish or read another minion's returns", func(t *testing.T) {
		// pub1 publishes a job; evil learns its jid (say from its own
		// logs of the job it was not sent) and asks for the returns.
		pub := dialAs(t, c, "pub1")
		var pubRep proto.PeerPubReply
		if err := peerRequest(t, pub, "pub1", proto.ReqPeerPub, proto.PeerPubRequest{Tgt: "tgt1", Fun: "test.echo",
			Arg: proto.ValueJSON{V: value.NewList("secret")}}, &pubRep); err != nil {
			t.Fatal(err)
		}
		if pubRep.JID == "" {
			t.Fatal("pub1's publication was refused")
		}
		var own proto.PeerRetReply
		waitFor(t, "tgt1's return", func() bool {
			if err := peerRequest(t, pub, "pub1", proto.ReqPeerRet, proto.PeerRetRequest{JID: pubRep.JID}, &own); err != nil {
				t.Fatal(err)
			}
			return strings.Contains(value.ToJSON(own.Returns.V, value.JSONOptions{Indent: -1}), "secret")
		})
		atk := dialAs(t, c, "evil")
		var rets proto.PeerRetReply
		if err := peerRequest(t, atk, "evil", proto.ReqPeerRet, proto.PeerRetRequest{JID: pubRep.JID}, &rets); err != nil {
			t.Fatal(err)
		}
		if got := value.ToJSON(rets.Returns.V, value.JSONOptions{Indent: -1}); got != "{}" {
			t.Errorf("evil read pub1's job returns: %s", got)
		}
		var evilPub proto.PeerPubReply
		if err := peerRequest(t, atk, "evil", proto.ReqPeerPub, proto.PeerPubRequest{Tgt: "*", Fun: "cmd.run",
			Arg: proto.ValueJSON{V: value.NewList("id")}}, &evilPub); err != nil {
			t.Fatal(err)
		}
		if evilPub.JID != "" || len(evilPub.Minions) != 0 {
			t.Errorf("evil's raw publication went out: %+v", evilPub)
		}
		var run proto.PeerRunReply
		if err := peerRequest(t, atk, "evil", proto.ReqPeerRun, proto.PeerRunRequest{Fun: "manage.up"}, &run); err != nil {
			t.Fatal(err)
		}
		if got := value.ToJSON(run.Return.V, value.JSONOptions{Indent: -1}); got != "{}" {
			t.Errorf("evil ran a runner: %s", got)
		}
		// Nor may it speak as pub1: the server refuses the subject.
		if err := peerRequest(t, atk, "pub1", proto.ReqPeerPub, proto.PeerPubRequest{Tgt: "*", Fun: "test.ping"}, nil); err == nil {
			t.Errorf("evil published on pub1's request subject")
		}
	})

	t.Run("schedule.copy and schedule.move", func(t *testing.T) {
		for _, job := range []string{"job1", "job2"} {
			if got := c.callJSON("pub1", "schedule.add", job, "function=test.ping", "seconds=3600").(map[string]any); got["result"] != true {
				t.Fatalf("schedule.add %s: %v", job, got)
			}
		}
		got := asJSONString(c.callJSON("pub1", "schedule.copy", "job1", "tgt1"))
		if want := `{"comment":"Copied Job job1 from schedule to minion(s).","minions":["tgt1"],"result":true}`; got != want {
			t.Errorf("schedule.copy = %s, want %s", got, want)
		}
		got = asJSONString(c.callJSON("pub1", "schedule.move", "job2", "tgt*"))
		if want := `{"comment":"Moved Job job2 from schedule.","minions":["tgt1","tgt2"],"result":true}`; got != want {
			t.Errorf("schedule.move = %s, want %s", got, want)
		}
		scheduled := func(id string) string {
			return asJSONString(c.callJSON(id, "schedule.list", "return_yaml=False"))
		}
		for id, want := range map[string][]string{"pub1": {"job1"}, "tgt1": {"job1", "job2"}, "tgt2": {"job2"}} {
			s := scheduled(id)
			for _, j := range []string{"job1", "job2"} {
				has := strings.Contains(s, `"`+j+`"`)
				if wants := strings.Contains(strings.Join(want, ","), j); has != wants {
					t.Errorf("%s's schedule %s: %s there = %v", id, s, j, has)
				}
			}
		}
		// job_status shows the running scheduler's data of a job.
		st := c.callJSON("tgt1", "schedule.job_status", "job1").(map[string]any)
		if st["function"] != "test.ping" || st["seconds"] != float64(3600) || st["name"] != "job1" {
			t.Errorf("schedule.job_status = %s", asJSONString(st))
		}
		if got := asJSONString(c.callJSON("tgt1", "schedule.job_status", "nosuch")); got != `{}` {
			t.Errorf("schedule.job_status nosuch = %s", got)
		}
		// evil may not publish schedule.add: nothing answers.
		got = asJSONString(c.callJSON("evil", "schedule.add", "job3", "function=test.ping", "seconds=60"))
		if !strings.Contains(got, `"result":true`) {
			t.Fatalf("schedule.add on evil: %s", got)
		}
		got = asJSONString(c.callJSON("evil", "schedule.copy", "job3", "tgt1"))
		if want := `{"comment":"no servers answered the published schedule.add command","result":true}`; got != want {
			t.Errorf("schedule.copy by evil = %s, want %s", got, want)
		}
	})

	t.Run("status.ping_master", func(t *testing.T) {
		if got := c.callJSON("tgt1", "status.ping_master", "127.0.0.1"); got != true {
			t.Errorf("ping_master of the master = %v", got)
		}
		if got := c.callJSON("tgt1", "status.ping_master", "127.0.0.1:"+itoa(freePort(t))); got != false {
			t.Errorf("ping_master of a closed port = %v", got)
		}
	})

	t.Run("revoke_auth and regen_keys", func(t *testing.T) {
		store, err := keys.OpenStore(filepath.Join(c.mdir, "pki"))
		if err != nil {
			t.Fatal(err)
		}
		if got := c.callJSON("evil", "saltutil.revoke_auth"); got != true {
			t.Fatalf("revoke_auth = %v", got)
		}
		acc, err := store.Accepted()
		if err != nil {
			t.Fatal(err)
		}
		if _, has := acc["evil"]; has {
			t.Errorf("evil's key is still accepted")
		}
		for _, id := range []string{"pub1", "tgt1", "tgt2"} {
			if _, has := acc[id]; !has {
				t.Errorf("%s's key was removed by evil's revoke_auth", id)
			}
		}
		// The key is gone: evil's key no longer connects.
		seedEvil, err := os.ReadFile(filepath.Join(c.minionDir("evil"), "pki", "minion.nk"))
		if err != nil {
			t.Fatal(err)
		}
		kp, err := nkeys.FromSeed([]byte(strings.TrimSpace(string(seedEvil))))
		if err != nil {
			t.Fatal(err)
		}
		pubKey, _ := kp.PublicKey()
		waitFor(t, "evil's key to be refused", func() bool {
			nc, err := nats.Connect(c.url(), nats.Nkey(pubKey, kp.Sign), nats.RootCAs(c.caFile()), nats.NoReconnect())
			if err != nil {
				return true
			}
			nc.Close()
			return false
		})

		seed := filepath.Join(c.minionDir("tgt2"), "pki", "minion.nk")
		before, err := os.ReadFile(seed)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.callJSON("tgt2", "saltutil.regen_keys"); got != nil {
			t.Errorf("regen_keys = %v", got)
		}
		after, err := os.ReadFile(seed)
		if err != nil {
			t.Fatal(err)
		}
		if string(after) == string(before) {
			t.Errorf("regen_keys kept the minion key")
		}
		if _, err := os.Stat(filepath.Join(c.minionDir("tgt2"), "pki", "minion_master.pub")); err == nil {
			t.Errorf("regen_keys kept minion_master.pub")
		}
	})
}
