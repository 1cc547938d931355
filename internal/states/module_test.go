package states_test

import (
	"testing"

	"brine/internal/engine"
	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

func TestModuleRun(t *testing.T) {
	ctx := execmod.NewContext()
	cases := []struct {
		name    string
		args    *value.Map
		test    bool
		result  any
		comment string
		changes string
	}{
		{"new syntax", value.MapOf("name", "x", "test.echo", value.NewList("hi"), "test.true", nil), false, true,
			"test.echo: hi, test.true: True", "{'test.echo': 'hi', 'test.true': True}"},
		{"new syntax kwargs", value.MapOf("name", "x", "test.echo", value.NewList(value.MapOf("text", "yo"))), false, true,
			"test.echo: yo", "{'test.echo': 'yo'}"},
		{"new syntax false", value.MapOf("name", "x", "test.false", nil), false, false, "'test.false': False", "{}"},
		{"new syntax test mode", value.MapOf("name", "x", "test.echo", value.NewList("hi")), true, nil, "Function test.echo to be executed.", "{}"},
		{"new syntax missing", value.MapOf("name", "x", "nope.fun", nil), false, false, "Unavailable function: nope.fun.", "{}"},
		{"legacy", value.MapOf("name", "test.echo", "text", "old"), false, true, "Module function test.echo executed", "{'ret': 'old'}"},
		{"legacy m_name", value.MapOf("name", "test.kwarg", "m_name", "n"), false, true, "Module function test.kwarg executed", ""},
		{"legacy test mode", value.MapOf("name", "test.echo", "text", "old"), true, nil, "Module function test.echo is set to execute", "{}"},
		{"legacy missing", value.MapOf("name", "nope", "x", int64(1)), false, false, "Module function nope is not available", "{}"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ret := sysRun(t, ctx, "module.run", tc.args, tc.test)
			if r, _ := ret.Get("result"); r != tc.result || str(ret, "comment") != tc.comment {
				t.Errorf("got %s", value.Repr(ret))
			}
			if tc.changes != "" && value.Repr(getMap(ret, "changes")) != tc.changes {
				t.Errorf("changes %s, want %s", value.Repr(getMap(ret, "changes")), tc.changes)
			}
		})
	}
}

// TestModuleWait checks that module.wait runs its function only when a
// watched state changed.
func TestModuleWait(t *testing.T) {
	ctx := execmod.NewContext()
	for _, fun := range []string{"succeed_with_changes", "succeed_without_changes"} {
		chunks := []*value.Map{
			value.MapOf("state", "test", "__id__", "a", "name", "a", "__sls__", "s", "__env__", "base", "fun", fun, "order", int64(1)),
			value.MapOf("state", "module", "__id__", "w", "name", "test.echo", "text", "ran", "__sls__", "s", "__env__", "base", "fun", "wait",
				"watch", value.NewList(value.MapOf("test", "a")), "order", int64(2)),
		}
		run, err := engine.Run(chunks, engine.RunOptions{Env: &statemod.Env{Exec: ctx, Shared: statemod.NewShared()}})
		if err != nil {
			t.Fatal(err)
		}
		_, v := run.At(1)
		got := v.(*value.Map)
		want := ""
		if fun == "succeed_with_changes" {
			want = "Module function test.echo executed"
		}
		if str(got, "comment") != want || str(got, "result") != "True" {
			t.Errorf("%s: %s", fun, value.Repr(got))
		}
	}
}
