package runners

// state_masterless.go is the body of the state.orchestrate execution
// function (internal/highstate): Salt's orchestrate runner run in-process
// by a minion (salt-call --local state.orchestrate mods), with the
// minion's own options as the master minion's.
//
// Without a master, what reaches one fails as in Salt: salt.function (and
// salt.state) cannot publish and say the master could not be contacted;
// salt.runner runs runner functions in-process.

import (
	"context"
	"errors"

	"brine/internal/execmod"
	"brine/internal/fleet/client"
	"brine/internal/highstate"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() { highstate.SetOrchestrator(minionOrchestrate) }

// errNoMaster is Salt's failure to reach a master from a masterless run.
var errNoMaster = errors.New("The salt master could not be contacted. Is master running?")

func minionOrchestrate(ctx *execmod.Context, mods, saltenv, test, exclude, pillar, pillarenv any) (any, error) {
	opts := value.NewMap(0)
	if ctx.Opts != nil {
		opts = ctx.Opts.Copy()
	}
	// The runner makes the run local, as Salt's does to its __opts__.
	opts.Set("file_client", "local")
	rc := NewContext(context.Background(), opts)
	rc.Dial = func(*value.Map) (*client.Client, error) { return nil, errNoMaster }
	kw := value.MapOf("saltenv", saltenv, "test", test, "exclude", exclude, "pillar", pillar, "pillarenv", pillarenv)
	return stateOrchestrate(rc, []any{mods}, kw)
}

// stateCmd runs the job of a salt.state state: published through the
// master, or, in a masterless orchestration (a minion's options with
// file_client local), run on this minion whatever the target, its return
// shaped as one minion's, as Salt does.
func (c *Context) stateCmd(call *statemod.Call, spec cmdSpec) (*value.Map, error) {
	if execmod.String(mapGet(c.Opts, "__role")) != "minion" || execmod.String(mapGet(c.Opts, "file_client")) != "local" {
		return c.cmd(spec)
	}
	ret, err := call.Salt(spec.fun, spec.arg, spec.kwarg)
	if err != nil {
		return nil, err
	}
	var out any = "highstate"
	if m, ok := ret.(*value.Map); ok {
		if o, has := m.Get("out"); has {
			out = o
		}
	}
	return value.MapOf(c.MinionID(), value.MapOf("ret", ret, "out", out)), nil
}
