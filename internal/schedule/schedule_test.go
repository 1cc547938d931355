package schedule

import (
	"log/slog"
	"testing"
	"time"

	"brine/internal/pyops"
	"brine/internal/value"
)

func mustMap(t *testing.T, js string) *value.Map {
	t.Helper()
	v, err := value.FromJSON([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return v.(*value.Map)
}

func at(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.ParseInLocation("2006-01-02 15:04:05", s, time.Local)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// step evaluates the schedule at a time and says whether the job runs.
type step struct {
	at      string
	run     bool
	running int    // runs of the job in progress (maxrunning)
	reason  string // expected skip reason, when not running
	next    string // expected next fire time, when set
}

// Cases after Salt's tests/pytests/unit/utils/scheduler: each evaluates
// a one-job schedule at a list of (fake) times.
func TestEval(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sched string
		rand  int // what the splay's random draw returns
		loop  time.Duration
		steps []step
	}{
		{
			name:  "seconds",
			sched: `{"job": {"function": "test.ping", "seconds": "30"}}`,
			steps: []step{
				{at: "2017-11-29 14:00:00", next: "2017-11-29 14:00:30"},
				{at: "2017-11-29 14:00:01", next: "2017-11-29 14:00:30"},
				{at: "2017-11-29 14:00:30", run: true, next: "2017-11-29 14:01:00"},
				{at: "2017-11-29 14:01:00", run: true, next: "2017-11-29 14:01:30"},
				{at: "2017-11-29 14:01:10"},
				{at: "2017-11-29 14:01:30", run: true},
			},
		},
		{
			name:  "minutes hours and days add up",
			sched: `{"job": {"function": "test.ping", "minutes": 1, "hours": 1, "days": 1}}`,
			steps: []step{
				{at: "2017-11-29 14:00:00", next: "2017-11-30 15:01:00"},
				{at: "2017-11-30 15:00:59"},
				{at: "2017-11-30 15:01:00", run: true, next: "2017-12-01 16:02:00"},
			},
		},
		{
			name:  "a late evaluation runs a missed interval once",
			sched: `{"job": {"function": "test.ping", "seconds": 10}}`,
			steps: []step{
				{at: "2017-11-29 14:00:00"},
				{at: "2017-11-29 14:00:45", run: true, next: "2017-11-29 14:00:55"},
				{at: "2017-11-29 14:00:46"},
			},
		},
		{
			name:  "disabled seconds keep moving the next fire time",
			sched: `{"job": {"function": "test.ping", "seconds": "30", "enabled": false}}`,
			steps: []step{
				{at: "2017-11-29 16:00:00", next: "2017-11-29 16:00:30"},
				{at: "2017-11-29 16:00:29", reason: "disabled", next: "2017-11-29 16:00:30"},
				{at: "2017-11-29 16:00:30", reason: "disabled", next: "2017-11-29 16:01:00"},
			},
		},
		{
			name:  "globally disabled",
			sched: `{"enabled": false, "job": {"function": "test.ping", "seconds": 5}}`,
			steps: []step{
				{at: "2017-11-29 16:00:00"},
				{at: "2017-11-29 16:00:05", reason: "disabled"},
			},
		},
		{
			name:  "run_on_start runs at the first evaluation only",
			sched: `{"job": {"function": "test.ping", "seconds": 60, "run_on_start": true}}`,
			steps: []step{
				{at: "2017-11-29 16:00:00", run: true},
				{at: "2017-11-29 16:00:01"},
				{at: "2017-11-29 16:01:00", run: true},
			},
		},
		{
			name:  "splay delays the run by the random draw",
			sched: `{"job": {"function": "test.ping", "seconds": "30", "splay": "10"}}`,
			rand:  10,
			steps: []step{
				{at: "2017-11-29 14:00:00"},
				{at: "2017-11-29 14:00:30"},
				{at: "2017-11-29 14:00:39"},
				{at: "2017-11-29 14:00:40", run: true},
			},
		},
		{
			name:  "splay range",
			sched: `{"job": {"function": "test.ping", "seconds": "30", "splay": {"start": 5, "end": 10}}}`,
			rand:  7,
			steps: []step{
				{at: "2017-11-29 14:00:00"},
				{at: "2017-11-29 14:00:36"},
				{at: "2017-11-29 14:00:37", run: true},
			},
		},
		{
			name:  "global splay",
			sched: `{"splay": {"start": 5, "end": 10}, "job": {"function": "test.ping", "seconds": "30"}}`,
			rand:  10,
			steps: []step{
				{at: "2017-11-29 14:00:00"},
				{at: "2017-11-29 14:00:40", run: true},
			},
		},
		{
			name:  "when",
			sched: `{"job": {"function": "test.ping", "when": "11/29/2017 4:00pm"}}`,
			steps: []step{
				{at: "2017-11-29 15:59:59"},
				{at: "2017-11-29 16:00:00", run: true},
				{at: "2017-11-29 16:00:01"},
			},
		},
		{
			name:  "multiple whens",
			sched: `{"job": {"function": "test.ping", "when": ["11/29/2017 4:00pm", "11/29/2017 5:00pm"]}}`,
			steps: []step{
				{at: "2017-11-29 16:00:00", run: true},
				{at: "2017-11-29 16:30:00"},
				{at: "2017-11-29 17:00:00", run: true},
				{at: "2017-11-29 17:00:01"},
			},
		},
		{
			name:  "when within the loop interval",
			sched: `{"job": {"function": "test.ping", "when": "2017-11-29T16:00:00"}}`,
			loop:  45 * time.Second,
			steps: []step{
				{at: "2017-11-29 15:00:00"},
				{at: "2017-11-29 16:00:44", run: true},
			},
		},
		{
			name:  "once",
			sched: `{"job": {"function": "test.ping", "once": "2017-12-13T13:00:00"}}`,
			steps: []step{
				{at: "2017-12-13 12:59:59"},
				{at: "2017-12-13 13:00:00", run: true},
				{at: "2017-12-13 13:00:05"},
				{at: "2017-12-14 13:00:00"},
			},
		},
		{
			name:  "once with a format",
			sched: `{"job": {"function": "test.ping", "once": "13/12/2017 13h", "once_fmt": "%d/%m/%Y %Hh"}}`,
			steps: []step{
				{at: "2017-12-13 13:00:00", run: true},
			},
		},
		{
			name:  "once in the past never runs",
			sched: `{"job": {"function": "test.ping", "once": "2017-12-13T13:00:00"}}`,
			steps: []step{
				{at: "2017-12-14 13:00:00"},
				{at: "2017-12-15 13:00:00"},
			},
		},
		{
			name:  "cron",
			sched: `{"job": {"function": "test.ping", "cron": "*/15 * * * *"}}`,
			steps: []step{
				{at: "2017-11-29 16:01:00", next: "2017-11-29 16:15:00"},
				{at: "2017-11-29 16:14:59"},
				{at: "2017-11-29 16:15:00", run: true},
				{at: "2017-11-29 16:15:01", next: "2017-11-29 16:30:00"},
				{at: "2017-11-29 16:30:00", run: true},
			},
		},
		{
			name:  "cron with seconds last, as croniter",
			sched: `{"job": {"function": "test.ping", "cron": "* * * * * */20"}}`,
			steps: []step{
				{at: "2017-11-29 16:00:01", next: "2017-11-29 16:00:20"},
				{at: "2017-11-29 16:00:20", run: true},
			},
		},
		{
			name:  "range",
			sched: `{"job": {"function": "test.ping", "seconds": 3600, "range": {"start": "11/29/2017 2:00pm", "end": "11/29/2017 3:00pm"}}}`,
			steps: []step{
				{at: "2017-11-29 13:00:00"},
				{at: "2017-11-29 14:00:00", run: true},
				{at: "2017-11-29 15:00:00", run: true},
				{at: "2017-11-29 16:00:00"},
			},
		},
		{
			name:  "inverted range",
			sched: `{"job": {"function": "test.ping", "seconds": 3600, "range": {"start": "11/29/2017 2:00pm", "end": "11/29/2017 3:00pm", "invert": true}}}`,
			steps: []step{
				{at: "2017-11-29 13:00:00"},
				{at: "2017-11-29 14:00:00", run: true},
				{at: "2017-11-29 14:30:00"},
				{at: "2017-11-29 15:00:00", run: true},
				{at: "2017-11-29 16:00:00", run: true},
			},
		},
		{
			name:  "skip_during_range",
			sched: `{"job": {"function": "test.ping", "hours": "1", "skip_during_range": {"start": "11/29/2017 2pm", "end": "11/29/2017 3pm"}}}`,
			steps: []step{
				{at: "2017-11-29 13:30:00"},
				{at: "2017-11-29 14:30:00", reason: "in_skip_range"},
				{at: "2017-11-29 15:30:00", run: true},
			},
		},
		{
			name:  "until",
			sched: `{"job": {"function": "test.ping", "hours": "1", "until": "11/29/2017 5:00pm"}}`,
			steps: []step{
				{at: "2017-11-29 14:00:00"},
				{at: "2017-11-29 15:00:00", run: true},
				{at: "2017-11-29 16:00:00", run: true},
				{at: "2017-11-29 17:00:00", reason: "until_passed"},
			},
		},
		{
			name:  "after",
			sched: `{"job": {"function": "test.ping", "hours": "1", "after": "11/29/2017 5:00pm"}}`,
			steps: []step{
				{at: "2017-11-29 14:00:00"},
				{at: "2017-11-29 15:00:00", reason: "after_not_passed"},
				{at: "2017-11-29 16:00:00", reason: "after_not_passed"},
				{at: "2017-11-29 17:00:00", reason: "after_not_passed"},
				{at: "2017-11-29 18:00:00", run: true},
			},
		},
		{
			name:  "skip_explicit",
			sched: `{"job": {"function": "test.ping", "when": ["11/29/2017 4pm", "11/29/2017 5pm"], "skip_explicit": [{"time": "2017-11-29T16:00:00", "time_fmt": "%Y-%m-%dT%H:%M:%S"}]}}`,
			steps: []step{
				{at: "2017-11-29 16:00:00", reason: "skip_explicit"},
				{at: "2017-11-29 17:00:00", run: true},
			},
		},
		{
			name:  "maxrunning default 1",
			sched: `{"job": {"function": "test.ping", "seconds": 10}}`,
			steps: []step{
				{at: "2017-11-29 16:00:00"},
				{at: "2017-11-29 16:00:10", running: 1, reason: "maxrunning", next: "2017-11-29 16:00:20"},
				{at: "2017-11-29 16:00:20", run: true},
			},
		},
		{
			name:  "maxrunning 2",
			sched: `{"job": {"function": "test.ping", "seconds": 10, "maxrunning": 2}}`,
			steps: []step{
				{at: "2017-11-29 16:00:00"},
				{at: "2017-11-29 16:00:10", running: 1, run: true},
				{at: "2017-11-29 16:00:20", running: 2, reason: "maxrunning"},
			},
		},
		{
			name:  "jid_include false ignores maxrunning",
			sched: `{"job": {"function": "test.ping", "seconds": 10, "jid_include": false}}`,
			steps: []step{
				{at: "2017-11-29 16:00:00"},
				{at: "2017-11-29 16:00:10", running: 5, run: true},
			},
		},
		{
			name:  "when and cron together are ignored",
			sched: `{"job": {"function": "test.ping", "when": "4pm", "cron": "* * * * *"}}`,
			steps: []step{
				{at: "2017-11-29 16:00:00"},
			},
		},
		{
			name:  "seconds and when together are ignored",
			sched: `{"job": {"function": "test.ping", "seconds": 1, "when": "4pm"}}`,
			steps: []step{
				{at: "2017-11-29 16:00:00"},
				{at: "2017-11-29 16:00:01"},
			},
		},
		{
			name:  "no timing: never runs",
			sched: `{"job": {"function": "test.ping"}}`,
			steps: []step{{at: "2017-11-29 16:00:00"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			running := 0
			e := &Engine{
				Log:          slog.New(slog.DiscardHandler),
				LoopInterval: tc.loop,
				Running:      func(string) int { return running },
				Rand:         func(lo, hi int) int { return max(lo, min(hi, tc.rand)) },
			}
			sched := mustMap(t, tc.sched)
			for _, s := range tc.steps {
				running = s.running
				now := at(t, s.at)
				runs := e.Eval(sched, now)
				if got := len(runs) == 1; got != s.run {
					t.Fatalf("at %s: ran %v, want %v (status %s)", s.at, got, s.run, value.ToJSON(e.Status("job"), value.JSONOptions{Indent: -1}))
				}
				st := e.Status("job")
				if s.reason != "" {
					if r, _ := st.Get("_skip_reason"); r != s.reason {
						t.Errorf("at %s: skip reason %v, want %s", s.at, r, s.reason)
					}
				}
				if s.next != "" {
					if got, want := e.NextFireTime("job"), at(t, s.next); !got.Equal(want) {
						t.Errorf("at %s: next fire time %s, want %s", s.at, got, want)
					}
				}
				if s.run {
					r := runs[0]
					if r.Func != "test.ping" || r.Name != "job" {
						t.Errorf("run %+v", r)
					}
				}
			}
		})
	}
}

func TestEvalRunCarriesArgs(t *testing.T) {
	e := &Engine{Log: slog.New(slog.DiscardHandler)}
	sched := mustMap(t, `{"job": {"function": "cmd.run", "args": ["echo hi"], "kwargs": {"cwd": "/"}, "seconds": 1, "returner": "syslog", "return_job": false}}`)
	now := at(t, "2017-11-29 16:00:00")
	e.Eval(sched, now)
	runs := e.Eval(sched, now.Add(time.Second))
	if len(runs) != 1 {
		t.Fatalf("runs %v", runs)
	}
	r := runs[0]
	if r.Func != "cmd.run" || len(r.Args) != 1 || r.Args[0] != "echo hi" {
		t.Errorf("run %+v", r)
	}
	if v, _ := r.Kwargs.Get("cwd"); v != "/" {
		t.Errorf("kwargs %v", r.Kwargs)
	}
	for k, want := range map[string]any{"returner": "syslog", "return_job": false, "jid_include": true, "maxrunning": int64(1), "name": "job"} {
		if v, _ := r.Data.Get(k); !value.Equal(v, want) {
			t.Errorf("data %s = %v, want %v", k, v, want)
		}
	}
}

// A job whose settings change starts over (as Salt's modify replaces the
// job's data, and with it its next fire time).
func TestEvalResetsChangedJob(t *testing.T) {
	e := &Engine{Log: slog.New(slog.DiscardHandler)}
	now := at(t, "2017-11-29 16:00:00")
	e.Eval(mustMap(t, `{"job": {"function": "test.ping", "seconds": 10}}`), now)
	e.Eval(mustMap(t, `{"job": {"function": "test.ping", "seconds": 100}}`), now.Add(5*time.Second))
	if got, want := e.NextFireTime("job"), now.Add(105*time.Second); !got.Equal(want) {
		t.Errorf("next fire time %s, want %s", got, want)
	}
	e.Eval(mustMap(t, `{}`), now.Add(6*time.Second))
	if !e.NextFireTime("job").IsZero() {
		t.Error("a deleted job kept its state")
	}
}

func TestParseDate(t *testing.T) {
	now := at(t, "2017-11-29 10:00:00") // a Wednesday
	for _, tc := range []struct{ in, want string }{
		{"11/29/2017 4:00pm", "2017-11-29 16:00:00"},
		{"11/29/2017 4pm", "2017-11-29 16:00:00"},
		{"2017-11-29T16:00:00", "2017-11-29 16:00:00"},
		{"2017-11-29 16:00", "2017-11-29 16:00:00"},
		{"2017-12-01", "2017-12-01 00:00:00"},
		{"Nov 30 2017 3:04PM", "2017-11-30 15:04:00"},
		{"3:00pm", "2017-11-29 15:00:00"},
		{"3pm", "2017-11-29 15:00:00"},
		{"5:00 pm", "2017-11-29 17:00:00"},
		{"17:30", "2017-11-29 17:30:00"},
		{"12am", "2017-11-29 00:00:00"},
		{"Monday 5:00pm", "2017-12-04 17:00:00"},
		{"Wednesday 9am", "2017-11-29 09:00:00"},
		{"Fri", "2017-12-01 00:00:00"},
	} {
		got, err := ParseDate(tc.in, now)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if want := at(t, tc.want); !got.Equal(want) {
			t.Errorf("%q = %s, want %s", tc.in, got, want)
		}
	}
	for _, bad := range []string{"", "tea time", "25:00", "13pm", "42"} {
		if _, err := ParseDate(bad, now); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestStrptimeStrftime(t *testing.T) {
	tm, err := Strptime("2017-11-29T16:05:09", "%Y-%m-%dT%H:%M:%S", time.Local)
	if err != nil {
		t.Fatal(err)
	}
	if got := pyops.Strftime(tm, "%Y-%m-%dT%H:%M:%S"); got != "2017-11-29T16:05:09" {
		t.Errorf("round trip %q", got)
	}
	if got := pyops.Strftime(tm, "%d %b %Y %I:%M %p %%"); got != "29 Nov 2017 04:05 PM %" {
		t.Errorf("strftime %q", got)
	}
	if _, err := Strptime("x", "%Q", time.Local); err == nil {
		t.Error("unsupported directive accepted")
	}
}

// Named whens come from pillar (then grains), as Salt's "tea time".
func TestEvalNamedWhens(t *testing.T) {
	e := &Engine{Log: slog.New(slog.DiscardHandler), Pillar: mustMap(t, `{"whens": {"tea time": "11/29/2017 12:00pm"}}`)}
	sched := mustMap(t, `{"job": {"function": "test.ping", "when": "tea time"}}`)
	if runs := e.Eval(sched, at(t, "2017-11-29 12:00:00")); len(runs) != 1 {
		t.Errorf("tea time: %v", e.Status("job"))
	}
	e = &Engine{Log: slog.New(slog.DiscardHandler)}
	e.Eval(sched, at(t, "2017-11-29 12:00:00"))
	if msg, _ := e.Status("job").Get("_error"); msg != "Invalid date string tea time. Ignoring job job." {
		t.Errorf("error %v", msg)
	}
}
