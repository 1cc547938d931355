package runners

import (
	"testing"

	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

// runState runs the orchestration state fun with the low chunk args in a
// run that has a runner context but no master: only the paths that
// return before reaching a minion.
func runState(t *testing.T, fun string, low *value.Map, test bool) *value.Map {
	t.Helper()
	c, _ := testContext(t, "")
	f, ok := OrchestrationStates().Lookup(fun)
	if !ok {
		t.Fatalf("no %s", fun)
	}
	args, extra := f.BindArgs(low)
	if len(extra) > 0 {
		t.Fatalf("extra %v", extra)
	}
	ex := execmod.NewContext()
	ex.SetService(RunnerService, c)
	ret, err := f.Run(&statemod.Call{Fun: f, Args: args, Low: low, Test: test, Env: &statemod.Env{Exec: ex}})
	if err != nil {
		t.Fatalf("%s: %v", fun, err)
	}
	return ret
}

func TestSaltStatesBeforeMinions(t *testing.T) {
	cases := []struct {
		fun  string
		low  *value.Map
		test bool
		want string
	}{
		{"salt.state", value.MapOf("name", "s", "tgt", "*"), false,
			"{'name': 's', 'changes': {}, 'comment': 'No highstate or sls specified, no execution made', 'result': False}"},
		{"salt.state", value.MapOf("name", "s", "tgt", "*", "sls", "web", "allow_fail", "some"), false,
			"{'name': 's', 'changes': {}, 'comment': \"Passed invalid value for 'allow_fail', must be an int\", 'result': False}"},
		{"salt.state", value.MapOf("name", "s", "tgt", "*", "sls", "web", "concurrent", "yes"), false,
			"{'name': 's', 'changes': {}, 'comment': \"Must pass in boolean for value of 'concurrent'\", 'result': False}"},
		{"salt.state", value.MapOf("name", "s", "tgt", "*", "sls", "web", "ssh", true), false,
			"{'name': 's', 'changes': {}, 'comment': \"'ssh' is not supported by brine's master\", 'result': False}"},
		{"salt.function", value.MapOf("name", "cmd.run", "tgt", "web*", "arg", "uptime -p"), true,
			"{'name': 'cmd.run', 'changes': {}, 'comment': 'Function cmd.run would be executed on target web*', 'result': None, 'warnings': [\"Please specify 'arg' as a list of arguments.\"]}"},
		{"salt.runner", value.MapOf("name", "manage.up"), true,
			"{'name': 'manage.up', 'result': None, 'changes': {}, 'comment': \"Runner function 'manage.up' would be executed.\"}"},
		{"salt.wait_for_event", value.MapOf("name", "x/*", "id_list", value.NewList("a")), true,
			"{'name': 'x/*', 'changes': {}, 'comment': \"Orchestration would wait for event 'x/*'\", 'result': None}"},
	}
	for _, tc := range cases {
		got := value.Str(runState(t, tc.fun, tc.low, tc.test))
		if got != tc.want {
			t.Errorf("%s %s:\n got %s\nwant %s", tc.fun, value.Str(tc.low), got, tc.want)
		}
	}
	// A runner whose run fails, through salt.runner.
	got := runState(t, "salt.runner", value.MapOf("name", "manage.up"), false)
	if value.Str(mapGet(got, "result")) != "False" || mapGet(got, "comment") != "Runner function 'manage.up' failed." {
		t.Errorf("salt.runner manage.up without a master: %s", value.Str(got))
	}
}
