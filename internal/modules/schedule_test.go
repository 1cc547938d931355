package modules

import (
	"os"
	"path/filepath"
	"testing"

	"brine/internal/execmod"
	"brine/internal/schedule"
	"brine/internal/value"
)

func schedCtx(t *testing.T) *execmod.Context {
	t.Helper()
	ctx := mineCtx(t, `{default_include: minion.d/*.conf}`, `{schedule: {from_pillar: {function: test.ping, hours: 1}}}`)
	ctx.Opts.Set("conf_file", filepath.Join(t.TempDir(), "minion"))
	return ctx
}

// Without a minion daemon, as Salt's functions whose events find no
// listener, nothing changes; offline=True edits _schedule.conf.
func TestScheduleOffline(t *testing.T) {
	ctx := schedCtx(t)
	off := func(kv ...any) *value.Map { return value.MapOf(append([]any{"offline", true}, kv...)...) }
	for _, step := range []struct {
		fun  string
		args []any
		kw   *value.Map
		want string
	}{
		{"schedule.list", nil, nil, `"schedule: {}\n"`},
		{"schedule.add", []any{"job1"}, value.MapOf("function", "test.ping", "seconds", int64(10)), `{"comment": "Failed to add job job1 to schedule.", "result": false, "changes": {}}`},
		{"schedule.add", []any{"job1"}, off("function", "test.ping", "seconds", int64(10)), `{"comment": "Added job: job1 to schedule.", "result": true, "changes": {"job1": "added"}}`},
		{"schedule.add", []any{"job1"}, off("function", "test.ping"), `{"comment": "Job job1 already exists in schedule.", "result": false, "changes": {}}`},
		{"schedule.add", []any{"job2"}, off("function", "test.ping", "when", "not a date"), `{"comment": "Schedule item not a date for \"when\" in invalid.", "result": false}`},
		{"schedule.add", []any{"job2"}, off("function", "test.ping", "job_args", "x"), `{"comment": "job_args is not a list. please correct and try again.", "result": false}`},
		{"schedule.add", []any{"job2"}, off("function", "cmd.run", "job_args", value.NewList("date"), "cron", "0 * * * *", "splay", value.MapOf("end", int64(9), "start", int64(1))), `{"comment": "Added job: job2 to schedule.", "result": true, "changes": {"job2": "added"}}`},
		{"schedule.list", nil, value.MapOf("offline", true), `"schedule:\n  job1:\n    enabled: true\n    function: test.ping\n    jid_include: true\n    maxrunning: 1\n    name: job1\n    saved: true\n    seconds: 10\n  job2:\n    args:\n    - date\n    cron: 0 * * * *\n    enabled: true\n    function: cmd.run\n    jid_include: true\n    maxrunning: 1\n    name: job2\n    saved: true\n    splay:\n      end: 9\n      start: 1\n"`},
		{"schedule.modify", []any{"job1"}, off("seconds", int64(10)), `{"comment": "Job job1 in correct state", "changes": {}, "result": true}`},
		{"schedule.modify", []any{"job1"}, off("seconds", int64(20)), `{"comment": "Modified job: job1 in schedule.", "changes": {"job1": {"old": {"enabled": true, "function": "test.ping", "jid_include": true, "maxrunning": 1, "name": "job1", "seconds": 10}, "new": {"function": "test.ping", "seconds": 20, "maxrunning": 1, "name": "job1", "enabled": true, "jid_include": true}}}, "result": true}`},
		{"schedule.modify", []any{"nope"}, off("seconds", int64(20)), `{"comment": "Job nope does not exist in schedule.", "changes": {}, "result": false}`},
		{"schedule.delete", []any{"job2"}, off(), `{"comment": "Deleted Job job2 from schedule.", "result": true, "changes": {"job2": "removed"}}`},
		{"schedule.delete", []any{"job1"}, nil, `{"comment": "Job job1 does not exist.", "result": false, "changes": {}}`},
		{"schedule.run_job", []any{"job1"}, nil, `{"comment": "Job job1 does not exist.", "result": false}`},
		{"schedule.enable_job", []any{"job1"}, nil, `{"comment": "Job job1 does not exist.", "result": false, "changes": {}}`},
		{"schedule.show_next_fire_time", []any{"job1"}, nil, `{"result": true, "comment": "next fire time not available."}`},
		{"schedule.skip_job", []any{"job1", "nonsense"}, nil, `{"comment": "Date string could not be parsed.", "result": false}`},
		{"schedule.postpone_job", []any{"job1", "2017-11-29T16:00:00", ""}, nil, `{"comment": "Job new_time is required.", "result": false}`},
		{"schedule.purge", nil, off(), `{"comment": ["Deleted job: job1 from schedule."], "changes": {"job1": "removed"}, "result": true}`},
		{"schedule.is_enabled", nil, nil, `true`},
	} {
		kw := step.kw
		if kw == nil {
			kw = value.NewMap(0)
		}
		if got := mineCall(t, ctx, step.fun, step.args, kw.Copy()); got != step.want {
			t.Errorf("%s %v %v =\n%s\nwant\n%s", step.fun, step.args, kw, got, step.want)
		}
	}
	b, err := os.ReadFile(schedule.Store{Opts: ctx.Opts}.ConfFile())
	if err != nil || string(b) != "schedule: {}\n" {
		t.Errorf("_schedule.conf after purge: %q %v", b, err)
	}
}

