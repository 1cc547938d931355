package execmod

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

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

	cache    *Cache // Salt's __context__, through Cache
	retcode  int64  // atomic: templates rendered concurrently may set it
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
		cache:    &Cache{},
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
func (c *Context) SetRetcode(rc int) { atomic.StoreInt64(&c.retcode, int64(rc)) }

// Retcode returns the code set by SetRetcode (0 when none was set).
func (c *Context) Retcode() int { return int(atomic.LoadInt64(&c.retcode)) }

// SetService attaches a run-wide service under name (for example the
// highstate layer's compiler). Consumers find it with Service and assert
// the small interface they need.
func (c *Context) SetService(name string, s any) {
	servicesMu.Lock()
	defer servicesMu.Unlock()
	if c.services == nil {
		c.services = map[string]any{}
	}
	c.services[name] = s
}

// Service returns the service attached under name, or nil.
func (c *Context) Service(name string) any {
	servicesMu.RLock()
	defer servicesMu.RUnlock()
	return c.services[name]
}

// servicesMu guards the services of every Context: a service may be
// started lazily by a function called from a template while other
// templates render on other goroutines.
var servicesMu sync.RWMutex

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
	servicesMu.RLock()
	f := *c
	f.cache = &Cache{}
	f.services = make(map[string]any, len(c.services))
	for name, s := range c.services {
		f.services[name] = s
	}
	servicesMu.RUnlock()
	f.forked = nil
	for name, s := range f.services {
		if fk, ok := s.(Forkable); ok {
			fs := fk.Fork(&f)
			f.SetService(name, fs)
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

// Cache is Salt's __context__: a per-run scratch space modules share
// (caches, flags), safe for concurrent use (templates rendered on several
// goroutines call execution functions). Keys should be prefixed with the
// module name. Values stored are shared, not copied: store values that
// are not changed afterwards, or guard them.
type Cache struct {
	mu sync.Mutex
	m  map[string]any
}

// Load returns the value stored under key and whether there is one.
func (c *Cache) Load(key string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	return v, ok
}

// Get returns the value stored under key, or nil: the one-line form for
// a type assertion (v, ok := ctx.Cache().Get("mod.key").(string)).
func (c *Cache) Get(key string) any {
	v, _ := c.Load(key)
	return v
}

// Store sets the value of key.
func (c *Cache) Store(key string, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]any{}
	}
	c.m[key] = v
}

// Delete removes key.
func (c *Cache) Delete(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, key)
}

// LoadOrStore returns the value stored under key (loaded true), else
// stores v and returns it (loaded false).
func (c *Cache) LoadOrStore(key string, v any) (actual any, loaded bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[key]; ok {
		return old, true
	}
	if c.m == nil {
		c.m = map[string]any{}
	}
	c.m[key] = v
	return v, false
}

// cacheInit guards the lazy creation of a Context's Cache (a Context
// built without NewContext has none yet).
var cacheInit sync.Mutex

// Cache returns the context's __context__.
func (c *Context) Cache() *Cache {
	cacheInit.Lock()
	defer cacheInit.Unlock()
	if c.cache == nil {
		c.cache = &Cache{}
	}
	return c.cache
}

// NewCache gives c an empty __context__ of its own: for a copy of a
// context (ctx2 := *ctx) that must not share the original's.
func (c *Context) NewCache() {
	cacheInit.Lock()
	defer cacheInit.Unlock()
	c.cache = &Cache{}
}
