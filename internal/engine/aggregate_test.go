package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"brine/internal/engine"
	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

// aggRegistry is testRegistry plus an "a" module whose set function
// reports the names it was given and whose mod_aggregate folds the names
// of the "a" chunks with the same function still to run into the chunk.
func aggRegistry() *statemod.Registry {
	r := testRegistry()
	set := func(c *statemod.Call) (*value.Map, error) {
		names := value.Str(c.Get("name"))
		if l, ok := c.Get("names").(*value.List); ok {
			var s []string
			for _, n := range l.Items {
				s = append(s, value.Str(n))
			}
			names = strings.Join(s, ",")
		}
		return statemod.Ret(c.Get("name"), true, names), nil
	}
	r.Register(&statemod.Function{Name: "a.set", Params: []statemod.Param{statemod.Req("name")}, Kwargs: true, Run: set})
	r.Register(&statemod.Function{Name: "a.other", Params: []statemod.Param{statemod.Req("name")}, Kwargs: true, Run: set})
	r.Register(&statemod.Function{Name: "a.mod_aggregate", Kwargs: true, Run: func(c *statemod.Call) (*value.Map, error) {
		self, _ := c.Low.Get("name")
		names := value.NewList(self)
		fun, _ := c.Low.Get("fun")
		for _, ch := range c.Chunks {
			if c.Running.Has(engine.Tag(ch)) || ch.Has("__agg__") {
				continue
			}
			if st, _ := ch.Get("state"); st != "a" {
				continue
			}
			if f, _ := ch.Get("fun"); f != fun {
				continue
			}
			n, _ := ch.Get("name")
			names.Append(n)
			ch.Set("__agg__", true)
		}
		c.Low.Set("names", names)
		return c.Low, nil
	}})
	return r
}

func TestModAggregate(t *testing.T) {
	const chunks = `
- {id: x, fun: a.set}
- {id: y, fun: a.set}
- {id: g, fun: t.ok}
- {id: z, fun: a.set}
`
	tests := []struct {
		name string
		opt  any // state_aggregate; nil: unset
		src  string
		want string
	}{
		{"off", nil, chunks, "x True x\ny True y\ng True t.ok\nz True z"},
		{"option true", true, chunks, "x True x,y,z\ny True y\ng True t.ok\nz True z"},
		{"option lists the module", value.NewList("a"), chunks, "x True x,y,z\ny True y\ng True t.ok\nz True z"},
		{"option lists another module", value.NewList("pkg"), chunks, "x True x\ny True y\ng True t.ok\nz True z"},
		{"chunk argument", false, `
- {id: x, fun: a.set}
- {id: y, fun: a.set, aggregate: true}
- {id: z, fun: a.set}
`, "x True x\ny True y,z\nz True z"},
		{"chunk argument off", true, `
- {id: x, fun: a.set, aggregate: false}
- {id: y, fun: a.set}
- {id: z, fun: a.set}
`, "x True x\ny True y,z\nz True z"},
		// Salt's _aggregate_requisites: a later chunk of the module gets
		// the requisites of the chunks aggregated before it (here y's
		// require on the failing f), so it does not run.
		{"requisites of aggregated chunks", true, `
- {id: f, fun: t.fail}
- {id: x, fun: a.set}
- {id: y, fun: a.set, require: [{t: f}]}
- {id: o, fun: a.other}
`, "f False t.fail\nx True x,y\ny False One or more requisite failed: main.f\no False One or more requisite failed: main.f"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := execmod.NewContext()
			if tt.opt != nil {
				ctx.Opts.Set("state_aggregate", tt.opt)
			}
			ret, err := engine.Run(lows(t, tt.src), engine.RunOptions{Registry: aggRegistry(), Env: &statemod.Env{Exec: ctx}})
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(ret); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestFireEvent(t *testing.T) {
	src := `
- {id: a, fun: t.ok, fire_event: true}
- {id: b, fun: t.chg, fire_event: custom/done}
- {id: c, fun: t.ok}
- {id: d, fun: t.ok, fire_event: false}
`
	tests := []struct {
		stateEvents bool
		want        string
	}{
		{false, "salt/state_result/2026/m1/a|salt/state_result/2026/m1/custom/done"},
		{true, "salt/state_result/2026/m1/a|salt/state_result/2026/m1/custom/done|salt/job/2026/prog/m1/2 len=4|salt/job/2026/prog/m1/3 len=4"},
	}
	for _, tt := range tests {
		var got []string
		_, err := engine.Run(lows(t, src), engine.RunOptions{
			Registry: testRegistry(), JID: "2026", MinionID: "m1", StateEvents: tt.stateEvents,
			FireEvent: func(tag string, data *value.Map) {
				ret, _ := data.Get("ret")
				if _, ok := ret.(*value.Map).Get("__run_num__"); !ok {
					t.Errorf("%s: the return is not in the event: %s", tag, value.Repr(data))
				}
				if n, ok := data.Get("len"); ok {
					tag += " len=" + value.Str(n)
				}
				got = append(got, tag)
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		if g := strings.Join(got, "|"); g != tt.want {
			t.Errorf("state_events=%v: got %s, want %s", tt.stateEvents, g, tt.want)
		}
	}
}

func TestPauseKill(t *testing.T) {
	var asked []string
	ret, err := engine.Run(lows(t, `
- {id: a, fun: t.ok}
- {id: b, fun: t.ok, require: [{t: c}]}
- {id: c, fun: t.ok}
`), engine.RunOptions{Registry: testRegistry(), Pause: func(low *value.Map) string {
		id, _ := low.Get("__id__")
		asked = append(asked, value.Str(id))
		if id == "b" {
			return "kill"
		}
		return "run"
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(ret); got != "a True t.ok" {
		t.Errorf("ran:\n%s", got)
	}
	if strings.Join(asked, ",") != "a,b" {
		t.Errorf("asked for %v", asked)
	}
}

// TestRefreshRegistry checks that a registry returned by Refresh (a module
// reload) is what the later states run with.
func TestRefreshRegistry(t *testing.T) {
	reloaded := testRegistry()
	reloaded.Replace(&statemod.Function{Name: "t.ok", Params: []statemod.Param{statemod.Req("name")}, Kwargs: true,
		Run: func(c *statemod.Call) (*value.Map, error) { return statemod.Ret(c.Get("name"), true, "reloaded"), nil }})
	ret, err := engine.Run(lows(t, `
- {id: a, fun: t.chg, reload_modules: true}
- {id: b, fun: t.ok}
`), engine.RunOptions{Registry: testRegistry(), Sleep: func(context.Context, time.Duration) {},
		Refresh: func(low, ret *value.Map) *statemod.Registry {
			if v, _ := low.Get("reload_modules"); v == true {
				return reloaded
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(ret); got != "a True t.chg\nb True reloaded" {
		t.Errorf("got\n%s", got)
	}
}
