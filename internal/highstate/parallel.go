package highstate

import (
	"errors"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"sync"
	"sync/atomic"

	"brine/internal/execmod"
	"brine/internal/fileserver"
	"brine/internal/match"
	"brine/internal/render"
	"brine/internal/value"
)

// Parallel rendering.
//
// Salt renders the SLS files of a highstate one after the other, and
// templates may call execution functions with side effects (cmd.run,
// file.write, grains.setval) that later templates observe. brine renders
// the top-level SLS of the top file ahead of the compiler on several
// goroutines ("speculative" renders) while the compiler still takes the
// results in Salt's order, and keeps the result identical to a serial run:
//
//   - A render's "turn" is the moment the serial compiler asks for it: every
//     file Salt renders before it is then rendered. Files the compiler
//     renders itself (includes) are always at their turn.
//   - A speculative render may read (Jinja and YAML, pure execution
//     functions such as pillar.get); any other execution function waits
//     for the render's turn, so side effects happen in Salt's order. A
//     pipeline with another renderer (py, gpg, a custom one) waits for its
//     turn before it starts, and so does template text that changes a
//     list or dict in place ({% do x.update(...) %}: x may be the run's
//     pillar, which pillar.get hands out as is), from the file that has
//     it on (an imported map.jinja).
//   - Code at its turn that may change what templates read (an execution
//     function that is not pure, a render whose pipeline is not pure or
//     that changes data in place) runs alone: it holds world for writing
//     while speculative renders hold it for reading, and it moves epoch
//     on.
//   - A speculative result is used only when epoch did not move between
//     the render's start and its turn; otherwise the file renders again at
//     its turn. A speculative render that would call an impure function
//     after epoch moved stops, and renders again at its turn.
//
// Renders nobody asks for (the compile ended first) are cancelled: a
// render waiting for its turn stops without calling anything.

// defaultRenderWorkers is brine_render_workers when unset: the CPUs, at
// most maxDefaultWorkers (beyond that the serial compiler, which merges
// and orders, is the bottleneck).
func defaultRenderWorkers() int {
	return min(runtime.NumCPU(), maxDefaultWorkers)
}

const maxDefaultWorkers = 4

// errStale stops a speculative render whose view of the run is stale.
var errStale = errors.New("brine: speculative render is stale (rendered again at its turn)")

// renderSched runs the speculative renders of one RenderHighstate.
type renderSched struct {
	r     *Run
	world sync.RWMutex  // read: speculative renders; write: impure work at its turn
	epoch atomic.Uint64 // impure work done so far

	mu   sync.Mutex
	jobs map[string]*specJob // env:sls -> job the compiler has not asked for yet
	all  []*specJob
	stop atomic.Bool
	wg   sync.WaitGroup

	sharedMu    sync.Mutex
	shared      map[*value.Map]bool // the mappings of opts, grains and pillar
	sharedEpoch uint64
}

// specJob is one speculative render.
type specJob struct {
	src  fileserver.SLS
	turn chan struct{} // closed at the job's turn, or when it is cancelled
	done chan struct{} // closed when the render ended (or never started)

	// written before turn is closed
	cancelled bool
	turnEpoch uint64
	turnPath  string // the file the compiler resolved the SLS to at the turn

	// written by the worker before done is closed
	startEpoch uint64
	atTurn     bool // the render waited for its turn: it ran as the serial one would
	stale      bool
	data       any
	err        error

	holdsRead bool // the worker holds world for reading (worker only)
}

// gate schedules the execution function calls (and file loads) of one
// render. job is nil for a render at its turn from the start (on the
// compiler's goroutine, or a worker's once the compiler asked for it).
type gate struct {
	s    *renderSched
	job  *specJob
	excl bool // the render runs alone (holds world for writing)
	owns bool // excl was taken by this gate mid-render: release it at the end
	rc   int  // the run's retcode when excl began
}

