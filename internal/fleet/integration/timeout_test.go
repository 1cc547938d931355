package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"brine/internal/fleet/client"
)

// TestJobWaits checks that `brine run` waits for jobs as salt does: the
// timeout is when the minions that have not returned are asked whether
// they still run the job (saltutil.find_job), not a deadline; a minion
// whose connection drops is reported at once; one that does not answer
// after gather_job_timeout.
func TestJobWaits(t *testing.T) {
	if testing.Short() {
		t.Skip("runs jobs of tens of seconds")
	}
	c := newCluster(t, "")
	c.write("srv/salt/long.sls", "long:\n  cmd.run:\n    - name: sleep 20; echo done\n")
	c.startMaster()
	for _, id := range []string{"w1", "w2", "w3"} {
		c.startMinion(id, "", true)
	}
	c.acceptAll("w1", "w2", "w3")

	t.Run("jobs", func(t *testing.T) {
		t.Run("a state run longer than the timeout returns its result", func(t *testing.T) {
			t.Parallel()
			res, errs, rc := runJSON(t, c, "-L", "w1", "state.apply", "long")
			states, _ := res["w1"].(map[string]any)
			st, _ := states["cmd_|-long_|-sleep 20; echo done_|-run"].(map[string]any)
			changes, _ := st["changes"].(map[string]any)
			if rc != 0 || st["result"] != true || changes["stdout"] != "done" {
				t.Errorf("rc %d, %v, stderr %q", rc, res, errs)
			}
		})

		t.Run("a minion killed mid-job is reported at once", func(t *testing.T) {
			t.Parallel()
			killed := make(chan error, 1)
			go func() { killed <- killWhenRunning(c, "w2", "cmd.run") }()
			start := time.Now()
			res, errs, rc := runJSON(t, c, "-L", "w2", "cmd.run", "sleep 45; echo done")
			took := time.Since(start)
			if err := <-killed; err != nil {
				t.Fatal(err)
			}
			if rc != 1 || res["w2"] != "Minion did not return. [Not connected]" {
				t.Errorf("rc %d, %v, stderr %q", rc, res, errs)
			}
			if took > 35*time.Second {
				t.Errorf("reported after %v: about when the job would have finished", took)
			}
		})

		t.Run("a minion that does not answer is reported after gather_job_timeout", func(t *testing.T) {
			t.Parallel()
			p := c.minions["w3"].Process
			// Stopped, it keeps its connection (and so looks present)
			// but answers nothing.
			if err := p.Signal(syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = p.Signal(syscall.SIGCONT) }()
			res, errs, rc := runJSON(t, c, "-t", "2", "--gather-job-timeout", "3", "-L", "w3", "test.ping")
			msg, _ := res["w3"].(string)
			if rc != 1 || !strings.HasPrefix(msg, "Minion did not return. [No response]\nThe minions may not have all finished running") || !strings.Contains(msg, "brine jobs lookup ") {
				t.Errorf("rc %d, %v, stderr %q", rc, res, errs)
			}
			if !strings.Contains(errs, "ERROR: Minions returned with non-zero exit code") {
				t.Errorf("stderr %q", errs)
			}
		})
	})

	t.Run("a minion not connected at publication is reported at the timeout", func(t *testing.T) {
		c.stopMinion("w3")
		res, errs, rc := runJSON(t, c, "-t", "2", "-L", "w1,w3", "test.ping")
		if rc != 1 || res["w3"] != "Minion did not return. [Not connected]" || res["w1"] != true {
			t.Errorf("rc %d, %v, stderr %q", rc, res, errs)
		}
		out, errs, rc := runText(t, c, "-t", "2", "--static", "--out", "json", "-L", "w1,w3", "test.ping")
		var static map[string]any
		if err := json.Unmarshal([]byte(out), &static); rc != 1 || err != nil || static["w3"] != "Minion did not return. [Not connected]" || static["w1"] != true {
			t.Errorf("--static: rc %d, %q, stderr %q", rc, out, errs)
		}
	})

	t.Run("ids of a list target without a minion are reported", func(t *testing.T) {
		res, errs, rc := runJSON(t, c, "-L", "w1,nosuch", "test.ping")
		msg, _ := res["nosuch"].(string)
		if rc != 1 || res["w1"] != true || !strings.HasPrefix(msg, "Minion did not return. [No response]\n") {
			t.Errorf("rc %d, %v, stderr %q", rc, res, errs)
		}
	})

	t.Run("Ctrl-C stops waiting and says how to look the job up", func(t *testing.T) {
		cmd := exec.Command(brineBin, "run", "-c", c.mdir, "-L", "w1", "cmd.run", "sleep 8")
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Second)
		_ = cmd.Process.Signal(syscall.SIGINT)
		err := cmd.Wait()
		ee, _ := err.(*exec.ExitError)
		if ee == nil || ee.ExitCode() != 1 || !strings.Contains(errb.String(), "This job's jid is: ") || !strings.Contains(errb.String(), "Exiting gracefully on Ctrl-c") {
			t.Errorf("err %v, stderr %q", err, errb.String())
		}
	})

	t.Run("the master tells which minions are connected", func(t *testing.T) {
		cl, err := client.Dial(c.masterOpts())
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		absent, known, err := cl.Presence([]string{"w1", "w2", "w3", "nobody"})
		if err != nil || !known {
			t.Fatalf("presence: known %v, err %v", known, err)
		}
		if absent["w1"] || !absent["w2"] || !absent["w3"] || !absent["nobody"] {
			t.Errorf("absent: %v", absent)
		}
	})

	t.Run("find_job jobs are not shown as results", func(t *testing.T) {
		out, errs, rc := runText(t, c, "-t", "1", "--out", "json", "-L", "w1", "cmd.run", "sleep 4; echo late")
		if rc != 0 || strings.Contains(out, "find_job") || strings.Count(out, "{") != 1 || !strings.Contains(out, `"w1": "late"`) {
			t.Errorf("rc %d, %q, stderr %q", rc, out, errs)
		}
	})
}

