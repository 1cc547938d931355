package highstate

import (
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"brine/internal/compile"
	"brine/internal/engine"
	"brine/internal/execmod"
	"brine/internal/fileserver"
	"brine/internal/statemod"
	"brine/internal/top"
	"brine/internal/value"
)

func init() {
	execmod.Register("state.apply", stateApply, "Apply the highstate, or the SLS given as mods.")
	execmod.Register("state.sls", stateSLS, "Execute the states in one or more SLS files.")
	execmod.Register("state.highstate", stateHighstate, "Retrieve the state data from the master and execute it.")
	execmod.Register("state.test", stateTest, "Apply in test mode (state.apply test=True).")
	for _, n := range []string{"state.apply", "state.sls", "state.highstate", "state.test"} {
		execmod.SetOutputter(n, "highstate")
	}
}

const noStatesTag = "no_|-states_|-states_|-None"

// noStates is Salt's return when the highstate finds nothing to run.
func noStates(comment string) *value.Map {
	return value.MapOf(noStatesTag, value.MapOf(
		"result", false,
		"comment", comment,
		"name", "No States",
		"changes", value.NewMap(0),
		"__run_num__", int64(0),
	))
}

// testValue is Salt's _get_test_value: an explicit test argument, else a
// true "test" keyword, else the test option.
func testValue(ctx *execmod.Context, test any, kwargs *value.Map) bool {
	if test != nil {
		return value.Truthy(test)
	}
	if ctx.Test {
		return true
	}
	// config.get("test", omit_opts=True): grains, then pillar.
	for _, m := range []*value.Map{ctx.Grains, ctx.Pillar} {
		if v, ok := m.Get("test"); ok {
			if v == true {
				return true
			}
			break
		}
	}
	if v, ok := ctx.Opts.Get("test"); ok {
		return value.Truthy(v)
	}
	return false
}

// pillarFailure is Salt's return for a run with pillar errors.
func pillarFailure(ctx *execmod.Context, kwargs *value.Map) *value.List {
	if v, ok := kwargs.Get("force"); ok && value.Truthy(v) {
		return nil
	}
	if ctx.Pillar == nil {
		return nil
	}
	errs, ok := ctx.Pillar.Get("_errors")
	if !ok || !value.Truthy(errs) {
		return nil
	}
	l := value.NewList("Pillar failed to render with the following messages:")
	l.Append(compileIter(errs)...)
	return l
}

func compileIter(v any) []any {
	switch x := v.(type) {
	case *value.List:
		return x.Items
	}
	return []any{v}
}

// CallHigh runs high data as Salt's State.call_high does: compile it to
// low chunks (errors come back as a list) and run them with the engine.
func (r *Run) CallHigh(high *value.Map, test bool) (any, error) {
	injectDefaultCall(high)
	high, errs := compile.ReconcileExtend(high, false)
	errs = append(errs, compile.VerifyHigh(high)...)
	if len(errs) > 0 {
		return errList(errs), nil
	}
	high, errs = compile.RequisiteIn(high, optStrings(r.Opts, "disabled_requisites"))
	high = compile.ApplyExclude(high)
	if len(errs) > 0 {
		return errList(errs), nil
	}
	chunks := compile.CompileHighData(high)
	return r.RunChunks(chunks, test)
}

// RunChunks runs low chunks with the engine.
func (r *Run) RunChunks(chunks []*value.Map, test bool) (*value.Map, error) {
	var disabledRuns []string
	if r.Ctx.Grains != nil {
		if v, ok := r.Ctx.Grains.Get("state_runs_disabled"); ok {
			for _, e := range compileIter(v) {
				disabledRuns = append(disabledRuns, value.Str(e))
			}
		}
	}
	opts := engine.RunOptions{
		Test:               test,
		Failhard:           optBool(r.Opts, "failhard", false),
		Env:                &statemod.Env{Exec: r.Ctx},
		DisabledRequisites: optStrings(r.Opts, "disabled_requisites"),
		StateRunsDisabled:  disabledRuns,
	}
	// A long run on a terminal shows "[N/M] id" on stderr, erased at the
	// end, so stdout (the outputter's) is untouched.
	if term.IsTerminal(int(os.Stderr.Fd())) {
		progress, finish := engine.TerminalProgress(os.Stderr, progressDelay, progressInterval)
		opts.Progress = progress
		defer finish()
	}
	return engine.Run(chunks, opts)
}

