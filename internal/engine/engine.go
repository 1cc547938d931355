// Package engine is the state runtime: it runs an ordered list of low
// chunks the way Salt 3006's salt.state.State does (call_chunks,
// call_chunk, check_requisite, call, call_listen, call_beacons) and
// returns the running dictionary.
//
// Chunks run in low-state order; before a chunk runs, its unmet requisites
// run first, recursively and depth first. Requisite kinds: require, watch
// (a change calls the module's mod_watch), onchanges, onfail (and the _any
// and _all forms), prereq (the pre-required state first runs in test mode;
// the prereq runs only if it would change), listen (mod_watch at the end of
// the run). Cycles become the result "Recursive requisite found"; a
// requisite on a missing state "The following requisites were not found".
//
// The engine knows nothing of how chunks are compiled: the compiler's
// output (a []*value.Map of low chunks in Salt's normalized form) is the
// whole contract.
package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"brine/internal/match"
	"brine/internal/statemod"
	"brine/internal/value"
)

// RunOptions configure one run.
type RunOptions struct {
	// Ctx cancels a run between states; nil means context.Background().
	Ctx context.Context
	// Test runs every state in dry-run mode (Salt's opts["test"]).
	Test bool
	// Failhard stops the run at the first failing state (opts["failhard"]).
	Failhard bool
	// Registry holds the state functions; nil means statemod.Default.
	Registry *statemod.Registry
	// Env is what state functions see of the minion (opts, grains, pillar,
	// execution functions).
	Env *statemod.Env
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Sleep waits between retries; nil means a context-aware time.Sleep.
	Sleep func(ctx context.Context, d time.Duration)
	// Progress, when set, is called before each state function runs with
	// the number of states finished so far, the total, and the chunk's ID.
	Progress func(done, total int, id string)
	// DisabledRequisites are requisite kinds to ignore (opts
	// "disabled_requisites").
	DisabledRequisites []string
	// StateRunsDisabled are fnmatch patterns of "mod.fun" names that must
	// not run (the grain state_runs_disabled).
	StateRunsDisabled []string
	// Refresh, when set, is called after each state function with its
	// chunk and result (Salt's State.check_refresh: reload_pillar,
	// reload_grains, reload_modules). When it reloads the modules it
	// returns the state registry the rest of the run uses, else nil.
	Refresh func(low, ret *value.Map) *statemod.Registry
	// Pause, when set, is Salt's State.check_pause, asked before each
	// chunk that has not run yet: it may block while the run is paused
	// (state.pause), and "kill" ends the run there (state.soft_kill).
	Pause func(low *value.Map) string
	// FireEvent, when set, receives the events of Salt's State.event: for
	// a state with fire_event, salt/state_result/<jid>/<id>/<name> (or the
	// fire_event text in place of the name) with {"ret": result}; with
	// StateEvents, salt/job/<jid>/prog/<id>/<run_num> for every state,
	// with "len" added.
	FireEvent func(tag string, data *value.Map)
	// StateEvents is the state_events option.
	StateEvents bool
	// JID is the run's job id and MinionID the minion's id (event tags).
	JID      string
	MinionID string
	// MaxParallel caps how many parallel: True states run at once (the
	// state_max_parallel option); 0 means no cap, as in Salt 3006, which
	// starts a process for each. States past the cap wait for a slot;
	// evaluation order and results are unchanged.
	MaxParallel int
}

// ErrRender is returned for requisite data Salt rejects with a
// SaltRenderError at run time (a requisite value that is not a string).
var ErrRender = errors.New("render error")

type runner struct {
	opts    RunOptions
	ctx     context.Context
	reg     *statemod.Registry
	now     func() time.Time
	runNum  int64
	pre     *value.Map
	active  map[string]bool
	chunks  []*value.Map
	modInit map[string]bool
	done    int

	procs map[string]*proc
	slots chan struct{} // parallel states running, when MaxParallel caps them
	err   error
	ix    *chunkIndex
	tags  map[*value.Map]string
}

