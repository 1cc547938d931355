package pyext

import (
	"context"
	"errors"

	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

// stateNames lists brine's state functions (for __states__).
func stateNames() []any {
	names := statemod.Default.Names()
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = n
	}
	return out
}

// callState runs a state function for Python's __states__: positional
// arguments fill the function's parameters in order, keyword arguments by
// name, and the return is the state's return as Salt gives it.
func callState(ctx *execmod.Context, fun string, args []any, kwargs *value.Map) (any, error) {
	f, ok := statemod.For(ctx).Lookup(fun)
	if !ok {
		return nil, &execmod.UnknownFunctionError{Name: fun}
	}
	mod, short, _ := stringsCut(fun)
	low := value.MapOf("state", mod, "fun", short)
	for i, a := range args {
		if i < len(f.Params) {
			low.Set(f.Params[i].Name, a)
		}
	}
	kwargs.Range(func(k, v any) bool {
		low.Set(k, v)
		return true
	})
	if !low.Has("__id__") {
		n, _ := low.Get("name")
		low.Set("__id__", n)
	}
	bound, extra := f.BindArgs(low)
	if len(extra) > 0 {
		return nil, &execmod.InvocationError{Msg: statemod.InvalidKwargsMessage(extra, fun)}
	}
	c := &statemod.Call{
		Ctx: context.Background(), Fun: f, Args: bound, Low: low, Test: ctx.Test,
		Saltenv: ctx.SaltenvOr("base"), Env: &statemod.Env{Exec: ctx, Shared: statemod.NewShared()}, Umask: -1,
	}
	return f.Run(c)
}

func stringsCut(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// stateException is an exception raised by a Python state function: the
// engine shows its text after "An exception occurred in this state: ",
// which for Salt is the traceback.
type stateException struct{ err *PyError }

func (e *stateException) Error() string {
	if e.err.Traceback != "" {
		return e.err.Traceback
	}
	return e.err.Msg
}

func (e *stateException) Unwrap() error { return e.err }

// registerStates puts the loaded Python state functions into a copy of
// the run's state registry: a custom module replaces the builtin module of
// its name.
func registerStates(ctx *execmod.Context, w *Worker, m *value.Map) {
	reg := statemod.For(ctx).Clone()
	for _, mod := range listOf(m, "modules") {
		if s, ok := mod.(string); ok {
			reg.DropModule(s)
		}
	}
	for _, f := range listOf(m, "functions") {
		fm, _ := f.(*value.Map)
		if fm == nil {
			continue
		}
		reg.Replace(pyStateFunction(w, fm))
	}
	ctx.SetService(statemod.RegistryService, reg)
}

// pyStateFunction describes the Python state function of fm (name,
// params, kwargs) as a statemod.Function.
func pyStateFunction(w *Worker, fm *value.Map) *statemod.Function {
	name := str(fm, "name")
	f := &statemod.Function{Name: name, Doc: str(fm, "doc")}
	if v, _ := fm.Get("kwargs"); v == true {
		f.Kwargs = true
	}
	for _, p := range listOf(fm, "params") {
		pm, _ := p.(*value.Map)
		if pm == nil {
			continue
		}
		req, _ := pm.Get("required")
		def, _ := pm.Get("default")
		f.Params = append(f.Params, statemod.Param{Name: str(pm, "name"), Required: req == true, Default: def})
	}
	f.Run = func(c *statemod.Call) (*value.Map, error) {
		msg := value.MapOf("op", "call", "kind", "state", "fun", name,
			"args", value.NewList(), "kwargs", c.Args, "low", c.Low)
		var h Handler
		var ex *execmod.Context
		if c.Env != nil && c.Env.Exec != nil {
			ex = c.Env.Exec
			h = handlerFor(ex)
		}
		w, err := workerOf(ex, w)
		if err != nil {
			return nil, nameWorkerError(err, name)
		}
		ret, _, err := w.request(msg, h)
		if err != nil {
			var pe *PyError
			if errors.As(err, &pe) {
				return nil, &stateException{pe}
			}
			return nil, nameWorkerError(err, name)
		}
		// a non-dict return (the worker sends None) is a nil map, which the
		// engine treats as Salt does ("Malformed state return")
		m, _ := ret.(*value.Map)
		return m, nil
	}
	return f
}
