package schedule

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"brine/internal/system/livestore"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// Store is where a minion's schedule lives between the minion daemon and
// the schedule.* execution functions (which may run in job processes):
// Salt keeps it in the daemon's memory and changes it through events on
// the minion's bus; brine keeps it in files under cachedir/schedule:
//
//	current.json   the schedule of the options (Salt's opts["schedule"]) as
//	               the daemon runs it; the functions change it under lock
//	state.json     what the daemon publishes: its pid and each job's next
//	               fire time
//	run/<name>.*   jobs schedule.run_job asks the daemon to run now
//
// Persisting writes Salt's <config dir>/minion.d/_schedule.conf.
type Store struct {
	Opts *value.Map // the minion options: cachedir, conf_file, default_include
}

func (s Store) opt(k string) string { return livestore.Opt(s.Opts, k) }

func (s Store) dir() livestore.Dir { return livestore.Dir(s.Dir()) }

// Dir is the store's directory.
func (s Store) Dir() string { return filepath.Join(s.opt("cachedir"), "schedule") }

func (s Store) statePath() string { return filepath.Join(s.Dir(), "state.json") }
func (s Store) runDir() string    { return filepath.Join(s.Dir(), "run") }

// ConfFile is Salt's persisted schedule: _schedule.conf in the directory
// of default_include, beside the minion config file.
func (s Store) ConfFile() string {
	dir := s.opt("conf_dir")
	if dir == "" {
		if cf := s.opt("conf_file"); cf != "" {
			dir = filepath.Dir(cf)
		} else {
			dir = "/etc/salt"
		}
	}
	return filepath.Join(livestore.IncludeDir(dir, s.Opts), "_schedule.conf")
}

// Init makes sched the running schedule (the daemon calls it at start,
// with the options' schedule) and records the daemon's pid.
func (s Store) Init(sched *value.Map) error {
	unlock, err := s.dir().Lock()
	if err != nil {
		return err
	}
	defer unlock()
	_ = os.RemoveAll(s.runDir())
	if err := s.write(sched); err != nil {
		return err
	}
	return s.WriteState(State{PID: os.Getpid()})
}

func (s Store) write(sched *value.Map) error { return s.dir().WriteMap("current.json", sched) }

// Current returns the running schedule of the options; ok is false when
// no daemon ever started one.
func (s Store) Current() (*value.Map, bool, error) { return s.dir().ReadMap("current.json") }

// Update changes the running schedule under the store's lock with f and,
// when persist, writes it to _schedule.conf too.
func (s Store) Update(persist bool, f func(sched *value.Map) error) error {
	unlock, err := s.dir().Lock()
	if err != nil {
		return err
	}
	defer unlock()
	cur, _, err := s.Current()
	if err != nil {
		return err
	}
	if err := f(cur); err != nil {
		return err
	}
	if err := s.write(cur); err != nil {
		return err
	}
	if persist {
		return s.Persist(cur)
	}
	return nil
}

// WithoutHidden returns sched without each job's keys starting with '_'
// (Salt's remove_hidden).
func WithoutHidden(sched *value.Map) *value.Map {
	out := value.NewMap(sched.Len())
	sched.Range(func(k, v any) bool {
		if jm, ok := v.(*value.Map); ok {
			c := value.NewMap(jm.Len())
			jm.Range(func(kk, vv any) bool {
				if !strings.HasPrefix(value.Str(kk), "_") {
					c.Set(kk, vv)
				}
				return true
			})
			v = c
		}
		out.Set(k, v)
		return true
	})
	return out
}

// Persist writes sched (the options' schedule) to _schedule.conf as
// Salt's persist does: {"schedule": ...} in YAML.
func (s Store) Persist(sched *value.Map) error {
	text, err := yamlload.Dump(value.MapOf("schedule", WithoutHidden(sched)), yamlload.SaltDumpOptions())
	if err != nil {
		return err
	}
	return livestore.WriteFile(s.ConfFile(), []byte(text), 0o644)
}

// PersistRaw writes _schedule.conf from the given schedule as it is (the
// offline functions write what they read).
func (s Store) PersistRaw(sched *value.Map) error {
	text, err := yamlload.Dump(value.MapOf("schedule", sched), yamlload.SaltDumpOptions())
	if err != nil {
		return err
	}
	return livestore.WriteFile(s.ConfFile(), []byte(text), 0o644)
}

// Saved returns the schedule in _schedule.conf (empty when none).
func (s Store) Saved() (*value.Map, error) {
	b, err := os.ReadFile(s.ConfFile())
	if errors.Is(err, fs.ErrNotExist) {
		return value.NewMap(0), nil
	}
	if err != nil {
		return nil, err
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return value.NewMap(0), nil
	}
	v, err := yamlload.SafeLoad(b, s.ConfFile())
	if err != nil {
		return nil, err
	}
	m, _ := v.(*value.Map)
	if m == nil {
		return value.NewMap(0), nil
	}
	sched, _ := m.Get("schedule")
	if sm, ok := sched.(*value.Map); ok {
		return sm, nil
	}
	return value.NewMap(0), nil
}

// State is what the daemon publishes about the schedule it runs.
type State struct {
	PID  int                  `json:"pid"`
	Jobs map[string]JobStatus `json:"jobs,omitempty"`
}

// JobStatus is one job's runtime data.
type JobStatus struct {
	NextFireTime time.Time `json:"next_fire_time,omitzero"`
}

// WriteState records the daemon's state.
func (s Store) WriteState(st State) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return livestore.WriteFile(s.statePath(), b, 0o600)
}

// ReadState returns the daemon's state (zero when none).
func (s Store) ReadState() State {
	var st State
	b, err := os.ReadFile(s.statePath())
	if err == nil {
		_ = json.Unmarshal(b, &st)
	}
	return st
}

// DaemonRunning reports whether the minion daemon that owns the store is
// alive: schedule.* functions change a schedule only a daemon runs, as
// Salt's reach the daemon through its event bus.
func (s Store) DaemonRunning() bool {
	return livestore.Alive(s.ReadState().PID)
}

// QueueRun asks the daemon to run job name now (schedule.run_job).
func (s Store) QueueRun(name string) error {
	if err := os.MkdirAll(s.runDir(), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(s.runDir(), "req-*")
	if err != nil {
		return err
	}
	_, err = f.WriteString(name)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// TakeRuns returns (and removes) the jobs queued by QueueRun, oldest
// first.
func (s Store) TakeRuns() []string {
	ents, err := os.ReadDir(s.runDir())
	if err != nil {
		return nil
	}
	type req struct {
		name string
		mod  time.Time
		seq  string
	}
	var reqs []req
	for _, e := range ents {
		p := filepath.Join(s.runDir(), e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		info, _ := e.Info()
		mod := time.Time{}
		if info != nil {
			mod = info.ModTime()
		}
		_ = os.Remove(p)
		reqs = append(reqs, req{name: string(b), mod: mod, seq: e.Name()})
	}
	sort.Slice(reqs, func(i, j int) bool {
		if !reqs[i].mod.Equal(reqs[j].mod) {
			return reqs[i].mod.Before(reqs[j].mod)
		}
		return reqs[i].seq < reqs[j].seq
	})
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = r.name
	}
	return out
}
