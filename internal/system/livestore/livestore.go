// Package livestore keeps what a minion daemon shares with the execution
// functions of its job processes (the running schedule, the running
// beacons): JSON files in one directory under the cachedir, changed under
// an flock, each replaced whole (a reader sees the old file or the new
// one). Salt keeps these in the daemon's memory and changes them through
// events on the minion's bus.
package livestore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"brine/internal/value"
)

// Dir is the store's directory.
type Dir string

// Path is the file name in the store.
func (d Dir) Path(name string) string { return filepath.Join(string(d), name) }

// Lock takes the store's lock (flock on its "lock" file, creating the
// directory) and returns its release.
func (d Dir) Lock() (func(), error) {
	if err := os.MkdirAll(string(d), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(d.Path("lock"), os.O_CREATE|os.O_RDWR, 0o600)
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

// ReadMap reads the mapping stored as JSON in name; found is false (and
// the mapping empty) when there is no such file.
func (d Dir) ReadMap(name string) (m *value.Map, found bool, err error) {
	b, err := os.ReadFile(d.Path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return value.NewMap(0), false, nil
	}
	if err != nil {
		return nil, false, err
	}
	v, err := value.FromJSON(b)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", d.Path(name), err)
	}
	m, _ = v.(*value.Map)
	if m == nil {
		m = value.NewMap(0)
	}
	return m, true, nil
}

// WriteMap stores m (nil: an empty mapping) as JSON in name.
func (d Dir) WriteMap(name string, m *value.Map) error {
	if m == nil {
		m = value.NewMap(0)
	}
	return WriteFile(d.Path(name), []byte(value.ToJSON(m, value.JSONOptions{Indent: -1})), 0o600)
}

// WriteFile replaces path with data (mode for a new file), creating its
// directory, through a temporary file renamed over it.
func WriteFile(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Alive reports whether a process of that id runs (EPERM: it runs as
// another user).
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// IncludeDir is the directory Salt writes a minion's saved settings to
// (_schedule.conf, beacons.conf): default_include's directory beside the
// config file dir.
func IncludeDir(confDir string, opts *value.Map) string {
	inc := Opt(opts, "default_include")
	if inc == "" {
		inc = "minion.d/*.conf"
	}
	return filepath.Join(confDir, filepath.Dir(inc))
}

// Opt is the option k as a string ("" when unset or None).
func Opt(opts *value.Map, k string) string {
	v, _ := opts.Get(k)
	if v == nil {
		return ""
	}
	return value.Str(v)
}
