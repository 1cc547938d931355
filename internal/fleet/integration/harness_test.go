package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"brine/internal/config"
	"brine/internal/fleet/client"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// brineBin is the brine binary built by TestMain.
var brineBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "brine-fleet-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	brineBin = filepath.Join(dir, "brine")
	out, err := exec.Command("go", "build", "-o", brineBin, "brine/cmd/brine").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building brine: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// cluster is a master process and minion processes in a temp dir.
type cluster struct {
	t       testing.TB
	dir     string
	port    int
	mdir    string // master config dir
	master  *exec.Cmd
	minions map[string]*exec.Cmd
	extra   string // extra master config
}

func newCluster(t testing.TB, masterExtra string) *cluster {
	t.Helper()
	dir := t.TempDir()
	c := &cluster{t: t, dir: dir, port: freePort(t), mdir: filepath.Join(dir, "master"), minions: map[string]*exec.Cmd{}, extra: masterExtra}
	for _, d := range []string{"master", "srv/salt", "srv/pillar"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	conf := fmt.Sprintf(`interface: 127.0.0.1
ret_port: %d
pki_dir: %[2]s/master/pki
cachedir: %[2]s/master/cache
file_roots:
  base: [%[2]s/srv/salt]
pillar_roots:
  base: [%[2]s/srv/pillar]
log_level: info
%s
`, c.port, dir, masterExtra)
	c.write("master/master", conf)
	t.Cleanup(c.stopAll)
	return c
}

func (c *cluster) write(rel, data string) {
	c.t.Helper()
	p := filepath.Join(c.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		c.t.Fatal(err)
	}
}

func (c *cluster) logFile(name string) *os.File {
	f, err := os.OpenFile(filepath.Join(c.dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		c.t.Fatal(err)
	}
	return f
}

func (c *cluster) start(name string, args ...string) *exec.Cmd {
	c.t.Helper()
	cmd := exec.Command(brineBin, args...)
	// Children die with the test binary, even when it is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	lf := c.logFile(name)
	cmd.Stdout, cmd.Stderr = lf, lf
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); lf.Close() }()
	return cmd
}

// startMaster starts the master and waits until it answers.
func (c *cluster) startMaster() {
	c.t.Helper()
	c.master = c.start("master", "master", "-c", c.mdir)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if cl, err := client.Dial(c.masterOpts()); err == nil {
			cl.Close()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.t.Fatalf("master did not start; log:\n%s", c.log("master"))
}

func (c *cluster) stopMaster() {
	if c.master != nil && c.master.Process != nil {
		_ = c.master.Process.Signal(syscall.SIGTERM)
		waitExit(c.master)
		c.master = nil
	}
}

func waitExit(cmd *exec.Cmd) {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if cmd.Process.Signal(syscall.Signal(0)) != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
}

func (c *cluster) masterOpts() *value.Map {
	cfg, err := config.LoadMaster(c.mdir, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	return cfg.Opts()
}

func (c *cluster) log(name string) string {
	b, _ := os.ReadFile(filepath.Join(c.dir, name+".log"))
	return string(b)
}

// minionDir is the config dir of minion id.
func (c *cluster) minionDir(id string) string { return filepath.Join(c.dir, "minions", id) }

// startMinion writes minion id's config (grains as YAML flow text) and
// starts it. With pinCA the minion trusts the master's CA file; without,
// it pins the CA on first use.
func (c *cluster) startMinion(id, grains string, pinCA bool) {
	c.t.Helper()
	d := c.minionDir(id)
	conf := fmt.Sprintf(`id: %s
master: 127.0.0.1
master_port: %d
pki_dir: %s/pki
cachedir: %s/cache
sock_dir: %[4]s/sock
acceptance_wait_time: 0.3
log_level: info
`, id, c.port, d, d)
	if pinCA {
		conf += fmt.Sprintf("master_tls_ca: %s/master/pki/tls/ca.crt\n", c.dir)
	}
	if grains != "" {
		conf += "grains: " + grains + "\n"
	}
	c.write(filepath.Join("minions", id, "minion"), conf)
	c.minions[id] = c.start("minion-"+id, "minion", "-c", d)
}

func (c *cluster) stopMinion(id string) {
	if cmd := c.minions[id]; cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		waitExit(cmd)
		delete(c.minions, id)
	}
}

func (c *cluster) stopAll() {
	ids := make([]string, 0, len(c.minions))
	for id := range c.minions {
		ids = append(ids, id)
	}
	for _, id := range ids {
		c.stopMinion(id)
	}
	c.stopMaster()
	if c.t.Failed() {
		for _, n := range append([]string{"master"}, prefixed("minion-", ids)...) {
			c.t.Logf("--- %s log ---\n%s", n, tail(c.log(n), 40))
		}
	}
}

func prefixed(p string, ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = p + id
	}
	return out
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// brine runs the brine binary and returns stdout, stderr and exit code.
func (c *cluster) brine(args ...string) (string, string, int) {
	c.t.Helper()
	return runBrine(c.t, args...)
}

// run runs `brine run -c MASTER args... --out json` and returns the
// decoded output: one JSON document per minion, as each returns (or all
// in one with --static), merged.
func (c *cluster) run(args ...string) (map[string]any, int) {
	c.t.Helper()
	res, _, rc := runJSON(c.t, c, args...)
	return res, rc
}

// runBrine runs the brine binary (on t, so parallel subtests may use it)
// and returns stdout, stderr and the exit code.
func runBrine(t testing.TB, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, brineBin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	rc := 0
	if ee, ok := err.(*exec.ExitError); ok {
		rc = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("brine %v: %v", args, err)
	}
	return out.String(), errb.String(), rc
}

// runText runs `brine run -c MASTER args...`.
func runText(t testing.TB, c *cluster, args ...string) (string, string, int) {
	t.Helper()
	return runBrine(t, append([]string{"run", "-c", c.mdir}, args...)...)
}

// runJSON runs `brine run --out json` and merges the documents printed.
func runJSON(t testing.TB, c *cluster, args ...string) (map[string]any, string, int) {
	t.Helper()
	out, errs, rc := runText(t, c, append([]string{"--out", "json"}, args...)...)
	res := map[string]any{}
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		doc := map[string]any{}
		err := dec.Decode(&doc)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("brine run %v: bad JSON %q (stderr %q)", args, out, errs)
		}
		for k, v := range doc {
			res[k] = v
		}
	}
	return res, errs, rc
}

