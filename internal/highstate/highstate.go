// Package highstate runs the state compiler for one minion, as Salt's
// HighState does: options -> file roots -> top file -> matches -> SLS
// rendering -> high data -> low chunks. It registers the state.show_*
// execution functions, and offers Highstate and SLS for the state.apply
// family to hand low chunks to the runtime engine.
package highstate

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"brine/internal/compile"
	"brine/internal/execmod"
	"brine/internal/fileserver"
	"brine/internal/match"
	"brine/internal/render"
	"brine/internal/top"
	"brine/internal/value"
)

// Run is one compile of the state tree for one minion and one call.
type Run struct {
	Ctx     *execmod.Context
	Opts    *value.Map
	Saltenv string // "" when no saltenv is set
	Roots   *fileserver.Roots
	Avail   *fileserver.Avail
	Match   *match.Context

	// StateTop, when set, replaces the state_top option (state.top);
	// StateTopSaltenv likewise for state_top_saltenv.
	StateTop, StateTopSaltenv string

	// Render renders one file; nil means the render pipeline (render.Render
	// with the run's options). Tests set a plain YAML renderer.
	Render func(data []byte, path, source, saltenv, sls string) (any, error)

	kwargs *value.Map   // the call's keyword arguments
	sched  *renderSched // the speculative renders of RenderHighstate
}

func optString(opts *value.Map, key, def string) string {
	v, ok := opts.Get(key)
	if !ok || v == nil {
		return def
	}
	if s, ok := v.(string); ok {
		return s
	}
	return value.Str(v)
}

func optBool(opts *value.Map, key string, def bool) bool {
	v, ok := opts.Get(key)
	if !ok || v == nil {
		return def
	}
	return value.Truthy(v)
}