// startRenders starts the speculative renders of the top-level SLS of
// matches, or returns nil when the run renders serially.
func (r *Run) startRenders(matches *value.Map) *renderSched {
	workers := optInt(r.Opts, "brine_render_workers", defaultRenderWorkers())
	if workers < 2 || r.Render != nil || renderOverride != nil {
		return nil
	}
	s := &renderSched{r: r, jobs: map[string]*specJob{}}
	matches.Range(func(envK, states any) bool {
		env := value.Str(envK)
		if !r.Avail.Has(env) {
			return true
		}
		var list []any
		switch x := states.(type) {
		case *value.List:
			list = x.Items
		case value.Tuple:
			list = x
		}
		for _, m := range list {
			pat := value.Str(m)
			var names []string
			if match.IsGlob(pat) {
				names = match.FnmatchFilter(r.Avail.States(env), pat)
			} else {
				names = []string{pat}
			}
			for _, sls := range names {
				key := env + ":" + sls
				if _, dup := s.jobs[key]; dup {
					continue
				}
				src, ok := r.Avail.Roots.ResolveSLS(env, sls)
				if !ok {
					continue
				}
				j := &specJob{src: src, turn: make(chan struct{}), done: make(chan struct{})}
				s.jobs[key] = j
				s.all = append(s.all, j)
			}
		}
		return true
	})
	if len(s.all) < 2 {
		return nil
	}
	next := make(chan *specJob)
	for range min(workers, len(s.all)) {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for j := range next {
				s.runJob(j)
			}
		}()
	}
	go func() {
		for _, j := range s.all {
			next <- j
		}
		close(next)
	}()
	return s
}

// runJob renders j ahead of its turn.
func (s *renderSched) runJob(j *specJob) {
	defer close(j.done)
	if s.stop.Load() {
		return
	}
	data, err := os.ReadFile(j.src.Path)
	if err != nil {
		j.data, j.err = nil, err
		j.startEpoch = s.epoch.Load()
		return
	}
	if !s.r.purePipeline(data) || mutates(data) {
		<-j.turn
		if j.cancelled || j.turnPath != j.src.Path {
			j.stale = true
			return
		}
		j.atTurn = true
		j.startEpoch = j.turnEpoch
		j.data, j.err = s.r.renderGated(data, j.src, &gate{s: s})
		return
	}
	s.world.RLock()
	j.holdsRead = true
	j.startEpoch = s.epoch.Load()
	j.data, j.err = s.r.renderGated(data, j.src, &gate{s: s, job: j})
	if j.holdsRead {
		s.world.RUnlock()
		j.holdsRead = false
	}
}

// take is the compiler asking for src: the speculative result when one
// is valid, else a render at its turn.
func (s *renderSched) take(src fileserver.SLS) (any, error) {
	s.mu.Lock()
	j, ok := s.jobs[src.Env+":"+src.Name]
	if ok {
		delete(s.jobs, src.Env+":"+src.Name)
	}
	s.mu.Unlock()
	if ok {
		j.turnEpoch = s.epoch.Load()
		j.turnPath = src.Path
		close(j.turn)
		<-j.done
		if j.atTurn || !j.stale && j.startEpoch == j.turnEpoch && j.src.Path == src.Path {
			return j.data, j.err
		}
	}
	data, err := os.ReadFile(src.Path)
	if err != nil {
		return nil, err
	}
	return s.r.renderGated(data, src, &gate{s: s})
}

