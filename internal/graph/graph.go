// Package graph is `brine graph`: the requisite graph of what a state run
// would execute, without running it. Build resolves every requisite of
// the low chunks (as state.show_lowstate and state.show_low_sls give them)
// to the chunks it names with the runtime's matching rules, finds cycles,
// and predicts the run order and __run_num__ of each state by driving the
// engine with stand-in state functions that succeed with changes and touch
// nothing. Write* print the result as Graphviz Dot, text or JSON.
package graph

import (
	"slices"
	"strings"

	"brine/internal/dag"
	"brine/internal/match"
	"brine/internal/statemod"
	"brine/internal/value"
)

// Kinds are the requisite kinds of low chunks, in the order edges are
// listed. The compiler has already folded the *_in forms into them
// (listen_in stays on its chunk and is shown as a listen edge from the
// listener); prerequired, the compiler's mirror of prereq, is not shown.
var Kinds = []string{
	"require", "require_any", "watch", "watch_any", "onchanges", "onchanges_any",
	"onfail", "onfail_any", "onfail_all", "prereq", "listen", "use",
}

// Chunk is one low chunk of the graph.
type Chunk struct {
	Index          int
	ID, State, Fun string
	Name, SLS, Env string
	Tag            string
	// Low is the low chunk itself.
	Low *value.Map
}

// Edge is one resolved requisite: From declares Kind on Ref, which names
// To (-1 when it names nothing). A listen_in naming a missing listener has
// From -1 and Kind "listen_in".
type Edge struct {
	From, To int
	Kind     string
	// Ref is the requisite as written: "mod: target" or "target".
	Ref string
}

// Step is one entry of the predicted running dictionary, in run order.
type Step struct {
	RunNum int64
	// Chunk is the chunk that runs, or -1 for a listener's mod_watch or a
	// missing listen target.
	Chunk   int
	Tag     string
	Comment string
}

// Graph is the requisite graph of a list of low chunks.
type Graph struct {
	Chunks []*Chunk
	Edges  []Edge
	// Cycles are the groups of chunks that require each other through
	// ordering requisites (listen and use do not order), by chunk index.
	Cycles [][]int
	// Order is the predicted run, in __run_num__ order.
	Order []Step
	// Notes are the compiler's messages that did not stop the graph (a
	// *_in naming a missing ID, a direct requisite cycle).
	Notes []string
}

// Options configure Build.
type Options struct {
	// Kinds restricts the edges to these requisite kinds (nil: all).
	Kinds []string
	// States is the real state registry, consulted only for which modules
	// have mod_watch (nil: statemod.Default).
	States *statemod.Registry
	// DisabledRequisites are kinds the runtime ignores (the
	// disabled_requisites option): they get no edges and do not order.
	DisabledRequisites []string
}

func str(m *value.Map, k string) string {
	v, ok := m.Get(k)
	if !ok || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return value.Str(v)
}

// Build resolves the requisites of chunks and predicts their run.
func Build(chunks []*value.Map, o Options) *Graph {
	g := &Graph{}
	for i, c := range chunks {
		g.Chunks = append(g.Chunks, &Chunk{
			Index: i, ID: str(c, "__id__"), State: str(c, "state"), Fun: str(c, "fun"),
			Name: str(c, "name"), SLS: str(c, "__sls__"), Env: str(c, "__env__"),
			Tag: statemod.Tag(c), Low: c,
		})
	}
	keep := map[string]bool{}
	for _, k := range Kinds {
		keep[k] = o.Kinds == nil || slices.Contains(o.Kinds, k)
	}
	for _, k := range o.DisabledRequisites {
		keep[k] = false
	}
	ix := newIndex(g.Chunks)
	for i, c := range g.Chunks {
		for _, kind := range Kinds {
			if !keep[kind] {
				continue
			}
			v, ok := c.Low.Get(kind)
			if !ok || v == nil {
				continue
			}
			for _, item := range asList(v) {
				switch kind {
				case "listen":
					g.listenEdges(i, item, kind)
				default:
					rq, ok := parseReq(item)
					if !ok {
						continue
					}
					hits, ok := ix.find(rq)
					g.addEdges(i, kind, rq.ref(), hits, ok)
				}
			}
		}
		// listen_in stays on the listened-to chunk: the named state listens.
		if keep["listen"] {
			if v, ok := c.Low.Get("listen_in"); ok {
				for _, item := range asList(v) {
					m, ok := item.(*value.Map)
					if !ok {
						continue
					}
					m.Range(func(k, val any) bool {
						state, id := pyStr(k), pyStr(val)
						found := false
						for j, l := range g.Chunks {
							if l.State == state && l.has(id) {
								g.Edges = append(g.Edges, Edge{From: j, To: i, Kind: "listen", Ref: c.State + ": " + c.ID})
								found = true
							}
						}
						if !found {
							g.Edges = append(g.Edges, Edge{From: -1, To: i, Kind: "listen_in", Ref: state + ": " + id})
						}
						return true
					})
				}
			}
		}
	}
	d := g.DAG()
	ordering := func(e dag.Edge) bool { return orderingKind(e.Label) }
	for _, grp := range d.Cycles(ordering) {
		var cyc []int
		for _, n := range grp {
			if n < len(g.Chunks) {
				cyc = append(cyc, n)
			}
		}
		g.Cycles = append(g.Cycles, cyc)
	}
	g.Order = predict(chunks, g.Chunks, o)
	return g
}

