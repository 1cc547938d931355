// Package runners is Salt's runner system (salt-run): functions that run on
// the master, with the master's options and an administrative connection
// to it, registered by name ("manage.up", "jobs.lookup_jid",
// "state.orchestrate") the way execution functions are in execmod.
//
// One file per Salt runner module (manage.go <-> salt/runners/manage.py).
// A runner that needs the master's NATS server asks Context.Client for it;
// the connection is made on first use, so a runner that only reads the
// master's files (fileserver.file_list) works without a running master.
package runners

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"brine/internal/diag"
	"brine/internal/fleet/client"
	"brine/internal/match"
	"brine/internal/value"
)

// Func is one runner function: args and kwargs are typed as salt-run
// types its command line.
type Func func(c *Context, args []any, kwargs *value.Map) (any, error)

// Entry is a registered runner function with its documentation.
type Entry struct {
	Name string // "mod.fun"
	Func Func
	Doc  string
}

// Registry maps dotted names to runner functions.
type Registry struct{ entries map[string]*Entry }

// NewRegistry returns an empty registry (tests build their own).
func NewRegistry() *Registry { return &Registry{entries: map[string]*Entry{}} }

// Default is the registry the runner modules of this package fill in init.
var Default = NewRegistry()

// Register adds f to Default; see Registry.Register.
func Register(name string, f Func, doc string) { Default.Register(name, f, doc) }

// Register adds f under name. It panics on a malformed or duplicate name,
// a nil function or a missing doc (programming errors).
func (r *Registry) Register(name string, f Func, doc string) {
	mod, fun, ok := strings.Cut(name, ".")
	if !ok || mod == "" || fun == "" || strings.ContainsAny(name, " \t\n") {
		panic(fmt.Sprintf("runners: malformed runner name %q (want mod.fun)", name))
	}
	if f == nil || doc == "" {
		panic(fmt.Sprintf("runners: %q needs a function and its doc", name))
	}
	if _, dup := r.entries[name]; dup {
		panic(fmt.Sprintf("runners: duplicate runner %q", name))
	}
	r.entries[name] = &Entry{Name: name, Func: f, Doc: doc}
}

// Lookup returns the entry of name.
func (r *Registry) Lookup(name string) (*Entry, bool) {
	e, ok := r.entries[name]
	return e, ok
}

// Names returns every registered name, sorted.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.entries))
	for n := range r.entries {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Docs returns the documentation of the functions whose names match the
// glob pattern, as salt-run --doc and its unknown-function fallback list
// them.
func (r *Registry) Docs(pattern string) *value.Map {
	out := value.NewMap(0)
	for _, n := range r.Names() {
		if match.Fnmatch(n, pattern) {
			out.Set(n, r.entries[n].Doc)
		}
	}
	return out
}

// Suggest returns the registered name closest to name, or "" when none is
// close enough to be a plausible typo.
func (r *Registry) Suggest(name string) string {
	best, bestD := "", len(name)/3+2
	for _, n := range r.Names() {
		if d := diag.EditDistance(name, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// MissingFunString is Salt's message for an unknown runner function (the
// loader's missing_fun_string).
func MissingFunString(name string) string { return fmt.Sprintf("'%s' is not available.", name) }

// Context is what a runner function sees: Salt's __opts__ (the master's
// options), the master connection, the registries and where a runner
// prints (Salt runners print progress to stdout).
type Context struct {
	Ctx      context.Context
	Opts     *value.Map
	Registry *Registry
	User     string
	Stdout   io.Writer

	// Dial makes the administrative connection; nil means client.Dial.
	Dial func(opts *value.Map) (*client.Client, error)

	mu   sync.Mutex
	conn *client.Client
}

// NewContext returns a context for the master options opts with the
// Default registry.
func NewContext(ctx context.Context, opts *value.Map) *Context {
	return &Context{Ctx: ctx, Opts: opts, Registry: Default, Stdout: io.Discard}
}

// Client returns the administrative connection to the master, dialled on
// first use.
func (c *Context) Client() (*client.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		return c.conn, nil
	}
	dial := c.Dial
	if dial == nil {
		dial = client.Dial
	}
	conn, err := dial(c.Opts)
	if err != nil {
		return nil, err
	}
	c.conn = conn
	return conn, nil
}

// Close closes the connection, if one was made.
func (c *Context) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}

func (c *Context) registry() *Registry {
	if c.Registry == nil {
		return Default
	}
	return c.Registry
}

// Call runs the runner function name (Salt's saltutil.runner from a
// runner or an orchestration step). An unknown name is an error with
// Salt's message.
func (c *Context) Call(name string, args []any, kwargs *value.Map) (any, error) {
	e, ok := c.registry().Lookup(name)
	if !ok {
		return nil, &UnknownError{Name: name, Suggestion: c.registry().Suggest(name)}
	}
	if kwargs == nil {
		kwargs = value.NewMap(0)
	}
	return e.Func(c, args, kwargs)
}

// UnknownError is a call of an unregistered runner function.
type UnknownError struct{ Name, Suggestion string }

// Error returns Salt's message with the did-you-mean, if any.
func (e *UnknownError) Error() string {
	msg := MissingFunString(e.Name)
	if e.Suggestion != "" {
		msg += fmt.Sprintf(" Did you mean '%s'?", e.Suggestion)
	}
	return msg
}

// opt returns the master option k.
func (c *Context) opt(k string) any {
	v, _ := c.Opts.Get(k)
	return v
}

// optInt returns the master option k as an integer, def when unset.
func (c *Context) optInt(k string, def int64) int64 {
	switch x := c.opt(k).(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return def
}

// optString returns the master option k as text.
func (c *Context) optString(k string) string {
	switch x := c.opt(k).(type) {
	case nil:
		return ""
	case string:
		return x
	default:
		return value.Str(x)
	}
}

// strList turns names into a list value.
func strList(xs []string) *value.List {
	l := value.NewList()
	for _, x := range xs {
		l.Append(x)
	}
	return l
}
