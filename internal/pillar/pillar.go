// Package pillar compiles the pillar of one minion as Salt 3006 does
// (salt/pillar/__init__.py, class Pillar): the pillar top files of the
// environments in pillar_roots pick SLS files for the minion, each renders
// through the render pipeline and the results merge in top order with the
// configured strategy; includes, errors in `_errors`, pillar_opts,
// command-line pillar and decrypt_pillar follow Salt.
//
// The package reads files from pillar_roots itself. Rendering and
// decryption are pluggable (Options.Render, Options.Decrypt) so the caller
// decides how templates are rendered and which renderers exist.
//
// Typical use by the command line: compile once at start-up (Previous nil),
// keep the result as the minion's in-memory pillar, and compile again with
// Previous set to it for pillar.items or a state run, as salt-call does.
package pillar

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"brine/internal/match"
	"brine/internal/value"
)

// levelCritical is Salt's CRITICAL log level in slog terms.
const levelCritical = slog.LevelError + 4

// SaltVersion is the version pillar_opts reports as master:saltversion.
var SaltVersion = "3006.9"

// RenderRequest describes one pillar file to render.
type RenderRequest struct {
	// Path is the local file; Source its salt:// URL.
	Path, Source string
	// Saltenv is the pillar environment; SLS the SLS name ("" for top files).
	Saltenv, SLS string
	// Defaults are extra template variables (an include's `defaults`);
	// nil when there are none.
	Defaults *value.Map
	// Opts are the options the renderers see (Salt's __opts__ inside the
	// pillar compiler: the minion options with id, grains, saltenv,
	// pillarenv and pillar_roots adjusted).
	Opts *value.Map
	// Grains are the minion's grains.
	Grains *value.Map
	// Pillar is what templates see as `pillar`: the minion's in-memory
	// pillar (Options.Previous), empty at start-up.
	Pillar *value.Map
}

// RenderFunc renders one pillar file through its render pipeline (the
// shebang line, else opts["renderer"]) and returns the data. An empty file
// or one holding only whitespace renders to an empty map.
type RenderFunc func(req *RenderRequest) (any, error)

// DecryptFunc runs the decryption renderer called name on data (Salt's
// salt.utils.crypt.decrypt without the valid-renderer check, which the
// caller does). Mappings and lists are decrypted in place; the result is
// returned too. A missing renderer is an error.
type DecryptFunc func(name string, data any, translateNewlines bool) (any, error)

// Options is one pillar compilation.
type Options struct {
	// Opts are the minion options with Salt's defaults applied. They are
	// not modified.
	Opts *value.Map
	// Grains are the minion's grains.
	Grains *value.Map
	// MinionID is the minion id.
	MinionID string
	// Saltenv is the saltenv of the call; "" means none.
	Saltenv string
	// Pillarenv is the pillarenv argument; "" means none (then
	// opts["pillarenv"], or the saltenv with pillarenv_from_saltenv).
	Pillarenv string
	// Override is the command-line pillar (already decrypted when
	// pillar_enc was given); nil for none.
	Override *value.Map
	// Previous is the minion's in-memory pillar: nil when compiling at
	// start-up. With ssh_merge_pillar (on by default) the fresh pillar is
	// merged over it, and pillar templates see it as `pillar`.
	Previous *value.Map
	// Render renders pillar files; required.
	Render RenderFunc
	// Decrypt runs decryption renderers for decrypt_pillar; nil means no
	// renderer is available.
	Decrypt DecryptFunc
	// OnRenderError, when set, is told of each file that fails to render
	// (the `_errors` entries carry only text, or nothing of the cause when
	// pillar_safe_render_error is on). It is called from the compiling
	// goroutine.
	OnRenderError func(RenderFailure)
	// Workers, when above 1, renders the SLS files named by the top files
	// on that many goroutines before merging them in order. The result is
	// the same as a serial compile; Render must then be safe for concurrent
	// use (templates calling execution functions run concurrently too).
	Workers int
}

