package states_test

import (
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/schedule"
	"brine/internal/value"
)

// smallGolden returns the return Salt 3006 gave for a case of
// testdata/salt3006_small_states.json (recorded with salt-call --local
// state.single, the timing keys dropped), as JSON with {base} replaced.
func smallGolden(t *testing.T, key, base string) string {
	t.Helper()
	return strings.ReplaceAll(goldenJSON(t, "testdata/salt3006_small_states.json", key), "{base}", base)
}

// goldenJSON returns the entry key of the JSON mapping in file (Salt's
// recorded returns), as compact JSON.
func goldenJSON(t *testing.T, file, key string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	all, err := value.FromJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := all.(*value.Map).Get(key)
	if !ok {
		t.Fatalf("no golden %s in %s", key, file)
	}
	return value.ToJSON(v, value.JSONOptions{Indent: -1})
}

// stateJSON is a state return without the keys the runtime adds.
func stateJSON(ret *value.Map) string {
	r := ret.Copy()
	for _, k := range []string{"start_time", "duration", "__run_num__", "__sls__", "__id__"} {
		r.Delete(k)
	}
	return value.ToJSON(r, value.JSONOptions{Indent: -1})
}

type goldenCase struct {
	golden string
	fun    string
	args   *value.Map
	test   bool
}

func runGoldenCases(t *testing.T, ctx func() *execmod.Context, base string, cases []goldenCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			got := stateJSON(sysRun(t, ctx(), tc.fun, tc.args.Copy(), tc.test))
			if want := smallGolden(t, tc.golden, base); got != want {
				t.Errorf("%s\n got %s\nwant %s", tc.fun, got, want)
			}
		})
	}
}

// helloServer serves /index.html on loopback, 404 for anything else: the
// server the goldens were recorded against.
func helloServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/index.html", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello brine world\n") })
	srv := &http.Server{Handler: mux}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return "http://" + l.Addr().String()
}

func TestHTTPStates(t *testing.T) {
	base := helloServer(t)
	idx, nope := base+"/index.html", base+"/nope"
	ctx := func() *execmod.Context { return execmod.NewContext() }
	runGoldenCases(t, ctx, base, []goldenCase{
		{"http.string_and_status", "http.query", value.MapOf("name", idx, "match", "brine", "status", int64(200)), false},
		{"http.string_missing", "http.query", value.MapOf("name", idx, "match", "nomatch"), false},
		{"http.pcre", "http.query", value.MapOf("name", idx, "match", "w.rld", "match_type", "pcre", "status", "[23]0.", "status_type", "pcre"), false},
		{"http.pcre_status_miss", "http.query", value.MapOf("name", idx, "status", "4..", "status_type", "pcre"), false},
		{"http.status_list_miss", "http.query", value.MapOf("name", nope, "status", value.NewList(int64(200), int64(201)), "status_type", "list"), false},
		{"http.status_list_hit", "http.query", value.MapOf("name", nope, "status", value.NewList(int64(200), int64(404)), "status_type", "list"), false},
		{"http.status_string_miss", "http.query", value.MapOf("name", nope, "status", int64(200)), false},
		{"http.no_match_no_status", "http.query", value.MapOf("name", idx), false},
		{"http.test_mode", "http.query", value.MapOf("name", idx, "match", "brine"), true},
		{"http.wait_ok", "http.wait_for_successful_query", value.MapOf("name", idx, "status", int64(200)), false},
		{"http.wait_fail", "http.wait_for_successful_query", value.MapOf("name", nope, "status", int64(200), "wait_for", int64(0)), false},
		{"http.query_wait_for", "http.query", value.MapOf("name", idx, "match", "hello", "wait_for", int64(5)), false},
	})
}

