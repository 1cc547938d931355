// Package returners is Salt's returner system: a registry of returners
// (local_cache, syslog, rawfile_json, pgjsonb), each sending a job's return
// (Salt's returner(ret)) and, when it can, the master's events (Salt's
// event_return(events)) somewhere else than the master's job store.
//
// Minions run the returners a job names (`brine run --return NAME`, a
// schedule's returner, the minion option return) after the job, with the
// minion's options; the master runs its event_return returners on every
// event of the bus (EventQueue). Returners read their options as Salt's
// get_returner_options does (Options): `<returner>.<key>` or a
// `<returner>:` mapping in the options, grains or pillar,
// `<ret_config>.<returner>.<key>` with a job's ret_config, and a job's
// ret_kwargs over everything.
package returners

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// Returner is one returner.
type Returner struct {
	// Name is the returner's name (Salt's __virtualname__).
	Name string
	// Doc says in a line what the returner does.
	Doc string
	// Return sends one job return (a mapping shaped as Salt's ret: id,
	// jid, fun, fun_args, return, retcode, success, ...).
	Return func(cfg Config, ret *value.Map) error
	// EventReturn sends a batch of events, each {data, tag}; nil when the
	// returner takes no events.
	EventReturn func(cfg Config, events []*value.Map) error
}

// Config is where a returner reads its options: the options of the minion
// (or master) running it, and the grains and pillar config.option also
// reads.
type Config struct {
	Opts   *value.Map
	Grains *value.Map
	Pillar *value.Map
}

// option is Salt's config.option: the options, then the grains, then the
// pillar, then the pillar's master mapping.
func (c Config) option(key string) (any, bool) {
	for _, m := range []*value.Map{c.Opts, c.Grains, c.Pillar} {
		if m == nil {
			continue
		}
		if v, ok := m.Get(key); ok {
			return v, true
		}
	}
	if c.Pillar != nil {
		if mm, ok := c.Pillar.Get("master"); ok {
			if m, ok := mm.(*value.Map); ok {
				if v, ok := m.Get(key); ok {
					return v, true
				}
			}
		}
	}
	return nil, false
}

// optionMap is config.option(key, {}) read as a mapping.
func (c Config) optionMap(key string) *value.Map {
	v, _ := c.option(key)
	if m, ok := v.(*value.Map); ok {
		return m
	}
	return value.NewMap(0)
}

// Registry holds returners by name.
type Registry struct {
	mu sync.RWMutex
	m  map[string]*Returner
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{m: map[string]*Returner{}} }

// Default is the registry the returners of this package register in.
var Default = NewRegistry()

// Register adds r to the default registry (from init); a duplicate or
// malformed entry panics.
func Register(r *Returner) { Default.Register(r) }