// tag is Tag with a per-chunk cache: chunks are tagged many times.
func (r *runner) tag(c *value.Map) string {
	if t, ok := r.tags[c]; ok {
		return t
	}
	t := Tag(c)
	if r.tags == nil {
		r.tags = map[*value.Map]string{}
	}
	r.tags[c] = t
	return t
}

type proc struct {
	done chan struct{}
	ret  *value.Map
}

// Run executes chunks in order and returns the running dictionary: one
// entry per state, keyed by Tag, in completion order, as Salt's
// State.call_chunks followed by call_listen and call_beacons builds it.
// The chunks are copied first; the caller's maps are not changed.
//
// A failing state is a result in the running dictionary, never an error;
// the error is for a run that cannot proceed (cancellation, malformed
// requisite data).
func Run(chunks []*value.Map, opts RunOptions) (*value.Map, error) {
	r := newRunner(chunks, opts)
	running := r.callChunks(r.chunks)
	if r.err != nil {
		return running, r.err
	}
	running = r.callListen(r.chunks, running)
	if r.err != nil {
		return running, r.err
	}
	running = r.callBeacons(r.chunks, running)
	return running, r.err
}

func newRunner(chunks []*value.Map, opts RunOptions) *runner {
	r := &runner{
		opts:    opts,
		ctx:     opts.Ctx,
		reg:     opts.Registry,
		now:     opts.Now,
		pre:     value.NewMap(0),
		active:  map[string]bool{},
		modInit: map[string]bool{},
		procs:   map[string]*proc{},
	}
	if r.ctx == nil {
		r.ctx = context.Background()
	}
	if opts.MaxParallel > 0 {
		r.slots = make(chan struct{}, opts.MaxParallel)
	}
	if r.reg == nil {
		r.reg = statemod.Default
	}
	if r.now == nil {
		r.now = time.Now
	}
	if r.opts.Sleep == nil {
		r.opts.Sleep = func(ctx context.Context, d time.Duration) {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-ctx.Done():
			case <-t.C:
			}
		}
	}
	if r.opts.Env == nil {
		r.opts.Env = &statemod.Env{}
	}
	if r.opts.Env.Shared == nil {
		env := *r.opts.Env
		env.Shared = statemod.NewShared()
		r.opts.Env = &env
	}
	r.chunks = make([]*value.Map, len(chunks))
	for i, c := range chunks {
		r.chunks[i] = copyChunk(c)
	}
	return r
}

// copyChunk copies a chunk and the requisite lists in it, which the
// runtime changes (watch becoming require).
func copyChunk(c *value.Map) *value.Map {
	n := c.Copy()
	n.Range(func(k, v any) bool {
		if l, ok := v.(*value.List); ok {
			if ks, _ := k.(string); isRequisiteKey(ks) {
				n.Set(k, value.NewList(append([]any(nil), l.Items...)...))
			}
		}
		return true
	})
	return n
}

func isRequisiteKey(k string) bool {
	switch k {
	case "require", "require_any", "watch", "watch_any", "prereq", "prerequired",
		"onfail", "onfail_any", "onfail_all", "onchanges", "onchanges_any", "listen", "listen_in":
		return true
	}
	return false
}

func (r *runner) nextRunNum() int64 {
	n := r.runNum
	r.runNum++
	return n
}