func TestEventStates(t *testing.T) {
	ctx := func() *execmod.Context {
		c := execmod.NewContext()
		c.Opts.Set("file_client", "local")
		return c
	}
	runGoldenCases(t, ctx, "", []goldenCase{
		{"event.send", "event.send", value.MapOf("name", "my/tag", "data", value.MapOf("a", int64(1))), false},
		{"event.send_test", "event.send", value.MapOf("name", "my/tag", "data", value.MapOf("a", int64(1))), true},
		{"event.send_hidden", "event.send", value.MapOf("name", "my/tag", "show_changed", false), false},
		{"event.fire_master", "event.fire_master", value.MapOf("name", "my/tag", "data", value.MapOf("b", value.NewList(int64(1), int64(2))), "with_grains", true), false},
		{"event.wait", "event.wait", value.MapOf("name", "my/tag"), false},
		{"event.wait_test", "event.wait", value.MapOf("name", "my/tag"), true},
	})
}

// eventRecorder is a minion's event service that records what is fired.
type eventRecorder struct{ fired []string }

func (e *eventRecorder) FireMaster(tag string, data any, _ *value.Map) bool {
	e.fired = append(e.fired, tag+" "+value.ToJSON(data, value.JSONOptions{Indent: -1}))
	return true
}

func (e *eventRecorder) FireLocal(tag string, data *value.Map) bool { return false }

// With a master, event.send's result is the exec function's (True), and
// the keyword arguments the state does not take go into the event data.
func TestEventSendToMaster(t *testing.T) {
	ctx := execmod.NewContext()
	rec := &eventRecorder{}
	ctx.SetService("event", rec)
	ret := sysRun(t, ctx, "event.send", value.MapOf("name", "app/deployed", "data", value.MapOf("v", int64(2)), "extra", "x"), false)
	if got := stateJSON(ret); got != `{"name": "app/deployed", "changes": {"tag": "app/deployed", "data": {"v": 2}}, "result": true, "comment": "Event fired"}` {
		t.Errorf("event.send: %s", got)
	}
	if len(rec.fired) != 1 || rec.fired[0] != `app/deployed {"extra": "x", "v": 2}` {
		t.Errorf("fired %q", rec.fired)
	}
}

func scheduleCtx(t *testing.T) *execmod.Context {
	ctx := execmod.NewContext()
	ctx.Opts.Set("cachedir", t.TempDir())
	ctx.Opts.Set("conf_file", filepath.Join(t.TempDir(), "minion"))
	ctx.Opts.Set("default_include", "minion.d/*.conf")
	return ctx
}

// Without a minion daemon (salt-call --local), as recorded from Salt.
func TestScheduleStatesNoDaemon(t *testing.T) {
	ctx := func() *execmod.Context { return scheduleCtx(t) }
	runGoldenCases(t, ctx, "", []goldenCase{
		{"schedule.present", "schedule.present", value.MapOf("name", "job1", "function", "test.ping", "seconds", int64(3600)), false},
		{"schedule.present_test", "schedule.present", value.MapOf("name", "job1", "function", "test.ping", "seconds", int64(3600)), true},
		{"schedule.absent", "schedule.absent", value.MapOf("name", "job1"), false},
		{"schedule.enabled", "schedule.enabled", value.MapOf("name", "job1"), false},
		{"schedule.disabled_test", "schedule.disabled", value.MapOf("name", "job1"), true},
	})
}

