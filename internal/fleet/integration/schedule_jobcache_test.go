package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scheduledJobs returns the jobs of the job cache (brine jobs list) that
// ran fun on minion id.
func (c *cluster) scheduledJobs(id, fun string) []string {
	c.t.Helper()
	out, errs, rc := c.brine("jobs", "-c", c.mdir, "list", "--out", "json")
	if rc != 0 {
		c.t.Fatalf("jobs list: rc %d %s %s", rc, out, errs)
	}
	var jobs map[string]map[string]any
	if err := json.Unmarshal([]byte(out), &jobs); err != nil {
		c.t.Fatalf("jobs list: %q", out)
	}
	var jids []string
	for jid, j := range jobs {
		if j["Function"] == fun && j["Target"] == id {
			jids = append(jids, jid)
		}
	}
	return jids
}

// TestScheduleJobCache runs jobs from a minion's schedule (its config, its
// pillar and schedule.add) every few seconds and finds them, and a
// scheduled highstate, in the master's job cache; the schedule.*
// functions manage the schedule the minion daemon runs.
func TestScheduleJobCache(t *testing.T) {
	rawfile := filepath.Join(t.TempDir(), "returns.json")
	c := acceptedCluster(t, func(c *cluster) {
		c.write("srv/salt/top.sls", "base:\n  '*': [marker]\n")
		c.write("srv/salt/marker.sls", "{{ opts['cachedir'] }}/marker.txt:\n  file.managed:\n    - contents: scheduled highstate\n")
		c.write("srv/pillar/top.sls", "base:\n  '*': [sched]\n")
		c.write("srv/pillar/sched.sls", "schedule:\n  from_pillar:\n    function: test.echo\n    args: [pillar job]\n    minutes: 60\n")
	}, map[string]string{
		"web1": "schedule:\n  echo_often:\n    function: test.echo\n    args: [scheduled]\n    seconds: 2\n    returner: rawfile_json\n" +
			"rawfile_json.filename: " + rawfile + "\n",
	})
	// The job's returner gets each scheduled return too.
	waitFor(t, "a scheduled return in the rawfile_json returner's file", func() bool {
		data, _ := os.ReadFile(rawfile)
		return strings.Contains(string(data), `"fun": "test.echo"`) || strings.Contains(string(data), `"fun":"test.echo"`)
	})

	var jid string
	waitFor(t, "a scheduled test.echo in the job cache", func() bool {
		jids := c.scheduledJobs("web1", "test.echo")
		if len(jids) == 0 {
			return false
		}
		jid = jids[0]
		return true
	})
	if got := c.lookup(jid); got["web1"] != "scheduled" {
		t.Errorf("jobs lookup %s: %v", jid, got)
	}
	// Several runs, each its own job.
	waitFor(t, "a second scheduled run", func() bool { return len(c.scheduledJobs("web1", "test.echo")) >= 2 })
	// The jobs runner lists them too.
	listed, rc := c.runner("jobs.list_jobs")
	jobs, _ := listed.(map[string]any)
	if j, _ := jobs[jid].(map[string]any); rc != 0 || j["Function"] != "test.echo" {
		t.Errorf("jobs.list_jobs: rc %d, %s: %v", rc, jid, jobs[jid])
	}
	if got, rc := c.runner("jobs.lookup_jid", jid); rc != 0 || asJSONString(got) != `{"web1":"scheduled"}` {
		t.Errorf("jobs.lookup_jid %s: rc %d %s", jid, rc, asJSONString(got))
	}

	t.Run("list", func(t *testing.T) {
		out := c.callJSON("web1", "schedule.list")
		s, _ := out.(string)
		for _, want := range []string{"schedule:\n", "  echo_often:\n", "    function: test.echo\n", "    seconds: 2\n", "    enabled: true\n", "    saved: false\n", "  from_pillar:\n"} {
			if !strings.Contains(s, want) {
				t.Errorf("schedule.list lacks %q:\n%s", want, s)
			}
		}
		if strings.Contains(s, "__mine_interval") {
			t.Errorf("schedule.list shows a hidden job:\n%s", s)
		}
		if !strings.Contains(c.callJSON("web1", "schedule.list", "show_all=True").(string), "__mine_interval") {
			t.Error("show_all does not show the mine's job")
		}
	})

	t.Run("a scheduled highstate reports to the job cache", func(t *testing.T) {
		got := c.callJSON("web1", "schedule.add", "highstate_often", "function=state.apply", "seconds=3")
		if asJSONString(got) != `{"changes":{"highstate_often":"added"},"comment":"Added job: highstate_often to schedule.","result":true}` {
			t.Fatalf("schedule.add: %s", asJSONString(got))
		}
		conf, err := os.ReadFile(filepath.Join(c.minionDir("web1"), "minion.d", "_schedule.conf"))
		if err != nil || !strings.Contains(string(conf), "highstate_often:") {
			t.Errorf("_schedule.conf: %q %v", conf, err)
		}
		var hs string
		waitFor(t, "a scheduled state.apply in the job cache", func() bool {
			jids := c.scheduledJobs("web1", "state.apply")
			if len(jids) == 0 {
				return false
			}
			hs = jids[0]
			return true
		})
		ret, _ := c.lookup(hs)["web1"].(map[string]any)
		found := false
		for tag, r := range ret {
			rm, _ := r.(map[string]any)
			if strings.HasPrefix(tag, "file_|-") && rm["result"] == true {
				found = true
			}
		}
		if !found {
			t.Errorf("scheduled highstate return: %v", ret)
		}
		if b, err := os.ReadFile(filepath.Join(c.minionDir("web1"), "cache", "marker.txt")); err != nil || string(b) != "scheduled highstate\n" {
			t.Errorf("marker.txt: %q %v", b, err)
		}
		next, _ := c.callJSON("web1", "schedule.show_next_fire_time", "highstate_often").(map[string]any)
		if s, _ := next["next_fire_time"].(string); len(s) != len("2006-01-02T15:04:05") || next["result"] != true {
			t.Errorf("show_next_fire_time: %v", next)
		}
		got = c.callJSON("web1", "schedule.delete", "highstate_often")
		if asJSONString(got) != `{"changes":{"highstate_often":"removed"},"comment":"Deleted Job highstate_often from schedule.","result":true}` {
			t.Errorf("schedule.delete: %s", asJSONString(got))
		}
	})

	t.Run("enable, disable and run_job", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"schedule.disable_job", "echo_often"}, `{"changes":{"echo_often":"disabled"},"comment":"Disabled Job echo_often in schedule.","result":true}`},
			{[]string{"schedule.run_job", "echo_often"}, `{"comment":"Job echo_often is disabled.","result":true}`},
			{[]string{"schedule.run_job", "nosuchjob"}, `{"comment":"Job nosuchjob does not exist.","result":false}`},
			{[]string{"schedule.enable_job", "echo_often"}, `{"changes":{"echo_often":"enabled"},"comment":"Enabled Job echo_often in schedule.","result":true}`},
			{[]string{"schedule.disable"}, `{"changes":{"schedule":"disabled"},"comment":"Disabled schedule on minion.","result":true}`},
			{[]string{"schedule.is_enabled"}, `false`},
			{[]string{"schedule.enable"}, `{"changes":{"schedule":"enabled"},"comment":"Enabled schedule on minion.","result":true}`},
			{[]string{"schedule.delete", "from_pillar"}, `{"changes":{},"comment":"Failed to delete job from_pillar from schedule.","result":false}`},
			{[]string{"schedule.add", "echo_often", "function=test.ping"}, `{"changes":{},"comment":"Job echo_often already exists in schedule.","result":false}`},
			{[]string{"schedule.add", "timed", "function=test.ping", "seconds=1", "cron=* * * * *"}, `{"changes":{},"comment":"Error: Unable to use \"seconds\", \"minutes\", \"hours\", or \"days\" with \"when\" or \"cron\" options.","result":false}`},
		} {
			if got := asJSONString(c.callJSON("web1", tc.args[0], tc.args[1:]...)); got != tc.want {
				t.Errorf("%v = %s, want %s", tc.args, got, tc.want)
			}
		}
		// run_job asks the daemon to run a job now: this one is not due
		// for an hour.
		if got := asJSONString(c.callJSON("web1", "schedule.add", "by_hand", "function=test.echo", `job_args=["by hand"]`, "hours=1", "persist=False")); !strings.Contains(got, `"result":true`) {
			t.Fatalf("schedule.add: %s", got)
		}
		if got := asJSONString(c.callJSON("web1", "schedule.run_job", "by_hand")); got != `{"comment":"Scheduling Job by_hand on minion.","result":true}` {
			t.Errorf("run_job: %s", got)
		}
		conf, _ := os.ReadFile(filepath.Join(c.minionDir("web1"), "minion.d", "_schedule.conf"))
		if strings.Contains(string(conf), "by_hand") {
			t.Errorf("persist=False persisted:\n%s", conf)
		}
		seen := map[string]bool{}
		waitFor(t, "the job run_job asked for", func() bool {
			for _, jid := range c.scheduledJobs("web1", "test.echo") {
				if !seen[jid] {
					seen[jid] = true
					if c.lookup(jid)["web1"] == "by hand" {
						return true
					}
				}
			}
			return false
		})
	})
}
