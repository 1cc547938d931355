package graph

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"brine/internal/dag"
	"brine/internal/value"
)

// kindStyle gives the Dot attributes of an edge per requisite kind.
var kindStyle = map[string][]dag.Attr{
	"require":       {{Key: "color", Value: "black"}},
	"require_any":   {{Key: "color", Value: "black"}, {Key: "arrowhead", Value: "empty"}},
	"watch":         {{Key: "color", Value: "blue"}},
	"watch_any":     {{Key: "color", Value: "blue"}, {Key: "arrowhead", Value: "empty"}},
	"onchanges":     {{Key: "color", Value: "darkgreen"}},
	"onchanges_any": {{Key: "color", Value: "darkgreen"}, {Key: "arrowhead", Value: "empty"}},
	"onfail":        {{Key: "color", Value: "orange"}},
	"onfail_any":    {{Key: "color", Value: "orange"}, {Key: "arrowhead", Value: "empty"}},
	"onfail_all":    {{Key: "color", Value: "orange"}, {Key: "arrowhead", Value: "diamond"}},
	"prereq":        {{Key: "color", Value: "purple"}, {Key: "style", Value: "bold"}},
	"listen":        {{Key: "color", Value: "blue"}, {Key: "style", Value: "dotted"}},
	"listen_in":     {{Key: "color", Value: "blue"}, {Key: "style", Value: "dotted"}},
	"use":           {{Key: "color", Value: "gray"}, {Key: "style", Value: "dotted"}},
}

var missingStyle = []dag.Attr{{Key: "color", Value: "red"}, {Key: "fontcolor", Value: "red"}, {Key: "style", Value: "dashed"}}

// group is the cluster of a chunk: its SLS, with the saltenv when it is
// not base.
func (c *Chunk) group() string {
	if c.Env != "" && c.Env != "base" {
		return c.Env + ":" + c.SLS
	}
	return c.SLS
}

// label is "id\nmod.fun name".
func (c *Chunk) label() string {
	return c.ID + "\n" + c.State + "." + c.Fun + " " + c.Name
}

// DAG returns the graph as a dag.Graph: node i is chunk i, then one node
// per distinct missing reference; an edge goes from the state declaring a
// requisite to the state it names (listen_in: from the listener), labelled
// with the requisite kind. Chunks in a cycle are drawn red.
func (g *Graph) DAG() *dag.Graph {
	d := &dag.Graph{}
	inCycle := map[int]bool{}
	for _, c := range g.Cycles {
		for _, i := range c {
			inCycle[i] = true
		}
	}
	for i, c := range g.Chunks {
		n := dag.Node{Label: c.label(), Group: c.group()}
		if inCycle[i] {
			n.Attrs = []dag.Attr{{Key: "color", Value: "red"}, {Key: "penwidth", Value: "2"}}
		}
		d.AddNode(n)
	}
	missing := map[string]int{}
	missingNode := func(ref string) int {
		if n, ok := missing[ref]; ok {
			return n
		}
		n := d.AddNode(dag.Node{Label: "not found\n" + ref, Attrs: append([]dag.Attr{{Key: "shape", Value: "octagon"}}, missingStyle[:2]...)})
		missing[ref] = n
		return n
	}
	for _, e := range g.Edges {
		from, to := e.From, e.To
		attrs := kindStyle[e.Kind]
		switch {
		case to < 0:
			to, attrs = missingNode(e.Ref), missingStyle
		case from < 0:
			from, attrs = missingNode(e.Ref), missingStyle
		}
		_, _ = d.Connect(dag.Edge{From: from, To: to, Label: e.Kind, Attrs: attrs})
	}
	return d
}

// WriteDot writes the graph in Graphviz Dot: nodes labelled "id\nmod.fun
// name", one cluster per SLS, edges from a state to what it requires
// labelled and styled by kind, requisites naming nothing as dashed red
// edges to a "not found" node, cycles red with a note in the graph label.
func (g *Graph) WriteDot(w io.Writer) error {
	attrs := []dag.Attr{{Key: "rankdir", Value: "BT"}}
	if len(g.Cycles) > 0 {
		attrs = append(attrs, dag.Attr{Key: "label", Value: strings.Join(g.cycleNotes(), "\n")},
			dag.Attr{Key: "fontcolor", Value: "red"}, dag.Attr{Key: "labelloc", Value: "t"})
	}
	return g.DAG().WriteDot(w, dag.DotOptions{
		Name:       "states",
		Attrs:      attrs,
		NodeAttrs:  []dag.Attr{{Key: "shape", Value: "box"}},
		GroupLabel: func(s string) string { return "sls " + s },
	})
}

// cycleNotes describe each cycle: "cycle: a -> b -> a".
func (g *Graph) cycleNotes() []string {
	var out []string
	for _, c := range g.Cycles {
		ids := make([]string, 0, len(c)+1)
		for _, i := range c {
			ids = append(ids, g.Chunks[i].ref())
		}
		ids = append(ids, ids[0])
		out = append(out, "cycle: "+strings.Join(ids, " -> "))
	}
	return out
}

// ref is "mod: id", how a requisite would name the chunk.
func (c *Chunk) ref() string { return c.State + ": " + c.ID }

