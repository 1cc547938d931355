package web

import (
	"fmt"
	"html"
	"strings"

	"brine/internal/graph"
)

// Layout of the state graph's SVG.
const (
	nodeW, nodeH = 240, 46
	gapX, gapY   = 28, 56
	margin       = 16
)

// graphSVG draws a requisite graph: one row per level (a state sits
// below every state it requires, so the run flows downwards), boxes
// labelled "state: id" with the function and the predicted __run_num__,
// arrows from each required state to the state requiring it, cycles in
// the warning colour. results, when given, colours each box by the
// result of a run (by state tag): true, false or nil (test mode).
func graphSVG(g *graph.Graph, results map[string]any) string {
	n := len(g.Chunks)
	if n == 0 {
		return ""
	}
	runNum := map[int]int64{}
	for _, st := range g.Order {
		if st.Chunk >= 0 {
			if _, ok := runNum[st.Chunk]; !ok {
				runNum[st.Chunk] = st.RunNum
			}
		}
	}
	// deps[i]: the chunks i requires (they run first).
	deps := make([][]int, n)
	for _, e := range g.Edges {
		if e.From >= 0 && e.To >= 0 && e.From != e.To {
			deps[e.From] = append(deps[e.From], e.To)
		}
	}
	cycleOf := map[int]int{} // chunk -> 1 + its cycle's index
	for k, c := range g.Cycles {
		for _, i := range c {
			cycleOf[i] = k + 1
		}
	}
	// Levels by longest requisite chain; the edges inside a cycle do not
	// count, so its members share a row.
	level := make([]int, n)
	for range n {
		changed := false
		for i := range n {
			for _, d := range deps[i] {
				if cycleOf[i] != 0 && cycleOf[i] == cycleOf[d] {
					continue
				}
				if level[d]+1 > level[i] && level[d]+1 <= n {
					level[i] = level[d] + 1
					changed = true
				}
			}
		}
		if !changed {
			break
		}
	}
	rows := map[int][]int{}
	maxLevel, maxRow := 0, 0
	for i := range n {
		rows[level[i]] = append(rows[level[i]], i)
		maxLevel = max(maxLevel, level[i])
		maxRow = max(maxRow, len(rows[level[i]]))
	}
	x, y := make([]int, n), make([]int, n)
	for l := 0; l <= maxLevel; l++ {
		for k, i := range rows[l] {
			x[i] = margin + k*(nodeW+gapX)
			y[i] = margin + l*(nodeH+gapY)
		}
	}
	width := 2*margin + maxRow*(nodeW+gapX) - gapX
	height := 2*margin + (maxLevel+1)*(nodeH+gapY) - gapY
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="graph" role="img" aria-labelledby="graph-title" width="%d" height="%d" viewBox="0 0 %d %d">`, width, height, width, height)
	b.WriteString(`<title id="graph-title">Requisite graph</title><defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrowhead"/></marker></defs>`)
	for _, e := range g.Edges {
		if e.From < 0 || e.To < 0 || e.From == e.To {
			continue
		}
		x1, y1 := x[e.To]+nodeW/2, y[e.To]+nodeH
		x2, y2 := x[e.From]+nodeW/2, y[e.From]
		if y2 <= y1 { // a cycle's back edge: go round the side
			x1, y1, x2, y2 = x[e.To]+nodeW, y[e.To]+nodeH/2, x[e.From]+nodeW, y[e.From]+nodeH/2
			fmt.Fprintf(&b, `<path class="edge %s" d="M%d,%d C%d,%d %d,%d %d,%d" marker-end="url(#arrow)"><title>%s</title></path>`,
				esc(e.Kind), x1, y1, x1+60, y1, x2+60, y2, x2, y2, esc(e.Kind+": "+e.Ref))
			continue
		}
		mid := (y1 + y2) / 2
		fmt.Fprintf(&b, `<path class="edge %s" d="M%d,%d C%d,%d %d,%d %d,%d" marker-end="url(#arrow)"><title>%s</title></path>`,
			esc(e.Kind), x1, y1, x1, mid, x2, mid, x2, y2, esc(e.Kind+": "+e.Ref))
	}
	for i, c := range g.Chunks {
		class := "node"
		if cycleOf[i] != 0 {
			class += " cycle"
		}
		if results != nil {
			switch r, ok := results[c.Tag]; {
			case !ok:
			case r == true:
				class += " ok"
			case r == false:
				class += " failed"
			default:
				class += " pending"
			}
		}
		label := c.State + ": " + c.ID
		sub := c.State + "." + c.Fun
		if rn, ok := runNum[i]; ok {
			sub += fmt.Sprintf(" · run %d", rn)
		}
		run := ""
		if rn, ok := runNum[i]; ok {
			run = fmt.Sprint(rn)
		}
		// data-run and data-sid let the page colour the box live from the
		// job's progress events (state_events)
		fmt.Fprintf(&b, `<g class="%s" tabindex="0" data-run="%s" data-sid="%s"><title>%s</title><rect x="%d" y="%d" width="%d" height="%d" rx="6"/>`,
			class, run, esc(c.ID), esc(label+" ("+c.SLS+")"), x[i], y[i], nodeW, nodeH)
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="label">%s</text><text x="%d" y="%d" class="sub">%s</text></g>`,
			x[i]+10, y[i]+19, esc(clip(label, 32)), x[i]+10, y[i]+37, esc(clip(sub, 36)))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

func esc(s string) string { return html.EscapeString(s) }

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
