package states

// grains_helpers.go registers grains.make_hashable, a helper of
// salt/states/grains.py that Salt's loader exposes as a state function
// because its name is public. Its signature (list_grain, result=None) has
// neither name nor **kwargs, so a state calling it fails the way Salt's
// does: "Missing parameter list_grain for state grains.make_hashable"
// without list_grain, else "'name' is an invalid keyword argument" (every
// low chunk has a name). Should the body ever run, it returns what Salt's
// returns, a set and not a state return: helperReturn.

import (
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "grains.make_hashable",
		Params: []statemod.Param{statemod.Req("list_grain"), statemod.Opt("result", nil)},
		Doc:    "Salt's internal helper (a set of frozensets of a list grain); not usable as a state.",
		Run:    helperReturn})
}

// helperReturn is the body of a Salt helper function exposed as a state:
// its Python return value (a bool, a set, None) is not a state return,
// which the runtime reports as "Malformed state return" as Salt's
// OutputUnifier does.
func helperReturn(*statemod.Call) (*value.Map, error) { return nil, nil }