// orderingKind reports whether a requisite kind makes its target run
// first (listen is deferred to the end of the run; use is compile time).
func orderingKind(kind string) bool {
	return kind != "listen" && kind != "listen_in" && kind != "use"
}

func (c *Chunk) has(v string) bool { return c.State == v || c.ID == v || c.Name == v }

func (g *Graph) addEdges(from int, kind, ref string, hits []int, ok bool) {
	if !ok || len(hits) == 0 {
		g.Edges = append(g.Edges, Edge{From: from, To: -1, Kind: kind, Ref: ref})
		return
	}
	for _, h := range hits {
		g.Edges = append(g.Edges, Edge{From: from, To: h, Kind: kind, Ref: ref})
	}
}

// listenEdges mirrors the runtime's call_listen lookup: a bare name is
// the last chunk whose ID or name it is; {state: x} is every chunk of that
// state module whose ID, name or module is x. No globs.
func (g *Graph) listenEdges(from int, item any, kind string) {
	var state, target string
	switch x := item.(type) {
	case *value.Map:
		if x.Len() == 0 {
			return
		}
		k, v := x.At(0)
		state, target = pyStr(k), pyStr(v)
	default:
		name := pyStr(item)
		last := -1
		for j, c := range g.Chunks {
			if c.ID == name || c.Name == name {
				last = j
			}
		}
		if last < 0 {
			// The runtime silently ignores it; show it as missing.
			g.Edges = append(g.Edges, Edge{From: from, To: -1, Kind: kind, Ref: name})
			return
		}
		state, target = g.Chunks[last].State, g.Chunks[last].ID
	}
	var hits []int
	for j, c := range g.Chunks {
		if c.State == state && c.has(target) {
			hits = append(hits, j)
		}
	}
	g.addEdges(from, kind, state+": "+target, hits, true)
}

func asList(v any) []any {
	if l, ok := v.(*value.List); ok {
		return l.Items
	}
	return []any{v}
}

func pyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return value.Str(v)
}

// req is one parsed requisite reference: key is a state module, "id" or
// "sls"; val the name, ID or SLS (maybe a glob).
type req struct {
	key string
	val any
}

func (r req) ref() string {
	if r.key == "id" {
		if s, ok := r.val.(string); ok {
			return s
		}
	}
	return r.key + ": " + pyStr(r.val)
}

// parseReq mirrors the runtime: a bare string names an ID; a one-key map
// {mod: target} (mod.fun keeps only mod) names chunks of that module.
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
		if v == nil {
			return req{}, false
		}
		return req{key: ks, val: v}, true
	}
	return req{}, false
}

// index answers requisite lookups with the runtime's rules.
type index struct {
	chunks []*Chunk
}

func newIndex(chunks []*Chunk) *index { return &index{chunks: chunks} }

func isGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// find returns, in low-state order, the chunks rq names, and false when
// the runtime rejects the reference (a non-string target other than an
// SLS).
func (ix *index) find(rq req) ([]int, bool) {
	val, isStr := rq.val.(string)
	if rq.key != "sls" && !isStr {
		return nil, false
	}
	if !isStr {
		val = pyStr(rq.val)
	}
	var out []int
	glob := isGlob(val)
	for i, c := range ix.chunks {
		if rq.key == "sls" {
			if c.SLS == val || glob && match.Fnmatch(c.SLS, val) {
				out = append(out, i)
			}
			continue
		}
		if rq.key != "id" && c.State != rq.key {
			continue
		}
		if glob {
			if match.Fnmatch(c.Name, val) || match.Fnmatch(c.ID, val) {
				out = append(out, i)
			}
		} else if c.Name == val || c.ID == val {
			out = append(out, i)
		}
	}
	return out, true
}