// ErrNoRenderer is returned by Compile when Options.Render is nil.
var ErrNoRenderer = errors.New("pillar: no render function")

// Compile compiles the pillar for one minion and returns it. Problems in
// the user's files (a missing SLS, a render failure, a non-mapping SLS, a
// failed decryption) are reported in the returned map under "_errors" with
// Salt's texts, never as the error result, which is reserved for misuse.
func Compile(o Options) (*value.Map, error) {
	if o.Render == nil {
		return nil, ErrNoRenderer
	}
	c := newCompiler(o)
	return c.compilePillar(), nil
}

// compiler holds the state of one compilation (Salt's Pillar object).
type compiler struct {
	o         Options
	opts      *value.Map // Salt's self.opts
	saltenv   string
	pillarenv string
	roots     *roots
	avail     map[string][]string
	availSet  map[string]map[string]int // name -> count, for plain names
	strategy  string
	renderer  string
	lists     bool
	ignored   map[string][]string
	matchCtx  *match.Context
	pre       map[prerenderJob]*prerendered // results of parallel rendering, used once
	pillar    *value.Map                    // what templates see as pillar
}

func newCompiler(o Options) *compiler {
	src := o.Opts
	if src == nil {
		src = value.NewMap(0)
	}
	opts := src.Copy()
	c := &compiler{o: o, saltenv: o.Saltenv, ignored: map[string][]string{}}

	pillarenv := o.Pillarenv
	if pillarenv == "" {
		if truthy(opts, "pillarenv_from_saltenv") {
			pillarenv = o.Saltenv
		} else {
			pillarenv = optString(opts, "pillarenv")
		}
	}
	c.pillarenv = pillarenv
	grains := o.Grains
	if grains == nil {
		grains = value.NewMap(0)
	}
	opts.Set("file_client", "local")
	opts.Set("grains", grains)
	if o.Saltenv != "" {
		opts.Set("saltenv", o.Saltenv)
	} else if !opts.Has("saltenv") {
		opts.Set("saltenv", nil)
	}
	if pillarenv != "" {
		opts.Set("pillarenv", pillarenv)
	} else {
		opts.Set("pillarenv", nil)
	}
	opts.Set("id", o.MinionID)
	top := optString(opts, "state_top")
	if top == "" {
		top = "top.sls"
	}
	if !strings.HasPrefix(top, "salt://") {
		top = "salt://" + strings.TrimPrefix(top, "/")
	}
	opts.Set("state_top", top)

	env := pillarenv
	if env == "" {
		env = optString(opts, "saltenv")
	}
	if env == "" {
		env = "base"
	}
	c.roots = newRoots(opts, env)
	opts.Set("pillar_roots", c.roots.asMap())
	if o.Previous != nil {
		opts.Set("pillar", o.Previous)
	}
	opts.Set("minion_id", o.MinionID)
	c.opts = opts

	c.avail = map[string][]string{}
	c.availSet = map[string]map[string]int{}
	for _, e := range c.envs() {
		names := c.roots.listStates(e)
		c.avail[e] = names
		set := make(map[string]int, len(names))
		for _, n := range names {
			set[n]++
		}
		c.availSet[e] = set
	}
	c.strategy = "smart"
	if s := optString(src, "pillar_source_merging_strategy"); s != "" {
		c.strategy = s
	}
	c.renderer = optString(opts, "renderer")
	if c.renderer == "" {
		c.renderer = "yaml"
	}
	c.lists = truthy(opts, "pillar_merge_lists")
	c.pillar = o.Previous
	if c.pillar == nil {
		c.pillar = value.NewMap(0)
	}
	ng, _ := opts.GetString("nodegroups")
	ngm, _ := ng.(*value.Map)
	c.matchCtx = &match.Context{ID: o.MinionID, Grains: grains, Pillar: c.pillar, Nodegroups: ngm}
	return c
}

// envs is Salt's _get_envs: base first, then the pillar_roots environments.
func (c *compiler) envs() []string {
	out := []string{"base"}
	for _, e := range c.roots.envs {
		if e != "base" {
			out = append(out, e)
		}
	}
	return out
}