// finish cancels the renders nobody asked for and waits for the workers.
func (s *renderSched) finish() {
	s.stop.Store(true)
	s.mu.Lock()
	for k, j := range s.jobs {
		j.cancelled = true
		close(j.turn)
		delete(s.jobs, k)
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// exclusive runs f alone at its turn: speculative renders are paused (or
// not yet started), and epoch moves on for the renders that started
// before. The run's retcode is kept: a template's calls do not set it.
func (g *gate) exclusive(f func() (any, error)) (any, error) {
	if g.excl {
		return f()
	}
	g.lock()
	defer g.unlock()
	return f()
}

// lock makes the render run alone from here on.
func (g *gate) lock() {
	if j := g.job; j != nil && j.holdsRead {
		g.s.world.RUnlock()
		j.holdsRead = false
	}
	g.s.world.Lock()
	g.excl = true
	g.rc = g.s.r.Ctx.Retcode()
}

// unlock ends what lock began.
func (g *gate) unlock() {
	g.s.r.Ctx.SetRetcode(g.rc)
	g.s.epoch.Add(1)
	g.excl = false
	g.s.world.Unlock()
}

// awaitTurn makes a speculative render wait for its turn before it does
// something only its turn may do. It reports false (and marks the job
// stale) when the render must stop: cancelled, or what it read so far may
// have changed.
func (g *gate) awaitTurn() bool {
	j := g.job
	if j == nil || j.atTurn {
		return true
	}
	if j.holdsRead {
		g.s.world.RUnlock()
		j.holdsRead = false
	}
	<-j.turn
	if j.cancelled || j.startEpoch != j.turnEpoch || j.turnPath != j.src.Path {
		j.stale = true
		return false
	}
	j.atTurn = true
	return true
}

// call runs an execution function for a template under the gate.
func (g *gate) call(name string, f value.Callable, args []any, kw *value.Map) (any, error) {
	if g.excl || g.s.pureCall(name, args, kw) {
		return f.Call(args, kw)
	}
	if !g.awaitTurn() {
		return nil, errStale
	}
	return g.exclusive(func() (any, error) { return f.Call(args, kw) })
}

// salt wraps a template's execution function lookup with the gate.
func (g *gate) salt(lookup render.SaltLookup) render.SaltLookup {
	return func(name string) (value.Callable, bool) {
		f, ok := lookup(name)
		if !ok {
			return nil, false
		}
		return value.Func(func(args []any, kw *value.Map) (any, error) {
			return g.call(name, f, args, kw)
		}), true
	}
}

// gatedLoader is a template's file loader under the gate: a file that may
// change data in place (a Jinja import with {% do x.update(...) %}) makes
// the rest of the render run alone at its turn, since what it changes may
// be the run's grains or pillar that other renders read.
type gatedLoader struct {
	render.Loader
	g *gate
}

// ReadFile reads the file and takes the render's turn when it mutates.
func (l gatedLoader) ReadFile(saltenv, path string) ([]byte, string, error) {
	data, local, err := l.Loader.ReadFile(saltenv, path)
	if err != nil || l.g.excl || !mutates(data) {
		return data, local, err
	}
	if !l.g.awaitTurn() {
		return nil, "", errStale
	}
	l.g.lock()
	l.g.owns = true
	return data, local, nil
}

// mutationRe finds the Python methods that change a list or dict in
// place (dict.update, list.append, ...) in template text.
var mutationRe = regexp.MustCompile(`\.\s*(?:update|append|extend|insert|setdefault|pop|popitem|remove|clear|sort|reverse|__setitem__|__delitem__|__iadd__|__ior__)\s*\(`)

// mutates reports whether template text may change a list or dict in
// place. Such a template may change data other templates read (the
// pillar through a value pillar.get returned, say), so it renders alone.
func mutates(data []byte) bool { return mutationRe.Match(data) }

// pureRenderers are the renderers that only compute (with templates'
// execution function calls going through the gate).
var pureRenderers = map[string]bool{"jinja": true, "yaml": true, "json": true}

// purePipeline reports whether the file renders through pure renderers
// only (the built-in ones, not replaced by a custom renderer).
func (r *Run) purePipeline(data []byte) bool {
	pipe, ok := render.Shebang(string(data))
	if !ok {
		pipe = optString(r.Opts, "renderer", "jinja|yaml")
	}
	reg := r.Ctx.Renderers
	if reg == nil {
		reg = render.Default
	}
	p, err := reg.Parse(pipe, optStrings(r.Opts, "renderer_whitelist"), optStrings(r.Opts, "renderer_blacklist"))
	if err != nil || len(p) == 0 {
		return false
	}
	for _, st := range p {
		def, _ := render.Default.Lookup(st.Name)
		if !pureRenderers[st.Name] || st.Entry != def {
			return false
		}
	}
	return true
}

// pureFuncs are execution functions that only read the run's opts,
// grains and pillar (as long as they are the built-in ones).
var pureFuncs = map[string]bool{
	"pillar.get": true, "pillar.item": true, "grains.get": true, "grains.item": true,
	"grains.filter_by": true, "config.get": true, "config.option": true,
}

var (
	pureOnce sync.Once
	pureFns  map[string]uintptr
)

// pureCall reports whether a template's call of name may run ahead of its
// turn: a built-in reading function, without the arguments that make it
// compile a fresh pillar (saltenv, pillarenv).
func (s *renderSched) pureCall(name string, args []any, kw *value.Map) bool {
	if !pureFuncs[name] {
		return false
	}
	pureOnce.Do(func() {
		pureFns = map[string]uintptr{}
		for n := range pureFuncs {
			if f, ok := execmod.Default.Lookup(n); ok {
				pureFns[n] = reflect.ValueOf(f).Pointer()
			}
		}
	})
	f, ok := s.r.Ctx.Lookup(name)
	if !ok || reflect.ValueOf(f).Pointer() != pureFns[name] {
		return false
	}
	if kw != nil {
		if _, ok := kw.Get("saltenv"); ok {
			return false
		}
		if _, ok := kw.Get("pillarenv"); ok {
			return false
		}
	}
	switch name {
	case "pillar.get":
		// its saltenv and pillarenv are the 6th and 7th arguments
		return len(args) <= 5
	case "grains.filter_by":
		// with merge, the entry it picks is updated in place: the
		// run's data when the look-up table holds some
		return !filterByMerges(args, kw) || !s.sharesAny(lookupEntries(args, kw))
	}
	return true
}

// filterByMerges reports whether a grains.filter_by call has a merge.
func filterByMerges(args []any, kw *value.Map) bool {
	if len(args) > 2 {
		return value.Truthy(args[2])
	}
	m, _ := kw.Get("merge")
	return value.Truthy(m)
}

// lookupEntries are the entries of a grains.filter_by look-up table.
func lookupEntries(args []any, kw *value.Map) []any {
	var l any
	if len(args) > 0 {
		l = args[0]
	} else {
		l, _ = kw.Get("lookup_dict")
	}
	if m, ok := l.(*value.Map); ok {
		return m.Values()
	}
	return nil
}

// sharesAny reports whether one of vs is a mapping of the run's opts,
// grains or pillar. The set of those is built once per epoch.
func (s *renderSched) sharesAny(vs []any) bool {
	if len(vs) == 0 {
		return false
	}
	s.sharedMu.Lock()
	defer s.sharedMu.Unlock()
	if e := s.epoch.Load(); s.shared == nil || s.sharedEpoch != e {
		s.shared = map[*value.Map]bool{}
		s.sharedEpoch = e
		for _, root := range []*value.Map{s.r.Ctx.Opts, s.r.Ctx.Grains, s.r.Ctx.Pillar} {
			collectMaps(root, s.shared)
		}
	}
	for _, v := range vs {
		if m, ok := v.(*value.Map); ok && s.shared[m] {
			return true
		}
	}
	return false
}

func collectMaps(v any, into map[*value.Map]bool) {
	switch x := v.(type) {
	case *value.Map:
		if x == nil || into[x] {
			return
		}
		into[x] = true
		for _, e := range x.Values() {
			collectMaps(e, into)
		}
	case *value.List:
		for _, e := range x.Items {
			collectMaps(e, into)
		}
	}
}