// callChunks is Salt's State.call_chunks.
func (r *runner) callChunks(chunks []*value.Map) *value.Map {
	disabled := value.NewMap(0)
	if len(r.opts.StateRunsDisabled) > 0 {
		kept := chunks[:0:0]
		for _, low := range chunks {
			full := getStr(low, "state") + "." + getStr(low, "fun")
			off := false
			for _, pat := range r.opts.StateRunsDisabled {
				if match.Fnmatch(full, pat) {
					disabled.Set(Tag(low), value.MapOf(
						"changes", value.NewMap(0),
						"result", false,
						"comment", fmt.Sprintf("The state function \"%s\" is currently disabled by \"%s\", to re-enable, run state.enable %s.", full, pat, pat),
						"__run_num__", r.nextRunNum(),
						"__sls__", get(low, "__sls__"),
					))
					off = true
					break
				}
			}
			if !off {
				kept = append(kept, low)
			}
		}
		chunks = kept
	}
	running := value.NewMap(len(chunks))
	for _, low := range chunks {
		if running.Has("__FAILHARD__") {
			running.Delete("__FAILHARD__")
			return running
		}
		if r.err != nil {
			return running
		}
		if err := r.ctx.Err(); err != nil {
			r.err = err
			return running
		}
		tag := r.tag(low)
		if !running.Has(tag) {
			if r.opts.Pause != nil && r.opts.Pause(low) == "kill" {
				break
			}
			running = r.callChunk(low, running, chunks, 0)
			if r.checkFailhard(low, running) {
				r.reconcileProcs(running, true)
				return running
			}
		}
		clear(r.active)
	}
	r.reconcileProcs(running, true)
	if disabled.Len() == 0 {
		return running
	}
	disabled.Update(running)
	return disabled
}

// checkFailhard is Salt's State.check_failhard.
func (r *runner) checkFailhard(low *value.Map, running *value.Map) bool {
	if r.opts.Test {
		return false
	}
	fh := r.opts.Failhard
	if v, ok := low.Get("failhard"); ok {
		fh = value.Truthy(v)
	}
	if !fh {
		return false
	}
	ret, ok := running.Get(r.tag(low))
	if !ok {
		return false
	}
	res := get(ret.(*value.Map), "result")
	if res == nil {
		return false
	}
	return !value.Truthy(res)
}

// reconcileProcs merges finished parallel states into running; with wait
// it first waits for every one of them.
func (r *runner) reconcileProcs(running *value.Map, wait bool) {
	if len(r.procs) == 0 {
		return
	}
	tags := make([]string, 0, len(r.procs))
	for tag := range r.procs {
		tags = append(tags, tag)
	}
	sort.Strings(tags)
	for _, tag := range tags {
		p := r.procs[tag]
		if wait {
			<-p.done
		} else {
			select {
			case <-p.done:
			default:
				continue
			}
		}
		v, ok := running.Get(tag)
		if !ok {
			continue
		}
		cur := v.(*value.Map)
		cur.Update(p.ret)
		delete(r.procs, tag)
	}
}

// waitProcs waits for the parallel states among tags and merges their
// results.
func (r *runner) waitProcs(running *value.Map, tags []string) {
	for _, tag := range tags {
		p, ok := r.procs[tag]
		if !ok {
			continue
		}
		<-p.done
		if v, ok := running.Get(tag); ok {
			v.(*value.Map).Update(p.ret)
		}
		delete(r.procs, tag)
	}
}

// req is one parsed requisite reference.
type req struct {
	key string // module name, "id" or "sls"
	val any    // the name, ID or SLS glob (a string when well formed)
}

func parseReq(item any) (req, bool) {
	switch x := item.(type) {
	case string:
		return req{key: "id", val: x}, true
	case *value.Map:
		if x.Len() == 0 {
			return req{}, false
		}
		k, v := x.At(0)
		ks := pyStr(k)
		if i := strings.IndexByte(ks, '.'); i >= 0 {
			ks = ks[:i]
		}
		return req{key: ks, val: v}, true
	}
	return req{}, false
}

// boxedKinds holds requisite kinds as interface values, so map lookups
// with them do not allocate.
var boxedKinds = map[string]any{}

func boxed(k string) any {
	if b, ok := boxedKinds[k]; ok {
		return b
	}
	return k
}

func init() {
	for _, k := range append(append([]string{"prerequired", "watch", "watch_any", "listen"}, checkKinds...), callKinds...) {
		boxedKinds[k] = k
	}
}

var checkKinds = []string{
	"require", "require_any", "watch", "watch_any", "prereq", "onfail",
	"onfail_any", "onfail_all", "onchanges", "onchanges_any",
}

