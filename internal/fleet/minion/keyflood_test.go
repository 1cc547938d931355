package minion_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"brine/internal/fleet/keys"
	"brine/internal/fleet/master"
	"brine/internal/fleet/minion"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// launchMinion runs a minion with opts until the test ends, without
// waiting for it to be accepted; the channel is closed when it is ready.
func launchMinion(t *testing.T, opts *value.Map) <-chan struct{} {
	t.Helper()
	ready := make(chan struct{})
	mn, err := minion.New(minion.Options{Opts: opts, Log: logger(t), Ready: func() { close(ready) }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mn.Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return ready
}

func ping(t *testing.T, m *master.Master, id string) {
	t.Helper()
	c := adminClient(t, m)
	rep, err := c.Publish(proto.PublishRequest{Tgt: id, TgtType: "glob", Fun: "test.ping"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := c.Returns(ctx, rep.JID, rep.Minions, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := got[id]; !ok || r.Return.V != true {
		t.Fatalf("%s: ping return %+v (ok %v)", id, r, ok)
	}
}

// connOf returns the server's connection id of the user with nkey pub.
func connOf(t *testing.T, m *master.Master, pub string) uint64 {
	t.Helper()
	cz, err := m.Server().Connz(&server.ConnzOptions{Username: true, Limit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cz.Conns {
		if c.AuthorizedUser == pub {
			return c.Cid
		}
	}
	t.Fatalf("no connection of %s", pub)
	return 0
}

// TestKeyRequestFlood is a malicious client: connected as the anonymous
// key-request user, it floods the master with thousands of key requests
// (new ids, one request repeated, garbage, a forged source header), then
// with a connection per request. The pending directory stays under
// max_pending_keys, the accepted minion keeps its connection and answers,
// and a new minion gets its key request in once the flood stops.
func TestKeyRequestFlood(t *testing.T) {
	const maxPending = 50
	m, dir := startMaster(t, map[string]any{"auto_accept": false, "max_pending_keys": int64(maxPending)})
	caFile := filepath.Join(dir, "pki", "tls", "ca.crt")

	// A minion accepted before the flood.
	oldOpts := minionOpts(t, m, dir, "old1")
	kp, err := minion.LoadKey(oldOpts)
	if err != nil {
		t.Fatal(err)
	}
	oldPub, _ := kp.PublicKey()
	if _, err := m.Store.Submit("old1", oldPub, true); err != nil {
		t.Fatal(err)
	}
	if err := m.ReloadKeys(); err != nil {
		t.Fatal(err)
	}
	runMinion(t, oldOpts)
	ping(t, m, "old1")
	cid := connOf(t, m, oldPub)

	// The flood, on one connection.
	nc, err := nats.Connect(m.URL(), nats.UserInfo(proto.KeyReqUser, proto.KeyReqUser), nats.RootCAs(caFile), nats.NoReconnect())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	repeat, _ := nkeys.CreateUser()
	repMsg, _ := proto.NewKeyRequest(repeat, "repeat")
	forged := nats.Header{}
	forged.Set(server.ClientInfoHdr, `{"host":"203.0.113.9"}`)
	for i := range 3000 {
		msg := &nats.Msg{Subject: proto.KeyReqSubject}
		switch i % 4 {
		case 0:
			k, _ := nkeys.CreateUser()
			msg.Data, _ = proto.NewKeyRequest(k, fmt.Sprintf("flood-%05d", i))
		case 1:
			msg.Data = repMsg
		case 2:
			msg.Data = []byte("garbage")
		case 3:
			k, _ := nkeys.CreateUser()
			msg.Data, _ = proto.NewKeyRequest(k, fmt.Sprintf("forged-%05d", i))
			msg.Header = forged
		}
		if err := nc.PublishMsg(msg); err != nil {
			t.Fatal(err)
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	// The accepted minion answers during the flood's processing.
	ping(t, m, "old1")
	// Then a connection per request, as minions make them.
	floodOpts := value.MapOf("master", m.URL(), "master_tls_ca", caFile, "pki_dir", t.TempDir())
	for i := range 200 {
		k, _ := nkeys.CreateUser()
		if err := minion.RequestKey(floodOpts, fmt.Sprintf("conn-%03d", i), k); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	nc.Close()

	pending := func() []string {
		ids, err := m.Store.List(keys.Pending)
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	if n := len(pending()); n > maxPending {
		t.Fatalf("%d keys pending, max_pending_keys %d", n, maxPending)
	}

	// A new minion asks for acceptance after the flood.
	newOpts := minionOpts(t, m, dir, "new1")
	launchMinion(t, newOpts)
	deadline := time.Now().Add(60 * time.Second)
	for !slices.Contains(pending(), "new1") {
		if time.Now().After(deadline) {
			t.Fatalf("the new minion's key request never arrived; pending: %d", len(pending()))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := len(pending()); n > maxPending {
		t.Errorf("%d keys pending, max_pending_keys %d", n, maxPending)
	}
	if acc, _ := m.Store.List(keys.Accepted); !slices.Equal(acc, []string{"old1"}) {
		t.Errorf("accepted keys changed: %v", acc)
	}
	ping(t, m, "old1")
	if now := connOf(t, m, oldPub); now != cid {
		t.Errorf("the accepted minion reconnected during the flood (connection %d, then %d)", cid, now)
	}
}
