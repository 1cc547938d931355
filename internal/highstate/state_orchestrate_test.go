package highstate

import (
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

// TestStateOrchestrateUnplugged checks the arguments and the message of a
// program without the orchestrate runner (internal/fleet/runners plugs it
// in; its tests run it).
func TestStateOrchestrateUnplugged(t *testing.T) {
	ctx := entryContext(t)
	if _, err := ctx.Call("state.orchestrate", nil, value.NewMap(0)); err == nil || err.Error() != "orchestrate() missing 1 required positional argument: 'mods'" {
		t.Errorf("no mods: %v", err)
	}
	var got []any
	SetOrchestrator(func(_ *execmod.Context, mods, saltenv, test, exclude, pillar, pillarenv any) (any, error) {
		got = []any{mods, saltenv, test, exclude, pillar, pillarenv}
		return "ran", nil
	})
	defer func() { orchestrator = nil }()
	ret, err := ctx.Call("state.orchestrate", []any{"orch.main"}, value.MapOf("test", true, "pillarenv", "dev"))
	if err != nil || ret != "ran" {
		t.Fatalf("state.orchestrate: %v %v", ret, err)
	}
	if w := "['orch.main', 'base', True, None, None, 'dev']"; value.Repr(value.NewList(got...)) != w {
		t.Errorf("orchestrator got %s, want %s", value.Repr(value.NewList(got...)), w)
	}
	orchestrator = nil
	if _, err := ctx.Call("state.orchestrate", []any{"orch.main"}, value.NewMap(0)); err == nil ||
		err.Error() != "state.orchestrate needs the orchestrate runner, which this program does not include" {
		t.Errorf("unplugged: %v", err)
	}
}
