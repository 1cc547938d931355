package statemod

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"brine/internal/execmod"
	"brine/internal/value"
)

// Env is what a state function sees of the minion beyond its arguments:
// Salt's __opts__, __grains__, __pillar__, __salt__ and __context__ (all in
// Exec), plus storage shared by the states of one run.
type Env struct {
	// Exec is the execution-module context; state functions call
	// execution functions through it (Salt's __salt__).
	Exec *execmod.Context
	// Shared is per-run storage state modules use between calls (Salt's
	// accumulator files, for example). Keys are namespaced by the module
	// that uses them.
	Shared *Shared
}

// Shared is a concurrency-safe key/value store for one state run.
type Shared struct {
	mu sync.Mutex
	m  map[string]any
}

// NewShared returns an empty store.
func NewShared() *Shared { return &Shared{m: map[string]any{}} }

// Do runs f with exclusive access to the store's map.
func (s *Shared) Do(f func(m map[string]any)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.m)
}

// Call is one invocation of a state function.
type Call struct {
	// Ctx carries cancellation.
	Ctx context.Context
	// Fun is the function being called.
	Fun *Function
	// Args are the bound arguments (see Function.BindArgs).
	Args *value.Map
	// Low is the low chunk (read only, except for a mod_aggregate
	// function: it returns the chunk to run, changed, and may mark the
	// other chunks it folded into it with __agg__).
	Low *value.Map
	// Test is true in test mode (test=True, or the dry run of a prereq).
	Test bool
	// Saltenv is the chunk's environment (Salt's __env__).
	Saltenv string
	// Running is the running dictionary so far (read only) and Chunks the
	// whole low state (read only), Salt's __running__ and __lowstate__.
	Running *value.Map
	Chunks  []*value.Map
	// Reqs are the requisites that triggered a mod_watch call (Salt's
	// low["__reqs__"]), keyed by requisite kind.
	Reqs *value.Map
	// Env is the minion environment.
	Env *Env
	// Umask is the chunk's umask (-1 when unset).
	Umask int
}

// Name returns the "name" argument as a string.
func (c *Call) Name() string { return c.Str("name") }

// Get returns the argument k.
func (c *Call) Get(k string) any {
	v, _ := c.Args.Get(c.key(k))
	return v
}

// key returns k as an interface value, reusing the function's boxed
// parameter names so that lookups do not allocate.
func (c *Call) key(k string) any {
	if c.Fun != nil {
		c.Fun.isParam("")
		if i, ok := c.Fun.paramIdx[k]; ok {
			return c.Fun.paramKeys[i]
		}
	}
	return k
}

// Has reports whether the argument k is set and not None.
func (c *Call) Has(k string) bool {
	v, ok := c.Args.Get(c.key(k))
	return ok && v != nil
}

// Str returns the argument k as Python's str() would print it, "" for None
// or a missing argument.
func (c *Call) Str(k string) string {
	v, ok := c.Args.Get(c.key(k))
	if !ok || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return value.Str(v)
}

// Bool returns the Python truth of the argument k.
func (c *Call) Bool(k string) bool { return value.Truthy(c.Get(k)) }

// Int returns the argument k as an int (strings are parsed), or def.
func (c *Call) Int(k string, def int) int {
	switch x := c.Get(k).(type) {
	case int64:
		return int(x)
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return int(x)
	case string:
		if n, err := strconv.Atoi(x); err == nil {
			return n
		}
	}
	return def
}

// Salt calls an execution function (Salt's __salt__[fun](*args, **kwargs)).
func (c *Call) Salt(fun string, args []any, kwargs *value.Map) (any, error) {
	if c.Env == nil || c.Env.Exec == nil {
		return nil, &execmod.UnknownFunctionError{Name: fun}
	}
	return c.Env.Exec.Call(fun, args, kwargs)
}

// Opt returns the minion option k (nil when unset).
func (c *Call) Opt(k string) any {
	if c.Env == nil || c.Env.Exec == nil {
		return nil
	}
	v, _ := c.Env.Exec.Opts.Get(k)
	return v
}

// Ret starts a state return in Salt's usual key order:
// {"name": name, "changes": {}, "result": ..., "comment": ""}.
func Ret(name any, result any, comment string) *value.Map {
	return value.MapOf("name", name, "changes", value.NewMap(0), "result", result, "comment", comment)
}

// Tag returns the running-dictionary key of a low chunk,
// "state_|-id_|-name_|-fun" (Salt's _gen_tag).
func Tag(low *value.Map) string {
	var b strings.Builder
	for i, k := range [...]string{"state", "__id__", "name", "fun"} {
		if i > 0 {
			b.WriteString("_|-")
		}
		v, _ := low.Get(k)
		if s, ok := v.(string); ok {
			b.WriteString(s)
		} else {
			b.WriteString(value.Str(v))
		}
	}
	return b.String()
}

// TemplateService is the execmod service name under which the run attaches
// a TemplateRenderer (file.managed's template: jinja, cmd.script's
// template).
const TemplateService = "templates"

// TemplateRenderer renders a file template with Salt's template context
// (salt, grains, pillar, opts, plus context) for the given engine name
// ("jinja", "mako", ...). source is the file's salt:// URL or path, for
// messages and tpldir/tplfile.
type TemplateRenderer interface {
	RenderTemplate(engine, text string, context *value.Map, saltenv, source string) (string, error)
}

// ExtraKwargs returns deep copies of the call's arguments that are not
// parameters of the state function: what Salt passes on as **kwargs.
func (c *Call) ExtraKwargs() *value.Map {
	params := make(map[string]bool, len(c.Fun.Params))
	for _, p := range c.Fun.Params {
		params[p.Name] = true
	}
	kw := value.NewMap(c.Args.Len())
	c.Args.Range(func(k, v any) bool {
		if ks, _ := k.(string); !params[ks] {
			kw.Set(k, value.DeepCopy(v))
		}
		return true
	})
	return kw
}

// Grains returns the minion's grains (never nil).
func (c *Call) Grains() *value.Map {
	if c.Env != nil && c.Env.Exec != nil && c.Env.Exec.Grains != nil {
		return c.Env.Exec.Grains
	}
	return value.NewMap(0)
}

// Pillar returns the minion's pillar (never nil).
func (c *Call) Pillar() *value.Map {
	if c.Env != nil && c.Env.Exec != nil && c.Env.Exec.Pillar != nil {
		return c.Env.Exec.Pillar
	}
	return value.NewMap(0)
}
