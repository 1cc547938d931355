package runners

// state.go is salt/runners/state.py: orchestration, a state run on the
// master's own minion (Salt's MasterMinion) of the master's file_roots,
// whose states may be the master-side salt.* states (saltmod.go).

import (
	"sync"
	"time"

	"brine/internal/execmod"
	"brine/internal/fleet/proto"
	"brine/internal/highstate"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	doc := "Run the SLS mods (comma-separated or a list) of the master's file_roots on the master, as orchestration: " +
		"saltenv (base), test, exclude, pillar (a mapping), pillarenv. The salt.state, salt.function, salt.runner " +
		"and salt.wheel states drive the minions."
	for _, n := range []string{"state.orchestrate", "state.orch", "state.sls"} {
		Register(n, stateOrchestrate, doc)
	}
}

var (
	orchOnce sync.Once
	orchReg  *statemod.Registry
)

// OrchestrationStates is the state registry of orchestration runs: every
// state function minions have, plus Salt's master-side salt module.
// Minions never see the salt.* states: in Salt they run on the master
// only.
func OrchestrationStates() *statemod.Registry {
	orchOnce.Do(func() {
		orchReg = statemod.Default.Clone()
		for _, f := range saltStates() {
			orchReg.Replace(f)
		}
	})
	return orchReg
}

// orchestrator prepares the master minion's context for an orchestration
// run: the orchestration state registry, the master minion's pillar and
// the run initializers.
func (c *Context) orchestrator() (*execmod.Context, func(), error) {
	ctx, svc := c.masterMinion()
	ctx.SetService(statemod.RegistryService, OrchestrationStates())
	compilePillar(ctx, svc)
	if err := execmod.RunSetups(ctx); err != nil {
		return nil, nil, err
	}
	return ctx, func() { closeServices(ctx) }, nil
}

// orchestrationReturn wraps a run's return as Salt's orchestrate runner
// does: the master minion's running dictionary under "data", the
// highstate outputter, and retcode 1 when a state failed.
func orchestrationReturn(id string, running any) *value.Map {
	data := value.MapOf(id, running)
	rc := int64(0)
	if !highstate.CheckResult(data, false) {
		rc = 1
	}
	return value.MapOf("data", data, "outputter", "highstate", "retcode", rc)
}

// testArg is Salt's _get_test_value for a master-side run: the test
// argument when given, else the master's test option.
func (c *Context) testArg(v any) bool {
	if v != nil {
		return value.Truthy(v)
	}
	return value.Truthy(c.opt("test"))
}

func stateOrchestrate(c *Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("orchestrate", args, kwargs,
		execmod.Req("mods"), execmod.Opt("saltenv", "base"), execmod.Opt("test", nil), execmod.Opt("exclude", nil),
		execmod.Opt("pillar", nil), execmod.Opt("pillarenv", nil), execmod.Opt("pillar_enc", nil), execmod.Opt("orchestration_jid", nil))
	if err != nil {
		return nil, err
	}
	if _, ok := v[4].(*value.Map); v[4] != nil && !ok {
		return nil, &execmod.InvocationError{Msg: "Pillar data must be formatted as a dictionary"}
	}
	saltenv, pillarenv := v[1], v[5]
	if pillarenv == nil {
		pillarenv = c.opt("pillarenv")
	}
	if saltenv == nil {
		saltenv = c.opt("saltenv")
	}
	jid := execmod.String(v[7])
	if jid == "" {
		jid = proto.NewJID(time.Now())
	}
	ctx, done, err := c.orchestrator()
	if err != nil {
		return nil, err
	}
	defer done()
	kw := value.NewMap(0)
	for _, kv := range [][2]any{{"pillar", v[4]}, {"saltenv", saltenv}, {"pillarenv", pillarenv}, {"pillar_enc", v[6]}} {
		if kv[1] != nil {
			kw.Set(kv[0], kv[1])
		}
	}
	kw.Set("__pub_jid", jid)
	kw.Set("orchestration_jid", jid)
	running, err := highstate.SLS(ctx, v[0], c.testArg(v[2]), v[3], kw)
	if err != nil {
		return nil, err
	}
	return orchestrationReturn(c.MinionID(), running), nil
}
