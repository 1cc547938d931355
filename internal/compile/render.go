// Package compile turns a state tree into high data and low chunks exactly
// as Salt 3006 does (salt/state.py: BaseHighState.render_state and
// render_highstate, State.reconcile_extend, verify_high, requisite_in,
// apply_exclude, compile_high_data and order_chunks).
//
// High data is a *value.Map: ID -> body (*value.Map: state module ->
// *value.List of the function name and single-key argument maps, plus
// __sls__ and __env__), with the raw __extend__ and __exclude__ lists.
// Low chunks are []*value.Map with Salt's key order. Errors in the user's
// files are returned as Salt's message strings, in Salt's order.
//
// The package does not render anything itself: a Renderer turns one SLS
// file into data.
package compile

import (
	"fmt"
	"regexp"
	"strings"

	"brine/internal/fileserver"
	"brine/internal/match"
	"brine/internal/value"
)

// Renderer renders one SLS file.
type Renderer interface {
	// RenderSLS renders the file of s (s.Path) and returns its data: nil
	// or an empty map for an empty file. A failure is an error whose
	// message is Salt's render error text; errors implementing
	// GenericRenderError with Generic() true are reported as Salt's
	// "Rendering SLS x failed, render error: ..." form, others as
	// "Rendering SLS 'env:x' failed: ...".
	RenderSLS(s fileserver.SLS) (any, error)
}

// RendererFunc adapts a function to Renderer.
type RendererFunc func(s fileserver.SLS) (any, error)

// RenderSLS calls f.
func (f RendererFunc) RenderSLS(s fileserver.SLS) (any, error) { return f(s) }

// GenericRenderError marks render failures that Salt reports as a generic
// exception (not a SaltRenderError), e.g. a YAML document error behind a
// multi-renderer pipeline.
type GenericRenderError interface {
	Generic() bool
}

// Compiler renders SLS files into one high data structure, as Salt's
// BaseHighState does for one run: the auto order counter and the high
// data being built live here, so render once per Compiler.
type Compiler struct {
	avail     *fileserver.Avail
	rend      Renderer
	autoOrder bool
	iorder    int64
	high      *value.Map
	cache     map[string]renderResult
}

type renderResult struct {
	data any
	err  error
}

// New returns a Compiler reading SLS files from avail and rendering them
// with r. autoOrder is the state_auto_order option.
func New(avail *fileserver.Avail, r Renderer, autoOrder bool) *Compiler {
	return &Compiler{avail: avail, rend: r, autoOrder: autoOrder, iorder: 10000, high: value.NewMap(0)}
}

// Prefetched supplies renders done ahead of time (in parallel); the
// compiler uses them instead of calling the Renderer, in its own order.
func (c *Compiler) Prefetched(results map[string]any, errs map[string]error) {
	if c.cache == nil {
		c.cache = map[string]renderResult{}
	}
	for k, v := range results {
		c.cache[k] = renderResult{data: v}
	}
	for k, e := range errs {
		c.cache[k] = renderResult{err: e}
	}
}

func (c *Compiler) render(s fileserver.SLS) (any, error) {
	if r, ok := c.cache[s.Path]; ok {
		delete(c.cache, s.Path)
		return r.data, r.err
	}
	return c.rend.RenderSLS(s)
}

// RenderHighstate renders the SLS named by matches (env -> list of SLS
// names or globs) into high data (Salt's render_highstate).
func (c *Compiler) RenderHighstate(matches *value.Map) (*value.Map, []string) {
	high := c.high
	var allErrs []string
	mods := map[string]bool{}
	var statefiles []string
	matches.Range(func(envK, states any) bool {
		env := value.Str(envK)
		for _, m := range iterList(states) {
			slsMatch := value.Str(m)
			if c.avail.Has(env) {
				statefiles = match.FnmatchFilter(c.avail.States(env), slsMatch)
			} else if c.avail.Has("__env__") {
				statefiles = match.FnmatchFilter(c.avail.States("__env__"), slsMatch)
			} else {
				allErrs = append(allErrs, fmt.Sprintf("No matching salt environment for environment '%s' found", env))
			}
			if len(statefiles) == 0 {
				statefiles = []string{slsMatch}
			}
			for _, sls := range statefiles {
				if mods[env+":"+sls] {
					continue
				}
				state, errs := c.renderState(sls, env, mods, matches)
				if value.Truthy(state) {
					errs = mergeIncluded(high, state, errs)
				}
				this := "SLS " + slsMatch + " in saltenv"
				for i, e := range errs {
					if strings.Contains(e, "is not available") && strings.Contains(e, this) {
						errs[i] = fmt.Sprintf("No matching sls found for '%s' in env '%s'", slsMatch, env)
					}
				}
				allErrs = append(allErrs, errs...)
			}
		}
		return true
	})
	cleanDuplicateExtends(high)
	return high, allErrs
}

