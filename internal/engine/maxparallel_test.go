package engine_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"brine/internal/engine"
	"brine/internal/statemod"
	"brine/internal/value"
)

// gate is a state function that records how many of its calls run at
// once. The first calls wait until want of them run together (or release
// is closed); every call then yields for a while before it returns, so
// calls the engine started too early overlap with it.
type gate struct {
	mu      sync.Mutex
	cur     int
	peak    int
	started int
	want    int
	full    chan struct{}
	release <-chan time.Time
}

func (g *gate) run(c *statemod.Call) (*value.Map, error) {
	g.mu.Lock()
	g.cur++
	g.started++
	g.peak = max(g.peak, g.cur)
	if g.started == g.want {
		close(g.full)
	}
	g.mu.Unlock()
	select {
	case <-g.full:
	case <-g.release:
	}
	for range 1000 {
		runtime.Gosched()
	}
	g.mu.Lock()
	g.cur--
	g.mu.Unlock()
	return value.MapOf("name", c.Get("name"), "changes", value.NewMap(0), "result", true, "comment", "gated"), nil
}

// TestMaxParallel: state_max_parallel caps the parallel states running at
// once without changing the running dictionary; without it every
// parallel state runs at the same time, as Salt 3006 starts a process for
// each.
func TestMaxParallel(t *testing.T) {
	src := `
- {id: a, fun: g.run, parallel: true}
- {id: b, fun: g.run, parallel: true}
- {id: c, fun: g.run, parallel: true}
- {id: d, fun: g.run, parallel: true}
- {id: e, fun: t.ok, require: [{g: a}, {g: d}]}`
	for _, tt := range []struct {
		max, wantPeak int
	}{{0, 4}, {2, 2}, {1, 1}} {
		t.Run(fmt.Sprint(tt.max), func(t *testing.T) {
			// release only ends a run that would otherwise hang (an
			// engine that does not start all four at once); the peak
			// check then fails.
			g := &gate{want: tt.wantPeak, full: make(chan struct{}), release: time.After(time.Minute)}
			reg := testRegistry()
			reg.Register(&statemod.Function{Name: "g.run", Params: []statemod.Param{statemod.Req("name")}, Kwargs: true, Run: g.run})
			ret, err := engine.Run(lows(t, src), engine.RunOptions{Registry: reg, MaxParallel: tt.max})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			ret.Range(func(k, v any) bool {
				m := v.(*value.Map)
				id, _ := m.Get("__id__")
				res, _ := m.Get("result")
				got = append(got, fmt.Sprintf("%v=%v", id, res))
				return true
			})
			if s := strings.Join(got, " "); s != "a=true b=true c=true d=true e=true" {
				t.Errorf("running = %s", s)
			}
			if tt.max > 0 && g.peak > tt.max {
				t.Errorf("%d parallel states ran at once, cap %d", g.peak, tt.max)
			}
			if tt.max == 0 && g.peak != 4 {
				t.Errorf("peak %d, want all 4 at once", g.peak)
			}
		})
	}
}
