// Package statemod is the state-function contract (Salt's salt/states/*.py
// functions as the state runtime sees them) and the registry the state
// modules add themselves to.
//
// A state function is registered under its full name ("file.managed") with
// the parameter list of its Python signature, so the runtime can do what
// salt.utils.args.format_call does: pick the function's arguments out of a
// low chunk, fill defaults, report "Missing parameter x for state y" for a
// required one, and pass the remaining keys only to functions that take
// **kwargs. Salt's optional per-module functions (mod_watch, mod_run_check,
// mod_run_check_cmd, mod_init, mod_aggregate) are registered the same way
// under their own names ("cmd.mod_watch"), and the runtime asks the
// registry whether they exist, exactly as Salt asks `name in self.states`.
package statemod

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"brine/internal/diag"
	"brine/internal/execmod"
	"brine/internal/value"
)

// Param is one named parameter of a state function, in signature order.
type Param struct {
	Name string
	// Required is true for a parameter without a default value.
	Required bool
	// Default is the value used when the low chunk does not set it.
	Default any
}

// Req returns a required parameter.
func Req(name string) Param { return Param{Name: name, Required: true} }

// Opt returns an optional parameter with its default.
func Opt(name string, def any) Param { return Param{Name: name, Default: def} }

// Func is the Go body of a state function. It returns Salt's state return
// (a map holding at least name, changes, result and comment, in the order
// the Salt function builds it). A returned error becomes the result
// "An exception occurred in this state: ..." and never stops the run.
type Func func(c *Call) (*value.Map, error)

// Function is one registered state function.
type Function struct {
	// Name is the full name, "module.function".
	Name string
	// Params are the named parameters, in signature order.
	Params []Param
	// Kwargs is true when the Python function takes **kwargs: keys of the
	// low chunk that are not parameters (nor runtime keywords) are passed on.
	Kwargs bool
	// Run is the body.
	Run Func
	// Doc is a one-line description.
	Doc string
	// Virtual, when set, is the module's __virtual__: a non-empty reason
	// leaves the function out, as Salt's loader leaves the module out.
	Virtual func() string

	paramsOnce sync.Once
	paramIdx   map[string]int
	paramKeys  []any // the names as interface values, boxed once
}

func (f *Function) isParam(k string) bool {
	f.paramsOnce.Do(func() {
		f.paramIdx = make(map[string]int, len(f.Params))
		f.paramKeys = make([]any, len(f.Params))
		for i, p := range f.Params {
			f.paramIdx[p.Name] = i
			f.paramKeys[i] = p.Name
		}
	})
	_, ok := f.paramIdx[k]
	return ok
}

// Module returns the module part of the name ("file" for "file.managed").
func (f *Function) Module() string {
	mod, _, _ := strings.Cut(f.Name, ".")
	return mod
}

// Registry maps full state function names to functions. It is filled in
// init() functions and read only afterwards.
type Registry struct {
	mu    sync.RWMutex
	funcs map[string]*Function
}

// NewRegistry returns an empty registry (tests build their own).
func NewRegistry() *Registry { return &Registry{funcs: map[string]*Function{}} }

// Default is the registry the state modules in internal/states register to.
var Default = NewRegistry()

// Register adds f to the default registry; see Registry.Register.
func Register(f *Function) { Default.Register(f) }