// killWhenRunning kills minion id (SIGKILL) once a job of fun targeted
// at it is published and has had a moment to start.
func killWhenRunning(c *cluster, id, fun string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		out, _ := exec.Command(brineBin, "jobs", "-c", c.mdir, "list", "--out", "json").Output()
		var jobs map[string]map[string]any
		if json.Unmarshal(out, &jobs) == nil {
			for _, j := range jobs {
				if j["Function"] == fun && j["Target"] == id {
					time.Sleep(time.Second)
					return c.minions[id].Process.Signal(syscall.SIGKILL)
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("no %s job for %s was published", fun, id)
}

// TestPresenceExternal: with an external nats-server the master learns
// which minions are connected from the server's connection list, which
// its account may read.
func TestPresenceExternal(t *testing.T) {
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
	natsDir := filepath.Join(t.TempDir(), "nats")
	if err := os.MkdirAll(natsDir, 0o700); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(natsDir, "nats.pid")
	c := newCluster(t, fmt.Sprintf("nats_url: nats://127.0.0.1:%d\nnats_auth_file: %s/auth.conf\nnats_server_pid_file: %s\nauto_accept: True\n", natsPort, natsDir, pidFile))
	if out, errs, rc := c.brine("master", "-c", c.mdir, "--write-nats-auth"); rc != 0 {
		t.Fatalf("write-nats-auth: %s %s", out, errs)
	}
	conf := fmt.Sprintf("listen: 127.0.0.1:%d\njetstream { store_dir: %q }\ninclude ./auth.conf\n", natsPort, filepath.Join(natsDir, "js"))
	if err := os.WriteFile(filepath.Join(natsDir, "nats.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := exec.Command(bin, "-c", filepath.Join(natsDir, "nats.conf"), "-P", pidFile)
	srv.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Signal(syscall.SIGTERM); _ = srv.Wait() })
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
	c.startMaster()
	d := c.minionDir("e1")
	c.write(filepath.Join("minions", "e1", "minion"), fmt.Sprintf("id: e1\nmaster: nats://127.0.0.1:%d\npki_dir: %s/pki\ncachedir: %s/cache\nsock_dir: %[3]s/sock\nacceptance_wait_time: 0.3\n", natsPort, d, d))
	c.minions["e1"] = c.start("minion-e1", "minion", "-c", d)
	c.waitPing("e1")

	cl, err := client.Dial(c.masterOpts())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	// The master's view may lag by a second (it lists the server's
	// connections at most once a second).
	waitPresence := func(want map[string]bool) {
		t.Helper()
		ids := []string{"e1", "e2"}
		deadline := time.Now().Add(20 * time.Second)
		for {
			absent, known, err := cl.Presence(ids)
			ok := err == nil && known
			for _, id := range ids {
				ok = ok && absent[id] == want[id]
			}
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("presence: absent %v (want %v), known %v, err %v", absent, want, known, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	waitPresence(map[string]bool{"e2": true})
	c.stopMinion("e1")
	waitPresence(map[string]bool{"e1": true, "e2": true})
}
