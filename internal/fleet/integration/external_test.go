package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExternalNATS runs the fleet on a separate nats-server process (built
// from the nats-server module this repository already requires) instead
// of the embedded one: the master writes the server's authorization
// include and signals it to reload when keys change.
func TestExternalNATS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds nats-server")
	}
	bin := filepath.Join(filepath.Dir(brineBin), "nats-server")
	if _, err := os.Stat(bin); err != nil {
		out, err := exec.Command("go", "build", "-o", bin, "github.com/nats-io/nats-server/v2").CombinedOutput()
		if err != nil {
			t.Fatalf("building nats-server: %v\n%s", err, out)
		}
	}
	natsPort := freePort(t)
	dir := t.TempDir()
	natsDir := filepath.Join(dir, "nats")
	if err := os.MkdirAll(natsDir, 0o700); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(natsDir, "nats.pid")
	c := newCluster(t, fmt.Sprintf("nats_url: nats://127.0.0.1:%d\nnats_auth_file: %s/auth.conf\nnats_server_pid_file: %s\nauto_accept: True\n", natsPort, natsDir, pidFile))
	c.write("srv/pillar/top.sls", "base:\n  '*': [p]\n")
	c.write("srv/pillar/p.sls", "who: {{ grains['id'] }}\n")

	// 1. The master writes the authorization include.
	if out, errs, rc := c.brine("master", "-c", c.mdir, "--write-nats-auth"); rc != 0 {
		t.Fatalf("write-nats-auth: %s %s", out, errs)
	}
	// 2. The operator's nats-server includes it.
	conf := fmt.Sprintf("listen: 127.0.0.1:%d\njetstream { store_dir: %q }\ninclude ./auth.conf\n", natsPort, filepath.Join(natsDir, "js"))
	if err := os.WriteFile(filepath.Join(natsDir, "nats.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := exec.Command(bin, "-c", filepath.Join(natsDir, "nats.conf"), "-P", pidFile)
	srv.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	lf := c.logFile("nats-server")
	srv.Stdout, srv.Stderr = lf, lf
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = srv.Process.Signal(syscall.SIGTERM)
		_ = srv.Wait()
		if t.Failed() {
			t.Logf("--- nats-server log ---\n%s", tail(c.log("nats-server"), 30))
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(pidFile); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("nats-server did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// 3. The master and minions point at it.
	c.startMaster()
	for _, id := range []string{"x1", "x2"} {
		d := c.minionDir(id)
		c.write(filepath.Join("minions", id, "minion"), fmt.Sprintf("id: %s\nmaster: nats://127.0.0.1:%d\npki_dir: %s/pki\ncachedir: %s/cache\nsock_dir: %[3]s/sock\nacceptance_wait_time: 0.3\n", id, natsPort, d, d))
		c.minions[id] = c.start("minion-"+id, "minion", "-c", d)
	}
	c.waitPing("x1", "x2")
	res, rc := c.run("*", "pillar.items")
	if rc != 0 {
		t.Fatalf("pillar.items rc %d: %v", rc, res)
	}
	for _, id := range []string{"x1", "x2"} {
		p, _ := res[id].(map[string]any)
		if p["who"] != id {
			t.Errorf("%s pillar: %v", id, res[id])
		}
	}
	auth, _ := os.ReadFile(filepath.Join(natsDir, "auth.conf"))
	if !strings.Contains(string(auth), `"brine.job.x1.>"`) {
		t.Errorf("auth file lacks x1's permissions:\n%s", auth)
	}
}