// Register adds r; a duplicate or malformed entry panics.
func (g *Registry) Register(r *Returner) {
	if r == nil || r.Name == "" || strings.ContainsAny(r.Name, ".,/ ") || r.Return == nil {
		panic(fmt.Sprintf("returners: malformed returner %+v", r))
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, dup := g.m[r.Name]; dup {
		panic("returners: duplicate returner " + r.Name)
	}
	g.m[r.Name] = r
}

// Lookup returns the returner called name.
func (g *Registry) Lookup(name string) (*Returner, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	r, ok := g.m[name]
	return r, ok
}

// Names lists the registered returners, sorted.
func (g *Registry) Names() []string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := make([]string, 0, len(g.m))
	for n := range g.m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Lookup returns the returner called name in the default registry.
func Lookup(name string) (*Returner, bool) { return Default.Lookup(name) }

// Names lists the returners of the default registry.
func Names() []string { return Default.Names() }

// ErrUnknown is wrapped by the error for a returner that does not exist.
var ErrUnknown = errors.New("returner could not be loaded")

// Run sends ret to the returner called name of the default registry (what
// a minion does for each returner of a job, and the scheduler for a
// schedule's returner).
func Run(name string, ret *value.Map, cfg Config) error { return Default.Run(name, ret, cfg) }

// Run sends ret to the returner called name.
func (g *Registry) Run(name string, ret *value.Map, cfg Config) error {
	r, ok := g.Lookup(name)
	if !ok {
		return fmt.Errorf("%w: '%s.returner' is not available", ErrUnknown, name)
	}
	return r.Return(cfg, ret)
}

// RunAll sends ret to each returner of names, a comma-separated list
// (Salt's data["ret"]; each runs once), and returns the errors by name.
func (g *Registry) RunAll(names string, ret *value.Map, cfg Config) map[string]error {
	errs := map[string]error{}
	for _, n := range SplitNames(names) {
		if err := g.Run(n, ret, cfg); err != nil {
			errs[n] = err
		}
	}
	return errs
}

// SplitNames splits a comma-separated list of returners, dropping empty
// names and repeats.
func SplitNames(names string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range strings.Split(names, ",") {
		n = strings.TrimSpace(n)
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// NamesOf reads a returner option that Salt takes as a string or a list
// (return, event_return) as a list of names.
func NamesOf(v any) []string {
	switch x := v.(type) {
	case string:
		return SplitNames(x)
	case *value.List:
		var parts []string
		for _, it := range x.Items {
			parts = append(parts, value.Str(it))
		}
		return SplitNames(strings.Join(parts, ","))
	}
	return nil
}

// Load is the ret mapping a minion hands its returners for a job's return
// r (Salt's _thread_return): success, return, retcode, jid, fun,
// fun_args, user, out, then the job's ret_config and ret_kwargs and the
// minion id.
func Load(r proto.Return, spec proto.ReturnSpec, user string) *value.Map {
	ret := value.NewMap(10)
	ret.Set("success", r.Success)
	ret.Set("return", r.Return.V)
	ret.Set("retcode", int64(r.Retcode))
	ret.Set("jid", r.JID)
	ret.Set("fun", r.Fun)
	args := r.FunArgs.V
	if args == nil {
		args = value.NewList()
	}
	ret.Set("fun_args", args)
	if user != "" {
		ret.Set("user", user)
	}
	if r.Out != "" {
		ret.Set("out", r.Out)
	}
	if spec.RetConfig != "" {
		ret.Set("ret_config", spec.RetConfig)
	}
	if spec.RetKwargs != nil {
		ret.Set("ret_kwargs", spec.RetKwargs.V)
	}
	ret.Set("id", r.ID)
	return ret
}

// Options reads a returner's options as Salt's get_returner_options does
// with config.option: for each attribute (option name -> key), the value
// of `<virtualname>.<key>` or the key of a `<virtualname>` mapping, or,
// when ret names a ret_config ALT, of `ALT.<virtualname>.<key>` or the
// key of an `ALT.<virtualname>` mapping first; a false value falls back
// to defaults. The ret_kwargs of ret override the result. ret is nil for
// event returns.
func Options(cfg Config, virtualname string, ret *value.Map, attrs [][2]string, defaults map[string]any) *value.Map {
	retConfig := ""
	if ret != nil {
		if v, ok := ret.Get("ret_config"); ok && v != nil {
			retConfig = value.Str(v)
		}
	}
	out := value.NewMap(len(attrs))
	base := cfg.optionMap(virtualname)
	for _, a := range attrs {
		name, key := a[0], a[1]
		v := fetchOption(cfg, base, retConfig, virtualname, key)
		if value.Truthy(v) {
			out.Set(name, v)
			continue
		}
		if d, ok := defaults[name]; ok {
			out.Set(name, d)
		}
	}
	if ret != nil {
		if kw, ok := ret.Get("ret_kwargs"); ok {
			if m, ok := kw.(*value.Map); ok {
				m.Range(func(k, v any) bool {
					out.Set(value.Str(k), v)
					return true
				})
			}
		}
	}
	return out
}

func fetchOption(cfg Config, base *value.Map, retConfig, virtualname, key string) any {
	plain := func() any {
		if v, ok := base.Get(key); ok {
			return v
		}
		v, _ := cfg.option(virtualname + "." + key)
		return v
	}
	if retConfig == "" {
		return plain()
	}
	alt := cfg.optionMap(retConfig + "." + virtualname)
	v, ok := alt.Get(key)
	if !ok {
		v, _ = cfg.option(retConfig + "." + virtualname + "." + key)
	}
	if value.Truthy(v) {
		return v
	}
	return plain()
}

// pyJSON is Python's json.dumps(v) as salt.utils.json.dumps calls it
// (ensure_ascii off, the default separators).
func pyJSON(v any) string {
	return value.ToJSON(v, value.JSONOptions{Indent: -1})
}
