package states

// pip_helpers.go registers pip.purge_pip, pip.pip_has_exceptions_mod and
// pip.pip_has_internal_exceptions_mod: module-level helpers of
// salt/states/pip_state.py that Salt's loader lists as state functions.
// None takes name or **kwargs, so as states they fail as in Salt, with a
// missing "ver" parameter or "'name' is an invalid keyword argument";
// see helperReturn (grains_helpers.go) for the unreachable body.

import "brine/internal/statemod"

func init() {
	statemod.Register(&statemod.Function{Name: "pip.purge_pip",
		Doc: "Salt's internal helper (forgets the imported pip modules); not usable as a state.",
		Run: helperReturn})
	for _, n := range []string{"pip.pip_has_exceptions_mod", "pip.pip_has_internal_exceptions_mod"} {
		statemod.Register(&statemod.Function{Name: n, Params: []statemod.Param{statemod.Req("ver")},
			Doc: "Salt's internal helper (a pip version check); not usable as a state.",
			Run: helperReturn})
	}
}