func (c *compiler) merge(a, b *value.Map) *value.Map {
	return value.Merge(a, b, c.strategy, c.renderer, c.lists)
}

func (c *compiler) mergeOwned(a, b *value.Map) *value.Map {
	return value.MergeInPlace(a, b, c.strategy, c.renderer, c.lists)
}

func (c *compiler) compilePillar() *value.Map {
	top, topErrors := c.getTop()
	under := c.o.Previous // merged under the result (ssh_merge_pillar)
	var pillar *value.Map
	var errs []string
	if truthy(c.opts, "ext_pillar_first") {
		// Salt compiles external pillar first and makes it the pillar the
		// templates and matchers see, in place of the in-memory one.
		ext := value.NewMap(0)
		if c.o.Override != nil {
			ext = value.DeepCopy(c.o.Override).(*value.Map)
		}
		ext, errs = c.extPillar(ext, nil)
		c.pillar, c.matchCtx.Pillar, under = ext, ext, ext
		c.opts.Set("pillar", ext)
		var rerrs []string
		pillar, rerrs = c.renderPillar(c.topMatches(top))
		errs = append(errs, rerrs...)
		pillar = c.merge(ext, pillar)
	} else {
		pillar, errs = c.renderPillar(c.topMatches(top))
		pillar, errs = c.extPillar(pillar, errs)
	}
	errs = append(errs, topErrors...)
	if truthy(c.opts, "pillar_opts") {
		mopts := c.opts.Copy()
		mopts.Delete("grains")
		mopts.Set("saltversion", SaltVersion)
		pillar.Set("master", value.DeepCopy(mopts))
	}
	if under != nil && truthyDefault(c.opts, "ssh_merge_pillar", true) {
		pillar = c.mergeOwned(value.DeepCopy(under).(*value.Map), pillar)
	}
	if len(errs) > 0 {
		for _, e := range errs {
			slog.Log(context.Background(), levelCritical, "Pillar render error: "+e)
		}
		pillar.Set("_errors", stringsToList(errs))
	}
	if c.o.Override != nil && c.o.Override.Len() > 0 {
		pillar = c.mergeOwned(pillar, c.o.Override)
	}
	if derrs := c.decryptPillar(pillar); len(derrs) > 0 {
		cur, ok := pillar.GetString("_errors")
		l, isList := cur.(*value.List)
		if !ok || !isList {
			l = value.NewList()
			if !ok {
				pillar.Set("_errors", l)
			}
		}
		for _, e := range derrs {
			l.Append(e)
		}
	}
	return pillar
}

// extPillar handles the ext_pillar option: brine has no external pillar
// modules, so only the option's shape is checked and the command-line
// pillar merged, as Salt does before running them.
func (c *compiler) extPillar(pillar *value.Map, errs []string) (*value.Map, []string) {
	v, ok := c.opts.GetString("ext_pillar")
	if !ok {
		return pillar, errs
	}
	l, isList := v.(*value.List)
	if !isList {
		return pillar, append(errs, `The "ext_pillar" option is malformed`)
	}
	if c.o.Override != nil && c.o.Override.Len() > 0 {
		pillar = c.mergeOwned(pillar, c.o.Override)
	}
	for _, run := range l.Items {
		if _, ok := run.(*value.Map); !ok {
			return value.NewMap(0), append(errs, `The "ext_pillar" option is malformed`)
		}
	}
	return pillar, errs
}

// getTop gathers, merges and sorts the pillar top files.
func (c *compiler) getTop() (*envTargets, []string) {
	tops, errs := c.getTops()
	top, err := c.mergeTops(tops)
	if err != nil {
		errs = append(errs, "Error encountered while rendering pillar top file.")
		top = newEnvTargets()
	}
	return top, errs
}

// renderedTop is one rendered top file of an environment.
type renderedTop struct {
	env  string
	data *value.Map
}