func optStrings(opts *value.Map, key string) []string {
	v, _ := opts.Get(key)
	var out []string
	switch x := v.(type) {
	case *value.List:
		for _, e := range x.Items {
			out = append(out, value.Str(e))
		}
	case string:
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

func optMap(opts *value.Map, key string) *value.Map {
	v, _ := opts.Get(key)
	m, _ := v.(*value.Map)
	if m == nil {
		m = value.NewMap(0)
	}
	return m
}

// NewRun prepares a compile for ctx; kwargs are the call's keyword
// arguments (saltenv overrides the saltenv option, as get_sls_opts does).
func NewRun(ctx *execmod.Context, kwargs *value.Map) *Run {
	TuneGC()
	opts := ctx.Opts
	if opts == nil {
		opts = value.NewMap(0)
	}
	saltenv := ""
	if v, ok := opts.Get("saltenv"); ok && v != nil {
		saltenv = value.Str(v)
	}
	if ctx.Saltenv != "" {
		saltenv = ctx.Saltenv
	}
	if v, ok := kwargs.Get("saltenv"); ok && v != nil {
		saltenv = value.Str(v)
	}
	roots := FileRoots(opts)
	id := optString(opts, "id", "")
	if kwargs == nil {
		kwargs = value.NewMap(0)
	}
	r := &Run{
		kwargs:  kwargs,
		Ctx:     ctx,
		Opts:    opts,
		Saltenv: saltenv,
		Roots:   roots,
		Avail:   fileserver.NewAvail(roots, optStrings(opts, "env_order")),
		Match: &match.Context{
			ID:         id,
			Grains:     ctx.Grains,
			Pillar:     ctx.Pillar,
			Nodegroups: optMap(opts, "nodegroups"),
		},
	}
	return r
}

// renderFile renders one file of the tree.
func (r *Run) renderFile(path, source, saltenv, sls string) (any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return r.renderData(data, path, source, saltenv, sls)
}

// renderData renders the text of one file of the tree.
func (r *Run) renderData(data []byte, path, source, saltenv, sls string) (any, error) {
	if r.Render != nil {
		return r.Render(data, path, source, saltenv, sls)
	}
	if renderOverride != nil {
		return renderOverride(data, path, source, saltenv, sls)
	}
	// Salt renders with the state's own loader, whose __context__ is not
	// the one salt-call reads the retcode from: a failed cmd.run in a
	// template does not change the run's exit code
	defer r.Ctx.SetRetcode(r.Ctx.Retcode())
	return r.renderWith(data, path, source, saltenv, sls, nil)
}

// renderGated renders src while speculative renders run (parallel.go):
// the template's execution function calls go through g, and a file whose
// pipeline is not pure renders alone.
func (r *Run) renderGated(data []byte, src fileserver.SLS, g *gate) (any, error) {
	if g.job == nil && (!r.purePipeline(data) || mutates(data)) {
		return g.exclusive(func() (any, error) {
			return r.renderWith(data, src.Path, src.Source, src.Env, src.Name, g)
		})
	}
	defer func() {
		if g.owns {
			g.unlock()
		}
	}()
	return r.renderWith(data, src.Path, src.Source, src.Env, src.Name, g)
}

// renderWith renders data through the pipeline, the template's execution
// function calls going through g when it is not nil.
func (r *Run) renderWith(data []byte, path, source, saltenv, sls string, g *gate) (any, error) {
	rc := r.Ctx.RenderContext(saltenv)
	if g != nil {
		rc.Salt = g.salt(rc.Salt)
	}
	cachedir := optString(r.Opts, "cachedir", "")
	if rc.Loader == nil {
		rc.Loader = &execmod.CachedFiles{Src: r.Roots, Cachedir: cachedir}
	}
	if g != nil {
		rc.Loader = gatedLoader{Loader: rc.Loader, g: g}
	}
	rc.Path = filepath.Join(cachedir, "files", saltenv, filepath.FromSlash(source))
	rc.Source = source
	rc.SLS = sls
	rc.HasSLS = true
	out, err := render.Render(data, rc, render.Options{
		Default:   optString(r.Opts, "renderer", "jinja|yaml"),
		Whitelist: optStrings(r.Opts, "renderer_whitelist"),
		Blacklist: optStrings(r.Opts, "renderer_blacklist"),
	})
	var unknown *render.UnknownRendererError
	if errors.As(err, &unknown) {
		slog.Error(fmt.Sprintf("The renderer \"%s\" is not available", unknown.Pipe))
		slog.Warn(render.Default.UnknownWarning(path, unknown))
		return value.NewMap(0), nil
	}
	if err != nil {
		var re *render.Error
		if !errors.As(err, &re) {
			return nil, genericError{err}
		}
		return nil, err
	}
	return out, nil
}

// renderOverride replaces the render pipeline in tests.
var renderOverride func(data []byte, path, source, saltenv, sls string) (any, error)

// genericError is a render failure Salt reports as a plain exception.
type genericError struct{ err error }

func (e genericError) Error() string { return e.err.Error() }
func (e genericError) Unwrap() error { return e.err }
func (e genericError) Generic() bool { return true }

// TopOptions returns the top file options of the run.
func (r *Run) TopOptions() top.Options {
	st := optString(r.Opts, "state_top", "salt://top.sls")
	if r.StateTop != "" {
		st = r.StateTop
	}
	sts := optString(r.Opts, "state_top_saltenv", "")
	if r.StateTopSaltenv != "" {
		sts = r.StateTopSaltenv
	}
	return top.Options{
		StateTop:        st,
		Strategy:        optString(r.Opts, "top_file_merging_strategy", "merge"),
		EnvOrder:        optStrings(r.Opts, "env_order"),
		DefaultTop:      optString(r.Opts, "default_top", "base"),
		StateTopSaltenv: sts,
		Saltenv:         r.Saltenv,
	}
}

// GetTop reads and merges the top files; a failure is logged and gives an
// empty top, as in Salt.
func (r *Run) GetTop() *value.Map {
	o := r.TopOptions()
	t, err := top.Get(r.Avail, top.RendererFunc(func(path, source, saltenv, sls string) (any, error) {
		return r.renderFile(path, source, saltenv, sls)
	}), o)
	if err != nil {
		slog.Error("Unable to render top file", "err", err)
	}
	return t
}

// TopMatches matches the merged top against this minion.
func (r *Run) TopMatches(t *value.Map) (*value.Map, error) {
	return top.Matches(r.Match, t, r.Saltenv, r.Avail)
}

func (r *Run) compiler() *compile.Compiler {
	c := r.newCompiler()
	c.Exact = exactCompile
	return c
}

func optInt(opts *value.Map, key string, def int) int {
	v, ok := opts.Get(key)
	if !ok {
		return def
	}
	switch x := v.(type) {
	case int64:
		return int(x)
	case bool:
		if x {
			return 1
		}
		return 0
	}
	return def
}

// exactCompile forces the compiler's exact include merge (tests).
var exactCompile bool

func (r *Run) newCompiler() *compile.Compiler {
	return compile.New(r.Avail, compile.RendererFunc(func(s fileserver.SLS) (any, error) {
		if r.sched != nil {
			return r.sched.take(s)
		}
		return r.renderFile(s.Path, s.Source, s.Env, s.Name)
	}), optBool(r.Opts, "state_auto_order", true))
}

// RenderHighstate renders the SLS of matches into high data, the
// top-level SLS on brine_render_workers goroutines ahead of the compiler
// (parallel.go) unless a render is already under way.
func (r *Run) RenderHighstate(matches *value.Map) (*value.Map, []string) {
	c := r.compiler()
	if r.sched == nil {
		if s := r.startRenders(matches); s != nil {
			r.sched = s
			defer func() {
				s.finish()
				r.sched = nil
			}()
		}
	}
	return c.RenderHighstate(matches)
}

// CompileHighstate is Salt's compile_highstate: the high data of the top
// file's matches, or the error list.
func (r *Run) CompileHighstate() (*value.Map, []string, error) {
	t := r.GetTop()
	errs := top.Verify(t)
	matches, err := r.TopMatches(t)
	if err != nil {
		return nil, nil, err
	}
	high, rerrs := r.RenderHighstate(matches)
	errs = append(errs, rerrs...)
	return high, errs, nil
}

// LowChunks compiles high data to low chunks as compile_low_chunks does
// after rendering: reconcile extend, verify, requisite_in, exclude.
func (r *Run) LowChunks(high *value.Map, errs []string) ([]*value.Map, []string) {
	high, e := compile.ReconcileExtend(high, false)
	errs = append(errs, e...)
	errs = append(errs, compile.VerifyHigh(high)...)
	high, e = compile.RequisiteIn(high, optStrings(r.Opts, "disabled_requisites"))
	errs = append(errs, e...)
	high = compile.ApplyExclude(high)
	if len(errs) > 0 {
		return nil, errs
	}
	return compile.CompileHighData(high), nil
}

// CompileLowChunks is Salt's compile_low_chunks for the highstate.
func (r *Run) CompileLowChunks() ([]*value.Map, []string, error) {
	t := r.GetTop()
	matches, err := r.TopMatches(t)
	if err != nil {
		return nil, nil, err
	}
	high, errs := r.RenderHighstate(matches)
	chunks, errs := r.LowChunks(high, errs)
	return chunks, errs, nil
}

// SLSMatches returns the matches of an explicit SLS list in the run's
// saltenv (base when unset).
func (r *Run) SLSMatches(mods []string) *value.Map {
	env := r.Saltenv
	if env == "" {
		env = "base"
	}
	l := value.NewList()
	for _, m := range mods {
		l.Append(m)
	}
	return value.MapOf(env, l)
}

// StateUsage is Salt's compile_state_usage.
func (r *Run) StateUsage() (*value.Map, []string, error) {
	t := r.GetTop()
	if errs := top.Verify(t); len(errs) > 0 {
		return nil, errs, nil
	}
	matches, err := r.TopMatches(t)
	if err != nil {
		return nil, nil, err
	}
	out := value.NewMap(0)
	for _, env := range r.Avail.Envs() {
		used, unused := value.NewList(), value.NewList()
		var envMatches []any
		if v, ok := matches.Get(env); ok {
			if l, ok := v.(*value.List); ok {
				envMatches = l.Items
			}
		}
		states := r.Avail.States(env)
		for _, s := range states {
			if containsAny(envMatches, s) {
				used.Append(s)
			} else {
				unused.Append(s)
			}
		}
		out.Set(env, value.MapOf(
			"used", used,
			"unused", unused,
			"count_all", int64(len(states)),
			"count_used", int64(used.Len()),
			"count_unused", int64(unused.Len()),
		))
	}
	return out, nil, nil
}

func containsAny(l []any, s string) bool {
	for _, e := range l {
		if value.Equal(e, s) {
			return true
		}
	}
	return false
}

// errList turns Salt's error strings into the list value a show_*
// function returns.
func errList(errs []string) *value.List {
	l := value.NewList()
	for _, e := range errs {
		l.Append(e)
	}
	return l
}

func chunkList(chunks []*value.Map) *value.List {
	l := value.NewList()
	for _, c := range chunks {
		l.Append(c)
	}
	return l
}

// FileRoots builds the file server of a minion's options: file_roots with
// file_ignore_regex/file_ignore_glob and the fileserver symlink options
// applied, as Salt's roots backend serves them.
func FileRoots(opts *value.Map) *fileserver.Roots {
	roots := fileserver.New(optMap(opts, "file_roots"))
	roots.SetIgnore(match.FileIgnore(optStrings(opts, "file_ignore_regex"), optStrings(opts, "file_ignore_glob")))
	roots.SetSymlinks(optBool(opts, "fileserver_followsymlinks", true), optBool(opts, "fileserver_ignoresymlinks", false))
	return roots
}
