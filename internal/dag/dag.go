// Package dag is a small directed graph with labelled nodes and edges:
// building, strongly connected groups (cycles) and Graphviz Dot output. It
// knows nothing of Salt; internal/graph turns low chunks into one.
package dag

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Attr is one Graphviz attribute (key=value). Attributes are kept in a
// slice so Dot output is deterministic.
type Attr struct {
	Key, Value string
}

// Node is a vertex of the graph.
type Node struct {
	// Name is the node's Dot identifier; empty means "n<index>".
	Name string
	// Label is the text shown; newlines start new lines.
	Label string
	// Group puts the node in a cluster of that name ("" for none).
	Group string
	// Attrs are extra Dot attributes (shape, style, color, ...).
	Attrs []Attr
}

// Edge is a directed, labelled edge between two nodes, by index.
type Edge struct {
	From, To int
	Label    string
	Attrs    []Attr
}

// Graph is a directed multigraph. The zero value is an empty graph.
type Graph struct {
	nodes []Node
	edges []Edge
	out   [][]int // node -> indexes of its outgoing edges
}

// AddNode adds n and returns its index.
func (g *Graph) AddNode(n Node) int {
	g.nodes = append(g.nodes, n)
	g.out = append(g.out, nil)
	return len(g.nodes) - 1
}

// Connect adds e and returns its index. It returns an error when an end
// of e is not a node of g.
func (g *Graph) Connect(e Edge) (int, error) {
	if e.From < 0 || e.From >= len(g.nodes) || e.To < 0 || e.To >= len(g.nodes) {
		return -1, fmt.Errorf("dag: edge %d -> %d: no such node (graph has %d)", e.From, e.To, len(g.nodes))
	}
	g.edges = append(g.edges, e)
	g.out[e.From] = append(g.out[e.From], len(g.edges)-1)
	return len(g.edges) - 1, nil
}

// Len returns the number of nodes.
func (g *Graph) Len() int { return len(g.nodes) }

// Node returns node i.
func (g *Graph) Node(i int) Node { return g.nodes[i] }

// Nodes returns the nodes in insertion order (do not modify).
func (g *Graph) Nodes() []Node { return g.nodes }

// Edges returns the edges in insertion order (do not modify).
func (g *Graph) Edges() []Edge { return g.edges }

// Successors returns the targets of i's outgoing edges, in edge order,
// without duplicates.
func (g *Graph) Successors(i int) []int {
	var out []int
	for _, e := range g.out[i] {
		if to := g.edges[e].To; !slices.Contains(out, to) {
			out = append(out, to)
		}
	}
	return out
}

// Cycles returns the strongly connected groups of more than one node, and
// the nodes with an edge to themselves, found with Tarjan's algorithm.
// Each group is sorted by node index; the groups are sorted by their
// first node. keep, when not nil, selects the edges that count.
func (g *Graph) Cycles(keep func(Edge) bool) [][]int {
	n := len(g.nodes)
	index := make([]int, n)
	low := make([]int, n)
	on := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	succ := func(v int) []int {
		var out []int
		for _, ei := range g.out[v] {
			if keep == nil || keep(g.edges[ei]) {
				out = append(out, g.edges[ei].To)
			}
		}
		return out
	}
	var groups [][]int
	var st []int
	next := 0
	// An explicit stack keeps deep graphs from exhausting the Go stack.
	type frame struct {
		v    int
		succ []int
		i    int
	}
	for root := 0; root < n; root++ {
		if index[root] >= 0 {
			continue
		}
		frames := []frame{{v: root, succ: succ(root)}}
		index[root], low[root] = next, next
		next++
		st = append(st, root)
		on[root] = true
		for len(frames) > 0 {
			f := &frames[len(frames)-1]
			if f.i < len(f.succ) {
				w := f.succ[f.i]
				f.i++
				switch {
				case index[w] < 0:
					index[w], low[w] = next, next
					next++
					st = append(st, w)
					on[w] = true
					frames = append(frames, frame{v: w, succ: succ(w)})
				case on[w]:
					low[f.v] = min(low[f.v], index[w])
				}
				continue
			}
			v := f.v
			frames = frames[:len(frames)-1]
			if len(frames) > 0 {
				p := frames[len(frames)-1].v
				low[p] = min(low[p], low[v])
			}
			if low[v] != index[v] {
				continue
			}
			var grp []int
			for {
				w := st[len(st)-1]
				st = st[:len(st)-1]
				on[w] = false
				grp = append(grp, w)
				if w == v {
					break
				}
			}
			if len(grp) > 1 || slices.Contains(succ(v), v) {
				slices.Sort(grp)
				groups = append(groups, grp)
			}
		}
	}
	slices.SortFunc(groups, func(a, b []int) int { return a[0] - b[0] })
	return groups
}