// Register adds f. It panics on a malformed or duplicate name, or a nil body.
func (r *Registry) Register(f *Function) {
	mod, fun, ok := strings.Cut(f.Name, ".")
	if !ok || mod == "" || fun == "" || strings.Contains(fun, ".") {
		panic(fmt.Sprintf("statemod: malformed state function name %q", f.Name))
	}
	if f.Run == nil {
		panic(fmt.Sprintf("statemod: state function %q has no body", f.Name))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.funcs[f.Name]; dup {
		panic(fmt.Sprintf("statemod: duplicate state function %q", f.Name))
	}
	r.funcs[f.Name] = f
}

// Lookup returns the function registered under full ("mod.fun").
func (r *Registry) Lookup(full string) (*Function, bool) {
	r.mu.RLock()
	f, ok := r.funcs[full]
	r.mu.RUnlock()
	return f, ok
}

// Has reports whether full is registered.
func (r *Registry) Has(full string) bool {
	_, ok := r.Lookup(full)
	return ok
}

// Names returns all registered names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.funcs))
	for k := range r.funcs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Suggest returns the registered name closest to full, or "" when none is
// close: for did-you-mean hints.
func (r *Registry) Suggest(full string) string {
	best, bestD := "", 4
	for _, n := range r.Names() {
		if d := diag.EditDistance(n, full); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// RequisiteKeywords are Salt's STATE_REQUISITE_KEYWORDS.
var RequisiteKeywords = []string{
	"onchanges", "onchanges_any", "onfail", "onfail_any", "onfail_all",
	"onfail_stop", "prereq", "prerequired", "watch", "watch_any", "require",
	"require_any", "listen",
}

// RequisiteInKeywords are Salt's STATE_REQUISITE_IN_KEYWORDS.
var RequisiteInKeywords = []string{
	"onchanges_in", "onfail_in", "prereq_in", "watch_in", "require_in", "listen_in",
}

// RuntimeKeywords are Salt's STATE_RUNTIME_KEYWORDS.
var RuntimeKeywords = []string{
	"fun", "state", "check_cmd", "cmd_opts_exclude", "failhard", "onlyif",
	"unless", "creates", "retry", "order", "parallel", "prereq", "prereq_in",
	"prerequired", "reload_modules", "reload_grains", "reload_pillar", "runas",
	"runas_password", "fire_event", "saltenv", "umask", "use", "use_in",
	"__env__", "__sls__", "__id__", "__orchestration_jid__", "__pub_user",
	"__pub_arg", "__pub_jid", "__pub_fun", "__pub_tgt", "__pub_ret",
	"__pub_pid", "__pub_tgt_type", "__prereq__", "__prerequired__", "__umask__",
}

var internalKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, l := range [][]string{RequisiteKeywords, RequisiteInKeywords, RuntimeKeywords} {
		for _, k := range l {
			m[k] = true
		}
	}
	return m
}()

// IsInternalKeyword reports whether k is one of Salt's
// STATE_INTERNAL_KEYWORDS, which are never passed to a state function's
// **kwargs.
func IsInternalKeyword(k string) bool { return internalKeywords[k] }

// MissingParams returns, in signature order, the required parameters of f
// that low does not set (Salt's "Missing parameter" check in verify_data).
func (f *Function) MissingParams(low *value.Map) []string {
	var out []string
	for _, p := range f.Params {
		if p.Required && !low.Has(p.Name) {
			out = append(out, p.Name)
		}
	}
	return out
}

// BindArgs builds the arguments of f from a low chunk as format_call does:
// every parameter, from low or its default, in signature order; then, for
// a **kwargs function, the other keys of low that are not internal
// keywords, in low's order. Extra keys of a function without **kwargs are
// returned in extra (Salt raises "'x' is an invalid keyword argument").
func (f *Function) BindArgs(low *value.Map) (args *value.Map, extra []string) {
	f.isParam("")
	vals := make([]any, len(f.Params))
	set := make([]bool, len(f.Params))
	var restK []string
	var restV []any
	low.Range(func(k, v any) bool {
		ks, ok := k.(string)
		if !ok {
			return true
		}
		if i, isParam := f.paramIdx[ks]; isParam {
			vals[i], set[i] = v, true
			return true
		}
		if internalKeywords[ks] {
			return true
		}
		if f.Kwargs {
			restK = append(restK, ks)
			restV = append(restV, v)
		} else {
			extra = append(extra, ks)
		}
		return true
	})
	args = value.NewMap(len(f.Params) + len(restK))
	for i, p := range f.Params {
		switch {
		case set[i]:
			args.Set(f.paramKeys[i], vals[i])
		case !p.Required:
			args.Set(f.paramKeys[i], defaultValue(p.Default))
		}
	}
	for i, k := range restK {
		args.Set(k, restV[i])
	}
	return args, extra
}

// InvalidKwargsMessage formats format_call's message for extra keyword
// arguments of the state function full.
func InvalidKwargsMessage(extra []string, full string) string {
	if len(extra) == 1 {
		return fmt.Sprintf("'%s' is an invalid keyword argument for '%s'", extra[0], full)
	}
	quoted := make([]string, len(extra)-1)
	for i, e := range extra[:len(extra)-1] {
		quoted[i] = "'" + e + "'"
	}
	return fmt.Sprintf("%s and '%s' are invalid keyword arguments for '%s'",
		strings.Join(quoted, ", "), extra[len(extra)-1], full)
}

// defaultValue copies a mutable default (a Python default is shared, but a
// state function must not change another call's arguments).
func defaultValue(v any) any {
	switch v.(type) {
	case *value.Map, *value.List:
		return value.DeepCopy(v)
	}
	return v
}

// Clone returns a copy of r that one run may change (the Python state
// modules of the extension module cache are added to a run's copy only).
func (r *Registry) Clone() *Registry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c := &Registry{funcs: make(map[string]*Function, len(r.funcs))}
	for n, f := range r.funcs {
		c.funcs[n] = f
	}
	return c
}

// Replace registers f, replacing a function of the same name: for a run's
// registry (see Clone), never Default.
func (r *Registry) Replace(f *Function) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.funcs[f.Name] = f
}

// DropModule removes every function of module mod (a custom state module
// replaces a builtin one of its name whole, as in Salt).
func (r *Registry) DropModule(mod string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for n := range r.funcs {
		if strings.HasPrefix(n, mod+".") {
			delete(r.funcs, n)
		}
	}
}

// RegistryService is the execmod.Context service under which a run keeps
// its own state registry (when it has Python state modules).
const RegistryService = "statemod.registry"

// For returns the state registry of the run of ctx: the one attached under
// RegistryService, else Default.
func For(ctx *execmod.Context) *Registry {
	if ctx != nil {
		if r, ok := ctx.Service(RegistryService).(*Registry); ok {
			return r
		}
	}
	return Default
}
