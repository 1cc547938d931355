package execmod

import (
	"fmt"
	"strings"

	"brine/internal/value"
)

// Param describes one parameter of an execution function, for Bind.
type Param struct {
	Name     string
	Default  any
	Required bool
}

// Req is a required parameter.
func Req(name string) Param { return Param{Name: name, Required: true} }

// Opt is an optional parameter with a default.
func Opt(name string, def any) Param { return Param{Name: name, Default: def} }

// Bind matches args and kwargs to params the way Python binds a call:
// positional arguments fill params in order, keyword arguments by name.
// It returns one value per param and the keyword arguments left over (the
// function's **kwargs; Salt's __pub_* keys are dropped from them). A
// parameter given twice, too many positional arguments or a missing
// required one is a *TypeError worded as Python's, naming fun without its
// module ("state.apply" reads "apply()", as Python names the function).
// Like Python, it checks them in that order.
func Bind(fun string, args []any, kwargs *value.Map, params ...Param) ([]any, *value.Map, error) {
	fun = bareName(fun)
	vals := make([]any, len(params))
	set := make([]bool, len(params))
	for i, a := range args {
		if i < len(params) {
			vals[i], set[i] = a, true
		}
	}
	rest := value.NewMap(0)
	var err error
	kwargs.Range(func(k, v any) bool {
		ks, _ := k.(string)
		for i, p := range params {
			if p.Name == ks {
				if set[i] {
					err = &TypeError{Msg: fmt.Sprintf("%s() got multiple values for argument '%s'", fun, ks)}
					return false
				}
				vals[i], set[i] = v, true
				return true
			}
		}
		if !strings.HasPrefix(ks, "__pub_") {
			rest.Set(k, v)
		}
		return true
	})
	if err != nil {
		return nil, nil, err
	}
	if len(args) > len(params) {
		return nil, nil, tooManyPositional(fun, params, len(args))
	}
	var missing []string
	for i, p := range params {
		if set[i] {
			continue
		}
		if p.Required {
			missing = append(missing, p.Name)
			continue
		}
		vals[i] = p.Default
	}
	if len(missing) > 0 {
		return nil, nil, MissingArguments(fun, missing...)
	}
	return vals, rest, nil
}

// TypeError is Python's TypeError for a call whose arguments do not fit
// the function's signature. salt-call prints "Passed invalid arguments:
// <msg>." with the function's usage; templates report it as the
// TypeError it is in Salt.
//
// To code that only tells bad arguments from failures it reads as an
// *InvocationError (errors.As matches both), as Bind's errors did before
// they were told apart.
type TypeError struct{ Msg string }

// Error returns Msg.
func (e *TypeError) Error() string { return e.Msg }

// SaltExceptionClass names the Python exception, as tracebacks do.
func (e *TypeError) SaltExceptionClass() string { return "TypeError" }

// As lets errors.As find e as an *InvocationError with the same message.
func (e *TypeError) As(target any) bool {
	if p, ok := target.(**InvocationError); ok {
		*p = &InvocationError{Msg: e.Msg}
		return true
	}
	return false
}

// MissingArguments is Python's TypeError for required positional
// arguments not given: "f() missing 2 required positional arguments: 'a'
// and 'b'".
func MissingArguments(fun string, names ...string) *TypeError {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "'" + n + "'"
	}
	var list string
	switch len(quoted) {
	case 1:
		list = quoted[0]
	case 2:
		list = quoted[0] + " and " + quoted[1]
	default:
		list = strings.Join(quoted[:len(quoted)-1], ", ") + ", and " + quoted[len(quoted)-1]
	}
	s := "s"
	if len(names) == 1 {
		s = ""
	}
	return &TypeError{Msg: fmt.Sprintf("%s() missing %d required positional argument%s: %s", bareName(fun), len(names), s, list)}
}

// TooManyPositional is Python's TypeError for a call with given positional
// arguments to a function taking from min to max of them (no *args).
func TooManyPositional(fun string, min, max, given int) *TypeError {
	sig, plural := fmt.Sprint(max), max != 1
	if min < max {
		sig, plural = fmt.Sprintf("from %d to %d", min, max), true
	}
	s, verb := "", "were"
	if plural {
		s = "s"
	}
	if given == 1 {
		verb = "was"
	}
	return &TypeError{Msg: fmt.Sprintf("%s() takes %s positional argument%s but %d %s given", bareName(fun), sig, s, given, verb)}
}

// tooManyPositional counts params as Python counts a signature: the
// optional ones are those with defaults.
func tooManyPositional(fun string, params []Param, given int) *TypeError {
	min := 0
	for _, p := range params {
		if p.Required {
			min++
		}
	}
	return TooManyPositional(fun, min, len(params), given)
}

// bareName is the Python function of "mod.fun": its function part, or,
// for the names Salt's modules alias (a Python keyword or builtin), the
// function's own name.
func bareName(fun string) string {
	if py, ok := pyNames[fun]; ok {
		return py
	}
	if i := strings.LastIndexByte(fun, '.'); i >= 0 {
		return fun[i+1:]
	}
	return fun
}

// pyNames are the functions brine has whose Python function in Salt 3006
// has another name (the modules' __func_alias__).
var pyNames = map[string]string{
	"alternatives.set": "set_", "archive.list": "list_", "archive.zip": "zip_", "debconf.set": "set_",
	"disk.format": "format_", "file.makedirs": "makedirs_", "file.normpath": "normpath_", "git.rm": "rm_",
	"match.list": "list_", "pip.list": "list_", "schedule.list": "list_", "schedule.reload": "reload_",
	"service.reload": "reload_", "service.unmask": "unmask_", "state.apply": "apply_", "status.time": "time_",
	"test.false": "false_", "test.true": "true_", "test.try": "try_",
}

// String returns v as a string the way Salt modules usually coerce a
// parameter: strings as is, nil as "", anything else by Python's str().
func String(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	return value.Str(v)
}