// getTops renders the top file of each environment in play, then the top
// files they include (same environment); the result is grouped by
// environment in the order environments were first seen.
func (c *compiler) getTops() ([]renderedTop, []string) {
	var errs []string
	var saltenvs []string
	if c.pillarenv != "" {
		if c.roots.has(c.pillarenv) {
			saltenvs = []string{c.pillarenv}
		}
	} else {
		saltenvs = c.envs()
		if optString(c.opts, "pillar_source_merging_strategy") == "none" {
			want := c.saltenv
			if want == "" {
				want = "base"
			}
			var keep []string
			for _, e := range saltenvs {
				if e == want {
					keep = append(keep, e)
				}
			}
			saltenvs = keep
		}
	}
	byEnv := map[string][]*value.Map{}
	var order []string
	add := func(env string, m *value.Map) {
		if _, ok := byEnv[env]; !ok {
			order = append(order, env)
		}
		byEnv[env] = append(byEnv[env], m)
	}
	topRel := strings.TrimPrefix(optString(c.opts, "state_top"), "salt://")
	for _, env := range saltenvs {
		path := c.roots.findFile(env, topRel)
		if path == "" {
			continue
		}
		data, err := c.render(&RenderRequest{Path: path, Source: "salt://" + topRel, Saltenv: env})
		if err != nil {
			errs = append(errs, "Rendering Primary Top file failed, render error:\n"+err.Error())
			break
		}
		add(env, topMap(data))
	}
	// Includes of the first top files, rendered as more top files of the
	// same environment (their own includes are not followed).
	type inc struct {
		env, sls string
	}
	var queue []inc
	for _, env := range order {
		for _, t := range byEnv[env] {
			v, ok := t.GetString("include")
			if !ok {
				continue
			}
			for _, s := range iterItems(v) {
				queue = append(queue, inc{env, value.Str(s)})
			}
			t.Delete("include")
		}
	}
	done := map[inc]bool{}
	for _, q := range queue {
		if done[q] {
			continue
		}
		done[q] = true
		path, src := c.roots.getState(q.sls, q.env)
		if path == "" {
			add(q.env, value.NewMap(0))
			continue
		}
		data, err := c.render(&RenderRequest{Path: path, Source: src, Saltenv: q.env})
		if err != nil {
			errs = append(errs, fmt.Sprintf("Rendering Top file %s failed, render error:\n%s", q.sls, err.Error()))
			continue
		}
		add(q.env, topMap(data))
	}
	var tops []renderedTop
	for _, env := range order {
		for _, t := range byEnv[env] {
			tops = append(tops, renderedTop{env: env, data: t})
		}
	}
	return tops, errs
}

// envTargets is the merged top: environment -> target -> match options and
// SLS names, in order.
type envTargets struct {
	envs    []string
	targets map[string]*value.Map // target -> []any (as *value.List)
}

func newEnvTargets() *envTargets { return &envTargets{targets: map[string]*value.Map{}} }

func (t *envTargets) env(name string) *value.Map {
	m, ok := t.targets[name]
	if !ok {
		m = value.NewMap(0)
		t.targets[name] = m
		t.envs = append(t.envs, name)
	}
	return m
}

var errTopType = errors.New("top file is malformed")

