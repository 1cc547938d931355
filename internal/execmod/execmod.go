// Package execmod is the execution-function contract: Salt's __salt__.
//
// An execution function is a Func registered under a dotted name such as
// "test.ping" or "grains.get". Modules register their functions in init()
// with Register; a run builds a Context (options, grains, pillar, saltenv,
// services) and calls functions through it, so that one function can call
// another (ctx.Call("grains.get", ...)) the way Salt modules use __salt__.
//
// Return codes follow Salt's __context__["retcode"]: a function that wants
// salt-call to exit non-zero calls ctx.SetRetcode.
package execmod

import (
	"fmt"
	"sort"
	"strings"

	"brine/internal/diag"
	"brine/internal/saltspec"
	"brine/internal/value"
)

// Func is one execution function. args are the positional arguments and
// kwargs the keyword arguments (never nil when called through Context.Call);
// both are already typed the way salt-call types command-line arguments.
type Func func(ctx *Context, args []any, kwargs *value.Map) (any, error)

// Entry is a registered function with its documentation.
type Entry struct {
	Name string // "mod.fun"
	Func Func
	Doc  string
	// Outputter is the outputter salt-call uses for this function when
	// --out is not given (Salt's __outputter__), "" for nested.
	Outputter string
}

// Registry maps dotted names to functions. Build one with NewRegistry or use
// Default, which every module's init() fills.
type Registry struct {
	entries map[string]*Entry
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{entries: map[string]*Entry{}} }

// Default is the registry modules register into from init().
var Default = NewRegistry()

// Register adds f to Default under name; doc is optional documentation.
// It panics on a malformed or duplicate name (a programming error).
func Register(name string, f Func, doc ...string) { Default.Register(name, f, doc...) }

// Register adds f under name. It panics on a malformed or duplicate name.
func (r *Registry) Register(name string, f Func, doc ...string) {
	if !validName(name) {
		panic(fmt.Sprintf("execmod: malformed function name %q (want mod.fun)", name))
	}
	if f == nil {
		panic(fmt.Sprintf("execmod: nil function for %q", name))
	}
	if _, dup := r.entries[name]; dup {
		panic(fmt.Sprintf("execmod: duplicate function %q", name))
	}
	r.entries[name] = &Entry{Name: name, Func: f, Doc: strings.Join(doc, "\n")}
}

func validName(name string) bool {
	mod, fun, ok := strings.Cut(name, ".")
	return ok && mod != "" && fun != "" && !strings.ContainsAny(name, " \t\n")
}

// SetOutputter sets the default outputter of a registered function
// (Salt's __outputter__, e.g. "highstate" for state.apply). It panics when
// name is not registered.
func (r *Registry) SetOutputter(name, out string) {
	e, ok := r.entries[name]
	if !ok {
		panic(fmt.Sprintf("execmod: SetOutputter of unregistered function %q", name))
	}
	e.Outputter = out
}

// SetOutputter sets the default outputter of a function of Default.
func SetOutputter(name, out string) { Default.SetOutputter(name, out) }

// Lookup returns the function registered under name.
func (r *Registry) Lookup(name string) (Func, bool) {
	e, ok := r.entries[name]
	if !ok {
		return nil, false
	}
	return e.Func, true
}

// Entry returns the registry entry of name (its docs), or nil.
func (r *Registry) Entry(name string) *Entry { return r.entries[name] }