// WriteText writes one line per state in predicted run order: the
// __run_num__, SLS, ID, function, name and its requisites as "kind ->
// target" (target "?" when it names nothing), then a runtime comment when
// the state would not simply run (skipped onchanges, cycles, ...).
// Cycles and the compiler's notes follow.
func (g *Graph) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# predicted run: every state succeeds with changes\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSLS\tID\tFUNCTION\tNAME\tREQUISITES")
	byFrom := map[int][]Edge{}
	for _, e := range g.Edges {
		from := e.From
		if from < 0 {
			from = e.To
		}
		byFrom[from] = append(byFrom[from], e)
	}
	seen := map[int]bool{}
	line := func(num string, c *Chunk, comment string) {
		r := strings.Join(g.requisites(byFrom[c.Index]), ", ")
		if comment != "" {
			first, _, _ := strings.Cut(comment, "\n")
			if r != "" {
				r += "  "
			}
			r += "# " + strings.TrimSpace(first)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", num, c.group(), c.ID, c.State+"."+c.Fun, c.Name, r)
	}
	for _, st := range g.Order {
		if st.Chunk < 0 {
			// A listener's mod_watch or a missing listen target: the tag
			// is state_|-id_|-name_|-fun.
			p := strings.SplitN(st.Tag, "_|-", 4)
			if len(p) == 4 {
				fmt.Fprintf(tw, "%d\t\t%s\t%s\t%s\t# %s\n", st.RunNum, p[1], p[0]+"."+p[3], p[2], st.Comment)
			} else {
				fmt.Fprintf(tw, "%d\t\t%s\t\t\t# %s\n", st.RunNum, st.Tag, st.Comment)
			}
			continue
		}
		seen[st.Chunk] = true
		line(fmt.Sprint(st.RunNum), g.Chunks[st.Chunk], st.Comment)
	}
	for i, c := range g.Chunks {
		if !seen[i] {
			line("-", c, "not run")
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// tabwriter pads an empty last column: drop the trailing blanks.
	text := b.String()
	b.Reset()
	for _, l := range strings.SplitAfter(text, "\n") {
		if body, ok := strings.CutSuffix(l, "\n"); ok {
			b.WriteString(strings.TrimRight(body, " "))
			b.WriteByte('\n')
		} else {
			b.WriteString(l)
		}
	}
	for _, n := range g.cycleNotes() {
		b.WriteString(n + "\n")
	}
	for _, n := range g.Notes {
		b.WriteString("note: " + strings.TrimSpace(n) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// requisites describes a chunk's edges, one entry per requisite as
// written: "kind -> mod: id" when it names one state with that ref, else
// "kind REF -> mod: id, ..." ("?" when it names nothing; "kind <- ..."
// for a listen_in naming a missing listener).
func (g *Graph) requisites(edges []Edge) []string {
	type key struct{ kind, ref string }
	var keys []key
	targets := map[key][]string{}
	for _, e := range edges {
		k := key{e.Kind, e.Ref}
		if _, ok := targets[k]; !ok {
			keys = append(keys, k)
			targets[k] = nil
		}
		if e.From >= 0 && e.To >= 0 {
			targets[k] = append(targets[k], g.Chunks[e.To].ref())
		}
	}
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		ts := targets[k]
		switch {
		case k.kind == "listen_in":
			out = append(out, "listen_in <- ? ("+k.ref+")")
		case len(ts) == 0:
			out = append(out, k.kind+" -> ? ("+k.ref+")")
		case len(ts) == 1 && ts[0] == k.ref:
			out = append(out, k.kind+" -> "+k.ref)
		default:
			out = append(out, k.kind+" "+k.ref+" -> "+strings.Join(ts, " | "))
		}
	}
	return out
}

// Value returns the graph as ordered data: chunks (with their predicted
// run_num, null when not run), edges (to null when the requisite names
// nothing), the run order, cycles and notes.
func (g *Graph) Value() *value.Map {
	runNum := map[int]int64{}
	for _, st := range g.Order {
		if st.Chunk >= 0 {
			runNum[st.Chunk] = st.RunNum
		}
	}
	chunks := value.NewList()
	for i, c := range g.Chunks {
		var rn any
		if n, ok := runNum[i]; ok {
			rn = n
		}
		chunks.Append(value.MapOf("index", int64(i), "id", c.ID, "state", c.State, "fun", c.Fun,
			"name", c.Name, "sls", c.SLS, "env", c.Env, "tag", c.Tag, "run_num", rn))
	}
	idx := func(i int) any {
		if i < 0 {
			return nil
		}
		return int64(i)
	}
	edges := value.NewList()
	for _, e := range g.Edges {
		edges.Append(value.MapOf("from", idx(e.From), "to", idx(e.To), "kind", e.Kind, "ref", e.Ref))
	}
	order := value.NewList()
	for _, st := range g.Order {
		order.Append(value.MapOf("run_num", st.RunNum, "chunk", idx(st.Chunk), "tag", st.Tag, "comment", st.Comment))
	}
	cycles := value.NewList()
	for _, c := range g.Cycles {
		l := value.NewList()
		for _, i := range c {
			l.Append(int64(i))
		}
		cycles.Append(l)
	}
	notes := value.NewList()
	for _, n := range g.Notes {
		notes.Append(n)
	}
	return value.MapOf("chunks", chunks, "edges", edges, "order", order, "cycles", cycles, "notes", notes)
}

// WriteJSON writes Value as indented JSON.
func (g *Graph) WriteJSON(w io.Writer) error {
	_, err := io.WriteString(w, value.ToJSON(g.Value(), value.JSONOptions{Indent: 2})+"\n")
	return err
}
