package minion_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nkeys"

	"brine/internal/config"
	"brine/internal/fleet/master"
	"brine/internal/fleet/minion"
	"brine/internal/value"
)

// fingerOpts are the options of minion id of m without master_tls_ca (the
// CA is pinned on first contact), with extra options.
func fingerOpts(t *testing.T, m *master.Master, id string, extra ...any) *value.Map {
	t.Helper()
	dir := filepath.Join(t.TempDir(), id)
	ov := value.MapOf(
		"id", id,
		"master", m.URL(),
		"pki_dir", filepath.Join(dir, "pki"),
		"cachedir", filepath.Join(dir, "cache"),
		"acceptance_wait_time", 0.2,
	)
	for i := 0; i+1 < len(extra); i += 2 {
		ov.Set(extra[i], extra[i+1])
	}
	cfg, err := config.Load("", ov)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Opts()
}

func masterFinger(t *testing.T, dir string) string {
	t.Helper()
	fp, err := master.CAFinger(filepath.Join(dir, "pki", "tls", "ca.crt"), "sha256")
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

func pinnedCA(opts *value.Map) string {
	pki, _ := opts.Get("pki_dir")
	return filepath.Join(pki.(string), "master_ca.crt")
}

func TestMasterFinger(t *testing.T) {
	m, dir := startMaster(t, nil)
	right := masterFinger(t, dir)
	wrong := strings.Repeat("ab:", 31) + "ab"

	t.Run("right finger connects and pins", func(t *testing.T) {
		opts := fingerOpts(t, m, "f-right", "master_finger", right)
		runMinion(t, opts)
		ping(t, m, "f-right")
		if _, err := os.Stat(pinnedCA(opts)); err != nil {
			t.Errorf("CA not pinned: %v", err)
		}
		// Later connections check the pinned CA against the finger too.
		kp, _ := minion.LoadKey(opts)
		c, err := minion.Dial(opts, "f-right", kp, minion.DialOptions{})
		if err != nil {
			t.Fatalf("dial with the pinned CA: %v", err)
		}
		c.Close()
	})

	t.Run("openssl's output as the finger", func(t *testing.T) {
		out, err := exec.Command("openssl", "x509", "-in", filepath.Join(dir, "pki", "tls", "ca.crt"), "-noout", "-fingerprint", "-sha256").Output()
		if err != nil {
			t.Skipf("openssl: %v", err)
		}
		opts := fingerOpts(t, m, "f-openssl", "master_finger", strings.TrimSpace(string(out)))
		kp, _ := nkeys.CreateUser()
		if err := minion.RequestKey(opts, "f-openssl", kp); err != nil {
			t.Fatalf("finger %q refused: %v", out, err)
		}
	})

	t.Run("wrong finger refuses before pinning", func(t *testing.T) {
		opts := fingerOpts(t, m, "f-wrong", "master_finger", wrong)
		kp, _ := minion.LoadKey(opts)
		err := minion.RequestKey(opts, "f-wrong", kp)
		if err == nil || !strings.Contains(err.Error(), "master_finger mismatch") || !strings.Contains(err.Error(), right) {
			t.Fatalf("key request with a wrong finger: %v", err)
		}
		if _, err := minion.Dial(opts, "f-wrong", kp, minion.DialOptions{}); err == nil || !strings.Contains(err.Error(), "master_finger mismatch") {
			t.Fatalf("dial with a wrong finger: %v", err)
		}
		if _, err := os.Stat(pinnedCA(opts)); err == nil {
			t.Error("CA pinned despite the wrong finger")
		}
		if st, _ := m.Store.Find("f-wrong"); st != "" {
			t.Error("the key request reached the master")
		}
	})

	t.Run("wrong finger logged by a running minion", func(t *testing.T) {
		var logs syncLog
		opts := fingerOpts(t, m, "f-log", "master_finger", wrong)
		mn, err := minion.New(minion.Options{Opts: opts, Log: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		stop := startRun(t, mn)
		defer stop()
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(logs.String(), "master_finger mismatch") {
			if time.Now().After(deadline) {
				t.Fatalf("no clear log message:\n%s", logs.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Log(strings.SplitN(logs.String(), "\n", 2)[0])
	})

	t.Run("pinned CA that does not match", func(t *testing.T) {
		// Pinned by trust on first use, then the finger set: a CA that
		// does not match is refused, naming the pinned file.
		opts := fingerOpts(t, m, "f-pinned")
		kp, _ := minion.LoadKey(opts)
		if err := minion.RequestKey(opts, "f-pinned", kp); err != nil {
			t.Fatal(err)
		}
		opts.Set("master_finger", wrong)
		err := minion.RequestKey(opts, "f-pinned", kp)
		if err == nil || !strings.Contains(err.Error(), pinnedCA(opts)) {
			t.Fatalf("pinned CA with a wrong finger: %v", err)
		}
	})

	t.Run("no TLS with a finger is refused", func(t *testing.T) {
		opts := fingerOpts(t, m, "f-plain", "master_finger", right)
		opts.Set("master", "nats://"+strings.TrimPrefix(m.URL(), "tls://"))
		kp, _ := nkeys.CreateUser()
		if err := minion.RequestKey(opts, "f-plain", kp); !errors.Is(err, minion.ErrMasterFinger) {
			t.Fatalf("plain URL with master_finger: %v", err)
		}
	})

	t.Run("no finger: trust on first use", func(t *testing.T) {
		opts := fingerOpts(t, m, "f-tofu")
		runMinion(t, opts)
		ping(t, m, "f-tofu")
		data, err := os.ReadFile(pinnedCA(opts))
		if err != nil {
			t.Fatal(err)
		}
		ca, _ := os.ReadFile(filepath.Join(dir, "pki", "tls", "ca.crt"))
		if !bytes.Equal(bytes.TrimSpace(data), bytes.TrimSpace(ca)) {
			t.Error("pinned CA is not the master's")
		}
	})
}

func startRun(t *testing.T, mn *minion.Minion) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = mn.Run(ctx)
	}()
	return func() { cancel(); <-done }
}

// syncLog is a log buffer safe for concurrent use.
type syncLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncLog) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
