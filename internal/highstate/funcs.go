package highstate

import (
	"strings"

	"brine/internal/compile"
	"brine/internal/execmod"
	"brine/internal/top"
	"brine/internal/value"
)

// Salt's exit codes used by the state functions.
const (
	exStateCompilerError = 1
	exStateFailure       = 2
	exPillarFailure      = 5
)

func init() {
	execmod.Register("state.show_top", showTop, "Return the top data that the minion will use for a highstate.")
	execmod.Register("state.show_highstate", showHighstate, "Retrieve the highstate data from the salt master and display it.")
	execmod.Register("state.show_lowstate", showLowstate, "List out the low data that will be applied to this minion.")
	execmod.Register("state.show_sls", showSLS, "Display the state data from a specific sls or list of sls files on the master.")
	execmod.Register("state.show_low_sls", showLowSLS, "Display the low data from a specific sls.")
	execmod.Register("state.show_state_usage", showStateUsage, "Retrieve the highstate data and show which SLS files are used and unused.")
}

// pillarErrors reports the pillar's _errors unless force is set; Salt
// refuses to compile with a broken pillar.
func pillarErrors(ctx *execmod.Context, kwargs *value.Map) error {
	if v, ok := kwargs.Get("force"); ok && value.Truthy(v) {
		return nil
	}
	if ctx.Pillar == nil {
		return nil
	}
	if errs, ok := ctx.Pillar.Get("_errors"); ok && value.Truthy(errs) {
		ctx.SetRetcode(exPillarFailure)
		return &execmod.CommandExecutionError{Msg: "Pillar failed to render"}
	}
	return nil
}

// SplitMods is Salt's split_input: a list as is, else the text split on
// commas with each name stripped.
func SplitMods(v any) []string {
	switch x := v.(type) {
	case *value.List:
		out := make([]string, 0, len(x.Items))
		for _, e := range x.Items {
			out = append(out, value.Str(e))
		}
		return out
	case nil:
		return []string{"None"}
	}
	parts := strings.Split(value.Str(v), ",")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

func showTop(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	r, restore, err := showRun(ctx, "state.show_top", args, kwargs)
	if err != nil {
		return conflictOr(err)
	}
	defer restore()
	t := r.GetTop()
	if errs := top.Verify(t); len(errs) > 0 {
		ctx.SetRetcode(exStateCompilerError)
		return errList(errs), nil
	}
	m, err := r.TopMatches(t)
	if err != nil {
		return nil, err
	}
	return m, nil
}

func showHighstate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	r, restore, err := showRun(ctx, "state.show_highstate", args, kwargs)
	if err != nil {
		return conflictOr(err)
	}
	defer restore()
	high, errs, err := r.CompileHighstate()
	if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		ctx.SetRetcode(exStateCompilerError)
		return errList(errs), nil
	}
	setRetcode(ctx, high)
	return high, nil
}

func showLowstate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	r, restore, err := showRun(ctx, "state.show_lowstate", args, kwargs)
	if err != nil {
		return nil, err
	}
	defer restore()
	chunks, errs, err := r.CompileLowChunks()
	if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return errList(errs), nil
	}
	return chunkList(chunks), nil
}

// slsRun prepares state.show_sls and show_low_sls: saltenv defaults to
// base.
func slsRun(ctx *execmod.Context, name string, args []any, kwargs *value.Map) (*Run, []string, func(), error) {
	vals, _, err := execmod.Bind(name, args, kwargs, execmod.Req("mods"), execmod.Opt("test", nil), execmod.Opt("queue", nil))
	if err != nil {
		return nil, nil, nil, err
	}
	if c := checkQueue(ctx, vals[2], kwargs); c != nil {
		return nil, nil, nil, &queueConflict{c}
	}
	restore, err := statePillar(ctx, kwargs)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := pillarErrors(ctx, kwargs); err != nil {
		restore()
		return nil, nil, nil, err
	}
	r := NewRun(ctx, kwargs)
	if r.Saltenv == "" {
		r.Saltenv = "base"
	}
	return r, SplitMods(vals[0]), restore, nil
}

