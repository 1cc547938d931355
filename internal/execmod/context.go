package execmod

import (
	"fmt"
	"sort"

	"brine/internal/render"
	"brine/internal/value"
)

// Context is the per-run data an execution function sees: Salt's __opts__,
// __grains__, __pillar__, __salt__ (through Call) and __context__.
// One Context serves one salt-call invocation (or one minion job).
type Context struct {
	Opts      *value.Map // __opts__, every minion option (never nil in a run)
	Grains    *value.Map // __grains__
	Pillar    *value.Map // __pillar__ as compiled at start-up
	Saltenv   string     // saltenv of the call ("" means unset: use opts)
	Pillarenv string     // pillarenv of the call ("" means unset)
	Test      bool       // opts["test"]

	// Registry resolves the names given to Call; nil means Default.
	Registry *Registry

	// Files reads salt:// files; nil when the run has no file server.
	Files FileSource

	// Renderers is the run's renderer registry for templates rendered
	// through RenderContext; nil means render.Default.
	Renderers *render.Registry

	// Values is Salt's __context__: a per-run scratch space modules share
	// (caches, flags). Keys should be prefixed with the module name.
	Values map[string]any

	retcode  int
	services map[string]any
	forked   []any // the services Fork made for this context
}

// FileSource reads files of the Salt file server.
type FileSource interface {
	// ReadFile returns the content of path (relative to the file roots of
	// saltenv, without "salt://") and the local path it stands for (Salt's
	// cached copy, used for tplpath and error messages). A missing file is
	// an error wrapping fs.ErrNotExist.
	ReadFile(saltenv, path string) (data []byte, local string, err error)
}

// NewContext returns a Context with empty opts, grains and pillar using the
// Default registry.
func NewContext() *Context {
	return &Context{
		Opts:     value.NewMap(0),
		Grains:   value.NewMap(0),
		Pillar:   value.NewMap(0),
		Registry: Default,
		Values:   map[string]any{},
	}
}

func (c *Context) registry() *Registry {
	if c.Registry == nil {
		return Default
	}
	return c.Registry
}

// Lookup finds a function in the context's registry.
func (c *Context) Lookup(name string) (Func, bool) { return c.registry().Lookup(name) }

// Call runs the function name with args and kwargs (kwargs may be nil).
// An unknown name is an *UnknownFunctionError.
func (c *Context) Call(name string, args []any, kwargs *value.Map) (any, error) {
	f, ok := c.registry().Lookup(name)
	if !ok {
		return nil, c.registry().Unknown(name)
	}
	if kwargs == nil {
		kwargs = value.NewMap(0)
	}
	return f(c, args, kwargs)
}

// Callable binds the function name to this context as a value.Callable, the
// form templates call (salt['pillar.get'](...)). Keyword arguments whose
// names start with "__" (Salt's __pub_* data) are dropped.
func (c *Context) Callable(name string) (value.Callable, bool) {
	f, ok := c.registry().Lookup(name)
	if !ok {
		return nil, false
	}
	return value.Func(func(args []any, kwargs *value.Map) (any, error) {
		if kwargs == nil {
			kwargs = value.NewMap(0)
		}
		return f(c, args, kwargs)
	}), true
}

// SetRetcode sets Salt's __context__["retcode"]: the exit status salt-call
// reports for this run.
func (c *Context) SetRetcode(rc int) { c.retcode = rc }

// Retcode returns the code set by SetRetcode (0 when none was set).
func (c *Context) Retcode() int { return c.retcode }

// SetService attaches a run-wide service under name (for example the
// highstate layer's compiler). Consumers find it with Service and assert
// the small interface they need.
func (c *Context) SetService(name string, s any) {
	if c.services == nil {
		c.services = map[string]any{}
	}
	c.services[name] = s
}

// Service returns the service attached under name, or nil.
func (c *Context) Service(name string) any { return c.services[name] }

// SaltenvOr returns the call's saltenv, else opts["saltenv"], else def.
func (c *Context) SaltenvOr(def string) string {
	if c.Saltenv != "" {
		return c.Saltenv
	}
	if v, ok := c.Opts.GetString("saltenv"); ok {
		if s, ok := v.(string); ok && s != "" {
			return s
		}
	}
	return def
}

// Setup is a run initializer: after the command line has built a Context
// (options, grains), each Setup registered with RegisterSetup runs in
// ascending Order (then name order), e.g. the pillar package compiling
// ctx.Pillar. An error aborts the run.
type Setup struct {
	Name  string
	Order int
	Run   func(ctx *Context) error
}

var setups []Setup

// RegisterSetup adds a run initializer (call from init()). It panics on a
// duplicate name.
func RegisterSetup(name string, order int, run func(ctx *Context) error) {
	for _, s := range setups {
		if s.Name == name {
			panic(fmt.Sprintf("execmod: duplicate setup %q", name))
		}
	}
	setups = append(setups, Setup{Name: name, Order: order, Run: run})
	sort.SliceStable(setups, func(i, j int) bool {
		if setups[i].Order != setups[j].Order {
			return setups[i].Order < setups[j].Order
		}
		return setups[i].Name < setups[j].Name
	})
}

// Setups returns the registered run initializers in run order.
func Setups() []Setup { return append([]Setup(nil), setups...) }

// RunSetups runs every registered initializer on ctx.
func RunSetups(ctx *Context) error {
	for _, s := range setups {
		if err := s.Run(ctx); err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	return nil
}

// Forkable is a service holding resources of one process (Salt's
// per-process state, such as a Python interpreter). Fork gives a forked
// context its own: it returns the service the fork uses, started lazily.
type Forkable interface {
	Fork(forked *Context) any
}

// Releaser is a service that a forked context releases when it ends.
type Releaser interface {
	Release()
}

// Fork returns a copy of c for a state that runs beside the rest of the
// run (parallel: True, for which Salt forks a process): the same options,
// data and registries, a fresh __context__, and services of its own where
// they are Forkable (the others are shared). Call Release on the copy
// when it ends.
func (c *Context) Fork() *Context {
	f := *c
	f.Values = map[string]any{}
	f.services = make(map[string]any, len(c.services))
	for name, s := range c.services {
		f.services[name] = s
	}
	f.forked = nil
	for name, s := range c.services {
		if fk, ok := s.(Forkable); ok {
			fs := fk.Fork(&f)
			f.services[name] = fs
			f.forked = append(f.forked, fs)
		}
	}
	return &f
}

// Release ends the services that Fork gave c.
func (c *Context) Release() {
	for _, s := range c.forked {
		if r, ok := s.(Releaser); ok {
			r.Release()
		}
	}
}
