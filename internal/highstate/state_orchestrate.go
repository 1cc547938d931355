package highstate

// state_orchestrate.go is state.orchestrate of salt/modules/state.py: a
// minion runs Salt's orchestrate runner in-process. The runner lives in
// internal/fleet/runners, above this package, so it plugs its body in with
// SetOrchestrator.

import (
	"sync"

	"brine/internal/execmod"
	"brine/internal/value"
)

// Orchestrator runs the SLS mods as orchestration on the minion of ctx
// with the state.orchestrate arguments.
type Orchestrator func(ctx *execmod.Context, mods, saltenv, test, exclude, pillar, pillarenv any) (any, error)

var (
	orchMu       sync.RWMutex
	orchestrator Orchestrator
)

// SetOrchestrator plugs in the orchestrate runner (once, from an init()).
func SetOrchestrator(f Orchestrator) {
	orchMu.Lock()
	defer orchMu.Unlock()
	if orchestrator != nil {
		panic("highstate: duplicate orchestrator")
	}
	orchestrator = f
}

func init() {
	execmod.Register("state.orchestrate", stateOrchestrate,
		"Run the orchestrate runner from a masterless minion: the SLS mods of the minion's file_roots as orchestration "+
			"(saltenv, test, exclude, pillar, pillarenv).")
}

func stateOrchestrate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("orchestrate", args, kwargs, execmod.Req("mods"), execmod.Opt("saltenv", "base"),
		execmod.Opt("test", nil), execmod.Opt("exclude", nil), execmod.Opt("pillar", nil), execmod.Opt("pillarenv", nil))
	if err != nil {
		return nil, err
	}
	orchMu.RLock()
	f := orchestrator
	orchMu.RUnlock()
	if f == nil {
		return nil, &execmod.CommandExecutionError{Msg: "state.orchestrate needs the orchestrate runner, which this program does not include"}
	}
	return f(ctx, v[0], v[1], v[2], v[3], v[4], v[5])
}
