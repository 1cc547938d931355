// Package grains collects the facts Salt calls grains about the machine a
// minion runs on, natively: file reads under /proc, /sys and /etc and
// netlink queries instead of the subprocesses salt/grains/core.py runs.
//
// Collect is the entry point of a run: the computed ("core") grains, then
// the static grains of the grains file next to the minion config, then the
// grains config key, each layer overriding the one before, as Salt's loader
// does. The computed part is collected once per process and copied out.
//
// SetVals and friends persist grains to the grains file the way Salt's
// grains.setval does.
package grains

import (
	"sort"
	"sync"

	"brine/internal/value"
)

// SaltVersion is the Salt release brine is compatible with, reported as the
// saltversion grain.
const SaltVersion = "3006.9"

// SaltVersionInfo is SaltVersion as Salt's __version_info__.
var SaltVersionInfo = []int64{3006, 9}

// PythonVersion is sys.version_info of the Python Salt 3006 runs on (the
// onedir build's 3.10), reported as the pythonversion grain so that
// templates comparing it keep working.
var PythonVersion = []any{int64(3), int64(10), int64(14), "final", int64(0)}

var (
	coreMu   sync.Mutex
	coreData *value.Map
)

// Core returns the computed grains for minion id: a fresh copy the caller
// may change. The machine is inspected once per process (until Refresh).
func Core(id string) *value.Map {
	coreMu.Lock()
	if coreData == nil {
		coreData = collect()
	}
	g := copyMap(coreData)
	coreMu.Unlock()
	g.Set("id", id)
	g.Set("server_id", ServerID(id))
	return sortedMap(g)
}

// Refresh drops the cached computed grains so that the next Core call
// inspects the machine again (Salt's saltutil.refresh_grains).
func Refresh() {
	coreMu.Lock()
	coreData = nil
	coreMu.Unlock()
}

// Collect returns the grains of a run for the minion options opts: Core of
// opts["id"], overridden by the grains file (StaticPath) and then by
// opts["grains"]. Problems reading the grains file are reported through
// the second result and leave the file's layer out, as Salt logs "Bad syntax
// in grains file! Skipping." and goes on.
func Collect(opts *value.Map) (*value.Map, error) {
	id := ""
	if v, ok := opts.Get("id"); ok {
		id, _ = v.(string)
	}
	g := Core(id)
	if CustomHook != nil {
		// custom grains go over the core ones; the grains file and
		// opts["grains"] still win over them
		if c := CustomHook(opts, g); c != nil {
			g.Update(c)
		}
	}
	var ferr error
	if path := StaticPath(opts); path != "" {
		static, err := ReadStatic(path)
		if err != nil {
			ferr = err
		} else if static != nil {
			g.Update(static)
		}
	}
	if v, ok := opts.Get("grains"); ok {
		if m, ok := v.(*value.Map); ok {
			g.Update(m)
		}
	}
	if _, ok := g.Get("master"); !ok {
		if v, ok := opts.Get("master"); ok {
			g.Set("master", v)
		}
	}
	return g, ferr
}

// CustomHook, when set (by the package that runs Salt's custom grain
// modules), returns the custom grains of the minion given its options and
// core grains, or nil when there are none.
var CustomHook func(opts, core *value.Map) *value.Map

// ReleaseHook, when set, ends what collecting the custom grains kept for
// the run that follows (the Python worker that ran them).
var ReleaseHook func()

// Release ends what Collect kept for a run in this process: a process that
// starts no run after collecting (a minion daemon whose jobs run in
// processes of their own) calls it.
func Release() {
	if ReleaseHook != nil {
		ReleaseHook()
	}
}

// Merge returns core with static grains set over it (Salt's
// grains.update(opts["grains"])).
func Merge(core, static *value.Map) *value.Map {
	g := core.Copy()
	g.Update(static)
	return g
}

// copyMap deep-copies m so callers can change nested grains freely.
func copyMap(m *value.Map) *value.Map {
	return value.DeepCopy(m).(*value.Map)
}

// sortedMap returns m with its keys in sorted order (grains have no
// meaningful order; sorted keys keep output stable).
func sortedMap(m *value.Map) *value.Map {
	keys := make([]string, 0, m.Len())
	vals := make(map[string]any, m.Len())
	m.Range(func(k, v any) bool {
		s, _ := k.(string)
		keys = append(keys, s)
		vals[s] = v
		return true
	})
	sort.Strings(keys)
	out := value.NewMap(len(keys))
	for _, k := range keys {
		out.Set(k, vals[k])
	}
	return out
}

// ints converts Go ints to a value list of int64.
func ints(xs ...int64) *value.List {
	l := value.NewList()
	for _, x := range xs {
		l.Append(x)
	}
	return l
}

// strList converts strings to a value list.
func strList(xs []string) *value.List {
	items := make([]any, len(xs))
	for i, x := range xs {
		items[i] = x
	}
	return value.NewList(items...)
}

// collect inspects the machine.
func collect() *value.Map {
	g := value.NewMap(96)
	sysd := startSystemd()
	osGrains(g)
	hwGrains(g)
	netGrains(g)
	processGrains(g)
	extraGrains(g)
	psGrain(g)
	zfsGrains(g)
	if s := sysd(); s != nil {
		g.Set("systemd", s)
	}
	return g
}
