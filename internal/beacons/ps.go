package beacons

// ps.go is salt/beacons/ps.py: an event for each configured process
// that is running (or stopped) as the configuration says to report.

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"brine/internal/value"
)

func init() { Register("ps", func() Module { return ps{} }) }

type ps struct{}

func (ps) Validate(config any) (bool, string) {
	if !isList(config) {
		return false, "Configuration for ps beacon must be a list."
	}
	c := ListToDict(config)
	p, ok := c.Get("processes")
	if !ok {
		return false, "Configuration for ps beacon requires processes."
	}
	if _, ok := p.(*value.Map); !ok {
		return false, "Processes for ps beacon must be a dictionary."
	}
	return true, "Valid beacon configuration"
}

func (ps) Beacon(_ *Context, config any) ([]*value.Map, error) {
	names, err := processNames()
	if err != nil {
		return nil, err
	}
	procs, _ := mustGet(ListToDict(config), "processes").(*value.Map)
	var ret []*value.Map
	procs.Range(func(k, v any) bool {
		name := value.Str(k)
		switch v {
		case "running":
			if names[name] {
				ret = append(ret, value.MapOf(name, "Running"))
			}
		case "stopped":
			if !names[name] {
				ret = append(ret, value.MapOf(name, "Stopped"))
			}
		default:
			if !names[name] {
				ret = append(ret, value.MapOf(name, false))
			}
		}
		return true
	})
	return ret, nil
}

// processNames is the set of the names of the running processes, as
// psutil's Process.name() gives them on Linux: the kernel's comm, or
// the command's base name when comm is its truncated start.
func processNames() (map[string]bool, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if n, ok := processName(filepath.Join("/proc", e.Name())); ok {
			out[n] = true
		}
	}
	return out, nil
}

func processName(dir string) (string, bool) {
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return "", false
	}
	s := string(stat)
	i, j := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if i < 0 || j < i {
		return "", false
	}
	name := s[i+1 : j]
	if len(name) >= 15 {
		if cl, err := os.ReadFile(filepath.Join(dir, "cmdline")); err == nil && len(cl) > 0 {
			argv0, _, _ := strings.Cut(string(cl), "\x00")
			if ext := filepath.Base(argv0); strings.HasPrefix(ext, name) {
				name = ext
			}
		}
	}
	return name, true
}
