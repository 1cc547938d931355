package beacons

import (
	"encoding/json"
	"os"
	"path/filepath"

	"brine/internal/system/livestore"
	"brine/internal/value"
)

// Store is where a minion's beacons live between the minion daemon and
// the beacons.* execution functions (which may run in job processes).
// Salt keeps them in the daemon's opts and changes them through
// manage_beacons events on the minion's bus; brine keeps them in files
// under cachedir/beacons, changed under a lock and read by the daemon at
// every loop:
//
//	current.json  the options' beacons as the daemon runs them
//	state.json    the daemon's pid
type Store struct {
	Opts *value.Map // the minion options: cachedir, conf_file, default_include
}

func (s Store) opt(k string) string { return livestore.Opt(s.Opts, k) }

func (s Store) dir() livestore.Dir { return livestore.Dir(s.Dir()) }

// Dir is the store's directory.
func (s Store) Dir() string { return filepath.Join(s.opt("cachedir"), "beacons") }

func (s Store) statePath() string { return filepath.Join(s.Dir(), "state.json") }

// ConfFile is where beacons.save writes: beacons.conf in the directory
// of default_include, beside the minion config file.
func (s Store) ConfFile() string {
	dir := "/etc/salt"
	if cf := s.opt("conf_file"); cf != "" {
		if abs, err := filepath.Abs(cf); err == nil {
			cf = abs
		}
		dir = filepath.Dir(cf)
	}
	return filepath.Join(livestore.IncludeDir(dir, s.Opts), "beacons.conf")
}

// Init makes beacons the running set (the daemon calls it at start with
// the options' beacons) and records the daemon's pid.
func (s Store) Init(beacons *value.Map) error {
	unlock, err := s.dir().Lock()
	if err != nil {
		return err
	}
	defer unlock()
	if err := s.write(beacons); err != nil {
		return err
	}
	b, _ := json.Marshal(map[string]int{"pid": os.Getpid()})
	return livestore.WriteFile(s.statePath(), b, 0o600)
}

func (s Store) write(beacons *value.Map) error { return s.dir().WriteMap("current.json", beacons) }

// Current returns the options' beacons the daemon runs (empty when no
// daemon ever started).
func (s Store) Current() (*value.Map, error) {
	m, _, err := s.dir().ReadMap("current.json")
	return m, err
}

// Update changes the running beacons under the store's lock with f and
// returns them as f left them.
func (s Store) Update(f func(beacons *value.Map)) (*value.Map, error) {
	unlock, err := s.dir().Lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	cur, err := s.Current()
	if err != nil {
		return nil, err
	}
	f(cur)
	return cur, s.write(cur)
}

// DaemonRunning reports whether the minion daemon owning the store is
// alive: beacons.* reach the beacons only a daemon runs, as Salt's reach
// the daemon through its event bus.
func (s Store) DaemonRunning() bool {
	var st struct {
		PID int `json:"pid"`
	}
	b, err := os.ReadFile(s.statePath())
	return err == nil && json.Unmarshal(b, &st) == nil && livestore.Alive(st.PID)
}

// Stop records that the daemon no longer runs the beacons.
func (s Store) Stop() { _ = os.Remove(s.statePath()) }