func (c *compiler) mergeTops(tops []renderedTop) (*envTargets, error) {
	top := newEnvTargets()
	orders := map[string]map[any]int64{}
	for _, t := range tops {
		for i, ek := range t.data.Keys() {
			env := value.Str(ek)
			if env == "include" {
				continue
			}
			targets, ok := t.data.Values()[i].(*value.Map)
			if !ok {
				if items, ok := iterable(t.data.Values()[i]); ok && len(items) == 0 {
					continue
				}
				return nil, errTopType
			}
			if orders[env] == nil {
				orders[env] = map[any]int64{}
			}
			envTop := top.env(env)
			for j, tgt := range targets.Keys() {
				comps := targets.Values()[j]
				items, ok := iterable(comps)
				if !ok {
					return nil, errTopType
				}
				var matchers []any
				var states []string
				seen := map[string]bool{}
				orders[env][value.HashKey(tgt)] = 0
				ignoreMissing := false
				for _, comp := range items {
					switch x := comp.(type) {
					case *value.Map:
						if x.Has("match") {
							matchers = append(matchers, x)
						}
						if ov, ok := x.GetString("order"); ok {
							orders[env][value.HashKey(tgt)] = topOrder(ov)
						}
						if v, ok := x.GetString("ignore_missing"); ok && value.Truthy(v) {
							ignoreMissing = true
						}
					case string:
						if !seen[x] {
							seen[x] = true
							states = append(states, x)
						}
					}
				}
				if ignoreMissing {
					c.ignored[env] = append(c.ignored[env], states...)
				}
				l := value.NewList(matchers...)
				for _, s := range states {
					l.Append(s)
				}
				envTop.Set(tgt, l)
			}
		}
	}
	// Sort the targets of each environment by their order, stably.
	for _, env := range top.envs {
		m := top.targets[env]
		keys := append([]any(nil), m.Keys()...)
		ord := orders[env]
		stableSortBy(keys, func(k any) int64 { return ord[value.HashKey(k)] })
		sorted := value.NewMap(len(keys))
		for _, k := range keys {
			v, _ := m.Get(k)
			sorted.Set(k, v)
		}
		top.targets[env] = sorted
	}
	return top, nil
}

func topOrder(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return int64(x)
	case string:
		if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return n
		}
	}
	return 0
}

// envMatch is the SLS names one environment contributes.
type envMatch struct {
	env string
	sls []string
}

func (c *compiler) topMatches(top *envTargets) []envMatch {
	var out []envMatch
	idx := map[string]int{}
	for _, env := range top.envs {
		if c.pillarenv != "" && env != c.pillarenv {
			continue
		}
		body := top.targets[env]
		for i, tgt := range body.Keys() {
			data := body.Values()[i].(*value.List)
			ok, err := match.ConfirmTop(c.matchCtx, tgt, data.Items)
			if err != nil || !ok {
				continue
			}
			j, seen := idx[env]
			if !seen {
				j = len(out)
				idx[env] = j
				out = append(out, envMatch{env: env})
			}
			for _, item := range data.Items {
				s, ok := item.(string)
				if !ok || contains(out[j].sls, s) {
					continue
				}
				out[j].sls = append(out[j].sls, s)
			}
		}
	}
	return out
}

// filter is match.FnmatchFilter(avail, pattern) for the names of env: a
// plain name is looked up instead of compared with every name, which made
// large pillars quadratic.
func (c *compiler) filter(env string, avail []string, pattern string) []string {
	if match.IsGlob(pattern) {
		return match.FnmatchFilter(avail, pattern)
	}
	var out []string
	for n := c.availSet[env][pattern]; n > 0; n-- {
		out = append(out, pattern)
	}
	return out
}

// renderPillar renders the matched SLS files and merges them in order.
func (c *compiler) renderPillar(matches []envMatch) (*value.Map, []string) {
	pillar := value.NewMap(0)
	if c.o.Override != nil {
		pillar = value.DeepCopy(c.o.Override).(*value.Map)
	}
	var errs []string
	type envFiles struct {
		env   string
		files []string
		errs  []string // from expanding the names, reported before rendering
	}
	var all []envFiles
	for _, m := range matches {
		var files []string
		var errs []string
		avail, haveEnv := c.avail[m.env]
		for _, pat := range m.sls {
			var matched []string
			if haveEnv {
				matched = c.filter(m.env, avail, pat)
			} else {
				errs = append(errs, fmt.Sprintf("No matching pillar environment for environment '%s' found", m.env))
			}
			if len(matched) > 0 {
				files = append(files, matched...)
			} else {
				files = append(files, pat)
			}
		}
		all = append(all, envFiles{m.env, files, errs})
	}
	if c.o.Workers > 1 {
		var jobs []prerenderJob
		for _, ef := range all {
			for _, sls := range ef.files {
				jobs = append(jobs, prerenderJob{env: ef.env, sls: sls})
			}
		}
		c.prerender(jobs)
	}
	for _, ef := range all {
		errs = append(errs, ef.errs...)
		mods := map[string]any{}
		for _, sls := range ef.files {
			state, err := c.renderPstate(sls, ef.env, mods, nil)
			errs = append(errs, err...)
			if state == nil {
				continue
			}
			sm, ok := state.(*value.Map)
			if !ok {
				continue
			}
			pillar = c.mergeOwned(pillar, sm)
		}
	}
	return pillar, errs
}