type reqSet struct {
	kind   string
	chunks []*value.Map
}

func (r *runner) disabledReq(kind string) bool {
	for _, d := range r.opts.DisabledRequisites {
		if d == kind {
			return true
		}
	}
	return false
}

var watchPairs = [][2]string{{"watch", "require"}, {"watch_any", "require_any"}}

var presentKinds = []any{"require", "require_any", "prerequired", "prereq", "onfail", "onfail_any", "onfail_all", "onchanges", "onchanges_any"}

// moveWatch turns watch (and watch_any) into require (require_any) when
// the module has no mod_watch, as Salt does before checking requisites.
func (r *runner) moveWatch(low *value.Map) (present bool) {
	if !low.Has("watch") && !low.Has("watch_any") {
		return false
	}
	hasWatch := r.reg.Has(getStr(low, "state") + ".mod_watch")
	for _, pair := range watchPairs {
		w, ok := low.Get(pair[0])
		if !ok {
			continue
		}
		if hasWatch {
			present = true
			continue
		}
		low.Delete(pair[0])
		if cur, ok := low.Get(pair[1]); ok {
			if l, ok := cur.(*value.List); ok {
				l.Append(asList(w)...)
				continue
			}
		}
		low.Set(pair[1], w)
	}
	return present
}

// checkRequisite is Salt's State.check_requisite.
func (r *runner) checkRequisite(low *value.Map, running *value.Map, chunks []*value.Map, pre bool) (string, []reqSet) {
	present := r.moveWatch(low)
	for _, k := range presentKinds {
		if low.Has(k) {
			present = true
		}
	}
	if !present {
		return "met", nil
	}
	r.reconcileProcs(running, false)
	ix := r.index(chunks)
	kinds := checkKinds
	if pre {
		kinds = append(kinds[:len(kinds):len(kinds)], "prerequired")
	}
	reqs := make([]reqSet, len(kinds))
	for i, kind := range kinds {
		reqs[i].kind = kind
		v, ok := low.Get(boxed(kind))
		if !ok || v == nil {
			continue
		}
		if r.disabledReq(kind) {
			continue
		}
		for _, item := range asList(v) {
			rq, ok := parseReq(item)
			if !ok || rq.val == nil {
				continue
			}
			val, isStr := rq.val.(string)
			if rq.key != "sls" && !isStr {
				if len(chunks) > 0 {
					r.fail(fmt.Errorf("%w: Could not locate requisite of [%s] present in state with name [%s]", ErrRender, rq.key, getStr(chunks[0], "name")))
				}
				return "unmet", nil
			}
			if !isStr {
				val = pyStr(rq.val)
			}
			hits := ix.find(rq, val)
			if len(hits) == 0 {
				return "unmet", nil
			}
			for _, h := range hits {
				reqs[i].chunks = append(reqs[i].chunks, chunks[h])
			}
		}
	}
	funStats := map[string]bool{}
	for _, rs := range reqs {
		kind := rs.kind
		runDict := running
		if strings.HasPrefix(kind, "prereq") && !strings.HasPrefix(kind, "prerequired") {
			runDict = r.pre
		}
		tags := make([]string, len(rs.chunks))
		for j, c := range rs.chunks {
			tags[j] = r.tag(c)
		}
		if runDict == running {
			r.waitProcs(running, tags)
		}
		stats := map[string]bool{}
		for _, tag := range tags {
			v, ok := runDict.Get(tag)
			if !ok {
				stats["unmet"] = true
				continue
			}
			ret := v.(*value.Map)
			result := get(ret, "result")
			if strings.HasPrefix(kind, "onfail") {
				if result == true {
					stats["onfail"] = true
					continue
				}
			} else if result == false {
				stats["fail"] = true
				continue
			}
			if strings.HasPrefix(kind, "onchanges") {
				if !value.Truthy(get(ret, "changes")) {
					stats["onchanges"] = true
				} else {
					stats["onchangesmet"] = true
				}
				continue
			}
			if strings.HasPrefix(kind, "watch") && value.Truthy(get(ret, "changes")) {
				stats["change"] = true
				continue
			}
			isPrereq := strings.HasPrefix(kind, "prereq") && !strings.HasPrefix(kind, "prerequired")
			if strings.HasPrefix(kind, "prereq") && result == nil && isPrereq {
				stats["premet"] = true
			}
			if strings.HasPrefix(kind, "prereq") && result != nil {
				if isPrereq {
					stats["pre"] = true
				}
			} else {
				ran, has := ret.Get("__state_ran__")
				if !has || value.Truthy(ran) {
					stats["met"] = true
				}
			}
		}
		if strings.HasSuffix(kind, "_any") || kind == "onfail" {
			if stats["met"] || stats["change"] {
				delete(stats, "fail")
			}
			if stats["onchangesmet"] {
				delete(stats, "onchanges")
				delete(stats, "fail")
			}
			if stats["onfail"] && stats["met"] {
				delete(stats, "onfail")
			}
		}
		if strings.HasSuffix(kind, "_all") {
			if stats["onfail"] && stats["met"] {
				delete(stats, "met")
			}
		}
		for k := range stats {
			funStats[k] = true
		}
	}
	var status string
	switch {
	case funStats["unmet"]:
		status = "unmet"
	case funStats["fail"]:
		status = "fail"
	case funStats["pre"]:
		if funStats["premet"] {
			status = "met"
		} else {
			status = "pre"
		}
	case funStats["onfail"] && !funStats["onchangesmet"]:
		status = "onfail"
	case funStats["onchanges"] && !funStats["onchangesmet"]:
		status = "onchanges"
	case funStats["change"]:
		status = "change"
	case funStats["onfail"]:
		status = "onfail"
	default:
		status = "met"
	}
	return status, reqs
}