// With a daemon (this process holding the store), the states change the
// schedule it runs.
func TestScheduleStatesWithDaemon(t *testing.T) {
	ctx := scheduleCtx(t)
	st := schedule.Store{Opts: ctx.Opts}
	if err := st.Init(value.NewMap(0)); err != nil {
		t.Fatal(err)
	}
	job := func(kv ...any) *value.Map {
		return value.MapOf(append([]any{"name", "job1", "function", "test.ping"}, kv...)...)
	}
	for _, step := range []struct {
		fun  string
		args *value.Map
		test bool
		want string
	}{
		{"schedule.present", job("seconds", int64(60)), true, `{"name": "job1", "result": true, "changes": {}, "comment": "Job: job1 would be added to schedule."}`},
		{"schedule.present", job("seconds", int64(60)), false, `{"name": "job1", "result": true, "changes": {"job1": "added"}, "comment": "Adding new job job1 to schedule"}`},
		{"schedule.present", job("seconds", int64(60)), false, `{"name": "job1", "result": true, "changes": {}, "comment": "Job job1 in correct state"}`},
		{"schedule.present", job("seconds", int64(90)), true, `{"name": "job1", "result": true, "changes": {"job1": {"old": {"function": "test.ping", "seconds": 60, "maxrunning": 1, "name": "job1", "enabled": true, "jid_include": true}, "new": {"function": "test.ping", "seconds": 90, "maxrunning": 1, "name": "job1", "enabled": true, "jid_include": true}}}, "comment": "Job: job1 would be modified in schedule."}`},
		{"schedule.present", job("seconds", int64(90)), false, `{"name": "job1", "result": true, "changes": {"job1": {"old": {"function": "test.ping", "seconds": 60, "maxrunning": 1, "name": "job1", "enabled": true, "jid_include": true}, "new": {"function": "test.ping", "seconds": 90, "maxrunning": 1, "name": "job1", "enabled": true, "jid_include": true}}}, "comment": "Modifying job job1 in schedule"}`},
		{"schedule.present", job("seconds", int64(90), "job_args", "x"), false, `{"name": "job1", "result": false, "changes": {}, "comment": "job_args is not a list. please correct and try again."}`},
		{"schedule.disabled", value.MapOf("name", "job1"), true, `{"name": "job1", "result": true, "changes": {}, "comment": "Job: job1 would be disabled in schedule."}`},
		{"schedule.disabled", value.MapOf("name", "job1"), false, `{"name": "job1", "result": true, "changes": {}, "comment": "Disabled job job1 from schedule"}`},
		{"schedule.enabled", value.MapOf("name", "job1"), false, `{"name": "job1", "result": true, "changes": {}, "comment": "Enabled job job1 from schedule"}`},
		{"schedule.absent", value.MapOf("name", "job1"), true, `{"name": "job1", "result": true, "changes": {}, "comment": "Job: job1 would be deleted from schedule."}`},
		{"schedule.absent", value.MapOf("name", "job1"), false, `{"name": "job1", "result": true, "changes": {"job1": "removed"}, "comment": "Removed job job1 from schedule"}`},
		{"schedule.absent", value.MapOf("name", "job1"), false, `{"name": "job1", "result": true, "changes": {}, "comment": "Job job1 not present in schedule"}`},
	} {
		if got := stateJSON(sysRun(t, ctx, step.fun, step.args.Copy(), step.test)); got != step.want {
			t.Errorf("%s %s test=%v\n got %s\nwant %s", step.fun, value.ToJSON(step.args, value.JSONOptions{Indent: -1}), step.test, got, step.want)
		}
	}
	cur, _, _ := st.Current()
	if cur.Has("job1") {
		t.Errorf("job1 left in the running schedule: %s", value.ToJSON(cur, value.JSONOptions{Indent: -1}))
	}
}

func TestSaltutilSyncStates(t *testing.T) {
	roots := t.TempDir()
	if err := os.MkdirAll(filepath.Join(roots, "_grains"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(roots, "_grains", "h5grain.py"), []byte("def g():\n    return {'h5': 1}\n"), 0o644)
	ctx := func() *execmod.Context {
		c := execmod.NewContext()
		c.Opts.Set("file_client", "local")
		c.Opts.Set("cachedir", t.TempDir())
		c.Opts.Set("file_roots", value.MapOf("base", value.NewList(roots)))
		return c
	}
	runGoldenCases(t, ctx, "", []goldenCase{
		{"saltutil.sync_grains_changed", "saltutil.sync_grains", value.MapOf("name", "s"), false},
		{"saltutil.sync_all_changed", "saltutil.sync_all", value.MapOf("name", "s"), false},
		{"saltutil.sync_all_test", "saltutil.sync_all", value.MapOf("name", "s"), true},
		{"saltutil.sync_grains_test", "saltutil.sync_grains", value.MapOf("name", "s"), true},
	})
	// A second sync into the same cache finds nothing new.
	c := ctx()
	sysRun(t, c, "saltutil.sync_all", value.MapOf("name", "s"), false)
	for _, fun := range []string{"saltutil.sync_all", "saltutil.sync_modules"} {
		got := stateJSON(sysRun(t, c, fun, value.MapOf("name", "s"), false))
		if want := smallGolden(t, "saltutil.sync_all", ""); got != want {
			t.Errorf("%s again\n got %s\nwant %s", fun, got, want)
		}
	}
}