// renderPstate renders one pillar SLS and its includes (render_pstate).
// mods caches rendered SLS by name for this environment. It returns nil
// where Salt returns None.
func (c *compiler) renderPstate(sls, env string, mods map[string]any, defaults *value.Map) (any, []string) {
	var errs []string
	path, source := c.roots.getState(sls, env)
	if path == "" {
		if contains(c.ignored[env], sls) {
			return nil, errs
		}
		if dirs := c.roots.dirs[env]; len(dirs) > 0 {
			errs = append(errs, fmt.Sprintf("Specified SLS '%s' in environment '%s' is not available on the salt master", sls, env))
		}
		return nil, errs
	}
	state, err := c.renderSLS(&RenderRequest{Path: path, Source: source, Saltenv: env, SLS: sls, Defaults: defaults})
	if err != nil {
		state = nil
		// Salt logs the full error; it may quote template lines holding
		// secrets, so brine shows it only at debug level.
		slog.Debug(fmt.Sprintf("Rendering SLS '%s' failed, render error:\n%s", sls, err.Error()))
		if truthyDefault(c.opts, "pillar_safe_render_error", true) {
			errs = append(errs, fmt.Sprintf("Rendering SLS '%s' failed. Please see master log for details.", sls))
		} else {
			errs = append(errs, fmt.Sprintf("Rendering SLS '%s' failed, render error:\n%s", sls, err.Error()))
		}
	}
	mods[sls] = state
	if !value.Truthy(state) {
		return state, errs
	}
	sm, ok := state.(*value.Map)
	if !ok {
		errs = append(errs, fmt.Sprintf("SLS '%s' does not render to a dictionary", sls))
		return state, errs
	}
	incV, ok := sm.GetString("include")
	if !ok {
		return state, errs
	}
	incList, ok := incV.(*value.List)
	if !ok {
		errs = append(errs, fmt.Sprintf("Include Declaration in SLS '%s' is not formed as a list", sls))
		return state, errs
	}
	sm.Delete("include")
	overrideSLS := truthy(c.opts, "pillar_includes_override_sls")
	var includeStates []*value.Map
	var cur any = state
	var lastErr []string
	for _, item := range incList.Items {
		var sub string
		var key string
		hasKey := false
		switch x := item.(type) {
		case *value.Map:
			if x.Len() == 0 {
				continue
			}
			k, v := x.At(0)
			sub = value.Str(k)
			opts, _ := v.(*value.Map)
			defaults = nil
			if d, ok := opts.GetString("defaults"); ok {
				defaults, _ = d.(*value.Map)
			}
			if kv, ok := opts.GetString("key"); ok && value.Truthy(kv) {
				key, hasKey = value.Str(kv), true
			}
		default:
			sub = value.Str(item)
		}
		var matched []string
		avail, haveEnv := c.avail[env]
		if haveEnv {
			matched = c.filter(env, avail, strings.ReplaceAll(strings.TrimLeft(sub, "."), "/", "."))
			if strings.HasPrefix(sub, ".") {
				var parts []string
				if strings.HasSuffix(source, "/init.sls") {
					parts = strings.Split(sls, ".")
				} else {
					parts = strings.Split(sls, ".")
					parts = parts[:len(parts)-1]
				}
				sub = strings.Join(append(parts, sub[1:]), ".")
			}
			matched = append(matched, c.filter(env, avail, sub)...)
		} else {
			errs = append(errs, fmt.Sprintf("No matching pillar environment for environment '%s' found", env))
			matched = []string{sub}
		}
		if len(matched) == 0 {
			matched = []string{sub}
		}
		for _, msub := range matched {
			var nstate any
			if prev, done := mods[msub]; done {
				nstate = prev
			} else {
				nstate, lastErr = c.renderPstate(msub, env, mods, defaults)
			}
			if value.Truthy(nstate) {
				if hasKey {
					parts := strings.Split(key, ":")
					for i := len(parts) - 1; i >= 0; i-- {
						nstate = value.MapOf(parts[i], nstate)
					}
				}
				// Salt would fail merging a non-mapping here; the SLS
				// already reported that it does not render to a dictionary.
				nm, isMap := nstate.(*value.Map)
				if !isMap {
					// skip
				} else if !overrideSLS {
					includeStates = append(includeStates, nm)
				} else if cm, ok := cur.(*value.Map); ok {
					cur = c.merge(cm, nm)
				}
			}
			errs = append(errs, lastErr...)
		}
	}
	if !overrideSLS {
		includeStates = append(includeStates, sm)
		var acc *value.Map
		for _, s := range includeStates {
			if acc == nil {
				acc = s
				continue
			}
			acc = c.merge(acc, s)
		}
		cur = acc
	}
	return cur, errs
}

