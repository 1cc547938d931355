package engine

import (
	"fmt"

	"brine/internal/statemod"
	"brine/internal/value"
)

// callParallel starts the state function of c in its own goroutine, as
// Salt's call_parallel starts a process, and returns the placeholder
// result; reconcileProcs merges the real one.
func (r *runner) callParallel(c *statemod.Call, low *value.Map) *value.Map {
	name := get(c.Args, "name")
	if !value.Truthy(name) {
		name = get(low, "name")
		if name == nil {
			name = get(low, "__id__")
		}
	}
	tag := Tag(low)
	p := &proc{done: make(chan struct{})}
	r.procs[tag] = p

	// The goroutine gets its own copies of everything the run goes on
	// changing.
	cc := *c
	cc.Low = low.Copy()
	cc.Running = c.Running.Copy()
	cc.Chunks = nil
	env := *c.Env
	if env.Exec != nil {
		env.Exec = env.Exec.Fork()
	}
	cc.Env = &env
	retry := low.Has("retry")
	var rd *value.Map
	if retry {
		rd = verifyRetryData(get(low, "retry"))
	}
	now, sleep, ctx, test, slots := r.now, r.opts.Sleep, r.ctx, r.opts.Test, r.slots
	go func() {
		defer close(p.done)
		if slots != nil {
			slots <- struct{}{}
			defer func() { <-slots }()
		}
		if cc.Env.Exec != nil {
			defer cc.Env.Exec.Release()
		}
		start := now()
		ret, err := runFunc(&cc)
		if err != nil {
			ret = exceptionRet(cc.Low, cc.Args, err.Error())
		}
		unify(ret)
		end := now()
		ret.Set("start_time", isoTime(start))
		ret.Set("duration", durationMS(end.Sub(start)))
		ret.Set("__parallel__", true)
		if retry {
			if !test {
				attempts := toInt(get(rd, "attempts"))
				for n := int64(1); attempts >= n; n++ {
					if value.Equal(get(rd, "until"), get(ret, "result")) {
						break
					}
					interval := toInt(get(rd, "interval"))
					sleep(ctx, durationSeconds(interval))
					retryRet, err := runFunc(&cc)
					if err != nil {
						retryRet = exceptionRet(cc.Low, cc.Args, err.Error())
					}
					unify(retryRet)
					retryRet.Set("duration", 0.0)
					orig := ret
					ret = retryRet
					cmt := ""
					if value.Truthy(get(ret, "comment")) {
						cmt = fmt.Sprintf("Attempt %d: Returned a result of \"%s\", with the following comment: \"%s\"",
							n, pyStr(get(ret, "result")), pyStr(get(ret, "comment")))
					}
					ret.Set("comment", pyStr(get(orig, "comment"))+"\n"+cmt)
					ret.Set("duration", value.ToFloat(get(ret, "duration"))+value.ToFloat(get(orig, "duration"))+float64(interval*1000))
					if n == 1 {
						ret.Set("start_time", get(orig, "start_time"))
					}
				}
			} else {
				ret.Set("comment", retryTestComment(get(ret, "comment"), rd))
			}
		}
		p.ret = ret
	}()
	return value.MapOf("name", name, "result", nil, "changes", value.NewMap(0), "comment", "Started in a separate process")
}

// lTag is Salt's _l_tag: the running key of a listen error.
func lTag(name, id string) string {
	return "Listen_Error_|-listen_" + id + "_|-listen_" + name + "_|-Listen_Error"
}

type cref struct {
	state, id, name string
	chunk           *value.Map
}

func (c cref) has(v string) bool { return c.state == v || c.id == v || c.name == v }

type listener struct {
	state, id, name string // name is "lookup" for listen_in
	to              []any
}

// callListen is Salt's State.call_listen: after the run, each state
// listened to that changed calls the listener's mod_watch.
func (r *runner) callListen(chunks []*value.Map, running *value.Map) *value.Map {
	var crefs []cref
	index := map[[3]string]int{}
	var listeners []listener
	for _, chunk := range chunks {
		c := cref{getStr(chunk, "state"), getStr(chunk, "__id__"), getStr(chunk, "name"), chunk}
		key := [3]string{c.state, c.id, c.name}
		if i, ok := index[key]; ok {
			crefs[i] = c
		} else {
			index[key] = len(crefs)
			crefs = append(crefs, c)
		}
		if v, ok := chunk.Get("listen"); ok {
			listeners = append(listeners, listener{c.state, c.id, c.name, asList(v)})
		}
		if v, ok := chunk.Get("listen_in"); ok {
			for _, item := range asList(v) {
				m, ok := item.(*value.Map)
				if !ok {
					continue
				}
				m.Range(func(k, val any) bool {
					listeners = append(listeners, listener{pyStr(k), pyStr(val), "lookup",
						[]any{value.MapOf(c.state, c.id)}})
					return true
				})
			}
		}
	}
	if len(listeners) == 0 {
		return running
	}
	var watchers []*value.Map
	errs := value.NewMap(0)
	addErr := func(state, id string) {
		errs.Set(lTag(state, id), value.MapOf(
			"comment", fmt.Sprintf("Referenced state %s: %s does not exist", state, id),
			"name", fmt.Sprintf("listen_%s:%s", state, id),
			"result", false,
			"changes", value.NewMap(0),
		))
	}
	for _, l := range listeners {
		for _, to := range l.to {
			lm, isMap := to.(*value.Map)
			if !isMap {
				target := pyStr(to)
				found := false
				for _, chunk := range chunks {
					if getStr(chunk, "__id__") == target || getStr(chunk, "name") == target {
						lm = value.MapOf(getStr(chunk, "state"), getStr(chunk, "__id__"))
						found = true
					}
				}
				if !found {
					continue
				}
			}
			lm.Range(func(k, v any) bool {
				lkey, lval := pyStr(k), pyStr(v)
				exists := false
				for _, c := range crefs {
					if c.state == lkey && c.has(lval) {
						exists = true
						break
					}
				}
				if !exists {
					addErr(lkey, lval)
					return true
				}
				for _, c := range crefs {
					if !(c.state == lkey && c.has(lval)) {
						continue
					}
					v, ok := running.Get(Tag(c.chunk))
					if !ok {
						continue
					}
					if !value.Truthy(get(v.(*value.Map), "changes")) {
						continue
					}
					listenerExists := false
					for _, lc := range crefs {
						if lc.state == l.state && lc.has(l.id) {
							listenerExists = true
							break
						}
					}
					if !listenerExists {
						addErr(l.state, l.id)
						continue
					}
					for _, lc := range crefs {
						if !(lc.state == l.state && lc.has(l.id)) {
							continue
						}
						low := lc.chunk.Copy()
						low.Set("sfun", get(lc.chunk, "fun"))
						low.Set("fun", "mod_watch")
						low.Set("__id__", "listener_"+lc.id)
						for _, k := range statemod.RequisiteKeywords {
							low.Delete(k)
						}
						watchers = append(watchers, low)
					}
				}
				return true
			})
		}
	}
	ret := r.callChunks(watchers)
	running.Update(ret)
	errs.Range(func(k, v any) bool {
		v.(*value.Map).Set("__run_num__", r.nextRunNum())
		return true
	})
	running.Update(errs)
	return running
}
