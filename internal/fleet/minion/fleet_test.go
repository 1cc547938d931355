package minion_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "brine/internal/builtin"
	"brine/internal/config"
	"brine/internal/fleet/client"
	"brine/internal/fleet/master"
	"brine/internal/fleet/minion"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func logger(t testing.TB) *slog.Logger {
	if os.Getenv("BRINE_FLEET_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return quiet
}

// startMaster starts an in-process master on loopback.
func startMaster(t testing.TB, extra map[string]any) (*master.Master, string) {
	t.Helper()
	dir := t.TempDir()
	ov := value.MapOf(
		"interface", "127.0.0.1",
		"ret_port", int64(0),
		"pki_dir", filepath.Join(dir, "pki"),
		"cachedir", filepath.Join(dir, "cache"),
		"file_roots", value.MapOf("base", value.NewList(filepath.Join(dir, "srv", "salt"))),
		"pillar_roots", value.MapOf("base", value.NewList(filepath.Join(dir, "srv", "pillar"))),
		"auto_accept", true,
	)
	for k, v := range extra {
		ov.Set(k, v)
	}
	os.MkdirAll(filepath.Join(dir, "srv", "salt"), 0o755)
	os.MkdirAll(filepath.Join(dir, "srv", "pillar"), 0o755)
	cfg, err := config.LoadMaster("", ov)
	if err != nil {
		t.Fatal(err)
	}
	m, err := master.New(cfg, logger(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m, dir
}

// minionOpts returns the options of an in-process minion of m.
func minionOpts(t testing.TB, m *master.Master, mdir, id string) *value.Map {
	dir := filepath.Join(t.TempDir(), id)
	cfg, err := config.Load("", value.MapOf(
		"id", id,
		"master", m.URL(),
		"pki_dir", filepath.Join(dir, "pki"),
		"cachedir", filepath.Join(dir, "cache"),
		"master_tls_ca", filepath.Join(mdir, "pki", "tls", "ca.crt"),
		"acceptance_wait_time", 0.2,
	))
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Opts()
}

// startMinions runs in-process minions until the test ends and waits
// until all are ready.
func startMinions(t testing.TB, m *master.Master, mdir string, ids []string, grains func(id string) *value.Map) map[string]*value.Map {
	t.Helper()
	all := map[string]*value.Map{}
	ctx, cancel := context.WithCancel(context.Background())
	var ready sync.WaitGroup
	var done sync.WaitGroup
	for _, id := range ids {
		ready.Add(1)
		done.Add(1)
		var g *value.Map
		if grains != nil {
			g = grains(id)
		}
		all[id] = minionOpts(t, m, mdir, id)
		mn, err := minion.New(minion.Options{Opts: all[id], Grains: g, Log: logger(t), Ready: ready.Done})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			defer done.Done()
			if err := mn.Run(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	t.Cleanup(func() { cancel(); done.Wait() })
	ch := make(chan struct{})
	go func() { ready.Wait(); close(ch) }()
	select {
	case <-ch:
	case <-time.After(60 * time.Second):
		t.Fatal("minions not ready after 60s")
	}
	return all
}

func adminClient(t testing.TB, m *master.Master) *client.Client {
	t.Helper()
	c, err := client.Dial(m.Opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func TestPing(t *testing.T) {
	m, dir := startMaster(t, nil)
	startMinions(t, m, dir, []string{"web1", "web2", "db.example.com"}, nil)
	c := adminClient(t, m)
	rep, err := c.Publish(proto.PublishRequest{Tgt: "*", TgtType: "glob", Fun: "test.ping"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Minions) != 3 {
		t.Fatalf("minions = %v", rep.Minions)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := c.Returns(ctx, rep.JID, rep.Minions, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range rep.Minions {
		r, ok := got[id]
		if !ok || r.Return.V != true {
			t.Errorf("%s: return %+v (ok %v)", id, r, ok)
		}
	}
}

// TestReplayRefused sends the same signed-in request twice, and one with
// a stale time: the master answers the first only.
func TestReplayRefused(t *testing.T) {
	m, dir := startMaster(t, nil)
	opts := startMinions(t, m, dir, []string{"r1"}, nil)["r1"]
	// The minion made its key under its pki_dir; reuse it.
	kp, err := minion.LoadKey(opts)
	if err != nil {
		t.Fatal(err)
	}
	c, err := minion.Dial(opts, "r1", kp, minion.DialOptions{})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer c.Close()
	_, raw, _ := proto.NewRequest(proto.CatchupRequest{})
	subj := proto.ReqSubject("r1", proto.ReqCatchup)
	reply := func(data []byte) proto.Reply {
		msg, err := c.NC.Request(subj, data, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var rep proto.Reply
		if _, err := proto.Open(msg.Data, "", &rep); err != nil {
			t.Fatal(err)
		}
		return rep
	}
	if rep := reply(raw); rep.Error != "" {
		t.Fatalf("first request refused: %s", rep.Error)
	}
	if rep := reply(raw); !strings.Contains(rep.Error, "replayed") {
		t.Errorf("replayed request: %q", rep.Error)
	}
	old := proto.Request{V: proto.Version, Nonce: proto.NewNonce(), TS: time.Now().Add(-time.Hour).UnixNano()}
	data, _ := json.Marshal(old)
	if rep := reply(data); !strings.Contains(rep.Error, "stale") {
		t.Errorf("stale request: %q", rep.Error)
	}
}
