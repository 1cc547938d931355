package schedule

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"brine/internal/value"
)

func TestStore(t *testing.T) {
	dir := t.TempDir()
	opts := value.MapOf("cachedir", filepath.Join(dir, "cache"), "conf_file", filepath.Join(dir, "conf", "minion"), "default_include", "minion.d/*.conf")
	s := Store{Opts: opts}
	if s.DaemonRunning() {
		t.Error("a daemon runs before Init")
	}
	if _, ok, _ := s.Current(); ok {
		t.Error("a schedule before Init")
	}
	if err := s.Init(mustMap(t, `{"a": {"function": "test.ping", "seconds": 5}}`)); err != nil {
		t.Fatal(err)
	}
	if !s.DaemonRunning() {
		t.Error("Init did not record this process")
	}
	// Not persisted: the running schedule changes, _schedule.conf does not.
	if err := s.Update(false, func(m *value.Map) error {
		m.Set("b", mustMap(t, `{"function": "test.echo", "_seconds": 3, "seconds": 3}`))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.ConfFile()); !os.IsNotExist(err) {
		t.Errorf("_schedule.conf written without persist: %v", err)
	}
	cur, ok, err := s.Current()
	if err != nil || !ok || cur.Len() != 2 {
		t.Fatalf("current %v %v %v", cur, ok, err)
	}
	// Persisted: the hidden keys stay out, as Salt's remove_hidden.
	if err := s.Update(true, func(m *value.Map) error { m.Delete("a"); return nil }); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "conf", "minion.d", "_schedule.conf"); s.ConfFile() != want {
		t.Errorf("conf file %s, want %s", s.ConfFile(), want)
	}
	text, err := os.ReadFile(s.ConfFile())
	if err != nil {
		t.Fatal(err)
	}
	// salt.utils.yaml.safe_dump: default_flow_style None.
	if want := "schedule:\n  b: {function: test.echo, seconds: 3}\n"; string(text) != want {
		t.Errorf("_schedule.conf:\n%s\nwant:\n%s", text, want)
	}
	saved, err := s.Saved()
	if err != nil || !saved.Has("b") || saved.Len() != 1 {
		t.Errorf("saved %v %v", saved, err)
	}

	for _, n := range []string{"first", "second"} {
		if err := s.QueueRun(n); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond) // distinct modification times
	}
	if got := s.TakeRuns(); len(got) != 2 || got[0] != "first" || got[1] != "second" {
		t.Errorf("runs %v", got)
	}
	if got := s.TakeRuns(); len(got) != 0 {
		t.Errorf("runs taken twice: %v", got)
	}

	st := State{PID: os.Getpid(), Jobs: map[string]JobStatus{"b": {NextFireTime: time.Date(2017, 11, 29, 16, 0, 0, 0, time.Local)}}}
	if err := s.WriteState(st); err != nil {
		t.Fatal(err)
	}
	if got := s.ReadState(); !got.Jobs["b"].NextFireTime.Equal(st.Jobs["b"].NextFireTime) {
		t.Errorf("state %+v", got)
	}
	if err := s.WriteState(State{PID: 1 << 22}); err != nil {
		t.Fatal(err)
	}
	if s.DaemonRunning() {
		t.Error("a dead pid counts as a running daemon")
	}
}

func TestCallReturners(t *testing.T) {
	var got []string
	CallReturners(ReturnCall{Names: []string{"syslog"}}) // no hook: nothing happens
	SetReturners(func(c ReturnCall) { got = c.Names })
	defer SetReturners(nil)
	CallReturners(ReturnCall{Names: ReturnerNames(nil, nil)})
	if got != nil {
		t.Errorf("called without returners: %v", got)
	}
	CallReturners(ReturnCall{Names: ReturnerNames(value.NewList("syslog", "rawfile_json"), "syslog")})
	if len(got) != 2 || got[0] != "syslog" || got[1] != "rawfile_json" {
		t.Errorf("returners %v", got)
	}
}
