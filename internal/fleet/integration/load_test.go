package integration

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nkeys"

	_ "brine/internal/builtin"
	"brine/internal/config"
	"brine/internal/fleet/client"
	"brine/internal/fleet/keys"
	"brine/internal/fleet/minion"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// rssKB reads a process's resident set size.
func rssKB(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			v, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return v
		}
	}
	return 0
}

// TestLoad starts a master process and N minions in this process (each
// with its own connection and key), then measures the time to connect
// them all, the time to every return of test.ping and of a small
// state.apply, and the master's memory per connected minion.
//
// N is BRINE_LOAD_MINIONS (default 50); BRINE_LOAD_STATE=0 skips the
// state.apply round. The whole test is bounded by BRINE_LOAD_TIMEOUT
// seconds (default 300) and stops by itself.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test skipped in -short mode")
	}
	n := envInt("BRINE_LOAD_MINIONS", 50)
	limit := time.Duration(envInt("BRINE_LOAD_TIMEOUT", 300)) * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()

	c := newCluster(t, "job_catchup_window: 60\n")
	c.write("srv/salt/load.sls", "hello:\n  test.succeed_without_changes\n")
	store, err := keys.OpenStore(filepath.Join(c.dir, "master", "pki"))
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, n)
	kps := make([]nkeys.KeyPair, n)
	for i := range n {
		ids[i] = fmt.Sprintf("load%05d", i)
		kps[i], _ = nkeys.CreateUser()
		pub, _ := kps[i].PublicKey()
		if _, err := store.Submit(ids[i], pub, true); err != nil {
			t.Fatal(err)
		}
	}
	c.startMaster()
	pid := c.master.Process.Pid
	time.Sleep(300 * time.Millisecond)
	rss0 := rssKB(pid)

	base, err := config.Load("", value.MapOf(
		"master", "127.0.0.1", "master_port", int64(c.port),
		"master_tls_ca", filepath.Join(c.dir, "master", "pki", "tls", "ca.crt"),
		"acceptance_wait_time", 1.0,
	))
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	runCtx, stop := context.WithCancel(ctx)
	var ready, done sync.WaitGroup
	dialing := make(chan struct{}, envInt("BRINE_LOAD_DIALERS", 200))
	start := time.Now()
	for i, id := range ids {
		opts := base.Opts().Copy()
		d := filepath.Join(c.dir, "lm", id)
		opts.Set("id", id)
		opts.Set("pki_dir", filepath.Join(d, "pki"))
		opts.Set("cachedir", filepath.Join(d, "cache"))
		grains := value.MapOf("id", id, "os", "Debian", "ipv4", value.NewList("127.0.0.1"))
		ready.Add(1)
		// At most dialers minions connect at once, as a fleet coming up
		// over time would, rather than a thundering herd of handshakes.
		var once sync.Once
		release := func() { once.Do(func() { <-dialing; ready.Done() }) }
		mn, err := minion.New(minion.Options{Opts: opts, Grains: grains, Key: kps[i], Log: quiet, Ready: release, Parallel: 2})
		if err != nil {
			t.Fatal(err)
		}
		done.Add(1)
		go func() {
			defer done.Done()
			select {
			case dialing <- struct{}{}:
			case <-runCtx.Done():
				return
			}
			_ = mn.Run(runCtx)
		}()
	}
	defer func() { stop(); done.Wait() }()
	allReady := make(chan struct{})
	go func() { ready.Wait(); close(allReady) }()
	select {
	case <-allReady:
	case <-ctx.Done():
		t.Fatalf("only part of %d minions connected within %s", n, limit)
	}
	connectDur := time.Since(start)
	t.Logf("load: %d minions connected in %s", n, connectDur.Round(time.Millisecond))
	time.Sleep(500 * time.Millisecond)
	rss1 := rssKB(pid)

	cl, err := client.Dial(c.masterOpts())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	round := func(fun string, args ...any) time.Duration {
		t.Helper()
		t0 := time.Now()
		rep, err := cl.Publish(proto.PublishRequest{Tgt: "*", TgtType: "glob", Fun: fun, Arg: proto.ValueJSON{V: value.NewList(args...)}})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Minions) != n {
			t.Fatalf("%s targeted %d minions, want %d", fun, len(rep.Minions), n)
		}
		got, err := cl.Returns(ctx, rep.JID, rep.Minions, nil)
		if err != nil {
			t.Fatal(err)
		}
		d := time.Since(t0)
		if len(got) != n {
			t.Fatalf("%s: %d of %d returns within the limit", fun, len(got), n)
		}
		for id, r := range got {
			if r.Retcode != 0 {
				t.Fatalf("%s on %s: retcode %d, %v", fun, id, r.Retcode, r.Return.V)
			}
		}
		return d
	}
	ping1 := round("test.ping")
	ping2 := round("test.ping")
	var state time.Duration
	if os.Getenv("BRINE_LOAD_STATE") != "0" {
		state = round("state.apply", "load")
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("load: %d minions on %d CPUs: connected (key, TLS, hello with pillar, catch-up) in %s", n, runtime.NumCPU(), connectDur.Round(time.Millisecond))
	t.Logf("load: test.ping to all returns: %s (first), %s (second)", ping1.Round(time.Millisecond), ping2.Round(time.Millisecond))
	if state > 0 {
		t.Logf("load: state.apply (1 state, file sync + fresh pillar) to all returns: %s", state.Round(time.Millisecond))
	}
	t.Logf("load: master RSS %d KiB idle, %d KiB with %d minions: %.1f KiB per connected minion", rss0, rss1, n, float64(rss1-rss0)/float64(n))
	t.Logf("load: test process heap in use %d MiB for %d minion clients", ms.HeapInuse>>20, n)
}
