package beacons

import (
	"fmt"
	"log/slog"
	"regexp"
	"strings"

	"brine/internal/pyops"
	"brine/internal/value"
)

// Event is one reading to fire: Salt's {"tag", "data", "beacon_name"}
// entries (with "error" when the beacon failed, fired with empty data).
type Event struct {
	Tag        string
	Data       *value.Map
	BeaconName string
	Error      string
}

// Engine is Salt's Beacon class for one minion: it keeps the module
// instances and the interval counters between loops.
type Engine struct {
	ID           string
	LoopInterval float64 // seconds (the loop_interval option)
	Opts         *value.Map
	// Running lists the functions of the jobs running on the minion
	// (for disable_during_state_run); nil means none.
	Running func() []string
	Call    func(fun string, args []any, kwargs *value.Map) (any, error)
	Log     *slog.Logger

	mods      map[string]Module
	intervals map[string]int
}

var stateFun = regexp.MustCompile(`^state.*`)

func (e *Engine) log() *slog.Logger {
	if e.Log == nil {
		return slog.Default()
	}
	return e.Log
}

func (e *Engine) module(name string) (Module, bool) {
	if m, ok := e.mods[name]; ok {
		return m, true
	}
	m, ok := New(name)
	if !ok {
		return nil, false
	}
	if e.mods == nil {
		e.mods = map[string]Module{}
	}
	e.mods[name] = m
	return m, true
}

// Close releases the modules' resources (inotify watches).
func (e *Engine) Close() {
	for _, m := range e.mods {
		if c, ok := m.(Closer); ok {
			c.Close(nil)
		}
	}
	e.mods = nil
}

// configDict is a beacon's configuration as one mapping (a list's items
// merged), nil when it is neither a list nor a mapping.
func configDict(cfg any) *value.Map {
	switch c := cfg.(type) {
	case *value.List:
		return ListToDict(c)
	case *value.Map:
		return c
	}
	return nil
}

// trim removes key from a beacon's configuration: the first list item
// holding it, or the mapping's key.
func trim(cfg any, key string) {
	switch c := cfg.(type) {
	case *value.List:
		for i, it := range c.Items {
			if m, ok := it.(*value.Map); ok && m.Has(key) {
				c.Items = append(c.Items[:i:i], c.Items[i+1:]...)
				return
			}
		}
	case *value.Map:
		c.Delete(key)
	}
}

// Process runs the beacons of config (the merged beacons option) once,
// as Salt's Beacon.process: it returns the events to fire and the names
// of the run_once beacons that fired, which the caller disables.
func (e *Engine) Process(config, grains *value.Map) (evs []Event, runOnce []string) {
	if config == nil {
		return nil, nil
	}
	if en, ok := config.Get("enabled"); ok && !value.Truthy(en) {
		return nil, nil
	}
	bconfig := value.DeepCopy(config).(*value.Map)
	for _, k := range config.Keys() {
		mod := value.Str(k)
		if mod == "enabled" {
			continue
		}
		raw, _ := config.Get(k)
		cur := configDict(raw)
		if cur == nil {
			e.log().Error("The beacon errored: configuration must be a list or a dictionary", "beacon", mod)
			return evs, runOnce
		}
		if en, ok := cur.Get("enabled"); ok && !value.Truthy(en) {
			continue
		}
		name := mod
		if bm, ok := cur.Get("beacon_module"); ok && value.Truthy(bm) {
			name = value.Str(bm)
		}
		bcfg, _ := bconfig.Get(k)
		m, ok := e.module(name)
		if !ok {
			e.log().Warn(fmt.Sprintf("No validate function found for %s, running basic beacon validation.", mod))
			if !isList(bcfg) {
				e.log().Error("Configuration for beacon must be a list.")
				continue
			}
			e.log().Warn("Unable to process beacon " + mod)
			continue
		}
		if valid, comment := m.Validate(bcfg); !valid {
			e.log().Error(fmt.Sprintf("Beacon %s configuration invalid, not running.\n%s", mod, comment))
			continue
		}
		once := value.Truthy(mustGet(cur, "run_once"))
		if iv := mustGet(cur, "interval"); value.Truthy(iv) {
			trim(bcfg, "interval")
			if !e.due(mod, iv) {
				continue
			}
		}
		if value.Truthy(mustGet(cur, "disable_during_state_run")) {
			trim(bcfg, "disable_during_state_run")
			if e.stateRunning() {
				if c, ok := m.(Closer); ok {
					e.log().Info(fmt.Sprintf("Closing beacon %s. State run in progress.", mod))
					c.Close(bcfg)
				} else {
					e.log().Info(fmt.Sprintf("Skipping beacon %s. State run in progress.", mod))
				}
				continue
			}
		}
		ctx := &Context{ID: e.ID, Grains: grains, Opts: e.Opts, Call: e.Call, Log: e.log()}
		prefix := "salt/beacon/" + e.ID + "/" + mod + "/"
		data, err := safeBeacon(m, ctx, bcfg)
		if err != nil {
			e.log().Error(fmt.Sprintf("Unable to start %s beacon, %s", mod, err))
			evs = append(evs, Event{Tag: prefix, Data: value.NewMap(0), BeaconName: name, Error: err.Error()})
			continue
		}
		for _, d := range data {
			tag := prefix
			if t, ok := d.Delete("tag"); ok {
				tag += value.Str(t)
			}
			if !d.Has("id") {
				d.Set("id", e.ID)
			}
			evs = append(evs, Event{Tag: tag, Data: d, BeaconName: name})
		}
		if once {
			runOnce = append(runOnce, mod)
		}
	}
	return evs, runOnce
}

// safeBeacon runs a beacon, turning a panic into its error.
func safeBeacon(m Module, ctx *Context, cfg any) (out []*value.Map, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return m.Beacon(ctx, cfg)
}

// due counts the loops of a beacon with an interval: true once every
// interval seconds (Salt's _process_interval: never on the first loop).
func (e *Engine) due(mod string, interval any) bool {
	if e.intervals == nil {
		e.intervals = map[string]int{}
	}
	loop := e.LoopInterval
	if loop <= 0 {
		loop = 1
	}
	iv, err := pyops.Float(interval)
	if err != nil {
		e.log().Error("beacon interval is not a number", "beacon", mod, "interval", interval)
		return false
	}
	n, seen := e.intervals[mod]
	if !seen {
		e.intervals[mod] = 1
		return false
	}
	if float64(n)*loop >= iv {
		e.intervals[mod] = 1
		return true
	}
	e.intervals[mod]++
	return false
}

func (e *Engine) stateRunning() bool {
	if e.Running == nil {
		return false
	}
	for _, f := range e.Running() {
		if stateFun.MatchString(f) {
			return true
		}
	}
	return false
}

func mustGet(m *value.Map, k string) any {
	if m == nil {
		return nil
	}
	v, _ := m.Get(k)
	return v
}

// pyBool is Python's isinstance(v, bool).
func pyBool(v any) bool {
	_, ok := v.(bool)
	return ok
}

// hasAny reports whether m has one of keys.
func hasAny(m *value.Map, keys ...string) bool {
	for _, k := range keys {
		if m.Has(k) {
			return true
		}
	}
	return false
}

// percentFloat is a threshold as Salt reads it: "80%" or 80.
func percentFloat(v any) (float64, error) {
	if s, ok := v.(string); ok && strings.Contains(s, "%") {
		v = strings.ReplaceAll(s, "%", "")
	}
	return pyops.Float(v)
}