// DotOptions configure WriteDot.
type DotOptions struct {
	// Name is the graph's name.
	Name string
	// Attrs are graph attributes (rankdir, ...).
	Attrs []Attr
	// NodeAttrs are default node attributes.
	NodeAttrs []Attr
	// GroupLabel gives a cluster's label; nil uses the group name.
	GroupLabel func(group string) string
}

// WriteDot writes g in Graphviz Dot. Nodes of a group are written in a
// "cluster_" subgraph, groups in order of their first node.
func (g *Graph) WriteDot(w io.Writer, o DotOptions) error {
	var b strings.Builder
	b.WriteString("digraph ")
	b.WriteString(Quote(o.Name))
	b.WriteString(" {\n")
	for _, a := range o.Attrs {
		fmt.Fprintf(&b, "  %s=%s;\n", a.Key, Quote(a.Value))
	}
	if len(o.NodeAttrs) > 0 {
		b.WriteString("  node [")
		writeAttrs(&b, o.NodeAttrs)
		b.WriteString("];\n")
	}
	var groups []string
	members := map[string][]int{}
	for i, n := range g.nodes {
		if _, ok := members[n.Group]; !ok {
			groups = append(groups, n.Group)
		}
		members[n.Group] = append(members[n.Group], i)
	}
	for ci, grp := range groups {
		indent := "  "
		if grp != "" {
			label := grp
			if o.GroupLabel != nil {
				label = o.GroupLabel(grp)
			}
			fmt.Fprintf(&b, "  subgraph %s {\n    label=%s;\n", Quote(fmt.Sprintf("cluster_%d", ci)), Quote(label))
			indent = "    "
		}
		for _, i := range members[grp] {
			n := g.nodes[i]
			b.WriteString(indent)
			b.WriteString(Quote(g.name(i)))
			b.WriteString(" [")
			writeAttrs(&b, append([]Attr{{"label", n.Label}}, n.Attrs...))
			b.WriteString("];\n")
		}
		if grp != "" {
			b.WriteString("  }\n")
		}
	}
	for _, e := range g.edges {
		fmt.Fprintf(&b, "  %s -> %s", Quote(g.name(e.From)), Quote(g.name(e.To)))
		attrs := e.Attrs
		if e.Label != "" {
			attrs = append([]Attr{{"label", e.Label}}, attrs...)
		}
		if len(attrs) > 0 {
			b.WriteString(" [")
			writeAttrs(&b, attrs)
			b.WriteString("]")
		}
		b.WriteString(";\n")
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func (g *Graph) name(i int) string {
	if n := g.nodes[i].Name; n != "" {
		return n
	}
	return fmt.Sprintf("n%d", i)
}

func writeAttrs(b *strings.Builder, attrs []Attr) {
	for i, a := range attrs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.Key)
		b.WriteByte('=')
		b.WriteString(Quote(a.Value))
	}
}

// Quote returns s as a Dot double-quoted string: backslashes and quotes
// escaped, newlines as \n.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
