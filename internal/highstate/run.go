package highstate

import (
	"log/slog"
	"os"
	"strconv"
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
	execmod.Register("state.apply", withKwargsWarning("state.apply", stateApply), "Apply the highstate, or the SLS given as mods.")
	execmod.Register("state.sls", withKwargsWarning("state.sls", stateSLS), "Execute the states in one or more SLS files.")
	execmod.Register("state.highstate", withKwargsWarning("state.highstate", stateHighstate), "Retrieve the state data from the master and execute it.")
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
	// salt.utils.args.test_mode: a keyword spelled "test" in any case.
	found := false
	kwargs.Range(func(k, v any) bool {
		if ks, ok := k.(string); ok && strings.ToLower(ks) == "test" && isTrue(v) {
			found = true
			return false
		}
		return true
	})
	if found {
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

// isTrue is Salt's salt.utils.data.is_true: numbers (and numeric text)
// above zero, the text "true" in any case, else Python truthiness.
func isTrue(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case int64:
		return x > 0
	case float64:
		return x > 0
	case string:
		t := strings.TrimSpace(x)
		if n, err := strconv.ParseInt(t, 10, 64); err == nil {
			return n > 0
		}
		if f, err := strconv.ParseFloat(t, 64); err == nil && !strings.ContainsAny(t, "xX_") {
			return f > 0
		}
		return strings.ToLower(x) == "true"
	}
	return value.Truthy(v)
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
	opts := r.runOptions(test)
	warnChunks(chunks, statemod.For(r.Ctx))
	// A long run on a terminal shows "[N/M] id" on stderr, erased at the
	// end, so stdout (the outputter's) is untouched.
	if term.IsTerminal(int(os.Stderr.Fd())) {
		progress, finish := engine.TerminalProgress(os.Stderr, progressDelay, progressInterval)
		opts.Progress = progress
		defer finish()
	}
	return engine.Run(chunks, opts)
}

// runOptions are the engine options of the run.
func (r *Run) runOptions(test bool) engine.RunOptions {
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
		Registry:           statemod.For(r.Ctx),
		DisabledRequisites: optStrings(r.Opts, "disabled_requisites"),
		StateRunsDisabled:  disabledRuns,
		Refresh:            r.refresh,
		MaxParallel:        optInt(r.Opts, "state_max_parallel", 0),
	}
	r.eventOptions(&opts)
	return opts
}

