// Package beacons is Salt's beacon system (salt/beacons): the registry
// of beacon modules, the engine a minion daemon runs every loop_interval
// to turn their readings into salt/beacon/<id>/<name>/<tag> events, and
// the store the daemon and the beacons.* execution functions share.
//
// A beacon module registers itself in init() from a file of its own
// (diskusage.go <-> salt/beacons/diskusage.py). A Module is stateful as
// Salt's module globals are (a load beacon's last averages, an inotify
// beacon's watches): the engine makes one per module name and keeps it.
package beacons

import (
	"fmt"
	"log/slog"
	"sort"
	"sync"

	"brine/internal/value"
)

// Module is one beacon module: Salt's validate and beacon functions.
type Module interface {
	// Validate checks a beacon's configuration (a list of mappings, as
	// written under the beacon's name) and says why it is not valid.
	Validate(config any) (bool, string)
	// Beacon reads the system once and returns the events to fire: each
	// mapping's "tag" (when set) is appended to the beacon's tag.
	Beacon(ctx *Context, config any) ([]*value.Map, error)
}

// Closer is a Module with resources to release while a state run
// disables it (disable_during_state_run), as Salt's close functions.
type Closer interface {
	Close(config any)
}

// Context is what a beacon reads besides its configuration.
type Context struct {
	ID     string     // the minion id
	Grains *value.Map // the minion's grains
	Opts   *value.Map // the minion options
	// Call runs an execution function (Salt's __salt__), for beacons
	// reading through one (service.status).
	Call func(fun string, args []any, kwargs *value.Map) (any, error)
	Log  *slog.Logger
}

// Virtual is a Module that exists only on some systems (Salt's
// __virtual__): wtmp where /var/log/wtmp is.
type Virtual interface {
	Virtual() (bool, string)
}

var (
	regMu    sync.RWMutex
	registry = map[string]func() Module{}
)

// Register adds the beacon module name; new makes a fresh instance. A
// duplicate name panics.
func Register(name string, new func() Module) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[name]; dup || name == "" {
		panic(fmt.Sprintf("beacons: duplicate or empty beacon module %q", name))
	}
	registry[name] = new
}

// Available lists the beacon modules this system has, sorted (Salt's
// list_available on a minion).
func Available() []string {
	regMu.RLock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	regMu.RUnlock()
	sort.Strings(names)
	out := names[:0]
	for _, n := range names {
		if _, ok := New(n); ok {
			out = append(out, n)
		}
	}
	return out
}

// New returns a fresh instance of the beacon module name; false when
// there is none, or none on this system.
func New(name string) (Module, bool) {
	regMu.RLock()
	f, ok := registry[name]
	regMu.RUnlock()
	if !ok {
		return nil, false
	}
	m := f()
	if v, ok := m.(Virtual); ok {
		if on, _ := v.Virtual(); !on {
			return nil, false
		}
	}
	return m, true
}

// Validate runs the validate of the module a beacon named name would
// use (its beacon_module, else name), as the minion's validate_beacon
// does for beacons.add and beacons.modify.
func Validate(name string, data any) (bool, string) {
	mod := name
	if l, ok := data.(*value.List); ok {
		for _, it := range l.Items {
			if m, ok := it.(*value.Map); ok {
				if bm, ok := m.Get("beacon_module"); ok {
					mod = value.Str(bm)
				}
				break
			}
		}
	}
	m, ok := New(mod)
	if !ok {
		return true, fmt.Sprintf("Beacon %s does not have a validate function, skipping validation.", mod)
	}
	return m.Validate(data)
}

// ListToDict merges a list of mappings into one (Salt's
// salt.utils.beacons.list_to_dict); items that are not mappings are
// skipped.
func ListToDict(config any) *value.Map {
	out := value.NewMap(0)
	switch c := config.(type) {
	case *value.List:
		for _, it := range c.Items {
			if m, ok := it.(*value.Map); ok {
				m.Range(func(k, v any) bool {
					out.Set(k, v)
					return true
				})
			}
		}
	case *value.Map:
		return c
	}
	return out
}

// isList reports whether config is a list (Python's isinstance list).
func isList(config any) bool {
	_, ok := config.(*value.List)
	return ok
}

// Merged is the beacons the minion runs: config.merge("beacons") over the
// options' beacons, the master's (pillar "master") and the pillar's; on
// a name in several, the options win over the master, the master over
// the pillar.
func Merged(opts, pillar *value.Map) *value.Map {
	ret := value.NewMap(0)
	if opts != nil {
		ret = opts.Copy()
	}
	layer := func(tmp *value.Map) {
		if tmp == nil {
			return
		}
		m := tmp.Copy()
		ret.Range(func(k, v any) bool {
			m.Set(k, v)
			return true
		})
		ret = m
	}
	if pillar != nil {
		if master, ok := pillar.Get("master"); ok {
			if mm, ok := master.(*value.Map); ok {
				if b, ok := mm.Get("beacons"); ok {
					bm, _ := b.(*value.Map)
					layer(bm)
				}
			}
		}
		if b, ok := pillar.Get("beacons"); ok {
			bm, _ := b.(*value.Map)
			layer(bm)
		}
	}
	return ret
}

// SetEnabled sets a beacon's enabled (Salt's _update_enabled): the key of
// a mapping configuration, else the list item holding "enabled", else a
// new {"enabled": v} item at the end.
func SetEnabled(beacons *value.Map, name string, enabled bool) {
	cfg, _ := beacons.Get(name)
	switch c := cfg.(type) {
	case *value.Map:
		c.Set("enabled", enabled)
	case *value.List:
		for _, it := range c.Items {
			if m, ok := it.(*value.Map); ok && m.Has("enabled") {
				m.Set("enabled", enabled)
				return
			}
		}
		c.Append(value.MapOf("enabled", enabled))
	default:
		beacons.Set(name, value.NewList(value.MapOf("enabled", enabled)))
	}
}
