package graph

import (
	"cmp"
	"slices"
	"strings"

	"brine/internal/engine"
	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

// keptKeys are the chunk keys the prediction keeps: what names, orders
// and links states. Everything else (arguments, unless/onlyif/creates,
// check_cmd, retry, parallel, failhard) is dropped, so nothing can run.
var keptKeys = map[string]bool{
	"state": true, "fun": true, "name": true, "__id__": true, "__sls__": true,
	"__env__": true, "order": true, "require": true, "require_any": true,
	"watch": true, "watch_any": true, "onchanges": true, "onchanges_any": true,
	"onfail": true, "onfail_any": true, "onfail_all": true, "prereq": true,
	"prerequired": true, "listen": true, "listen_in": true,
}

// predict runs the engine over stripped copies of chunks with stand-in
// state functions that succeed with changes (and would change in a
// prereq's dry run), and returns the running
// dictionary's entries in __run_num__ order.
func predict(chunks []*value.Map, cs []*Chunk, o Options) []Step {
	real := o.States
	if real == nil {
		real = statemod.Default
	}
	reg := statemod.NewRegistry()
	stub := func(c *statemod.Call) (*value.Map, error) {
		name, _ := c.Low.Get("name")
		// In test mode (a prereq's dry run) a state that would change
		// reports result None, as Salt's states do.
		var result any = true
		if c.Test {
			result = nil
		}
		return value.MapOf("name", name, "changes", value.MapOf("graph", "predicted"), "result", result, "comment", ""), nil
	}
	register := func(full string) {
		mod, fun, ok := strings.Cut(full, ".")
		if !ok || mod == "" || fun == "" || strings.Contains(fun, ".") || reg.Has(full) {
			return
		}
		reg.Register(&statemod.Function{Name: full, Kwargs: true, Run: stub})
	}
	stripped := make([]*value.Map, len(chunks))
	byTag := map[string]int{}
	for i, c := range chunks {
		s := value.NewMap(len(keptKeys))
		c.Range(func(k, v any) bool {
			if ks, ok := k.(string); ok && keptKeys[ks] {
				s.Set(k, value.DeepCopy(v))
			}
			return true
		})
		stripped[i] = s
		byTag[cs[i].Tag] = i
		register(cs[i].State + "." + cs[i].Fun)
		if real.Has(cs[i].State + ".mod_watch") {
			register(cs[i].State + ".mod_watch")
		}
	}
	ex := execmod.NewContext()
	ex.Registry = execmod.NewRegistry()
	running, _ := engine.Run(stripped, engine.RunOptions{
		Registry:           reg,
		Env:                &statemod.Env{Exec: ex},
		DisabledRequisites: o.DisabledRequisites,
	})
	steps := make([]Step, 0, running.Len())
	running.Range(func(k, v any) bool {
		tag := pyStr(k)
		st := Step{Chunk: -1, Tag: tag}
		if i, ok := byTag[tag]; ok {
			st.Chunk = i
		}
		if m, ok := v.(*value.Map); ok {
			if n, ok := m.Get("__run_num__"); ok {
				st.RunNum, _ = n.(int64)
			}
			if c := str(m, "comment"); c != "" {
				st.Comment = c
			} else if st.Chunk < 0 {
				st.Comment = "mod_watch of a listener"
			}
		}
		steps = append(steps, st)
		return true
	})
	sortSteps(steps)
	return steps
}

func sortSteps(steps []Step) {
	slices.SortStableFunc(steps, func(a, b Step) int { return cmp.Compare(a.RunNum, b.RunNum) })
}