// render calls the render function with the compiler's context filled in.
func (c *compiler) render(req *RenderRequest) (any, error) {
	req.Opts = c.opts
	req.Grains = c.matchCtx.Grains
	req.Pillar = c.pillar
	data, err := c.o.Render(req)
	if err != nil {
		c.failed(req, err)
	}
	return data, err
}

// failed tells Options.OnRenderError of a file that did not render.
func (c *compiler) failed(req *RenderRequest, err error) {
	if c.o.OnRenderError != nil {
		c.o.OnRenderError(RenderFailure{Path: req.Path, Source: req.Source, Saltenv: req.Saltenv, SLS: req.SLS, Err: err})
	}
}

// RenderFailure is a pillar file that failed to render: the typed error
// (a Jinja or YAML error with its position) that Salt's `_errors` text
// only quotes, for diagnostics.
type RenderFailure struct {
	// Path is the local file; Source its salt:// URL.
	Path, Source string
	// Saltenv is the pillar environment; SLS the SLS name ("" for a top
	// file).
	Saltenv, SLS string
	// Err is the renderer's error.
	Err error
}

func topMap(v any) *value.Map {
	if m, ok := v.(*value.Map); ok {
		return m
	}
	return value.NewMap(0)
}

// iterable returns the items Python would iterate over in v: list items,
// mapping keys, the characters of a string.
func iterable(v any) ([]any, bool) {
	switch x := v.(type) {
	case *value.List:
		return x.Items, true
	case value.Tuple:
		return x, true
	case *value.Map:
		return x.Keys(), true
	case string:
		out := make([]any, 0, len(x))
		for _, r := range x {
			out = append(out, string(r))
		}
		return out, true
	}
	return nil, false
}

func iterItems(v any) []any {
	items, _ := iterable(v)
	return items
}

func stableSortBy(keys []any, ord func(any) int64) {
	// insertion sort: top files have few targets and the sort must be stable
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && ord(keys[j]) < ord(keys[j-1]); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func stringsToList(l []string) *value.List {
	out := value.NewList()
	for _, s := range l {
		out.Append(s)
	}
	return out
}

func optString(m *value.Map, k string) string {
	v, ok := m.GetString(k)
	if !ok || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return value.Str(v)
}

func truthy(m *value.Map, k string) bool {
	v, _ := m.GetString(k)
	return value.Truthy(v)
}

func truthyDefault(m *value.Map, k string, def bool) bool {
	v, ok := m.GetString(k)
	if !ok {
		return def
	}
	return value.Truthy(v)
}