// Live progress starts after progressDelay and redraws at most every
// progressInterval.
const (
	progressDelay    = 2 * time.Second
	progressInterval = 100 * time.Millisecond
)

// injectDefaultCall is Salt's inject_default_call: a state declaration
// without a function name gets "__call__" before its last item.
func injectDefaultCall(high *value.Map) {
	for _, b := range high.Values() {
		body, ok := b.(*value.Map)
		if !ok {
			continue
		}
		for _, v := range body.Values() {
			l, ok := v.(*value.List)
			if !ok {
				continue
			}
			needs := true
			for _, a := range l.Items {
				if _, ok := a.(string); ok {
					needs = false
					break
				}
			}
			if needs {
				i := len(l.Items) - 1
				if i < 0 {
					i = 0
				}
				l.Items = append(l.Items, nil)
				copy(l.Items[i+1:], l.Items[i:])
				l.Items[i] = "__call__"
			}
		}
	}
}

// withTest sets the run's test flag in the options the state functions
// see (Salt's opts["test"]) for the duration of f.
func withTest(ctx *execmod.Context, test bool, f func() (any, error)) (any, error) {
	old, had := ctx.Opts.Get("test")
	oldTest := ctx.Test
	ctx.Opts.Set("test", test)
	ctx.Test = test
	defer func() {
		ctx.Test = oldTest
		if had {
			ctx.Opts.Set("test", old)
		} else {
			ctx.Opts.Delete("test")
		}
	}()
	return f()
}

func addExclude(high *value.Map, exclude any) {
	if exclude == nil || !value.Truthy(exclude) {
		return
	}
	var items []any
	for _, e := range SplitMods(exclude) {
		items = append(items, e)
	}
	if l, ok := high.Get("__exclude__"); ok {
		if ll, ok := l.(*value.List); ok {
			ll.Append(items...)
			return
		}
	}
	high.Set("__exclude__", value.NewList(items...))
}

// SLS is state.sls: render mods in the run's saltenv (base by default)
// and run them.
func SLS(ctx *execmod.Context, mods any, test bool, exclude any, kwargs *value.Map) (any, error) {
	restore, err := statePillar(ctx, kwargs)
	if err != nil {
		return nil, err
	}
	defer restore()
	if pf := pillarFailure(ctx, kwargs); pf != nil {
		ctx.SetRetcode(exPillarFailure)
		return pf, nil
	}
	r := NewRun(ctx, kwargs)
	if r.Saltenv == "" {
		r.Saltenv = "base"
	}
	high, errs := r.RenderHighstate(r.SLSMatches(SplitMods(mods)))
	if len(errs) > 0 {
		ctx.SetRetcode(exStateCompilerError)
		return errList(errs), nil
	}
	addExclude(high, exclude)
	ret, err := withTest(ctx, test, func() (any, error) { return r.CallHigh(high, test) })
	if err != nil {
		return nil, err
	}
	ctx.SetRetcode(engine.StateRetcode(ret, high))
	return ret, nil
}

// Highstate is state.highstate: the top file's SLS for this minion, run.
func Highstate(ctx *execmod.Context, test bool, kwargs *value.Map) (any, error) {
	return highstateWith(ctx, test, kwargs, nil)
}

// highstateWith is Highstate with a hook to adjust the run (state.top).
func highstateWith(ctx *execmod.Context, test bool, kwargs *value.Map, adjust func(*Run)) (any, error) {
	restore, err := statePillar(ctx, kwargs)
	if err != nil {
		return nil, err
	}
	defer restore()
	if pf := pillarFailure(ctx, kwargs); pf != nil {
		ctx.SetRetcode(exPillarFailure)
		return pf, nil
	}
	r := NewRun(ctx, kwargs)
	if adjust != nil {
		adjust(r)
	}
	ret, high, err := r.callHighstate(kwargs, test)
	if err != nil {
		return nil, err
	}
	ctx.SetRetcode(engine.StateRetcode(ret, high))
	return ret, nil
}