// recompilePillar compiles the run's pillar again (with the call's pillar
// override and pillarenv), for the states run after it.
func (r *Run) recompilePillar() {
	svc, ok := r.Ctx.Service("pillar").(pillarCompiler)
	if !ok {
		return
	}
	var override *value.Map
	if v, ok := r.kwargs.Get("pillar"); ok {
		override, _ = v.(*value.Map)
	}
	pillarenv, _ := r.Opts.Get("pillarenv")
	if v, ok := r.kwargs.Get("pillarenv"); ok && value.Truthy(v) {
		pillarenv = v
	}
	penv := ""
	if pillarenv != nil {
		penv = value.Str(pillarenv)
	}
	opts := r.Opts.Copy()
	opts.Set("pillarenv", strOrNil(pillarenv))
	fresh, err := svc.Compile(opts, r.Ctx.Grains, optString(r.Opts, "id", ""), r.Saltenv, penv, override, nil)
	if err != nil {
		slog.Warn("pillar refresh failed", "err", err)
		return
	}
	r.Ctx.Pillar = fresh
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

// addExclude adds exclude to the high data's __exclude__. A list is taken
// as it is (its items may be {"id": ...} or {"sls": ...} mappings); text
// is split on commas, each name stripped when strip is set (state.sls's
// split_input) and kept as written otherwise (call_highstate's split).
func addExclude(high *value.Map, exclude any, strip bool) {
	if exclude == nil || !value.Truthy(exclude) {
		return
	}
	var items []any
	switch x := exclude.(type) {
	case *value.List:
		items = append(items, x.Items...)
	default:
		for _, e := range strings.Split(value.Str(x), ",") {
			if strip {
				e = strings.TrimSpace(e)
			}
			items = append(items, e)
		}
	}
	if l, ok := high.Get("__exclude__"); ok {
		if ll, ok := l.(*value.List); ok {
			ll.Append(items...)
			return
		}
	}
	high.Set("__exclude__", value.NewList(items...))
}

// terse reports whether the run's return keeps only failures and changes:
// the state_data option is "terse" or the call passes terse=True.
func terse(ctx *execmod.Context, kwargs *value.Map) bool {
	if v, ok := kwargs.Get("terse"); ok && value.Truthy(v) {
		return true
	}
	v, err := ctx.Call("config.option", []any{"state_data", ""}, nil)
	return err == nil && value.Equal(v, "terse")
}

// filterRunning is Salt's _filter_running: the states that failed or
// changed something.
func filterRunning(ret any) any {
	m, ok := ret.(*value.Map)
	if !ok {
		return ret
	}
	out := value.NewMap(0)
	m.Range(func(k, v any) bool {
		st, _ := v.(*value.Map)
		if st == nil {
			out.Set(k, v)
			return true
		}
		res, _ := st.Get("result")
		ch, _ := st.Get("changes")
		if !value.Truthy(res) || value.Truthy(ch) {
			out.Set(k, v)
		}
		return true
	})
	return out
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
	addExclude(high, exclude, true)
	ret, err := withTest(ctx, test, func() (any, error) { return r.CallHigh(high, test) })
	if err != nil {
		return nil, err
	}
	if terse(ctx, kwargs) {
		ret = filterRunning(ret)
	}
	ctx.SetRetcode(engine.StateRetcode(ret, high))
	return ret, nil
}

// Highstate is state.highstate: the top file's SLS for this minion, run.
func Highstate(ctx *execmod.Context, test bool, kwargs *value.Map) (any, error) {
	return highstateWith(ctx, test, kwargs, nil)
}

// highstateCall is what differs between state.highstate and state.top.
type highstateCall struct {
	adjust    func(*Run) // changes the run before the top file is read
	whitelist bool       // honours whitelist= and force=
	terse     bool       // honours terse= and state_data
}

// highstateWith is Highstate with a hook to adjust the run (state.top).
func highstateWith(ctx *execmod.Context, test bool, kwargs *value.Map, hc *highstateCall) (any, error) {
	if hc == nil {
		hc = &highstateCall{whitelist: true, terse: true}
	}
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
	if hc.adjust != nil {
		hc.adjust(r)
	}
	var wl any
	if hc.whitelist {
		wl, _ = kwargs.Get("whitelist")
	}
	ret, high, err := r.callHighstate(kwargs, wl, test)
	if err != nil {
		return nil, err
	}
	if _, ok := ret.(*value.Map); ok && hc.terse && terse(ctx, kwargs) {
		ret = filterRunning(ret)
	}
	ctx.SetRetcode(engine.StateRetcode(ret, high))
	return ret, nil
}

// callHighstate is Salt's BaseHighState.call_highstate.
func (r *Run) callHighstate(kwargs *value.Map, whitelist any, test bool) (any, *value.Map, error) {
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
	if err := r.autoSync(matches); err != nil {
		return nil, nil, err
	}
	if matches.Len() == 0 {
		return noStates("No Top file or master_tops data matches found. Please see master log for details."), nil, nil
	}
	if value.Truthy(whitelist) {
		matches = matchesWhitelist(matches, whitelist)
	}
	high, rerrs := r.RenderHighstate(matches)
	if ex, ok := kwargs.Get("exclude"); ok {
		addExclude(high, ex, false)
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
	var allowed []any
	if l, ok := wl.(*value.List); ok {
		allowed = l.Items
	} else {
		for _, w := range strings.Split(value.Str(wl), ",") {
			allowed = append(allowed, w)
		}
	}
	out := value.NewMap(0)
	matches.Range(func(env, sls any) bool {
		for _, s := range compileIter(sls) {
			if !containsValue(allowed, s) {
				continue
			}
			v, ok := out.Get(env)
			if !ok {
				v = value.NewList()
				out.Set(env, v)
			}
			v.(*value.List).Append(s)
		}
		return true
	})
	return out
}

func containsValue(l []any, v any) bool {
	for _, e := range l {
		if value.Equal(e, v) {
			return true
		}
	}
	return false
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
	if c := checkQueue(ctx, vals[3], kwargs); c != nil {
		return c, nil
	}
	if d := slsDisabled(ctx, vals[0]); d != nil {
		return d, nil
	}
	return SLS(ctx, vals[0], testValue(ctx, vals[1], rest), vals[2], kwargs)
}

func stateHighstate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, rest, err := execmod.Bind("state.highstate", args, kwargs,
		execmod.Opt("test", nil), execmod.Opt("queue", nil), execmod.Opt("state_events", nil))
	if err != nil {
		return nil, err
	}
	if d := highstateDisabled(ctx); d != nil {
		return d, nil
	}
	if c := checkQueue(ctx, vals[1], kwargs); c != nil {
		return c, nil
	}
	return Highstate(ctx, testValue(ctx, vals[0], rest), kwargs)
}

// stateApply is state.apply: state.sls when mods is given and true, else
// state.highstate.
func stateApply(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, rest, err := execmod.Bind("state.apply", args, kwargs, execmod.Opt("mods", nil))
	if err != nil {
		return nil, err
	}
	// The job's data goes on to state.sls or state.highstate (Salt passes
	// **kwargs whole): the run's jid names its pause file and events.
	kwargs.Range(func(k, v any) bool {
		if ks, ok := k.(string); ok && strings.HasPrefix(ks, "__pub_") {
			rest.Set(k, v)
		}
		return true
	})
	if value.Truthy(vals[0]) {
		return stateSLS(ctx, []any{vals[0]}, rest)
	}
	return stateHighstate(ctx, nil, rest)
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
	if c := checkQueue(ctx, vals[3], kwargs); c != nil {
		return c, nil
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
	restore, err := statePillar(ctx, kwargs)
	if err != nil {
		return nil, err
	}
	defer restore()
	r := NewRun(ctx, kwargs)
	var ret *value.Map
	var errs []string
	_, _ = withTest(ctx, test, func() (any, error) {
		ret, errs = engine.Call(low, true, r.runOptions(test))
		return nil, nil
	})
	if len(errs) > 0 {
		ctx.SetRetcode(exStateCompilerError)
		return errList(errs), nil
	}
	running := value.MapOf(engine.Tag(low), ret)
	ctx.SetRetcode(engine.StateRetcode(running, nil))
	return running, nil
}

// stateLow is state.low: one low chunk through State.call, its bare
// result returned. Salt sets the failure retcode when check_result
// passes, which on a bare result (no nested dicts) it never does.
func stateLow(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, _, err := execmod.Bind("state.low", args, kwargs, execmod.Req("data"), execmod.Opt("queue", nil))
	if err != nil {
		return nil, err
	}
	if c := checkQueue(ctx, vals[1], kwargs); c != nil {
		return c, nil
	}
	data, ok := vals[0].(*value.Map)
	if !ok {
		return nil, &execmod.CommandExecutionError{Msg: "state.low needs a low chunk (a mapping)"}
	}
	r := NewRun(ctx, kwargs)
	ret, errs := engine.Call(data, false, r.runOptions(optBool(r.Opts, "test", false)))
	if len(errs) > 0 {
		ctx.SetRetcode(exStateCompilerError)
		return errList(errs), nil
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
	if c := checkQueue(ctx, vals[2], kwargs); c != nil {
		return c, nil
	}
	topfn := value.Str(vals[0])
	return highstateWith(ctx, testValue(ctx, vals[1], rest), kwargs, &highstateCall{adjust: func(r *Run) {
		r.StateTop = fileserver.CreateURL(topfn, "")
		if v, ok := kwargs.Get("saltenv"); ok && v != nil {
			r.StateTopSaltenv = value.Str(v)
		}
	}})
}