// With a daemon (here: this process holding the store), the functions
// change the schedule it runs, persisting it unless persist=False.
func TestScheduleWithDaemon(t *testing.T) {
	ctx := schedCtx(t)
	st := schedule.Store{Opts: ctx.Opts}
	if err := st.Init(mustYAMLMap(t, `{job1: {function: test.ping, seconds: 5}, __mine_interval: {function: mine.update, minutes: 60}}`)); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		fun  string
		args []any
		kw   *value.Map
		want string
	}{
		{"schedule.list", nil, nil, `"schedule:\n  from_pillar:\n    enabled: true\n    function: test.ping\n    hours: 1\n    saved: false\n  job1:\n    enabled: true\n    function: test.ping\n    saved: false\n    seconds: 5\n"`},
		{"schedule.add", []any{"job2"}, value.MapOf("function", "test.echo", "job_args", value.NewList("x"), "minutes", int64(1), "persist", false), `{"comment": "Added job: job2 to schedule.", "result": true, "changes": {"job2": "added"}}`},
		{"schedule.disable_job", []any{"job1"}, nil, `{"comment": "Disabled Job job1 in schedule.", "result": true, "changes": {"job1": "disabled"}}`},
		{"schedule.list", nil, value.MapOf("show_disabled", false, "return_yaml", false), `{"from_pillar": {"function": "test.ping", "hours": 1, "enabled": true}, "job2": {"function": "test.echo", "minutes": 1, "args": ["x"], "maxrunning": 1, "name": "job2", "enabled": true, "jid_include": true}}`},
		{"schedule.run_job", []any{"job1"}, nil, `{"comment": "Job job1 is disabled.", "result": true}`},
		{"schedule.run_job", []any{"job1"}, value.MapOf("force", true), `{"comment": "Scheduling Job job1 on minion.", "result": true}`},
		{"schedule.skip_job", []any{"job2", "2017-11-29T16:00:00"}, nil, `{"comment": "Added Skip Job job2 in schedule.", "result": true}`},
		{"schedule.postpone_job", []any{"job2", "2017-11-29T16:00:00", "2017-11-29T17:00:00"}, nil, `{"comment": "Postponed Job job2 in schedule.", "result": true}`},
		{"schedule.delete", []any{"from_pillar"}, nil, `{"comment": "Failed to delete job from_pillar from schedule.", "result": false, "changes": {}}`},
		{"schedule.disable", nil, value.MapOf("persist", false), `{"comment": "Disabled schedule on minion.", "changes": {"schedule": "disabled"}, "result": true}`},
		{"schedule.is_enabled", nil, nil, `false`},
		{"schedule.save", nil, nil, `{"comment": "Schedule (non-pillar items) saved.", "result": true}`},
		{"schedule.purge", nil, nil, `{"comment": ["Failed to delete job from_pillar from schedule.", "Deleted job: job1 from schedule.", "Deleted job: job2 from schedule."], "changes": {"job1": "removed", "job2": "removed"}, "result": true}`},
	} {
		kw := step.kw
		if kw == nil {
			kw = value.NewMap(0)
		}
		if got := mineCall(t, ctx, step.fun, step.args, kw.Copy()); got != step.want {
			t.Errorf("%s %v %v =\n%s\nwant\n%s", step.fun, step.args, kw, got, step.want)
		}
	}
	if runs := st.TakeRuns(); len(runs) != 1 || runs[0] != "job1" {
		t.Errorf("run_job queued %v", runs)
	}
	cur, _, _ := st.Current()
	if got := value.ToJSON(cur, value.JSONOptions{Indent: -1}); got != `{"__mine_interval": {"function": "mine.update", "minutes": 60}, "enabled": false}` {
		t.Errorf("running schedule %s", got)
	}
	b, _ := os.ReadFile(st.ConfFile())
	if got, want := string(b), "schedule:\n  __mine_interval: {function: mine.update, minutes: 60}\n  enabled: false\n"; got != want {
		t.Errorf("_schedule.conf %q, want %q", got, want)
	}
}

func mustYAMLMap(t *testing.T, s string) *value.Map {
	t.Helper()
	ctx := mineCtx(t, s, `{}`)
	m := ctx.Opts.Copy()
	m.Delete("cachedir")
	m.Delete("id")
	return m
}
