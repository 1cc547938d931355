package highstate

import (
	"fmt"

	"brine/internal/compile"
	"brine/internal/engine"
	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("state.sls_id", stateSLSID, "Call a single ID from the named SLS and handle all its requisites.")
	execmod.SetOutputter("state.sls_id", "highstate")
}

// stateSLSID is state.sls_id: render mods (saltenv base by default), and
// run every chunk whose ID is id_ with its requisites. As in Salt, the
// high data gets requisite_in but neither extend nor exclude, and no
// listen handlers run.
func stateSLSID(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, rest, err := execmod.Bind("state.sls_id", args, kwargs,
		execmod.Req("id_"), execmod.Req("mods"), execmod.Opt("test", nil),
		execmod.Opt("queue", nil), execmod.Opt("state_events", nil))
	if err != nil {
		return nil, err
	}
	if c := checkQueue(ctx, vals[3], kwargs); c != nil {
		return c, nil
	}
	id, mods := vals[0], vals[1]
	test := testValue(ctx, vals[2], rest)
	restore, err := statePillar(ctx, kwargs)
	if err != nil {
		return nil, err
	}
	defer restore()
	if pf := pillarFailure(ctx, kwargs); pf != nil {
		ctx.SetRetcode(exPillarFailure)
		return pf, nil
	}
	r := NewRun(ctx, kwargs)
	if r.Saltenv == "" {
		r.Saltenv = "base"
	}
	high, errs := r.RenderHighstate(r.SLSMatches(SplitMods(mods)))
	errs = append(errs, compile.VerifyHigh(high)...)
	high, reqErrs := compile.RequisiteIn(high, optStrings(r.Opts, "disabled_requisites"))
	errs = append(errs, reqErrs...)
	if len(errs) > 0 {
		ctx.SetRetcode(exStateCompilerError)
		return errList(errs), nil
	}
	chunks := compile.CompileHighData(high)
	ret, err := withTest(ctx, test, func() (any, error) {
		return engine.RunID(chunks, id, r.runOptions(test))
	})
	if err != nil {
		return nil, err
	}
	running := ret.(*value.Map)
	ctx.SetRetcode(engine.StateRetcode(running, nil))
	if running.Len() == 0 {
		return nil, &execmod.InvocationError{Msg: fmt.Sprintf("No matches for ID '%s' found in SLS '%s' within saltenv '%s'",
			value.Str(id), value.Str(mods), r.Saltenv)}
	}
	return running, nil
}
