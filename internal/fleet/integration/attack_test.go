package integration

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"brine/internal/fleet/keys"
	"brine/internal/fleet/master"
	"brine/internal/fleet/proto"
)

// dialAs connects to the cluster's master with minion id's own key, as a
// modified minion would: a real NATS connection, no brine minion code.
func dialAs(t *testing.T, c *cluster, id string, opts ...nats.Option) *nats.Conn {
	t.Helper()
	seed, err := os.ReadFile(filepath.Join(c.minionDir(id), "pki", "minion.nk"))
	if err != nil {
		t.Fatal(err)
	}
	kp, err := nkeys.FromSeed([]byte(strings.TrimSpace(string(seed))))
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := kp.PublicKey()
	base := []nats.Option{nats.Nkey(pub, kp.Sign), nats.RootCAs(c.caFile()), nats.CustomInboxPrefix(proto.InboxPrefix(id))}
	nc, err := nats.Connect(c.url(), append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// masterConn connects with the master's key: what `brine run` uses, able
// to see every subject. The tests watch with it what the master publishes.
func masterConn(t *testing.T, c *cluster) *nats.Conn {
	t.Helper()
	kp, err := keys.Load(master.KeyPath(c.masterOpts()))
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := kp.PublicKey()
	nc, err := nats.Connect(c.url(), nats.Nkey(pub, kp.Sign), nats.RootCAs(c.caFile()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func (c *cluster) url() string    { return "tls://127.0.0.1:" + itoa(c.port) }
func (c *cluster) caFile() string { return filepath.Join(c.dir, "master", "pki", "tls", "ca.crt") }

// TestMaliciousMinion has an accepted minion (web1), holding only its own
// key, try to make the master write where web1 may not: it sends ordinary
// requests of every kind on its own subject with the reply subject set to
// another minion's return slot, a job record, a minion record, the
// JetStream API, another minion's job subject and inbox, and the
// administrative subjects. The master must answer none of them (watched
// with the master's key on every target), and every legitimate return
// must be stored and printed.
func TestMaliciousMinion(t *testing.T) {
	c := fleet(t)
	watch := masterConn(t, c)

	// web1 learns job ids from the jobs sent to every minion.
	jids := make(chan string, 4)
	atk := dialAs(t, c, "web1")
	if _, err := atk.Subscribe(proto.BroadcastWildcard, func(msg *nats.Msg) {
		var job proto.Job
		if _, err := proto.Open(msg.Data, "", &job); err == nil {
			jids <- job.JID
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := atk.Flush(); err != nil {
		t.Fatal(err)
	}
	out, errs, rc := c.brine("run", "-c", c.mdir, "--async", "*", "cmd.run", "sleep 4; echo done")
	if rc != 0 {
		t.Fatalf("async run: %q %q", out, errs)
	}
	var jid string
	select {
	case jid = <-jids:
	case <-time.After(10 * time.Second):
		t.Fatal("web1 saw no broadcast job")
	}
	if !strings.Contains(out, jid) {
		t.Fatalf("web1 learned jid %s, brine run printed %q", jid, out)
	}

	targets := []string{
		"$KV." + proto.ReturnBucket + "." + proto.ReturnKey(jid, "db1"),
		"$KV." + proto.JobBucket + "." + jid,
		"$KV." + proto.MinionBucket + "." + proto.Token("db1"),
		"$JS.API.STREAM.PURGE.KV_" + proto.ReturnBucket,
		"$JS.API.STREAM.DELETE.KV_" + proto.JobBucket,
		proto.JobSubject("db1", jid),
		proto.BroadcastSubject(proto.NewJID(time.Now())),
		proto.InboxPrefix("db1") + ".stolen",
		proto.AdminSubject(proto.AdminPublish),
		proto.KeyReqSubject,
		// Near misses of web1's own inbox: another token that starts the same.
		proto.InboxPrefix("web1") + "x.reply",
		proto.InboxPrefix("web1"),
	}
	// Everything published on a target is checked for the master's signed
	// replies to the requests sent below (recognised by their nonces).
	var mu sync.Mutex
	nonces := map[string]string{} // nonce -> "kind -> target"
	var reflected []string
	for _, subj := range targets {
		if _, err := watch.Subscribe(subj, func(msg *nats.Msg) {
			var rep proto.Reply
			if _, err := proto.Open(msg.Data, "", &rep); err != nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if what, ok := nonces[rep.Nonce]; ok {
				reflected = append(reflected, what+" (seen on "+msg.Subject+")")
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := watch.Flush(); err != nil {
		t.Fatal(err)
	}

	bodies := map[string]any{
		proto.ReqHello:   proto.HelloRequest{Grains: proto.ValueJSON{V: map[string]any{"id": "web1"}}},
		proto.ReqPillar:  proto.PillarRequest{Grains: proto.ValueJSON{V: map[string]any{"id": "web1"}}},
		proto.ReqFiles:   proto.FilesRequest{Saltenv: "base"},
		proto.ReqFile:    proto.FileRequest{Saltenv: "base", Path: "top.sls"},
		proto.ReqCatchup: proto.CatchupRequest{},
		// A return web1 has every right to send, but for a job not its own.
		proto.ReqReturn: proto.Return{V: proto.Version, JID: jid, ID: "db1", Return: proto.ValueJSON{V: "forged"}},
		"no-such-kind":  nil,
	}
	for kind, body := range bodies {
		for _, target := range targets {
			req, data, err := proto.NewRequest(body)
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			nonces[req.Nonce] = kind + " -> " + target
			mu.Unlock()
			if err := atk.PublishRequest(proto.ReqSubject("web1", kind), target, data); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := atk.Flush(); err != nil {
		t.Fatal(err)
	}

	// The same requests with web1's own inbox are answered: the refusal is
	// of the reply subject, not of web1. The flood above may still fill
	// web1's share of concurrent requests on a loaded machine (a request
	// beyond it is dropped, by design), so each is tried until answered.
	for _, kind := range []string{proto.ReqHello, proto.ReqCatchup} {
		var err error
		for deadline := time.Now().Add(40 * time.Second); ; {
			_, data, _ := proto.NewRequest(bodies[kind])
			if _, err = atk.Request(proto.ReqSubject("web1", kind), data, 4*time.Second); err == nil || time.Now().After(deadline) {
				break
			}
		}
		if err != nil {
			t.Errorf("web1's own %s request: %v", kind, err)
		}
	}

	// Every minion's real return is stored and printed, db1's included.
	waitReturns(t, c, jid, map[string]any{"web1": "done", "web2": "done", "db1": "done"})
	if err := watch.Flush(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(reflected) > 0 {
		t.Errorf("the master answered on subjects web1 may not use:\n%s", strings.Join(reflected, "\n"))
	}
	mu.Unlock()
	if !strings.Contains(c.log("master"), "reply subject outside the minion's inbox") {
		t.Error("the master logged no refusal")
	}

	// The records web1 aimed at are intact: the job is listed and looked
	// up, db1 is still targeted by its grains, the buckets still exist.
	got := c.lookup(jid)
	if got["db1"] != "done" {
		t.Errorf("jobs lookup %s: %v", jid, got)
	}
	if res, rc := c.run("-G", "roles:db", "test.ping"); rc != 0 || res["db1"] != true || len(res) != 1 {
		t.Errorf("grain target after the attack: rc %d, %v", rc, res)
	}
	js, err := jetstream.New(watch)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, b := range []string{proto.ReturnBucket, proto.JobBucket, proto.MinionBucket} {
		if _, err := js.KeyValue(ctx, b); err != nil {
			t.Errorf("bucket %s after the attack: %v", b, err)
		}
	}
	if kv, err := js.KeyValue(ctx, proto.JobBucket); err == nil {
		if _, err := kv.Get(ctx, jid); err != nil {
			t.Errorf("job record %s: %v", jid, err)
		}
	}
}

// TestReturnSlotTakenOutsideTheMaster puts something other than db1's
// return into db1's slot before db1 answers (as a reflected reply did
// before the master checked reply subjects): db1's real return must
// still be stored, not refused as "already stored".
func TestReturnSlotTakenOutsideTheMaster(t *testing.T) {
	c := fleet(t)
	watch := masterConn(t, c)
	out, errs, rc := c.brine("run", "-c", c.mdir, "--async", "db1", "cmd.run", "sleep 2; echo real")
	jid := strings.TrimSpace(strings.TrimPrefix(out, "Executed command with job ID:"))
	if rc != 0 || !proto.ValidJID(jid) {
		t.Fatalf("async run: %q %q", out, errs)
	}
	js, err := jetstream.New(watch)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kv, err := js.KeyValue(ctx, proto.ReturnBucket)
	if err != nil {
		t.Fatal(err)
	}
	junk, _ := json.Marshal(proto.Reply{Nonce: "reflected"})
	if _, err := kv.Create(ctx, proto.ReturnKey(jid, "db1"), junk); err != nil {
		t.Fatalf("planting the junk return: %v", err)
	}
	waitReturns(t, c, jid, map[string]any{"db1": "real"})
	if !strings.Contains(c.log("master"), "replacing a return slot written outside the master's checks") {
		t.Error("the master did not log the replaced slot")
	}
}

// TestNoCredentials: without credentials, with a made-up user or an
// unaccepted key, nothing connects; the key-request user may publish its
// request and nothing else (a minion may not use it to read jobs).
func TestNoCredentials(t *testing.T) {
	c := newCluster(t, "")
	c.startMaster()
	for what, opt := range map[string]nats.Option{
		"no credentials": func(*nats.Options) error { return nil },
		"a made-up user": nats.UserInfo("admin", "admin"),
		"the key-request user with a wrong password": nats.UserInfo(proto.KeyReqUser, "guess"),
	} {
		if nc, err := nats.Connect(c.url(), opt, nats.RootCAs(c.caFile())); err == nil {
			nc.Close()
			t.Errorf("%s: connected", what)
		}
	}
	if nc, err := nats.Connect(strings.Replace(c.url(), "tls://", "nats://", 1), nats.UserInfo(proto.KeyReqUser, proto.KeyReqUser)); err == nil {
		nc.Close()
		t.Error("a plain-text connection was accepted by a TLS master")
	}
	stranger, _ := nkeys.CreateUser()
	spub, _ := stranger.PublicKey()
	if nc, err := nats.Connect(c.url(), nats.Nkey(spub, stranger.Sign), nats.RootCAs(c.caFile())); err == nil {
		nc.Close()
		t.Error("an unaccepted key connected")
	}
	violations := make(chan string, 16)
	kr, err := nats.Connect(c.url(), nats.UserInfo(proto.KeyReqUser, proto.KeyReqUser), nats.RootCAs(c.caFile()),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { violations <- err.Error() }))
	if err != nil {
		t.Fatal(err)
	}
	defer kr.Close()
	for _, subj := range []string{proto.BroadcastWildcard, "_INBOX.>", "$KV.>"} {
		_, _ = kr.Subscribe(subj, func(*nats.Msg) {})
		_ = kr.Flush()
		select {
		case v := <-violations:
			if !strings.Contains(v, "Permissions Violation") {
				t.Errorf("subscribe %s: %q", subj, v)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("subscribe %s as the key-request user: no violation", subj)
		}
	}
	if _, err := kr.Request(proto.AdminSubject(proto.AdminPublish), []byte(`{}`), 500*time.Millisecond); err == nil {
		t.Error("the key-request user reached the admin subject")
	}
}