// waitPing waits until every id answers test.ping.
func (c *cluster) waitPing(ids ...string) {
	c.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		res, _ := c.run("-L", strings.Join(ids, ","), "test.ping", "-t", "3")
		ok := true
		for _, id := range ids {
			if res[id] != true {
				ok = false
			}
		}
		if ok {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.t.Fatalf("minions %v never answered", ids)
}

// acceptAll accepts every pending key and waits for the minions.
func (c *cluster) acceptAll(ids ...string) {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, _, _ := c.brine("key", "-c", c.mdir, "--list", "pre")
		all := true
		for _, id := range ids {
			if !strings.Contains(out, id+"\n") {
				all = false
			}
		}
		if all {
			break
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("keys %v never pending: %s", ids, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if out, errs, rc := c.brine("key", "-c", c.mdir, "-A", "-y"); rc != 0 {
		c.t.Fatalf("key -A: %s %s", out, errs)
	}
	c.waitPing(ids...)
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// lookup returns the returns of jid as `brine jobs lookup` prints them.
func (c *cluster) lookup(jid string) map[string]any {
	c.t.Helper()
	out, errs, rc := c.brine("jobs", "-c", c.mdir, "lookup", jid, "--out", "json")
	if rc != 0 {
		c.t.Fatalf("jobs lookup: %s %s", out, errs)
	}
	res := map[string]any{}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		c.t.Fatalf("jobs lookup: bad JSON %q", out)
	}
	return res
}

var _ = proto.Version

// startAccepted writes the config of minion id, whose key the master's
// store holds already, with extra options, and starts it.
func (c *cluster) startAccepted(id, extra string) {
	d := c.minionDir(id)
	c.write(filepath.Join("minions", id, "minion"), fmt.Sprintf(`id: %s
master: 127.0.0.1
master_port: %d
pki_dir: %s/pki
cachedir: %s/cache
sock_dir: %[4]s/sock
acceptance_wait_time: 0.3
master_tls_ca: %s/master/pki/tls/ca.crt
log_level: info
%s
`, id, c.port, d, d, c.dir, extra))
	c.minions[id] = c.start("minion-"+id, "minion", "-c", d)
}