func iterList(v any) []any {
	switch x := v.(type) {
	case *value.List:
		return x.Items
	case value.Tuple:
		return x
	case []any:
		return x
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case *value.Map:
		return x.Keys()
	case string:
		out := make([]any, 0, len(x))
		for _, r := range x {
			out = append(out, string(r))
		}
		return out
	}
	return nil
}

var relInclude = regexp.MustCompile(`^(\.+)(.*)$`)

// renderState is Salt's render_state: render one SLS, stash its extend and
// exclude, inject __sls__/__env__, render its includes depth first, then
// number its states.
func (c *Compiler) renderState(sls, env string, mods map[string]bool, matches *value.Map) (any, []string) {
	var errs []string
	src, found := c.avail.Roots.ResolveSLS(env, sls)
	var state any
	if !found {
		errs = append(errs, fmt.Sprintf("Specified SLS %s in saltenv %s is not available on the salt master or through a configured fileserver", sls, env))
	} else {
		data, err := c.render(src)
		if err != nil {
			if g, ok := err.(GenericRenderError); ok && g.Generic() {
				errs = append(errs, fmt.Sprintf("Rendering SLS %s failed, render error: %s", sls, err.Error()))
			} else {
				errs = append(errs, fmt.Sprintf("Rendering SLS '%s:%s' failed: %s", env, sls, err.Error()))
			}
		} else {
			state = data
		}
		mods[env+":"+sls] = true
	}
	if !value.Truthy(state) {
		return value.NewMap(0), errs
	}
	st, ok := state.(*value.Map)
	if !ok {
		errs = append(errs, fmt.Sprintf("SLS %s does not render to a dictionary", sls))
		return state, errs
	}
	var include []any
	if inc, ok := st.Get("include"); ok {
		if l, ok := inc.(*value.List); ok {
			include = l.Items
			st.Delete("include")
		} else {
			errs = append(errs, fmt.Sprintf("Include Declaration in SLS %s is not formed as a list", sls))
		}
	}
	errs = handleExtend(st, sls, env, errs)
	errs = handleExclude(st, sls, errs)
	errs = handleStateDecls(st, sls, env, errs)

	for _, inc := range include {
		envKey := env
		var incSLS any = inc
		if m, ok := inc.(*value.Map); ok {
			if m.Len() == 0 {
				continue
			}
			k, v := m.At(m.Len() - 1)
			m.Delete(k)
			envKey, incSLS = value.Str(k), v
		}
		name := value.Str(incSLS)
		if !c.avail.Has(envKey) && !c.avail.Has("__env__") {
			errs = append(errs, fmt.Sprintf("Nonexistent saltenv '%s' found in include of '%s' within SLS '%s:%s'", envKey, name, env, sls))
			continue
		}
		if strings.HasPrefix(name, ".") {
			m := relInclude.FindStringSubmatch(name)
			if m == nil {
				errs = append(errs, fmt.Sprintf("Badly formatted include %s found in include in SLS '%s:%s'", name, env, sls))
				continue
			}
			levels := len(m[1])
			comps := strings.Split(sls, ".")
			if strings.HasSuffix(src.Source, "/init.sls") {
				comps = append(comps, "init")
			}
			if levels > len(comps) {
				errs = append(errs, fmt.Sprintf("Attempted relative include of '%s' within SLS '%s:%s' goes beyond top level package ", name, env, sls))
				continue
			}
			name = strings.Join(append(append([]string(nil), comps[:len(comps)-levels]...), m[2]), ".")
		}
		var resolved []string
		if envKey != "_xenv" {
			if matches.Has(envKey) || len(match.FnmatchFilter(c.avail.States(envKey), name)) > 0 {
				resolved = []string{envKey}
			}
		} else {
			matches.Range(func(k, _ any) bool {
				ae := value.Str(k)
				if len(match.FnmatchFilter(c.avail.States(ae), name)) > 0 {
					resolved = append(resolved, ae)
				}
				return true
			})
		}
		if len(resolved) == 1 || contains(resolved, env) {
			targets := match.FnmatchFilter(c.avail.States(env), name)
			if len(targets) == 0 {
				targets = []string{name}
			}
			rEnv := env
			if len(resolved) == 1 {
				rEnv = resolved[0]
			}
			for _, t := range targets {
				if mods[rEnv+":"+t] {
					continue
				}
				nstate, nerrs := c.renderState(t, rEnv, mods, matches)
				if value.Truthy(nstate) {
					errs = mergeIncluded(st, nstate, errs)
					updateFrom(st, nstate)
				}
				errs = append(errs, nerrs...)
			}
			continue
		}
		var msg string
		if len(resolved) == 0 {
			where := envKey
			if envKey == "_xenv" {
				var ks []string
				matches.Range(func(k, _ any) bool { ks = append(ks, value.Str(k)); return true })
				where = strings.Join(ks, ", ")
			}
			msg = fmt.Sprintf("Unknown include: Specified SLS %s: %s is not available on the salt master in saltenv(s): %s ", envKey, name, where)
		} else {
			msg = fmt.Sprintf("Ambiguous include: Specified SLS %s: %s is available on the salt master in multiple available saltenvs: %s", envKey, name, strings.Join(resolved, ", "))
		}
		errs = append(errs, msg)
	}
	c.handleIorder(st)
	return st, errs
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// handleIorder appends {order: N} to every state declaration without an
// explicit order (first key of an argument), numbering in key order. A
// body that Python cannot iterate stops the numbering, as Salt's
// TypeError does.
func (c *Compiler) handleIorder(st *value.Map) {
	if !c.autoOrder {
		return
	}
	for _, body := range st.Values() {
		bm, ok := body.(*value.Map)
		if !ok {
			switch body.(type) {
			case *value.List, value.Tuple, string:
				continue
			}
			return
		}
		for i, k := range bm.Keys() {
			ks, ok := k.(string)
			if !ok || strings.HasPrefix(ks, "_") {
				continue
			}
			l, ok := bm.Values()[i].(*value.List)
			if !ok {
				continue
			}
			found := false
			for _, arg := range l.Items {
				if am, ok := arg.(*value.Map); ok && am.Len() > 0 {
					if fk, _ := am.At(0); fk == "order" {
						found = true
					}
				}
			}
			if !found {
				l.Append(value.MapOf("order", c.iorder))
				c.iorder++
			}
		}
	}
}

// handleStateDecls injects __sls__ and __env__ and turns mod.fun keys into
// mod: [..., fun] (Salt's _handle_state_decls).
func handleStateDecls(st *value.Map, sls, env string, errs []string) []string {
	for i := 0; i < st.Len(); i++ {
		name, body := st.At(i)
		bm, ok := body.(*value.Map)
		if !ok {
			if name == "__extend__" || name == "__exclude__" {
				continue
			}
			if s, ok := body.(string); ok && strings.Contains(s, ".") {
				comps := strings.Split(s, ".")
				st.SetAt(i, value.MapOf("__sls__", sls, "__env__", env, comps[0], value.NewList(comps[1])))
				continue
			}
			errs = append(errs, fmt.Sprintf("ID %s in SLS %s is not a dictionary", value.Str(name), sls))
			continue
		}
		skeys := map[string]bool{}
		keys := append([]any(nil), bm.Keys()...)
		for _, k := range keys {
			ks, ok := k.(string)
			if !ok {
				continue
			}
			if strings.HasPrefix(ks, "_") {
				continue
			}
			v, _ := bm.Get(k)
			l, ok := v.(*value.List)
			if !ok {
				continue
			}
			if strings.Contains(ks, ".") {
				comps := strings.Split(ks, ".")
				if skeys[comps[0]] {
					errs = append(errs, fmt.Sprintf("ID '%s' in SLS '%s' contains multiple state declarations of the same type", value.Str(name), sls))
					continue
				}
				bm.Delete(k)
				l.Append(comps[1])
				bm.Set(comps[0], l)
				skeys[comps[0]] = true
				continue
			}
			skeys[ks] = true
		}
		if !bm.Has("__sls__") {
			bm.Set("__sls__", sls)
		}
		if !bm.Has("__env__") {
			bm.Set("__env__", env)
		}
	}
	return errs
}

// handleExtend moves the extend declaration into __extend__.
func handleExtend(st *value.Map, sls, env string, errs []string) []string {
	ext, ok := st.Get("extend")
	if !ok {
		return errs
	}
	st.Delete("extend")
	em, ok := ext.(*value.Map)
	if !ok {
		return append(errs, fmt.Sprintf("Extension value in SLS '%s' is not a dictionary", sls))
	}
	for _, name := range em.Keys() {
		v, _ := em.Get(name)
		body, ok := v.(*value.Map)
		if !ok {
			errs = append(errs, fmt.Sprintf("Extension name '%s' in SLS '%s' is not a dictionary", value.Str(name), sls))
			continue
		}
		if !body.Has("__sls__") {
			body.Set("__sls__", sls)
		}
		if !body.Has("__env__") {
			body.Set("__env__", env)
		}
		keys := append([]any(nil), body.Keys()...)
		for _, k := range keys {
			ks, ok := k.(string)
			if !ok || strings.HasPrefix(ks, "_") {
				continue
			}
			bv, _ := body.Get(k)
			l, ok := bv.(*value.List)
			if !ok {
				continue
			}
			if strings.Contains(ks, ".") {
				comps := strings.Split(ks, ".")
				body.Delete(k)
				l.Append(comps[1])
				body.Set(comps[0], l)
			}
		}
	}
	appendTo(st, "__extend__", em)
	return errs
}

func appendTo(st *value.Map, key string, items ...any) {
	v, ok := st.Get(key)
	l, isList := v.(*value.List)
	if !ok || !isList {
		l = value.NewList()
		st.Set(key, l)
	}
	l.Append(items...)
}

// handleExclude moves the exclude declaration into __exclude__.
func handleExclude(st *value.Map, sls string, errs []string) []string {
	exc, ok := st.Get("exclude")
	if !ok {
		return errs
	}
	st.Delete("exclude")
	if _, ok := exc.(*value.List); !ok {
		errs = append(errs, fmt.Sprintf("Exclude Declaration in SLS %s is not formed as a list", sls))
	}
	appendTo(st, "__exclude__", iterList(exc)...)
	return errs
}

// mergeIncluded is Salt's merge_included_states: move __extend__ and
// __exclude__ over, report conflicting IDs, then update high with state.
func mergeIncluded(high *value.Map, state any, errs []string) []string {
	st, ok := state.(*value.Map)
	if !ok {
		return dictUpdate(high, state, errs)
	}
	if v, ok := st.Get("__extend__"); ok {
		st.Delete("__extend__")
		appendTo(high, "__extend__", iterList(v)...)
	}
	if v, ok := st.Get("__exclude__"); ok {
		st.Delete("__exclude__")
		appendTo(high, "__exclude__", iterList(v)...)
	}
	for i := 0; i < st.Len(); i++ {
		id, body := st.At(i)
		old, ok := high.Get(id)
		if !ok || value.Equal(old, body) {
			continue
		}
		errs = append(errs, fmt.Sprintf("Detected conflicting IDs, SLS IDs need to be globally unique.\n    The conflicting ID is '%s' and is found in SLS '%s:%s' and SLS '%s:%s'",
			value.Str(id), dunder(old, "__env__"), dunder(old, "__sls__"), dunder(body, "__env__"), dunder(body, "__sls__")))
	}
	updateFrom(high, st)
	return errs
}

func dunder(body any, key string) string {
	if m, ok := body.(*value.Map); ok {
		if v, ok := m.Get(key); ok {
			return value.Str(v)
		}
	}
	return ""
}

func updateFrom(dst *value.Map, src any) {
	if m, ok := src.(*value.Map); ok {
		dst.Update(m)
	}
}

// dictUpdate is Python's dict.update with a non-dict argument: a sequence
// of two-item sequences, failing at the first other element.
func dictUpdate(high *value.Map, state any, errs []string) []string {
	fail := func() []string {
		return append(errs, fmt.Sprintf("Error when rendering state with contents: %s", value.Str(state)))
	}
	var items []any
	switch x := state.(type) {
	case *value.List:
		items = x.Items
	case value.Tuple:
		items = x
	default:
		return fail()
	}
	for _, it := range items {
		var pair []any
		switch y := it.(type) {
		case string:
			if rs := []rune(y); len(rs) == 2 {
				pair = []any{string(rs[0]), string(rs[1])}
			}
		case *value.List:
			if len(y.Items) == 2 {
				pair = y.Items
			}
		case value.Tuple:
			if len(y) == 2 {
				pair = y
			}
		}
		if pair == nil || !value.Hashable(pair[0]) {
			return fail()
		}
		high.Set(pair[0], pair[1])
	}
	return errs
}

// cleanDuplicateExtends flattens __extend__ into one single-key map per
// (ID, body) pair, dropping repeats.
func cleanDuplicateExtends(high *value.Map) {
	v, ok := high.Get("__extend__")
	if !ok {
		return
	}
	type item struct{ k, v any }
	var seen []item
	for _, ext := range iterList(v) {
		em, ok := ext.(*value.Map)
		if !ok {
			continue
		}
		em.Range(func(k, b any) bool {
			for _, s := range seen {
				if value.Equal(s.k, k) && value.Equal(s.v, b) {
					return true
				}
			}
			seen = append(seen, item{k, b})
			return true
		})
	}
	out := value.NewList()
	for _, s := range seen {
		out.Append(value.MapOf(s.k, s.v))
	}
	high.Set("__extend__", out)
}
