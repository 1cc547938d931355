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
	"sort"
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
	// Exact forces Salt's level-by-level include merge even when the
	// linear fast path would give the same result (tests, debugging).
	Exact bool

	avail     *fileserver.Avail
	rend      Renderer
	autoOrder bool
	iorder    int64
	high      *value.Map
	futures   map[string]*future

	// Workers is the number of goroutines rendering the top-level SLS
	// ahead of the compiler; below 2 everything renders serially. The
	// Renderer must then be safe for concurrent use.
	Workers int
}

// New returns a Compiler reading SLS files from avail and rendering them
// with r. autoOrder is the state_auto_order option.
func New(avail *fileserver.Avail, r Renderer, autoOrder bool) *Compiler {
	return &Compiler{avail: avail, rend: r, autoOrder: autoOrder, iorder: 10000, high: value.NewMap(0)}
}

// future is a render running ahead of the compiler.
type future struct {
	done chan struct{}
	data any
	err  error
}

func (c *Compiler) render(s fileserver.SLS) (any, error) {
	key := s.Env + ":" + s.Name
	if f, ok := c.futures[key]; ok {
		delete(c.futures, key)
		<-f.done
		return f.data, f.err
	}
	return c.rend.RenderSLS(s)
}

// prefetch starts rendering the top-level SLS of matches on Workers
// goroutines. The compiler still consumes the results in Salt's order, so
// the output is the same as a serial run; only the order in which the
// renderer is called changes.
func (c *Compiler) prefetch(matches *value.Map) {
	if c.Workers < 2 {
		return
	}
	type job struct {
		key string
		src fileserver.SLS
		f   *future
	}
	var jobs []job
	c.futures = map[string]*future{}
	matches.Range(func(envK, states any) bool {
		env := value.Str(envK)
		if !c.avail.Has(env) {
			return true
		}
		for _, m := range iterList(states) {
			for _, sls := range filterStates(c.avail.States(env), value.Str(m)) {
				key := env + ":" + sls
				if _, dup := c.futures[key]; dup {
					continue
				}
				src, ok := c.avail.Roots.ResolveSLS(env, sls)
				if !ok {
					continue
				}
				f := &future{done: make(chan struct{})}
				c.futures[key] = f
				jobs = append(jobs, job{key, src, f})
			}
		}
		return true
	})
	ch := make(chan job)
	for w := 0; w < c.Workers; w++ {
		go func() {
			for j := range ch {
				j.f.data, j.f.err = c.rend.RenderSLS(j.src)
				close(j.f.done)
			}
		}()
	}
	go func() {
		for _, j := range jobs {
			ch <- j
		}
		close(ch)
	}()
}

// RenderHighstate renders the SLS named by matches (env -> list of SLS
// names or globs) into high data (Salt's render_highstate).
//
// It works in two passes. The first renders every file in Salt's order
// (depth-first through includes, each env:sls once) and resolves the
// includes. The second builds the high data: Salt merges every included
// SLS into its includer level by level, which costs O(depth x size) on
// long include chains; when no ID is defined by two SLS files the result
// is the same as a pre-order walk of the include tree, which the fast path
// does in linear time. Otherwise the exact level-by-level merge runs.
func (c *Compiler) RenderHighstate(matches *value.Map) (*value.Map, []string) {
	var allErrs []string
	mods := map[string]bool{}
	var statefiles []string
	c.prefetch(matches)
	defer c.drain()
	type top struct {
		n        *node
		slsMatch string
		env      string
		errs     []string // errors before the node (unknown env)
	}
	var tops []top
	var pending []string
	matches.Range(func(envK, states any) bool {
		env := value.Str(envK)
		for _, m := range iterList(states) {
			slsMatch := value.Str(m)
			if c.avail.Has(env) {
				statefiles = filterStates(c.avail.States(env), slsMatch)
			} else if c.avail.Has("__env__") {
				statefiles = filterStates(c.avail.States("__env__"), slsMatch)
			} else {
				pending = append(pending, fmt.Sprintf("No matching salt environment for environment '%s' found", env))
			}
			if len(statefiles) == 0 {
				statefiles = []string{slsMatch}
			}
			for _, sls := range statefiles {
				if mods[env+":"+sls] {
					continue
				}
				n := c.collect(sls, env, mods, matches)
				tops = append(tops, top{n: n, slsMatch: slsMatch, env: env, errs: pending})
				pending = nil
			}
		}
		return true
	})
	fast := !c.Exact && c.uniqueIDs(tops2nodes(tops, func(t top) *node { return t.n }))
	high := c.high
	for _, t := range tops {
		allErrs = append(allErrs, t.errs...)
		var state any
		var errs []string
		if fast {
			state, errs = c.buildFast(t.n)
		} else {
			state, errs = c.buildExact(t.n)
		}
		if value.Truthy(state) {
			errs = mergeIncluded(high, state, errs)
		}
		this := "SLS " + t.slsMatch + " in saltenv"
		for i, e := range errs {
			if strings.Contains(e, "is not available") && strings.Contains(e, this) {
				errs[i] = fmt.Sprintf("No matching sls found for '%s' in env '%s'", t.slsMatch, t.env)
			}
		}
		allErrs = append(allErrs, errs...)
	}
	allErrs = append(allErrs, pending...)
	cleanDuplicateExtends(high)
	return high, allErrs
}