// Names returns every registered name, sorted.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.entries))
	for n := range r.entries {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// HasModule reports whether any function of module mod is registered.
func (r *Registry) HasModule(mod string) bool {
	p := mod + "."
	for n := range r.entries {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}

// Suggest returns the registered name closest to name, or "" when nothing
// is close enough to be a plausible typo.
func (r *Registry) Suggest(name string) string {
	best, bestD := "", len(name)/3+2
	for n := range r.entries {
		d := diag.EditDistance(name, n)
		if d < bestD || (d == bestD && best != "" && n < best) {
			best, bestD = n, d
		}
	}
	return best
}

// MissingFunString is Salt's message for an unknown function.
func (r *Registry) MissingFunString(name string) string {
	return fmt.Sprintf("'%s' is not available.", name)
}

// Unknown describes the unregistered function name: a function Salt 3006
// has gets NotImplemented ("X is a Salt 3006 execution function that brine
// does not implement yet"), any other name the closest name, registered or
// one of Salt's (then with NotImplemented for it).
func (r *Registry) Unknown(name string) *UnknownFunctionError {
	if ni := saltspec.NotImplemented(saltspec.Exec, name); ni != "" {
		return &UnknownFunctionError{Name: name, NotImplemented: ni}
	}
	e := &UnknownFunctionError{Name: name, Suggestion: r.Suggest(name)}
	// A closer name among Salt's functions of the module that brine does
	// not implement is the better guess (file.tuch: file.touch).
	mod, _, _ := strings.Cut(name, ".")
	bestD := len(name)/3 + 2
	if e.Suggestion != "" {
		bestD = diag.EditDistance(name, e.Suggestion)
	}
	for _, fn := range saltspec.FunctionNames(saltspec.Exec, mod) {
		full := mod + "." + fn
		if _, ok := r.entries[full]; ok {
			continue
		}
		if d := diag.EditDistance(name, full); d < bestD {
			e.Suggestion, bestD = full, d
			e.NotImplemented = saltspec.NotImplemented(saltspec.Exec, full)
		}
	}
	return e
}

// MissingMessage is the message for a call of the unregistered function
// name: Salt's MissingFunString, then the did-you-mean or, for a function
// Salt has, that brine does not implement it yet.
func (r *Registry) MissingMessage(name string) string { return r.Unknown(name).Error() }

// UnknownFunctionError is returned by Context.Call for a name that is not
// registered.
type UnknownFunctionError struct {
	Name       string
	Suggestion string
	// NotImplemented says that Salt 3006 has the function (Name, or the
	// Suggestion when that is one of Salt's) but brine does not implement
	// it yet (see Registry.Unknown).
	NotImplemented string
}

// Error returns Salt's message, with the suggestion when there is one, or
// the sentence saying brine does not implement the function yet.
func (e *UnknownFunctionError) Error() string {
	msg := fmt.Sprintf("'%s' is not available.", e.Name)
	if e.Suggestion != "" {
		msg += fmt.Sprintf(" Did you mean '%s'?", e.Suggestion)
	}
	if e.NotImplemented != "" {
		msg += " " + e.NotImplemented + "."
	}
	return msg
}

// CommandExecutionError is Salt's CommandExecutionError: salt-call prints
// "Error running 'fun': <msg>" and exits 1.
type CommandExecutionError struct{ Msg string }

// Error returns Msg.
func (e *CommandExecutionError) Error() string { return e.Msg }

// InvocationError is Salt's SaltInvocationError (bad arguments): salt-call
// prints the message and exits 1.
type InvocationError struct{ Msg string }

// Error returns Msg.
func (e *InvocationError) Error() string { return e.Msg }

// Errorf builds a CommandExecutionError.
func Errorf(format string, a ...any) error {
	return &CommandExecutionError{Msg: fmt.Sprintf(format, a...)}
}

// SaltExceptionClass names the Salt exception this error stands for.
func (e *CommandExecutionError) SaltExceptionClass() string {
	return "salt.exceptions.CommandExecutionError"
}

// SaltExceptionClass names the Salt exception this error stands for.
func (e *InvocationError) SaltExceptionClass() string {
	return "salt.exceptions.SaltInvocationError"
}

// Clone returns a copy of r that one run may change (Python functions
// from the extension module cache are added to a run's copy only).
func (r *Registry) Clone() *Registry {
	c := &Registry{entries: make(map[string]*Entry, len(r.entries))}
	for n, e := range r.entries {
		c.entries[n] = e
	}
	return c
}

// Replace registers f under name, replacing a registered function of that
// name: for a run's registry (see Clone), never Default.
func (r *Registry) Replace(name string, f Func, doc string) {
	if !validName(name) {
		panic(fmt.Sprintf("execmod: malformed function name %q (want mod.fun)", name))
	}
	r.entries[name] = &Entry{Name: name, Func: f, Doc: doc}
}

// DropModule removes every function of module mod (a custom module of the
// same name replaces a builtin module whole, as in Salt).
func (r *Registry) DropModule(mod string) {
	p := mod + "."
	for n := range r.entries {
		if strings.HasPrefix(n, p) {
			delete(r.entries, n)
		}
	}
}
