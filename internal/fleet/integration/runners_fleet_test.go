package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"testing"
	"time"

	"brine/internal/fleet/keys"
	"brine/internal/grains"
)

// Runners (brine run-runner, salt-run) against a master and two minion
// processes: manage, jobs, orchestration with the salt state module.

// runnerCluster starts a master whose store holds the accepted keys of
// m1 and m2 and the pending key of m3, then minions m1 and m2.
func runnerCluster(t *testing.T) *cluster {
	t.Helper()
	c := newCluster(t, "")
	store, err := keys.OpenStore(filepath.Join(c.mdir, "pki"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"m1", "m2", "m3"} {
		kp, err := keys.LoadOrCreate(filepath.Join(c.minionDir(id), "pki", "minion.nk"))
		if err != nil {
			t.Fatal(err)
		}
		pub, _ := kp.PublicKey()
		if _, err := store.Submit(id, pub, id != "m3"); err != nil {
			t.Fatal(err)
		}
	}
	c.write("srv/salt/good.sls", "good:\n  test.succeed_with_changes: []\n")
	c.write("srv/salt/bad.sls", "bad:\n  test.fail_without_changes: []\n")
	c.write("srv/salt/orch/deploy.sls", `step_one:
  salt.state:
    - tgt: m1,m2
    - tgt_type: list
    - sls: good
step_two:
  salt.state:
    - tgt: m2
    - sls: bad
    - require:
      - salt: step_one
step_three:
  salt.function:
    - name: test.echo
    - tgt: m1
    - arg: [recovered]
    - onfail:
      - salt: step_two
`)
	c.write("srv/salt/orch/failmin.sls", `strict:
  salt.function:
    - name: test.false
    - tgt: m1,m2
    - tgt_type: list
    - fail_minions: m2
lenient:
  salt.function:
    - name: test.false
    - tgt: m1,m2
    - tgt_type: list
    - fail_minions: [m1, m2]
`)
	c.write("srv/salt/orch/wait.sls", `ready:
  salt.wait_for_event:
    - name: brine/test/ready
    - id_list: [m1, m2]
    - timeout: 60
never:
  salt.wait_for_event:
    - name: brine/test/never
    - id_list: [m9]
    - timeout: 1
    - require:
      - salt: ready
`)
	c.write("srv/salt/orch/wheel.sls", "accept_m3:\n  salt.wheel:\n    - name: key.accept\n    - match: m3\n")
	c.startMaster()
	for _, id := range []string{"m1", "m2"} {
		c.startAccepted(id, "")
	}
	c.waitPing("m1", "m2")
	return c
}

// runner runs `brine run-runner -c MASTER --out json args...` and decodes
// its output.
func (c *cluster) runner(args ...string) (any, int) {
	c.t.Helper()
	out, errs, rc := c.brine(append([]string{"run-runner", "-c", c.mdir, "--out", "json"}, args...)...)
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		c.t.Fatalf("run-runner %v: bad JSON %q (stderr %q)", args, out, errs)
	}
	return v, rc
}

// masterMinion is the key of the orchestration's return: the master has
// no id option, so its minion is <host>_master.
func masterMinion(t testing.TB) string {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return host + "_master"
}

var jidRE = regexp.MustCompile(`^[0-9]{20}$`)

// orchestrate runs state.orchestrate of sls and returns the master
// minion's running dictionary, checking the envelope and exit code.
func (c *cluster) orchestrate(sls string, wantRC int) map[string]any {
	c.t.Helper()
	v, rc := c.runner("state.orchestrate", sls)
	env, _ := v.(map[string]any)
	if rc != wantRC || env["outputter"] != "highstate" || env["retcode"] != float64(wantRC) {
		c.t.Fatalf("orchestrate %s: exit %d, return %v; want retcode %d", sls, rc, v, wantRC)
	}
	data, _ := env["data"].(map[string]any)
	running, ok := data[masterMinion(c.t)].(map[string]any)
	if !ok || len(data) != 1 {
		c.t.Fatalf("orchestrate %s: data %v, want one key %s", sls, data, masterMinion(c.t))
	}
	return running
}