// callHighstate is Salt's BaseHighState.call_highstate.
func (r *Run) callHighstate(kwargs *value.Map, test bool) (any, *value.Map, error) {
	o := r.TopOptions()
	var t *value.Map
	tops, err := top.GetTops(r.Avail, r.topRenderer(), o)
	if err != nil {
		t = value.NewMap(0)
	} else {
		t, err = top.Merge(tops, o)
		if err != nil {
			msg := err.Error()
			msg = strings.TrimPrefix(msg, top.ErrRender.Error()+": ")
			return noStates("Unable to render top file: " + msg), nil, nil
		}
	}
	errs := top.Verify(t)
	matches, err := r.TopMatches(t)
	if err != nil {
		return nil, nil, err
	}
	if matches.Len() == 0 {
		return noStates("No Top file or master_tops data matches found. Please see master log for details."), nil, nil
	}
	if wl, ok := kwargs.Get("whitelist"); ok && value.Truthy(wl) {
		matches = matchesWhitelist(matches, wl)
	}
	high, rerrs := r.RenderHighstate(matches)
	if ex, ok := kwargs.Get("exclude"); ok {
		addExclude(high, ex)
	}
	errs = append(errs, rerrs...)
	if len(errs) > 0 {
		return errList(errs), high, nil
	}
	if high.Len() == 0 {
		return noStates("No states found for this minion"), high, nil
	}
	ret, err := withTest(r.Ctx, test, func() (any, error) { return r.CallHigh(high, test) })
	return ret, high, err
}

func matchesWhitelist(matches *value.Map, wl any) *value.Map {
	allowed := map[string]bool{}
	for _, w := range SplitMods(wl) {
		allowed[w] = true
	}
	out := value.NewMap(0)
	matches.Range(func(env, sls any) bool {
		for _, s := range compileIter(sls) {
			if allowed[value.Str(s)] {
				v, ok := out.Get(env)
				if !ok {
					v = value.NewList()
					out.Set(env, v)
				}
				v.(*value.List).Append(s)
			}
		}
		return true
	})
	return out
}

func (r *Run) topRenderer() top.Renderer {
	return top.RendererFunc(func(path, source, saltenv, sls string) (any, error) {
		return r.renderFile(path, source, saltenv, sls)
	})
}

func stateSLS(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, rest, err := execmod.Bind("state.sls", args, kwargs,
		execmod.Req("mods"), execmod.Opt("test", nil), execmod.Opt("exclude", nil),
		execmod.Opt("queue", nil), execmod.Opt("sync_mods", nil), execmod.Opt("state_events", nil))
	if err != nil {
		return nil, err
	}
	return SLS(ctx, vals[0], testValue(ctx, vals[1], rest), vals[2], kwargs)
}

func stateHighstate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, rest, err := execmod.Bind("state.highstate", args, kwargs,
		execmod.Opt("test", nil), execmod.Opt("queue", nil), execmod.Opt("state_events", nil))
	if err != nil {
		return nil, err
	}
	return Highstate(ctx, testValue(ctx, vals[0], rest), kwargs)
}

func stateApply(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	mods := any(nil)
	if len(args) > 0 {
		mods, args = args[0], args[1:]
	} else if v, ok := kwargs.Get("mods"); ok {
		mods = v
		kwargs = kwargs.Copy()
		kwargs.Delete("mods")
	}
	if value.Truthy(mods) {
		return stateSLS(ctx, append([]any{mods}, args...), kwargs)
	}
	return stateHighstate(ctx, args, kwargs)
}

func stateTest(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	kwargs = kwargs.Copy()
	kwargs.Set("test", true)
	return stateApply(ctx, args, kwargs)
}

func init() {
	execmod.Register("state.single", stateSingle, "Execute a single state function with the named kwargs.")
	execmod.Register("state.low", stateLow, "Execute a single low data call.")
	execmod.SetOutputter("state.single", "highstate")
}

