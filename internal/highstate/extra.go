package highstate

import (
	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("state.show_states", showStates, "Return the SLS names the highstate uses, in low-state order.")
	execmod.Register("state.sls_exists", slsExists, "Whether the named SLS render without errors.")
	execmod.Register("state.id_exists", idExists, "Whether every named ID is defined in the given SLS.")
}

func showStates(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, _, err := execmod.Bind("state.show_states", args, kwargs, execmod.Opt("queue", nil))
	if err != nil {
		return nil, err
	}
	if c := checkQueue(ctx, vals[0], kwargs); c != nil {
		return c, nil
	}
	// Checked: the low state is compiled without asking again.
	sub := kwargs.Copy()
	sub.Set("concurrent", true)
	sub.Delete("queue")
	ret, err := showLowstate(ctx, args, sub)
	if err != nil {
		return nil, err
	}
	l := ret.(*value.List)
	seen := value.NewMap(0)
	for _, c := range l.Items {
		cm, ok := c.(*value.Map)
		if !ok {
			// Compile errors come back as they are, with Salt's retcode.
			ctx.SetRetcode(exStateCompilerError)
			return l, nil
		}
		s, _ := cm.Get("__sls__")
		if value.Hashable(s) {
			seen.Set(s, true)
		}
	}
	return value.NewList(seen.Keys()...), nil
}

func slsExists(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	ret, err := showSLS(ctx, args, kwargs)
	if err != nil {
		return nil, err
	}
	// show_sls's retcode stays: a missing SLS is False with retcode 1.
	_, ok := ret.(*value.Map)
	return ok, nil
}

func idExists(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, rest, err := execmod.Bind("state.id_exists", args, kwargs, execmod.Req("ids"), execmod.Req("mods"), execmod.Opt("test", nil), execmod.Opt("queue", nil))
	if err != nil {
		return nil, err
	}
	sub := rest.Copy()
	sub.Set("test", vals[2])
	ret, err := showLowSLS(ctx, []any{vals[1]}, sub)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	if l, ok := ret.(*value.List); ok {
		for _, c := range l.Items {
			cm, ok := c.(*value.Map)
			if !ok {
				// Salt indexes the error strings show_low_sls returned.
				return nil, &execmod.InvocationError{Msg: "string indices must be integers"}
			}
			if id, ok := cm.Get("__id__"); ok {
				have[value.Str(id)] = true
			}
		}
	}
	for _, id := range SplitMods(vals[0]) {
		if !have[id] {
			return false, nil
		}
	}
	return true, nil
}