// checkStep compares the fields of one orchestration step's return with
// the return Salt documents, and checks its job id.
func checkStep(t *testing.T, running map[string]any, tag string, want map[string]any) {
	t.Helper()
	got, ok := running[tag].(map[string]any)
	if !ok {
		t.Fatalf("no step %s in %v", tag, keysOf(running))
	}
	for _, k := range []string{"result", "comment", "changes", "__run_num__", "name"} {
		if w, ok := want[k]; ok && !reflect.DeepEqual(got[k], w) {
			t.Errorf("%s: %s = %#v, want %#v", tag, k, got[k], w)
		}
	}
	if jid, _ := got["__jid__"].(string); !jidRE.MatchString(jid) {
		t.Errorf("%s: __jid__ %v", tag, got["__jid__"])
	}
}

// minionState returns the state return of tag in a minion's highstate
// return, with the fields that vary (timings) left out.
func minionState(ret map[string]any, id, tag string) map[string]any {
	r, _ := ret[id].(map[string]any)
	st, _ := r[tag].(map[string]any)
	out := map[string]any{}
	for _, k := range []string{"result", "comment", "changes", "name", "__run_num__", "__sls__"} {
		out[k] = st[k]
	}
	return out
}

func TestRunnersFleet(t *testing.T) {
	c := runnerCluster(t)

	t.Run("jobs", func(t *testing.T) {
		jid := c.async("m1", "test.arg", "1", "a=b")
		c.waitReturn("m1", jid)
		want := map[string]any{"args": []any{float64(1)}, "kwargs": map[string]any{"a": "b"}}
		v, _ := c.runner("jobs.lookup_jid", jid)
		if got := v.(map[string]any)["m1"].(map[string]any); !reflect.DeepEqual(got["args"], want["args"]) || got["kwargs"].(map[string]any)["a"] != "b" {
			t.Errorf("lookup_jid: %v", v)
		}
		v, _ = c.runner("jobs.list_jobs", "search_function=test.*", "search_target=m1")
		rec, ok := v.(map[string]any)[jid].(map[string]any)
		if !ok {
			t.Fatalf("list_jobs: %s missing from %v", jid, keysOf(v.(map[string]any)))
		}
		wantRec := map[string]any{
			"Function": "test.arg", "Target": "m1", "Target-type": "glob",
			"Arguments": []any{float64(1), map[string]any{"__kwarg__": true, "a": "b"}},
		}
		for k, w := range wantRec {
			if !reflect.DeepEqual(rec[k], w) {
				t.Errorf("list_jobs %s: %s = %#v, want %#v", jid, k, rec[k], w)
			}
		}
		st, err := time.Parse("2006, Jan 02 15:04:05.000000", fmt.Sprint(rec["StartTime"]))
		if err != nil || st.Format("20060102150405") != jid[:14] {
			t.Errorf("list_jobs StartTime %v for %s", rec["StartTime"], jid)
		}
		for _, filter := range [][]string{
			{"search_function=test.ping"}, {"search_target=m2,m9"},
			{"start_time=" + st.Add(time.Minute).Format("2006-01-02 15:04:05")},
			{"end_time=" + st.Add(-time.Minute).Format("2006-01-02 15:04:05")},
		} {
			v, _ := c.runner(append([]string{"jobs.list_jobs"}, filter...)...)
			if _, ok := v.(map[string]any)[jid]; ok {
				t.Errorf("list_jobs %v keeps %s", filter, jid)
			}
		}
		v, _ = c.runner("jobs.list_job", jid)
		job := v.(map[string]any)
		if job["jid"] != jid || !reflect.DeepEqual(job["Minions"], []any{"m1"}) || job["Function"] != "test.arg" {
			t.Errorf("list_job: %v", job)
		}
		if res, _ := job["Result"].(map[string]any)["m1"].(map[string]any); res == nil || res["return"] == nil {
			t.Errorf("list_job Result: %v", job["Result"])
		}
		v, _ = c.runner("jobs.print_job", jid)
		if pj, _ := v.(map[string]any)[jid].(map[string]any); pj == nil || pj["Function"] != "test.arg" || pj["Result"] == nil {
			t.Errorf("print_job: %v", v)
		}
		if v, _ = c.runner("jobs.exit_success", jid); !reflect.DeepEqual(v, map[string]any{"m1": true}) {
			t.Errorf("exit_success: %v", v)
		}
		if v, _ = c.runner("jobs.last_run", "function=test.arg"); v.(map[string]any)[jid] == nil {
			t.Errorf("last_run: %v", v)
		}

		// A job still running is active on its minion, not yet returned.
		sleeper := c.async("m2", "test.sleep", "20")
		c.findJob("m2", sleeper)
		v, _ = c.runner("jobs.active")
		act, _ := v.(map[string]any)[sleeper].(map[string]any)
		running, _ := act["Running"].([]any)
		if act == nil || act["Function"] != "test.sleep" || len(running) != 1 || running[0].(map[string]any)["m2"] == nil || len(act["Returned"].([]any)) != 0 {
			t.Errorf("active: %v", v)
		}
		c.run("m2", "saltutil.kill_job", sleeper)
	})

	t.Run("orchestrate", func(t *testing.T) {
		running := c.orchestrate("orch.deploy", 1)
		if len(running) != 3 {
			t.Errorf("%d steps: %v", len(running), keysOf(running))
		}
		one := running["salt_|-step_one_|-step_one_|-state"].(map[string]any)
		checkStep(t, running, "salt_|-step_one_|-step_one_|-state", map[string]any{
			"name": "step_one", "result": true, "__run_num__": float64(0),
			"comment": "States ran successfully. Updating m1, m2.",
		})
		ch, _ := one["changes"].(map[string]any)
		ret, _ := ch["ret"].(map[string]any)
		if ch["out"] != "highstate" || len(ret) != 2 {
			t.Fatalf("step_one changes: %v", ch)
		}
		good := "test_|-good_|-good_|-succeed_with_changes"
		for _, id := range []string{"m1", "m2"} {
			got := minionState(ret, id, good)
			want := map[string]any{
				"result": true, "comment": "Success!", "name": "good", "__run_num__": float64(0), "__sls__": "good",
				"changes": map[string]any{"testing": map[string]any{"old": "Unchanged", "new": "Something pretended to change"}},
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("step_one %s: %v, want %v", id, got, want)
			}
		}
		checkStep(t, running, "salt_|-step_two_|-step_two_|-state", map[string]any{
			"name": "step_two", "result": false, "__run_num__": float64(1),
			"comment": "Run failed on minions: m2",
		})
		two := running["salt_|-step_two_|-step_two_|-state"].(map[string]any)["changes"].(map[string]any)
		bad := minionState(two["ret"].(map[string]any), "m2", "test_|-bad_|-bad_|-fail_without_changes")
		if two["out"] != "highstate" || bad["result"] != false || bad["comment"] != "Failure!" || len(two["ret"].(map[string]any)) != 1 {
			t.Errorf("step_two changes: %v", two)
		}
		checkStep(t, running, "salt_|-step_three_|-test.echo_|-function", map[string]any{
			"name": "test.echo", "result": true, "__run_num__": float64(2),
			"comment": "Function ran successfully. Function test.echo ran on m1.",
			"changes": map[string]any{"ret": map[string]any{"m1": "recovered"}},
		})

		// The same in test mode: the states are only tested on the minions.
		v, rc := c.runner("state.orchestrate", "orch.deploy", "test=True")
		data := v.(map[string]any)["data"].(map[string]any)[masterMinion(t)].(map[string]any)
		first := data["salt_|-step_one_|-step_one_|-state"].(map[string]any)
		if rc != 1 || first["result"] != nil || first["comment"] != "States ran successfully. Updating m1, m2." {
			t.Errorf("test=True: rc %d, step_one %v", rc, first)
		}
	})

	t.Run("function fail_minions", func(t *testing.T) {
		running := c.orchestrate("orch.failmin", 1)
		checkStep(t, running, "salt_|-strict_|-test.false_|-function", map[string]any{
			"result": false, "__run_num__": float64(0),
			"comment": "Running function test.false failed on minions: m1 Function test.false ran on m1, m2.",
			"changes": map[string]any{"ret": map[string]any{"m1": false, "m2": false}},
		})
		checkStep(t, running, "salt_|-lenient_|-test.false_|-function", map[string]any{
			"result": true, "__run_num__": float64(1),
			"comment": "Function ran successfully. Function test.false ran on m1, m2.",
			"changes": map[string]any{"ret": map[string]any{"m1": false, "m2": false}},
		})
	})

	t.Run("wheel key.accept", func(t *testing.T) {
		v, rc := c.runner("state.orchestrate", "orch.wheel")
		step := v.(map[string]any)["data"].(map[string]any)[masterMinion(t)].(map[string]any)["salt_|-accept_m3_|-key.accept_|-wheel"].(map[string]any)
		want := map[string]any{
			"result": true, "comment": "Wheel function 'key.accept' executed.",
			"changes": map[string]any{"return": map[string]any{"minions": []any{"m3"}}},
		}
		for k, w := range want {
			if !reflect.DeepEqual(step[k], w) {
				t.Errorf("accept_m3 %s = %#v, want %#v", k, step[k], w)
			}
		}
		if rc != 0 {
			t.Errorf("exit %d", rc)
		}
		store, _ := keys.OpenStore(filepath.Join(c.mdir, "pki"))
		if st, _ := store.Find("m3"); st != keys.Accepted {
			t.Errorf("m3's key is %q", st)
		}
	})

	t.Run("wait_for_event", func(t *testing.T) {
		type result struct {
			out string
			rc  int
		}
		done := make(chan result, 1)
		go func() {
			cmd := exec.Command(brineBin, "run-runner", "-c", c.mdir, "--out", "json", "state.orchestrate", "orch.wait")
			out, _ := cmd.Output()
			done <- result{string(out), cmd.ProcessState.ExitCode()}
		}()
		// The step sees only events fired after it started listening:
		// fire until the orchestration ends.
		var res result
	fire:
		for i := 0; ; i++ {
			select {
			case res = <-done:
				break fire
			default:
			}
			if i > 300 {
				t.Fatal("the orchestration never ended")
			}
			runText(t, c, "-L", "m1,m2", "event.send", "brine/test/ready")
			time.Sleep(200 * time.Millisecond)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(res.out), &v); err != nil {
			t.Fatalf("bad JSON %q", res.out)
		}
		running := v["data"].(map[string]any)[masterMinion(t)].(map[string]any)
		ready := running["salt_|-ready_|-brine/test/ready_|-wait_for_event"].(map[string]any)
		seen, _ := ready["changes"].(map[string]any)["minions_seen"].([]any)
		sort.Slice(seen, func(i, j int) bool { return fmt.Sprint(seen[i]) < fmt.Sprint(seen[j]) })
		if ready["result"] != true || !regexp.MustCompile(`^All events seen in [0-9.e-]+ seconds\.$`).MatchString(fmt.Sprint(ready["comment"])) || !reflect.DeepEqual(seen, []any{"m1", "m2"}) {
			t.Errorf("ready: %v", ready)
		}
		never := running["salt_|-never_|-brine/test/never_|-wait_for_event"].(map[string]any)
		if never["result"] != false || never["comment"] != "Timeout value reached." || res.rc != 1 {
			t.Errorf("never: %v (exit %d)", never, res.rc)
		}
	})

	t.Run("manage", func(t *testing.T) {
		status := func() map[string]any {
			v, _ := c.runner("manage.status", "timeout=3")
			return v.(map[string]any)
		}
		// m3's key is accepted now, but no m3 runs.
		if got, want := status(), map[string]any{"up": []any{"m1", "m2"}, "down": []any{"m3"}}; !reflect.DeepEqual(got, want) {
			t.Errorf("status: %v, want %v", got, want)
		}
		wantVer := map[string]any{"Up to date": map[string]any{"m1": grains.SaltVersion, "m2": grains.SaltVersion}, "Master": grains.SaltVersion}
		if v, _ := c.runner("manage.versions"); !reflect.DeepEqual(v, wantVer) {
			t.Errorf("versions: %v, want %v", v, wantVer)
		}
		if v, _ := c.runner("manage.present"); !reflect.DeepEqual(v, []any{"m1", "m2"}) {
			t.Errorf("present: %v", v)
		}
		c.stopMinion("m2")
		if v, _ := c.runner("manage.up", "timeout=3"); !reflect.DeepEqual(v, []any{"m1"}) {
			t.Errorf("up after m2 stopped: %v", v)
		}
		if v, _ := c.runner("manage.not_present"); !reflect.DeepEqual(v, []any{"m2", "m3"}) {
			t.Errorf("not_present: %v", v)
		}
		if v, _ := c.runner("manage.down", "removekeys=True", "tgt=m2"); !reflect.DeepEqual(v, []any{"m2"}) {
			t.Errorf("down: %v", v)
		}
		store, _ := keys.OpenStore(filepath.Join(c.mdir, "pki"))
		if st, _ := store.Find("m2"); st != "" {
			t.Errorf("m2's key still %q after down removekeys=True", st)
		}
		if got, want := status(), map[string]any{"up": []any{"m1"}, "down": []any{"m3"}}; !reflect.DeepEqual(got, want) {
			t.Errorf("status at the end: %v, want %v", got, want)
		}
	})
}