func showSLS(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	r, mods, restore, err := slsRun(ctx, "state.show_sls", args, kwargs)
	if err != nil {
		return conflictOr(err)
	}
	defer restore()
	high, errs := r.RenderHighstate(r.SLSMatches(mods))
	errs = append(errs, compile.VerifyHigh(high)...)
	if len(errs) > 0 {
		ctx.SetRetcode(exStateCompilerError)
		return errList(errs), nil
	}
	return high, nil
}

func showLowSLS(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	r, mods, restore, err := slsRun(ctx, "state.show_low_sls", args, kwargs)
	if err != nil {
		return conflictOr(err)
	}
	defer restore()
	high, errs := r.RenderHighstate(r.SLSMatches(mods))
	errs = append(errs, compile.VerifyHigh(high)...)
	if len(errs) > 0 {
		ctx.SetRetcode(exStateCompilerError)
		return errList(errs), nil
	}
	return chunkList(compile.CompileHighData(high)), nil
}

func showStateUsage(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, _, err := execmod.Bind("state.show_state_usage", args, kwargs, execmod.Opt("queue", nil))
	if err != nil {
		return nil, err
	}
	if c := checkQueue(ctx, vals[0], kwargs); c != nil {
		return c, nil
	}
	r := NewRun(ctx, kwargs)
	usage, errs, err := r.StateUsage()
	if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		ctx.SetRetcode(exStateCompilerError)
		return errList(errs), nil
	}
	setRetcode(ctx, usage)
	return usage, nil
}

// setRetcode is Salt's _set_retcode for a non-list return.
func setRetcode(ctx *execmod.Context, ret any) {
	ctx.SetRetcode(0)
	if !CheckResult(ret, false) {
		ctx.SetRetcode(exStateFailure)
	}
}

// CheckResult is Salt's salt.utils.state.check_result without onfail
// handling: false for an empty or non-dict return, a non-dict entry (the
// list __extend__ aside), or any result that is False.
func CheckResult(running any, recurse bool) bool {
	m, ok := running.(*value.Map)
	if !ok || m.Len() == 0 {
		return false
	}
	for i := 0; i < m.Len(); i++ {
		k, v := m.At(i)
		vm, isMap := v.(*value.Map)
		if !recurse {
			if k == "__extend__" {
				if _, ok := v.(*value.List); !ok {
					return false
				}
			} else if !isMap {
				return false
			}
		}
		if isMap {
			res, ok := vm.Get("result")
			if ok && res == false {
				return false
			}
			if !ok && !CheckResult(vm, true) {
				return false
			}
		}
	}
	return true
}

// checkedStatePillar is statePillar followed by pillarErrors, the prologue
// of the state.show_* functions: the run's pillar, refused when it holds
// render errors. The returned function restores the previous pillar.
func checkedStatePillar(ctx *execmod.Context, kwargs *value.Map) (func(), error) {
	restore, err := statePillar(ctx, kwargs)
	if err != nil {
		return nil, err
	}
	if err := pillarErrors(ctx, kwargs); err != nil {
		restore()
		return nil, err
	}
	return restore, nil
}

// showRun is the common start of state.show_top, show_highstate and
// show_lowstate: their only argument is queue, and they compile with the
// run's pillar, refused when it holds render errors.
func showRun(ctx *execmod.Context, name string, args []any, kwargs *value.Map) (*Run, func(), error) {
	vals, _, err := execmod.Bind(name, args, kwargs, execmod.Opt("queue", nil))
	if err != nil {
		return nil, nil, err
	}
	if c := checkQueue(ctx, vals[0], kwargs); c != nil {
		if name == "state.show_lowstate" {
			// Salt asserts there is no conflict here and fails.
			return nil, nil, &execmod.CommandExecutionError{Msg: "AssertionError: " + value.Str(c.Items[0])}
		}
		return nil, nil, &queueConflict{c}
	}
	restore, err := checkedStatePillar(ctx, kwargs)
	if err != nil {
		return nil, nil, err
	}
	return NewRun(ctx, kwargs), restore, nil
}
