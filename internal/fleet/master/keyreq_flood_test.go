package master

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"brine/internal/config"
	"brine/internal/fleet/keys"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// startTestMaster starts a master with its embedded server on loopback.
// Its log goes to log (nil: discarded, or stderr with BRINE_FLEET_LOG).
func startTestMaster(t testing.TB, log *slog.Logger, extra ...any) *Master {
	t.Helper()
	dir := t.TempDir()
	ov := value.MapOf(
		"interface", "127.0.0.1",
		"ret_port", int64(0),
		"pki_dir", filepath.Join(dir, "pki"),
		"cachedir", filepath.Join(dir, "cache"),
		"file_roots", value.MapOf("base", value.NewList(filepath.Join(dir, "srv", "salt"))),
		"pillar_roots", value.MapOf("base", value.NewList(filepath.Join(dir, "srv", "pillar"))),
	)
	for i := 0; i+1 < len(extra); i += 2 {
		ov.Set(extra[i], extra[i+1])
	}
	cfg, err := config.LoadMaster("", ov)
	if err != nil {
		t.Fatal(err)
	}
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if os.Getenv("BRINE_FLEET_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	m, err := New(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

// keyReqConn connects as the anonymous key-request user.
func keyReqConn(t testing.TB, m *Master) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(m.URL(), nats.UserInfo(proto.KeyReqUser, proto.KeyReqUser), nats.RootCAs(m.tlsCA), nats.NoReconnect())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// floodMessages returns n key requests: signed requests for new ids, one
// request repeated, and garbage.
func floodMessages(t testing.TB, n int) [][]byte {
	t.Helper()
	repeat, _ := nkeys.CreateUser()
	rep, _ := proto.NewKeyRequest(repeat, "repeat")
	out := make([][]byte, 0, n)
	for i := range n {
		switch i % 3 {
		case 0:
			kp, _ := nkeys.CreateUser()
			msg, err := proto.NewKeyRequest(kp, fmt.Sprintf("flood-%05d", i))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, msg)
		case 1:
			out = append(out, rep)
		default:
			out = append(out, []byte(`{"v":1,"id":"x","key":"nope"}`))
		}
	}
	return out
}

// TestKeyRequestFloodCap floods a master without rate limits: the pending
// directory fills up to max_pending_keys and no further, repeats create
// nothing, and one summary line reports the drops.
func TestKeyRequestFloodCap(t *testing.T) {
	old := keyReqLogEvery
	keyReqLogEvery = 200 * time.Millisecond
	t.Cleanup(func() { keyReqLogEvery = old })
	var logs syncBuffer
	m := startTestMaster(t, slog.New(slog.NewTextHandler(&logs, nil)), "max_pending_keys", int64(20), "key_request_rate", int64(0), "key_request_source_rate", int64(0))
	nc := keyReqConn(t, m)
	msgs := floodMessages(t, 3000)
	for _, msg := range msgs {
		if err := nc.Publish(proto.KeyReqSubject, msg); err != nil {
			t.Fatal(err)
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(logs.String(), "pending_full=") {
		if time.Now().After(deadline) {
			t.Fatalf("no summary of dropped requests:\n%s", logs.String())
		}
		if ids, _ := m.Store.List(keys.Pending); len(ids) > 20 {
			t.Fatalf("%d keys pending, cap 20", len(ids))
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Let the last requests through, then count.
	time.Sleep(500 * time.Millisecond)
	ids, _ := m.Store.List(keys.Pending)
	if len(ids) != 20 {
		t.Errorf("%d keys pending, want the cap (20)", len(ids))
	}
	ents, _ := os.ReadDir(filepath.Join(m.Store.Dir, string(keys.Pending)))
	if len(ents) != 20 {
		t.Errorf("pending directory holds %d entries (temporary files left?)", len(ents))
	}
	text := logs.String()
	if n := strings.Count(text, "\n"); n > 60 {
		t.Errorf("%d log lines for one flood:\n%s", n, text)
	}
	if !strings.Contains(text, "invalid=") {
		t.Errorf("garbage not counted:\n%s", text)
	}
}

// TestKeyRequestSourceForged sends requests with a forged
// Nats-Request-Info header: the server replaces it, so the source the
// master limits is the connection's address.
func TestKeyRequestSourceForged(t *testing.T) {
	old := keyReqLogEvery
	keyReqLogEvery = 200 * time.Millisecond
	t.Cleanup(func() { keyReqLogEvery = old })
	var logs syncBuffer
	m := startTestMaster(t, slog.New(slog.NewTextHandler(&logs, nil)), "key_request_source_rate", int64(1))
	nc := keyReqConn(t, m)
	for i, msg := range floodMessages(t, 300) {
		h := nats.Header{}
		h.Set(server.ClientInfoHdr, fmt.Sprintf(`{"host":"10.0.%d.%d"}`, i/250, i%250))
		if err := nc.PublishMsg(&nats.Msg{Subject: proto.KeyReqSubject, Header: h, Data: msg}); err != nil {
			t.Fatal(err)
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(logs.String(), "source_rate=") {
		if time.Now().After(deadline) {
			t.Fatalf("no summary of dropped requests:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	text := logs.String()
	t.Log(text)
	if !strings.Contains(text, "top_source=127.0.0.1") || strings.Contains(text, "10.0.") {
		t.Errorf("source not the connection's address:\n%s", text)
	}
	// A burst of ten from one source, the rest dropped.
	if ids, _ := m.Store.List(keys.Pending); len(ids) > 15 {
		t.Errorf("%d keys pending from one source", len(ids))
	}
}

// TestKeyRequestRepliesExpire floods with reply subjects: the routes back
// the server keeps for them expire within seconds.
func TestKeyRequestRepliesExpire(t *testing.T) {
	m := startTestMaster(t, nil)
	nc := keyReqConn(t, m)
	for i := range 2000 {
		if err := nc.PublishRequest(proto.KeyReqSubject, fmt.Sprintf("_INBOX.x.%d", i), []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	g := m.ns.GlobalAccount()
	t.Logf("%d reply routes after the flood", g.NumPendingAllResponses())
	deadline := time.Now().Add(60 * time.Second)
	for g.NumPendingAllResponses() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d reply routes still held", g.NumPendingAllResponses())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
