package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"brine/internal/fleet/keys"
)

// Jobs as Salt runs them: each in a process of its own, recorded in the
// minion's proc directory, found and signalled with saltutil.

// jobCluster starts a master whose store holds the key of minion id
// (accepted beforehand, so these tests depend on no key exchange), then
// the minion with extra options, and waits until it answers.
func jobCluster(t *testing.T, id, extra string, setup func(c *cluster)) *cluster {
	t.Helper()
	c := newCluster(t, "")
	if setup != nil {
		setup(c)
	}
	d := c.minionDir(id)
	kp, err := keys.LoadOrCreate(filepath.Join(d, "pki", "minion.nk"))
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := kp.PublicKey()
	store, err := keys.OpenStore(filepath.Join(c.mdir, "pki"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Submit(id, pub, true); err != nil {
		t.Fatal(err)
	}
	c.startMaster()
	c.startAccepted(id, extra)
	c.waitPing(id)
	return c
}

// async publishes fun with args to tgt and returns the jid.
func (c *cluster) async(tgt, fun string, args ...string) string {
	c.t.Helper()
	out, errs, rc := c.brine(append([]string{"run", "-c", c.mdir, "--async", tgt, fun}, args...)...)
	jid := strings.TrimSpace(strings.TrimPrefix(out, "Executed command with job ID:"))
	if rc != 0 || jid == "" || strings.ContainsAny(jid, " \n") {
		c.t.Fatalf("async %s: %q %q", fun, out, errs)
	}
	return jid
}

// call runs fun on minion id and returns its return.
func (c *cluster) call(id, fun string, args ...string) any {
	c.t.Helper()
	res, _ := c.run(append([]string{"-t", "30", id, fun}, args...)...)
	v, ok := res[id]
	if !ok {
		c.t.Fatalf("%s %v: no return from %s: %v", fun, args, id, res)
	}
	return v
}

// findJob waits until find_job on id reports jid running and returns its
// data.
func (c *cluster) findJob(id, jid string) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if m, ok := c.call(id, "saltutil.find_job", jid).(map[string]any); ok && len(m) > 0 {
			return m
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.t.Fatalf("job %s never found running on %s", jid, id)
	return nil
}

// waitGone waits until find_job on id says jid is not running.
func (c *cluster) waitGone(id, jid string) {
	c.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if m, ok := c.call(id, "saltutil.find_job", jid).(map[string]any); ok && len(m) == 0 {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.t.Fatalf("job %s still running on %s", jid, id)
}

// waitReturn waits until jobs lookup shows id's return of jid.
func (c *cluster) waitReturn(id, jid string) any {
	c.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if v, ok := c.lookup(jid)[id]; ok {
			return v
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.t.Fatalf("no return of %s from %s", jid, id)
	return nil
}

type pstat struct{ pid, ppid, pgid int }

// procs reads every live process (zombies are dead) from /proc.
func procs() map[int]pstat {
	out := map[int]pstat{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(b), ')')
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgid, _ := strconv.Atoi(f[2])
		out[pid] = pstat{pid, ppid, pgid}
	}
	return out
}

// jobTree returns the live processes of the job process pid: its group
// and its descendants.
func jobTree(pid int) map[int]bool {
	all := procs()
	tree := map[int]bool{}
	if _, ok := all[pid]; ok {
		tree[pid] = true
	}
	for changed := true; changed; {
		changed = false
		for _, p := range all {
			if !tree[p.pid] && (p.pgid == pid || tree[p.ppid]) {
				tree[p.pid] = true
				changed = true
			}
		}
	}
	return tree
}

func pidOf(t *testing.T, data map[string]any) int {
	t.Helper()
	f, ok := data["pid"].(float64)
	if !ok || f <= 0 {
		t.Fatalf("job data without a pid: %v", data)
	}
	return int(f)
}

func TestKillJobLeavesNoProcess(t *testing.T) {
	c := jobCluster(t, "j1", "", nil)
	marks := filepath.Join(c.dir, "marks")
	if err := os.MkdirAll(marks, 0o755); err != nil {
		t.Fatal(err)
	}
	// A child and a grandchild (one in a shell of its own) that would
	// each leave a marker after a few seconds.
	script := fmt.Sprintf("(sleep 8; touch %[1]s/child) & sh -c '(sleep 8; touch %[1]s/grandchild) & sleep 60' & sleep 60", marks)
	jid := c.async("j1", "cmd.run", script)
	data := c.findJob("j1", jid)
	if data["fun"] != "cmd.run" || data["jid"] != jid {
		t.Errorf("find_job: %v", data)
	}
	pid := pidOf(t, data)
	var tree map[int]bool
	deadline := time.Now().Add(30 * time.Second)
	for {
		tree = jobTree(pid)
		if len(tree) >= 6 { // job, cmd shell, subshell, sleep, sh, its subshell...
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job's processes never all started: %v", tree)
		}
		time.Sleep(100 * time.Millisecond)
	}

	got := c.call("j1", "saltutil.kill_job", jid)
	if want := fmt.Sprintf("Signal 9 sent to job %s at pid %d", jid, pid); got != want {
		t.Fatalf("kill_job = %q, want %q", got, want)
	}
	deadline = time.Now().Add(20 * time.Second)
	for {
		left := map[int]bool{}
		all := procs()
		for p := range tree {
			if _, ok := all[p]; ok {
				left[p] = true
			}
		}
		for p := range jobTree(pid) {
			left[p] = true
		}
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of the job left after kill_job: %v", left)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The killed job returns a failure naming the signal, and is gone.
	ret := c.waitReturn("j1", jid)
	if s, _ := ret.(string); !strings.Contains(s, "signal 9 (SIGKILL)") {
		t.Errorf("return of the killed job: %v", ret)
	}
	c.waitGone("j1", jid)
	if got := c.call("j1", "saltutil.kill_job", jid); got != "" {
		t.Errorf("kill_job of a finished job = %q, want \"\"", got)
	}
	time.Sleep(10 * time.Second) // past the markers' time
	for _, m := range []string{"child", "grandchild"} {
		if _, err := os.Stat(filepath.Join(marks, m)); err == nil {
			t.Errorf("marker %s written: a process of the killed job survived", m)
		}
	}
	// Reported once, as killed: not as interrupted after a restart.
	c.stopMinion("j1")
	c.minions["j1"] = c.start("minion-j1", "minion", "-c", c.minionDir("j1"))
	c.waitPing("j1")
	if ret := c.lookup(jid)["j1"]; !strings.Contains(fmt.Sprint(ret), "SIGKILL") {
		t.Errorf("return after a restart: %v", ret)
	}
	if strings.Contains(c.log("minion-j1"), "interrupted") {
		t.Errorf("the killed job was reported as interrupted after the restart")
	}
}

func TestRunningFindJobTermJob(t *testing.T) {
	c := jobCluster(t, "j2", "", nil)
	if got := c.call("j2", "saltutil.running"); fmt.Sprint(got) != "[]" {
		t.Errorf("running with no job = %v", got)
	}
	if got := c.call("j2", "saltutil.find_job", "20200101000000000000"); fmt.Sprint(got) != "map[]" {
		t.Errorf("find_job of an unknown job = %v", got)
	}

	jid := c.async("j2", "test.sleep", "120")
	data := c.findJob("j2", jid)
	pid := pidOf(t, data)
	for k, want := range map[string]any{"fun": "test.sleep", "jid": jid, "tgt": "j2", "tgt_type": "glob", "ret": ""} {
		if data[k] != want {
			t.Errorf("find_job[%s] = %v, want %v", k, data[k], want)
		}
	}
	if fmt.Sprint(data["arg"]) != "[120]" {
		t.Errorf("find_job[arg] = %v", data["arg"])
	}
	run, ok := c.call("j2", "saltutil.running").([]any)
	if !ok || len(run) != 1 || run[0].(map[string]any)["jid"] != jid {
		t.Errorf("running = %v", run)
	}
	if got := c.call("j2", "saltutil.is_running", "test.*"); len(got.([]any)) != 1 {
		t.Errorf("is_running test.* = %v", got)
	}

	if got, want := c.call("j2", "saltutil.term_job", jid), fmt.Sprintf("Signal 15 sent to job %s at pid %d", jid, pid); got != want {
		t.Fatalf("term_job = %q, want %q", got, want)
	}
	ret := c.waitReturn("j2", jid)
	if s, _ := ret.(string); !strings.Contains(s, "signal 15 (SIGTERM)") {
		t.Errorf("return of the terminated job: %v", ret)
	}
	c.waitGone("j2", jid)
	if got := c.call("j2", "saltutil.running"); fmt.Sprint(got) != "[]" {
		t.Errorf("running after term_job = %v", got)
	}

	// A job that ends by itself leaves the proc directory too.
	jid = c.async("j2", "test.sleep", "2")
	if ret := c.waitReturn("j2", jid); ret != true {
		t.Errorf("test.sleep 2 = %v", ret)
	}
	c.waitGone("j2", jid)
	ents, _ := os.ReadDir(filepath.Join(c.minionDir("j2"), "cache", "proc"))
	for _, e := range ents {
		t.Errorf("left in the proc directory: %s", e.Name())
	}
}

func TestRefreshPillarInMinion(t *testing.T) {
	c := jobCluster(t, "j3", "", func(c *cluster) {
		c.write("srv/pillar/top.sls", "base:\n  '*': [p]\n")
		c.write("srv/pillar/p.sls", "color: red\n")
	})
	if got := c.call("j3", "pillar.get", "color"); got != "red" {
		t.Fatalf("pillar.get color = %v", got)
	}
	c.write("srv/pillar/p.sls", "color: blue\n")
	if got := c.call("j3", "pillar.get", "color"); got != "red" {
		t.Errorf("pillar.get before a refresh = %v (the in-memory pillar)", got)
	}
	if got := c.call("j3", "saltutil.refresh_pillar"); got != true {
		t.Errorf("refresh_pillar = %v", got)
	}
	if got := c.call("j3", "pillar.get", "color"); got != "blue" {
		t.Errorf("pillar.get after a refresh = %v", got)
	}
}

func TestFindJobWhenBusy(t *testing.T) {
	c := jobCluster(t, "j4", "process_count_max: 1\n", nil)
	first := c.async("j4", "test.sleep", "120")
	pid := pidOf(t, c.findJob("j4", first))
	// The only slot is taken: this one waits, and says so.
	second := c.async("j4", "test.sleep", "120")
	waiting := c.findJob("j4", second)
	if got := c.call("j4", "saltutil.kill_job", second); !strings.Contains(fmt.Sprint(got), "it was not signalled") {
		t.Errorf("kill_job of a waiting job = %v", got)
	}
	if run := c.call("j4", "saltutil.running").([]any); len(run) != 2 {
		t.Errorf("running = %v", run)
	}
	if got := c.call("j4", "saltutil.kill_job", first); got != fmt.Sprintf("Signal 9 sent to job %s at pid %d", first, pid) {
		t.Errorf("kill_job = %v", got)
	}
	c.waitReturn("j4", first)
	// Now the second runs in its own process.
	deadline := time.Now().Add(60 * time.Second)
	for {
		d := c.findJob("j4", second)
		if pidOf(t, d) != pidOf(t, waiting) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the waiting job never started: %v", d)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if got := c.call("j4", "saltutil.kill_job", second); !strings.HasPrefix(fmt.Sprint(got), "Signal 9 sent to job "+second) {
		t.Errorf("kill_job = %v", got)
	}
	c.waitReturn("j4", second)
}
