package beacons

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

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

func (s Store) opt(k string) string {
	v, _ := s.Opts.Get(k)
	if v == nil {
		return ""
	}
	return value.Str(v)
}

// Dir is the store's directory.
func (s Store) Dir() string { return filepath.Join(s.opt("cachedir"), "beacons") }

func (s Store) currentPath() string { return filepath.Join(s.Dir(), "current.json") }
func (s Store) statePath() string   { return filepath.Join(s.Dir(), "state.json") }

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
	inc := s.opt("default_include")
	if inc == "" {
		inc = "minion.d/*.conf"
	}
	return filepath.Join(dir, filepath.Dir(inc), "beacons.conf")
}

func (s Store) lock() (func(), error) {
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(s.Dir(), "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

func writeAtomic(path string, data []byte) error {
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Init makes beacons the running set (the daemon calls it at start with
// the options' beacons) and records the daemon's pid.
func (s Store) Init(beacons *value.Map) error {
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	if err := s.write(beacons); err != nil {
		return err
	}
	b, _ := json.Marshal(map[string]int{"pid": os.Getpid()})
	return writeAtomic(s.statePath(), b)
}

func (s Store) write(beacons *value.Map) error {
	if beacons == nil {
		beacons = value.NewMap(0)
	}
	return writeAtomic(s.currentPath(), []byte(value.ToJSON(beacons, value.JSONOptions{Indent: -1})))
}

// Current returns the options' beacons the daemon runs (empty when no
// daemon ever started).
func (s Store) Current() (*value.Map, error) {
	b, err := os.ReadFile(s.currentPath())
	if errors.Is(err, fs.ErrNotExist) {
		return value.NewMap(0), nil
	}
	if err != nil {
		return nil, err
	}
	v, err := value.FromJSON(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.currentPath(), err)
	}
	m, _ := v.(*value.Map)
	if m == nil {
		m = value.NewMap(0)
	}
	return m, nil
}

// Update changes the running beacons under the store's lock with f and
// returns them as f left them.
func (s Store) Update(f func(beacons *value.Map)) (*value.Map, error) {
	unlock, err := s.lock()
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
	if err != nil || json.Unmarshal(b, &st) != nil || st.PID <= 0 {
		return false
	}
	err = syscall.Kill(st.PID, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Stop records that the daemon no longer runs the beacons.
func (s Store) Stop() { _ = os.Remove(s.statePath()) }