// drain waits for prefetched renders nobody asked for (a file whose
// render is no longer needed still runs to completion, as it would have
// in Salt).
func (c *Compiler) drain() {
	for k, f := range c.futures {
		<-f.done
		delete(c.futures, k)
	}
}

func tops2nodes[T any](ts []T, f func(T) *node) []*node {
	out := make([]*node, len(ts))
	for i, t := range ts {
		out[i] = f(t)
	}
	return out
}

// filterStates is fnmatch.filter over a sorted SLS list, with a binary
// search for plain names.
func filterStates(states []string, pattern string) []string {
	if match.IsGlob(pattern) {
		return match.FnmatchFilter(states, pattern)
	}
	i := sort.SearchStrings(states, pattern)
	if i < len(states) && states[i] == pattern {
		return []string{pattern}
	}
	return nil
}

func iterList(v any) []any {
	switch x := v.(type) {
	case *value.List:
		return x.Items
	case value.Tuple:
		return x
	case []any:
		return x
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

// node is one rendered SLS and its resolved includes.
type node struct {
	env, sls string
	src      fileserver.SLS
	data     any      // rendered data; nil when missing or failed
	errs     []string // render errors
	include  []any    // the include list, when it is a list
	badInc   bool     // include present but not a list
	items    []incItem
}

// incItem is one include of a node: an error message or a rendered child.
type incItem struct {
	err   string
	child *node
}

// collect renders one SLS and, depth first, the SLS it includes (the
// first pass of render_state).
func (c *Compiler) collect(sls, env string, mods map[string]bool, matches *value.Map) *node {
	n := &node{env: env, sls: sls}
	src, found := c.avail.Roots.ResolveSLS(env, sls)
	n.src = src
	if !found {
		n.errs = append(n.errs, fmt.Sprintf("Specified SLS %s in saltenv %s is not available on the salt master or through a configured fileserver", sls, env))
		return n
	}
	data, err := c.render(src)
	if err != nil {
		if g, ok := err.(GenericRenderError); ok && g.Generic() {
			n.errs = append(n.errs, fmt.Sprintf("Rendering SLS %s failed, render error: %s", sls, err.Error()))
		} else {
			n.errs = append(n.errs, fmt.Sprintf("Rendering SLS '%s:%s' failed: %s", env, sls, err.Error()))
		}
	} else {
		n.data = data
	}
	mods[env+":"+sls] = true
	st, ok := n.data.(*value.Map)
	if !ok || st.Len() == 0 {
		return n
	}
	inc, ok := st.Get("include")
	if !ok {
		return n
	}
	l, ok := inc.(*value.List)
	if !ok {
		n.badInc = true
		return n
	}
	n.include = l.Items
	for _, it := range l.Items {
		envKey := env
		var incSLS any = it
		if m, ok := it.(*value.Map); ok {
			if m.Len() == 0 {
				continue
			}
			k, v := m.At(m.Len() - 1)
			envKey, incSLS = value.Str(k), v
		}
		name := value.Str(incSLS)
		if !c.avail.Has(envKey) && !c.avail.Has("__env__") {
			n.items = append(n.items, incItem{err: fmt.Sprintf("Nonexistent saltenv '%s' found in include of '%s' within SLS '%s:%s'", envKey, name, env, sls)})
			continue
		}
		if strings.HasPrefix(name, ".") {
			m := relInclude.FindStringSubmatch(name)
			if m == nil {
				n.items = append(n.items, incItem{err: fmt.Sprintf("Badly formatted include %s found in include in SLS '%s:%s'", name, env, sls)})
				continue
			}
			levels := len(m[1])
			comps := strings.Split(sls, ".")
			if strings.HasSuffix(src.Source, "/init.sls") {
				comps = append(comps, "init")
			}
			if levels > len(comps) {
				n.items = append(n.items, incItem{err: fmt.Sprintf("Attempted relative include of '%s' within SLS '%s:%s' goes beyond top level package ", name, env, sls)})
				continue
			}
			name = strings.Join(append(append([]string(nil), comps[:len(comps)-levels]...), m[2]), ".")
		}
		var resolved []string
		if envKey != "_xenv" {
			if matches.Has(envKey) || len(filterStates(c.avail.States(envKey), name)) > 0 {
				resolved = []string{envKey}
			}
		} else {
			matches.Range(func(k, _ any) bool {
				ae := value.Str(k)
				if len(filterStates(c.avail.States(ae), name)) > 0 {
					resolved = append(resolved, ae)
				}
				return true
			})
		}
		if len(resolved) == 1 || contains(resolved, env) {
			targets := filterStates(c.avail.States(env), name)
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
				n.items = append(n.items, incItem{child: c.collect(t, rEnv, mods, matches)})
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
		n.items = append(n.items, incItem{err: msg})
	}
	return n
}

// ownKeys returns the IDs an SLS defines itself.
func ownKeys(st *value.Map, n *node) []any {
	var out []any
	for _, k := range st.Keys() {
		switch k {
		case "extend", "exclude":
			continue
		case "include":
			if !n.badInc {
				continue
			}
		}
		out = append(out, k)
	}
	return out
}

// uniqueIDs reports whether the fast path applies: every node renders to a
// mapping (or nothing) and no ID is defined by two nodes.
func (c *Compiler) uniqueIDs(tops []*node) bool {
	seen := map[any]bool{}
	ok := true
	var walk func(n *node)
	walk = func(n *node) {
		if !ok {
			return
		}
		if value.Truthy(n.data) {
			st, isMap := n.data.(*value.Map)
			if !isMap {
				ok = false
				return
			}
			for _, k := range ownKeys(st, n) {
				if k == "__extend__" || k == "__exclude__" || !value.Hashable(k) {
					ok = false
					return
				}
				hk := value.HashKey(k)
				if seen[hk] {
					ok = false
					return
				}
				seen[hk] = true
			}
		}
		for _, it := range n.items {
			if it.child != nil {
				walk(it.child)
			}
		}
	}
	for _, n := range tops {
		walk(n)
	}
	return ok
}

// prepare does the per-file part of render_state for n: include errors,
// extend and exclude stashing, state declarations. It returns the state
// map (nil when n contributes nothing) and the errors so far.
func (c *Compiler) prepare(n *node) (*value.Map, any, []string) {
	errs := append([]string(nil), n.errs...)
	if !value.Truthy(n.data) {
		return nil, nil, errs
	}
	st, ok := n.data.(*value.Map)
	if !ok {
		errs = append(errs, fmt.Sprintf("SLS %s does not render to a dictionary", n.sls))
		return nil, n.data, errs
	}
	if n.badInc {
		errs = append(errs, fmt.Sprintf("Include Declaration in SLS %s is not formed as a list", n.sls))
	} else if n.include != nil {
		st.Delete("include")
		for _, it := range n.include {
			if m, ok := it.(*value.Map); ok && m.Len() > 0 {
				k, _ := m.At(m.Len() - 1)
				m.Delete(k) // Salt pops the item
			}
		}
	}
	errs = handleExtend(st, n.sls, n.env, errs)
	errs = handleExclude(st, n.sls, errs)
	errs = handleStateDecls(st, n.sls, n.env, errs)
	return st, nil, errs
}

// buildExact is Salt's render_state second half, merging each include
// into its includer.
func (c *Compiler) buildExact(n *node) (any, []string) {
	st, other, errs := c.prepare(n)
	if st == nil {
		if other != nil {
			return other, errs
		}
		return value.NewMap(0), errs
	}
	for _, it := range n.items {
		if it.child == nil {
			errs = append(errs, it.err)
			continue
		}
		nstate, nerrs := c.buildExact(it.child)
		if value.Truthy(nstate) {
			errs = mergeIncluded(st, nstate, errs)
			updateFrom(st, nstate)
		}
		errs = append(errs, nerrs...)
	}
	c.handleIorder(st)
	return st, errs
}

// buildFast gives the same result as buildExact when IDs are unique: the
// include tree flattened in pre-order, states numbered in post-order.
func (c *Compiler) buildFast(root *node) (any, []string) {
	out := value.NewMap(0)
	var extend, exclude []any
	var hasExt, hasExc bool
	var errs []string
	var walk func(n *node)
	walk = func(n *node) {
		st, _, e := c.prepare(n)
		errs = append(errs, e...)
		if st == nil {
			for _, it := range n.items {
				if it.child == nil {
					errs = append(errs, it.err)
				} else {
					walk(it.child)
				}
			}
			return
		}
		if v, ok := st.Get("__extend__"); ok {
			st.Delete("__extend__")
			hasExt = true
			extend = append(extend, iterList(v)...)
		}
		if v, ok := st.Get("__exclude__"); ok {
			st.Delete("__exclude__")
			hasExc = true
			exclude = append(exclude, iterList(v)...)
		}
		start := out.Len()
		for i := 0; i < st.Len(); i++ {
			k, v := st.At(i)
			out.Set(k, v)
		}
		end := out.Len()
		for _, it := range n.items {
			if it.child == nil {
				errs = append(errs, it.err)
				continue
			}
			walk(it.child)
		}
		c.handleIorderRange(out, start, end)
	}
	rootTruthy := value.Truthy(root.data)
	walk(root)
	if !rootTruthy {
		return value.NewMap(0), errs
	}
	if _, ok := root.data.(*value.Map); !ok {
		return root.data, errs
	}
	if hasExt {
		out.Set("__extend__", value.NewList(extend...))
	}
	if hasExc {
		out.Set("__exclude__", value.NewList(exclude...))
	}
	return out, errs
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
	c.handleIorderRange(st, 0, st.Len())
}

// handleIorderRange is handleIorder over the entries [start, end) of st.
func (c *Compiler) handleIorderRange(st *value.Map, start, end int) {
	if !c.autoOrder {
		return
	}
	for _, body := range st.Values()[start:end] {
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
	slsV, envV := any(sls), any(env) // boxed once for every ID
	var keyBuf [4]any
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
		keys := append(keyBuf[:0], bm.Keys()...)
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
			if mod, rest, ok := strings.Cut(ks, "."); ok {
				fun, _, _ := strings.Cut(rest, ".") // Salt takes the second component
				if skeys[mod] {
					errs = append(errs, fmt.Sprintf("ID '%s' in SLS '%s' contains multiple state declarations of the same type", value.Str(name), sls))
					continue
				}
				bm.Delete(k)
				l.Append(fun)
				bm.Set(mod, l)
				skeys[mod] = true
				continue
			}
			skeys[ks] = true
		}
		if !bm.Has("__sls__") {
			bm.Set("__sls__", slsV)
		}
		if !bm.Has("__env__") {
			bm.Set("__env__", envV)
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