func stateSingle(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, rest, err := execmod.Bind("state.single", args, kwargs,
		execmod.Req("fun"), execmod.Req("name"), execmod.Opt("test", nil), execmod.Opt("queue", nil))
	if err != nil {
		return nil, err
	}
	fun := value.Str(vals[0])
	comps := strings.Split(fun, ".")
	if len(comps) < 2 {
		ctx.SetRetcode(exStateCompilerError)
		return "Invalid function passed", nil
	}
	low := rest.Copy()
	low.Set("state", comps[0])
	low.Set("fun", comps[1])
	low.Set("__id__", vals[1])
	low.Set("name", vals[1])
	test := testValue(ctx, vals[2], rest)
	if errs := verifyLow(low); len(errs) > 0 {
		ctx.SetRetcode(exStateCompilerError)
		return errList(errs), nil
	}
	r := NewRun(ctx, kwargs)
	ret, err := withTest(ctx, test, func() (any, error) { return r.RunChunks([]*value.Map{low}, test) })
	if err != nil {
		return nil, err
	}
	ctx.SetRetcode(0)
	if !engine.CheckResult(ret, nil) {
		ctx.SetRetcode(exStateFailure)
	}
	return ret, nil
}

func stateLow(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, _, err := execmod.Bind("state.low", args, kwargs, execmod.Req("data"), execmod.Opt("queue", nil))
	if err != nil {
		return nil, err
	}
	data, ok := vals[0].(*value.Map)
	if !ok {
		return nil, &execmod.CommandExecutionError{Msg: "state.low needs a low chunk (a mapping)"}
	}
	if errs := verifyLow(data); len(errs) > 0 {
		ctx.SetRetcode(exStateCompilerError)
		return errList(errs), nil
	}
	r := NewRun(ctx, kwargs)
	running, err := r.RunChunks([]*value.Map{data.Copy()}, optBool(r.Opts, "test", false))
	if err != nil {
		return nil, err
	}
	var ret any = running
	if running.Len() == 1 {
		_, ret = running.At(0)
	}
	if engine.CheckResult(ret, nil) {
		ctx.SetRetcode(exStateFailure)
	}
	return ret, nil
}

func init() {
	execmod.Register("state.top", stateTop, "Execute a highstate with an alternative top file (salt:// relative).")
	execmod.SetOutputter("state.top", "highstate")
}

func stateTop(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, rest, err := execmod.Bind("state.top", args, kwargs, execmod.Req("topfn"), execmod.Opt("test", nil), execmod.Opt("queue", nil))
	if err != nil {
		return nil, err
	}
	topfn := value.Str(vals[0])
	return highstateWith(ctx, testValue(ctx, vals[1], rest), kwargs, func(r *Run) {
		r.StateTop = fileserver.CreateURL(topfn, "")
		if v, ok := kwargs.Get("saltenv"); ok && v != nil {
			r.StateTopSaltenv = value.Str(v)
		}
	})
}

// verifyLow is the part of Salt's State.verify_data that state.single and
// state.low report before running: missing keys, a non-string name, an
// unknown state function and missing required parameters.
func verifyLow(low *value.Map) []string {
	var errs []string
	for _, k := range []string{"state", "fun", "name"} {
		if !low.Has(k) {
			errs = append(errs, fmt.Sprintf("Missing \"%s\" data", k))
		}
	}
	if name, _ := low.Get("name"); value.Truthy(name) {
		if _, ok := name.(string); !ok {
			in := ""
			if s, ok := low.Get("__sls__"); ok {
				in = fmt.Sprintf("in SLS '%s' ", value.Str(s))
			}
			errs = append(errs, fmt.Sprintf("ID '%s' %sis not formed as a string, but is a %s", value.Str(name), in, value.TypeName(name)))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	st, _ := low.Get("state")
	fn, _ := low.Get("fun")
	full := value.Str(st) + "." + value.Str(fn)
	f, ok := statemod.Default.Lookup(full)
	if !ok {
		if s, ok := low.Get("__sls__"); ok {
			return []string{fmt.Sprintf("State '%s' was not found in SLS '%s'", full, value.Str(s))}
		}
		return []string{fmt.Sprintf("Specified state '%s' was not found", full)}
	}
	for _, p := range f.MissingParams(low) {
		errs = append(errs, fmt.Sprintf("Missing parameter %s for state %s", p, full))
	}
	return errs
}
