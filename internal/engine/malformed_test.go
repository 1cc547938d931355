package engine_test

import (
	"context"
	"testing"
	"time"

	"brine/internal/engine"
	"brine/internal/statemod"
	"brine/internal/value"
)

// TestMalformedReturn pins what Salt's OutputUnifier("content_check",
// "unify"), the decorator around State.call, does to a state return it
// refuses: the entry becomes {result: False, name: "later", changes: {},
// comment: "An exception occurred in this state: <why>"}, without
// __run_num__, __sls__ or __id__. A non-dict is handed on before it is
// stamped, so its run number is not used; a dict with missing keys or
// non-dict changes was stamped first, so its number is skipped.
func TestMalformedReturn(t *testing.T) {
	reg := testRegistry()
	name := []statemod.Param{statemod.Req("name")}
	reg.Register(&statemod.Function{Name: "bad.nondict", Params: name, Run: func(*statemod.Call) (*value.Map, error) {
		return nil, nil
	}})
	reg.Register(&statemod.Function{Name: "bad.nocomment", Params: name, Run: func(c *statemod.Call) (*value.Map, error) {
		return value.MapOf("name", c.Get("name"), "result", true, "changes", value.NewMap(0)), nil
	}})
	reg.Register(&statemod.Function{Name: "bad.changes", Params: name, Run: func(c *statemod.Call) (*value.Map, error) {
		return value.MapOf("name", c.Get("name"), "result", true, "changes", "x", "comment", ""), nil
	}})
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	running, err := engine.Run(lows(t, `
- {id: a, fun: t.ok}
- {id: n, fun: bad.nondict}
- {id: m, fun: bad.nocomment}
- {id: c, fun: bad.changes}
- {id: z, fun: t.ok, require: [{bad: n}]}
`), engine.RunOptions{Registry: reg, Now: func() time.Time { return now }, Sleep: func(context.Context, time.Duration) {}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"bad_|-n_|-n_|-nondict":   `{"result": false, "name": "later", "changes": {}, "comment": "An exception occurred in this state: Malformed state return. Data must be a dictionary type."}`,
		"bad_|-m_|-m_|-nocomment": `{"result": false, "name": "later", "changes": {}, "comment": "An exception occurred in this state: The following keys were not present in the state return: comment."}`,
		"bad_|-c_|-c_|-changes":   `{"result": false, "name": "later", "changes": {}, "comment": "An exception occurred in this state: 'Changes' should be a dictionary."}`,
	}
	for tag, w := range want {
		v, _ := running.Get(tag)
		if got := value.ToJSON(v, value.JSONOptions{Indent: -1}); got != w {
			t.Errorf("%s:\n got %s\nwant %s", tag, got, w)
		}
	}
	// a: 0; n: none; m: 1 (skipped); c: 2 (skipped); z: 3
	z, _ := running.Get("t_|-z_|-z_|-ok")
	if rn, _ := z.(*value.Map).Get("__run_num__"); rn != int64(3) {
		t.Errorf("z's __run_num__ = %v, want 3", rn)
	}
	if res, _ := z.(*value.Map).Get("result"); res != false {
		t.Errorf("z requiring the malformed n: result %v, want false", res)
	}
}