func (r *runner) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

var callKinds = []string{
	"require", "require_any", "watch", "watch_any", "prereq", "onfail",
	"onfail_any", "onchanges", "onchanges_any",
}

// skipped builds the result of a state the runtime decided not to run, in
// Salt's key order.
func (r *runner) skipped(low *value.Map, result any, comment string, extra ...any) *value.Map {
	now := r.now()
	m := value.NewMap(10)
	m.Set("changes", value.NewMap(0))
	m.Set("result", result)
	m.Set("duration", durationMS(r.now().Sub(now)))
	m.Set("start_time", isoTime(now))
	m.Set("comment", comment)
	for i := 0; i+1 < len(extra); i += 2 {
		m.Set(extra[i], extra[i+1])
	}
	m.Set("__run_num__", r.nextRunNum())
	for _, k := range []string{"__sls__", "__id__", "name"} {
		m.Set(k, get(low, k))
	}
	return m
}

// callChunk is Salt's State.call_chunk.
func (r *runner) callChunk(low *value.Map, running *value.Map, chunks []*value.Map, depth int) *value.Map {
	if r.err != nil {
		return running
	}
	low = r.modAggregate(low, running, chunks)
	r.modInitCheck(low)
	tag := r.tag(low)
	if !truthy(low, "prerequired") {
		r.active[tag] = true
	}
	requisites := callKinds
	var status string
	var reqs []reqSet
	if !truthy(low, "__prereq__") {
		requisites = append(requisites[:len(requisites):len(requisites)], "prerequired")
		status, reqs = r.checkRequisite(low, running, chunks, true)
	} else {
		status, reqs = r.checkRequisite(low, running, chunks, false)
	}
	if r.err != nil {
		return running
	}
	switch {
	case status == "unmet":
		type lostReq struct {
			kind string
			reqs []req
		}
		var lost []lostReq
		var toRun []*value.Map
		var lastChunk *value.Map
		if len(chunks) > 0 {
			lastChunk = chunks[len(chunks)-1]
		}
		for _, kind := range requisites {
			lr := lostReq{kind: kind}
			v, ok := low.Get(boxed(kind))
			if ok {
				for _, item := range asList(v) {
					rq, ok := parseReq(item)
					if !ok {
						continue
					}
					found := false
					if rq.val != nil {
						for _, h := range r.index(chunks).find(rq, pyStr(rq.val)) {
							chunk := chunks[h]
							switch {
							case kind == "prereq":
								chunk.Set("__prereq__", true)
							case kind == "prerequired" && rq.key != "sls":
								chunk.Set("__prerequired__", true)
							}
							toRun = append(toRun, chunk)
							found = true
						}
					}
					if !found {
						lr.reqs = append(lr.reqs, rq)
					}
				}
			}
			lost = append(lost, lr)
		}
		anyLost := false
		for _, lr := range lost {
			if len(lr.reqs) > 0 {
				anyLost = true
			}
		}
		if anyLost {
			var b strings.Builder
			b.WriteString("The following requisites were not found:\n")
			for _, lr := range lost {
				if len(lr.reqs) == 0 {
					continue
				}
				b.WriteString(strings.Repeat(" ", 19) + lr.kind + ":\n")
				for _, rq := range lr.reqs {
					b.WriteString(strings.Repeat(" ", 23) + rq.key + ": " + pyStr(rq.val) + "\n")
				}
			}
			runDict := running
			if truthy(low, "__prereq__") {
				runDict = r.pre
			}
			ret := r.skipped(low, false, b.String())
			runDict.Set(tag, ret)
			r.done++
			r.event(low, ret)
			return running
		}
		for _, chunk := range toRun {
			lastChunk = chunk
			ctag := r.tag(chunk)
			if running.Has(ctag) {
				continue
			}
			if r.active[ctag] {
				if truthy(chunk, "__prerequired__") {
					if !r.pre.Has(tag) {
						low.Set("__prereq__", true)
						r.pre.Set(ctag, r.call(low, chunks, running, 1))
					}
					return running
				}
				m := value.NewMap(8)
				m.Set("changes", value.NewMap(0))
				m.Set("result", false)
				m.Set("comment", "Recursive requisite found")
				m.Set("__run_num__", r.runNum)
				for _, k := range []string{"__sls__", "__id__", "name"} {
					m.Set(k, get(low, k))
				}
				running.Set(tag, m)
				r.runNum++
				r.done++
				r.event(low, m)
				return running
			}
			running = r.callChunk(chunk, running, chunks, 0)
			if r.checkFailhard(chunk, running) {
				running.Set("__FAILHARD__", true)
				return running
			}
		}
		if truthy(low, "__prereq__") {
			status, _ = r.checkRequisite(low, running, chunks, false)
			ret := r.call(low, chunks, running, 1)
			r.pre.Set(tag, ret)
			if !value.Truthy(get(ret, "changes")) && status == "change" {
				ret.Set("changes", value.MapOf("watch", "watch"))
				ret.Set("result", nil)
			}
		} else {
			depth++
			if depth >= 20 {
				m := value.NewMap(8)
				m.Set("changes", value.NewMap(0))
				m.Set("result", false)
				m.Set("comment", "Recursive requisite found")
				m.Set("__run_num__", r.runNum)
				for _, k := range []string{"__sls__", "__id__", "name"} {
					m.Set(k, get(low, k))
				}
				running.Set(tag, m)
			} else {
				running = r.callChunk(low, running, chunks, depth)
			}
		}
		if lastChunk != nil && r.checkFailhard(lastChunk, running) {
			running.Set("__FAILHARD__", true)
			return running
		}
	case status == "met":
		if truthy(low, "__prereq__") {
			r.pre.Set(tag, r.call(low, chunks, running, 1))
		} else {
			running.Set(tag, r.call(low, chunks, running, 1))
		}
	case status == "fail":
		if v, ok := r.pre.Get(tag); ok {
			ret := v.(*value.Map)
			if value.Truthy(get(ret, "changes")) {
				ret.Set("changes", value.NewMap(0))
			}
			running.Set(tag, ret)
			ret.Set("__run_num__", r.runNum)
			for _, k := range []string{"__sls__", "__id__", "name"} {
				ret.Set(k, get(low, k))
			}
		} else {
			var failed []string
			seen := map[string]bool{}
			for _, rs := range reqs {
				for _, rl := range rs.chunks {
					rtag := r.tag(rl)
					v, ok := r.pre.Get(rtag)
					if !ok {
						v, ok = running.Get(rtag)
					}
					if !ok {
						continue
					}
					if get(v.(*value.Map), "result") == false {
						key := getStr(rl, "__sls__") + "." + getStr(rl, "__id__")
						if !seen[key] {
							seen[key] = true
							failed = append(failed, key)
						}
					}
				}
			}
			now := r.now()
			m := value.NewMap(10)
			m.Set("changes", value.NewMap(0))
			m.Set("result", false)
			m.Set("duration", durationMS(r.now().Sub(now)))
			m.Set("start_time", isoTime(now))
			m.Set("comment", "One or more requisite failed: "+strings.Join(failed, ", "))
			m.Set("__run_num__", r.runNum)
			for _, k := range []string{"__sls__", "__id__", "name"} {
				m.Set(k, get(low, k))
			}
			running.Set(tag, m)
			r.pre.Set(tag, m)
		}
		r.runNum++
		r.done++
	case status == "change" && !truthy(low, "__prereq__"):
		ret := r.call(low, chunks, running, 1)
		if !value.Truthy(get(ret, "changes")) && !value.Truthy(get(ret, "skip_watch")) {
			wlow := low.Copy()
			wlow.Set("sfun", get(low, "fun"))
			wlow.Set("fun", "mod_watch")
			wlow.Set("__reqs__", reqsValue(reqs))
			ret = r.call(wlow, chunks, running, 1)
		}
		running.Set(tag, ret)
	case status == "pre":
		m := r.skipped(low, true, "No changes detected")
		running.Set(tag, m)
		r.pre.Set(tag, m)
		r.done++
	case status == "onfail":
		running.Set(tag, r.skipped(low, true, "State was not run because onfail req did not change", "__state_ran__", false))
		r.done++
	case status == "onchanges":
		running.Set(tag, r.skipped(low, true, "State was not run because none of the onchanges reqs changed", "__state_ran__", false))
		r.done++
	default:
		if truthy(low, "__prereq__") {
			r.pre.Set(tag, r.call(low, chunks, running, 1))
		} else {
			running.Set(tag, r.call(low, chunks, running, 1))
		}
	}
	if v, ok := running.Get(tag); ok {
		r.event(low, v)
	}
	return running
}

// reqsValue is the __reqs__ passed to mod_watch: requisite kind -> chunks.
func reqsValue(reqs []reqSet) *value.Map {
	m := value.NewMap(len(reqs))
	for _, rs := range reqs {
		l := make([]any, len(rs.chunks))
		for i, c := range rs.chunks {
			l[i] = c
		}
		m.Set(rs.kind, value.NewList(l...))
	}
	return m
}

// modInitCheck runs a module's mod_init once per run, as Salt's _mod_init.
func (r *runner) modInitCheck(low *value.Map) {
	state := getStr(low, "state")
	if r.modInit[state] || !r.reg.Has(state+"."+getStr(low, "fun")) {
		return
	}
	f, ok := r.reg.Lookup(state + ".mod_init")
	if !ok {
		return
	}
	ret, err := f.Run(&statemod.Call{Ctx: r.ctx, Fun: f, Args: value.NewMap(0), Low: low, Env: r.opts.Env, Test: r.opts.Test})
	if err == nil && ret != nil && value.Truthy(get(ret, "result")) {
		r.modInit[state] = true
	}
}

// durationSeconds converts Salt's integer seconds.
func durationSeconds(n int64) time.Duration { return time.Duration(n) * time.Second }
