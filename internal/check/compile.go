package check

import (
	"fmt"
	"regexp"
	"strings"

	"brine/internal/compile"
	"brine/internal/diag"
	"brine/internal/match"
	"brine/internal/value"
)

func mget(m *value.Map, k any) any {
	v, _ := m.Get(k)
	return v
}

// compileUnit compiles one set of matches as state.show_lowstate would and
// turns the compiler's messages and the requisites of the low chunks into
// diagnostics.
func (c *checker) compileUnit(matches *value.Map) {
	high, errs := c.run.RenderHighstate(matches)
	if high == nil {
		high = value.NewMap(0)
	}
	high, e := compile.ReconcileExtend(high, false)
	errs = append(errs, e...)
	verify := compile.VerifyHigh(high)
	errs = append(errs, verify...)
	high, e = compile.RequisiteIn(high, optStrings(c.run.Opts, "disabled_requisites"))
	errs = append(errs, e...)
	high = compile.ApplyExclude(high)
	c.unitIDs = c.unitIDs[:0]
	for _, k := range high.Keys() {
		if ks, ok := k.(string); ok && !reservedKeys[ks] {
			c.unitIDs = append(c.unitIDs, ks)
		}
	}
	for _, e := range errs {
		c.saltError(e)
	}
	// Requisites are checked on the low chunks unless the high data is
	// malformed (Salt's direct recursion check is no obstacle).
	recursive := false
	for _, v := range verify {
		if !reRecursive.MatchString(v) {
			return
		}
		recursive = true
	}
	chunks := compile.CompileHighData(high)
	c.checkRequisites(chunks, !recursive)
	c.checkSources(chunks)
}

// Messages already reported (from the render and include checks) with
// better positions.
var skipPrefixes = []string{
	"Rendering SLS ",
	"Unknown include:",
	"Ambiguous include:",
	"Specified SLS ",
	"No matching sls found",
}

var (
	reIDSLS     = regexp.MustCompile(`(?:ID|[Ss]tate) '([^']*)' in SLS '([^']*)'`)
	reIDSLSq    = regexp.MustCompile(`state "([^"]*)" in SLS "([^"]*)"`)
	reExtend    = regexp.MustCompile(`^Cannot extend ID '([^']*)' in '([^':]*):([^']*)'`)
	reConflict  = regexp.MustCompile(`The conflicting ID is '([^']*)' and is found in SLS '([^':]*):([^']*)' and SLS '([^':]*):([^']*)'`)
	reRecursive = regexp.MustCompile(`^A recursive requisite was found, SLS "([^"]*)" ID "([^"]*)" ID "([^"]*)"`)
	reSLSOnly   = regexp.MustCompile(`in SLS '?([^' ,]+)'?`)
	reInState   = regexp.MustCompile(`in state '([^']*)', in SLS '([^']*)'`)
	reReqFor    = regexp.MustCompile(`^Invalid requisite in [^:]*: .* for (.*), in SLS '([^']*)'`)
	reWithin    = regexp.MustCompile(`within SLS '([^':]*):([^']*)'`)
	reIncOf     = regexp.MustCompile(`include of '([^']*)'`)
	reNoEnv     = regexp.MustCompile(`^Nonexistent saltenv '([^']*)'`)
)

// saltError maps one of the compiler's messages to a diagnostic, finding
// the ID and SLS it names.
func (c *checker) saltError(msg string) {
	for _, p := range skipPrefixes {
		if strings.HasPrefix(msg, p) {
			return
		}
	}
	summary, detail := strings.TrimSpace(firstLine(msg)), restLines(msg)
	if m := reExtend.FindStringSubmatch(msg); m != nil {
		d := &diag.Diagnostic{
			Summary: fmt.Sprintf("Extend of missing ID %q", m[1]),
			Detail:  fmt.Sprintf("SLS %q extends ID %q, which no SLS of this run declares.%s", m[3], m[1], didYouMean(nearest(c.unitIDs, m[1]))),
		}
		if f := c.findSLS(m[2], m[3]); f != nil {
			if _, n := findPath(f.src, keys("extend", m[1])); n < 2 {
				// No extend block: a *_in requisite named the ID.
				if kl, ok := findRequisiteValue(f.src, m[1]); ok {
					d.Summary = fmt.Sprintf("Requisite names missing ID %q", m[1])
					d.Detail = fmt.Sprintf("A *_in requisite in SLS %q names ID %q, which no SLS of this run declares.", m[3], m[1])
					d.Subject = &diag.Range{File: f.display, Start: diag.Pos{Line: kl.line, Col: kl.col}, End: diag.Pos{Line: kl.line, Col: kl.col + kl.width}}
					c.add(d)
					return
				}
			}
		}
		c.addAt(d, m[2], m[3], keys("extend", m[1]))
		return
	}
	if m := reConflict.FindStringSubmatch(msg); m != nil {
		d := &diag.Diagnostic{
			Summary: fmt.Sprintf("Conflicting ID %q", m[1]),
			Detail:  fmt.Sprintf("ID %q is declared in SLS %q and in SLS %q; IDs must be unique across the SLS files applied together.", m[1], m[3], m[5]),
		}
		if f := c.findSLS(m[2], m[3]); f != nil {
			if rg, _ := c.locate(f, keys(m[1])); rg != nil && rg.Start.Line > 0 {
				d.Related = append(d.Related, diag.Related{Note: fmt.Sprintf("first declared in SLS %q", m[3]), Range: *rg})
			}
		}
		c.addAt(d, m[4], m[5], keys(m[1]))
		return
	}
	if m := reRecursive.FindStringSubmatch(msg); m != nil {
		d := &diag.Diagnostic{
			Summary: "Requisite cycle",
			Detail:  fmt.Sprintf("ID %q and ID %q require each other, so neither can run (Salt: %s).", m[2], m[3], strings.TrimSpace(msg)),
		}
		if f := c.findSLS("", m[1]); f != nil {
			for _, e := range [][2]string{{m[2], m[3]}, {m[3], m[2]}} {
				if kl, ok := findRequisiteIn(f.src, e[0], e[1]); ok {
					d.Related = append(d.Related, diag.Related{
						Note:  fmt.Sprintf("%q requires %q", e[0], e[1]),
						Range: diag.Range{File: f.display, Start: diag.Pos{Line: kl.line, Col: kl.col}, End: diag.Pos{Line: kl.line, Col: kl.col + kl.width}},
					})
				}
			}
		}
		c.addAt(d, "", m[1], keys(m[2]))
		return
	}
	d := &diag.Diagnostic{Summary: summary, Detail: detail}
	switch {
	case reInState.MatchString(msg):
		m := reInState.FindStringSubmatch(msg)
		c.addAt(d, "", m[2], keys(m[1]))
	case reReqFor.MatchString(msg):
		m := reReqFor.FindStringSubmatch(msg)
		c.addAt(d, "", m[2], keys(m[1]))
	case reWithin.MatchString(msg):
		m := reWithin.FindStringSubmatch(msg)
		path := keys("include")
		if n := reIncOf.FindStringSubmatch(msg); n != nil {
			if e := reNoEnv.FindStringSubmatch(msg); e != nil {
				path = append(path, step{key: e[1], val: n[1]})
			} else {
				path = append(path, step{key: n[1], item: true})
			}
		}
		c.addAt(d, m[1], m[2], path)
	case reIDSLS.MatchString(msg):
		m := reIDSLS.FindStringSubmatch(msg)
		c.addAt(d, "", m[2], keys(m[1]))
	case reIDSLSq.MatchString(msg):
		m := reIDSLSq.FindStringSubmatch(msg)
		c.addAt(d, "", m[2], keys(m[1]))
	case reSLSOnly.MatchString(msg):
		m := reSLSOnly.FindStringSubmatch(msg)
		c.addAt(d, "", m[1], nil)
	default:
		c.add(d)
	}
}

// addAt adds d with its subject at path in the file of sls (env "" means
// any environment).
func (c *checker) addAt(d *diag.Diagnostic, env, sls string, path []step) {
	if f := c.findSLS(env, sls); f != nil {
		if path == nil {
			d.Subject = &diag.Range{File: f.display}
		} else {
			var note string
			d.Subject, note = c.locate(f, path)
			d.Detail = joinNote(d.Detail, note)
		}
	}
	c.add(d)
}

// findSLS returns the rendered file of sls in env (any env when "").
func (c *checker) findSLS(env, sls string) *file {
	c.slsFiles()
	if env != "" {
		return c.fileOf(env, sls)
	}
	for _, e := range c.envs() {
		if f, ok := c.bySLS[slsKey{e, sls}]; ok {
			return f
		}
	}
	for _, e := range c.envs() {
		if f := c.fileOf(e, sls); f != nil {
			return f
		}
	}
	return nil
}

// Requisites that order states (a cycle among them never runs); listen is
// deferred to the end and cannot loop.
var orderingReqs = map[string]bool{
	"require": true, "require_any": true, "watch": true, "watch_any": true,
	"onchanges": true, "onchanges_any": true, "onfail": true, "onfail_any": true,
	"onfail_all": true, "prereq": true,
}

var allReqs = []string{
	"require", "require_any", "watch", "watch_any", "onchanges", "onchanges_any",
	"onfail", "onfail_any", "onfail_all", "prereq", "listen",
}

type chunkRef struct {
	low       *value.Map
	id, state string
	name, sls string
	env       string
}

func str(m *value.Map, k string) string {
	v, ok := m.Get(k)
	if !ok || v == nil {
		return ""
	}
	return value.Str(v)
}

// checkRequisites reports requisites that match no state and cycles of
// ordering requisites.
func (c *checker) checkRequisites(chunks []*value.Map, withCycles bool) {
	refs := make([]chunkRef, len(chunks))
	byID := map[string][]int{}
	for i, ch := range chunks {
		refs[i] = chunkRef{low: ch, id: str(ch, "__id__"), state: str(ch, "state"), name: str(ch, "name"), sls: str(ch, "__sls__"), env: str(ch, "__env__")}
		byID[refs[i].id] = append(byID[refs[i].id], i)
	}
	edges := make([][]int, len(chunks))
	via := map[[2]int]reqItem{}
	for i, r := range refs {
		for _, req := range allReqs {
			v, ok := r.low.Get(req)
			if !ok {
				continue
			}
			l, ok := v.(*value.List)
			if !ok {
				continue
			}
			for _, it := range l.Items {
				mod, target := "", ""
				switch x := it.(type) {
				case string:
					target = x
				case *value.Map:
					if x.Len() != 1 {
						continue
					}
					mod, target = value.Str(x.Keys()[0]), value.Str(x.Values()[0])
				default:
					continue
				}
				found := matchReq(refs, byID, mod, target)
				if len(found) == 0 {
					c.unresolved(refs, r, req, mod, target)
					continue
				}
				if orderingReqs[req] {
					edges[i] = append(edges[i], found...)
					for _, w := range found {
						if _, had := via[[2]int{i, w}]; !had {
							via[[2]int{i, w}] = reqItem{req: req, mod: mod, target: target}
						}
					}
				}
			}
		}
	}
	if withCycles {
		c.cycles(refs, edges, via)
	}
}

// reqItem is one requisite of a chunk: its keyword and what it names.
type reqItem struct{ req, mod, target string }

// matchReq returns the chunks a requisite {mod: target} names.
func matchReq(refs []chunkRef, byID map[string][]int, mod, target string) []int {
	var out []int
	glob := match.IsGlob(target)
	if !glob && mod != "sls" {
		for _, i := range byID[target] {
			if mod == "" || mod == "id" || refs[i].state == mod {
				out = append(out, i)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	for i, r := range refs {
		switch {
		case mod == "sls":
			if r.sls == target || glob && match.Fnmatch(r.sls, target) {
				out = append(out, i)
			}
		case mod == "" || mod == "id" || r.state == mod:
			if r.id == target || r.name == target || glob && (match.Fnmatch(r.id, target) || match.Fnmatch(r.name, target)) {
				out = append(out, i)
			}
		}
	}
	return out
}

func (c *checker) unresolved(refs []chunkRef, r chunkRef, req, mod, target string) {
	ref := target
	if mod != "" {
		ref = mod + ": " + target
	}
	d := &diag.Diagnostic{
		Summary: fmt.Sprintf("Reference to undeclared state in %s", req),
		Detail:  fmt.Sprintf("ID %q (%s.%s) has %s %q, but no state of this run matches it.%s", r.id, r.state, str(r.low, "fun"), req, ref, didYouMean(suggestRef(refs, mod, target))),
	}
	rg, note := c.requisiteRange(r, reqItem{req: req, mod: mod, target: target})
	if rg != nil {
		d.Subject, d.Detail = rg, joinNote(d.Detail, note)
	}
	c.add(d)
}

// suggestRef proposes what a requisite {mod: target} naming nothing may
// have meant: the state with that ID or name under another module, else
// the state of that module whose ID is closest.
func suggestRef(refs []chunkRef, mod, target string) string {
	if mod == "" || mod == "id" || mod == "sls" {
		return ""
	}
	for _, r := range refs {
		if r.id == target || r.name == target {
			return r.state + ": " + target
		}
	}
	best, bestD := "", len(target)/3+2
	for _, r := range refs {
		if r.state != mod {
			continue
		}
		if d := diag.EditDistance(r.id, target); d < bestD {
			best, bestD = mod+": "+r.id, d
		}
	}
	return best
}

// requisiteRange locates the requisite it of chunk r in r's SLS file (nil
// when the file is not known), with a note when the place is approximate.
func (c *checker) requisiteRange(r chunkRef, it reqItem) (*diag.Range, string) {
	f := c.findSLS(r.env, r.sls)
	if f == nil {
		return nil, ""
	}
	// The requisite sits under "state:" or "state.fun:".
	last := step{key: it.mod, val: it.target}
	if it.mod == "" {
		last = step{key: it.target, item: true}
	}
	for _, sk := range []string{r.state, r.state + "." + str(r.low, "fun")} {
		if _, n := findPath(f.src, []step{{key: r.id}, {key: sk}, {key: it.req}, last}); n == 4 {
			return c.locate(f, []step{{key: r.id}, {key: sk}, {key: it.req}, last})
		}
	}
	rg, note := c.locate(f, []step{{key: r.id}, {key: it.req}, last})
	if rg.Start.Line == 0 {
		if kl, ok := uniqueKey(f.src, []step{last}); ok {
			rg = &diag.Range{File: f.display, Start: diag.Pos{Line: kl.line, Col: kl.col}, End: diag.Pos{Line: kl.line, Col: kl.col + kl.width}}
			note = ""
		} else {
			rg, note = c.locate(f, keys(r.id))
		}
	}
	return rg, note
}

// cycles reports each strongly connected group of chunks (Tarjan's
// algorithm) once, at its first chunk in low order.
func (c *checker) cycles(refs []chunkRef, edges [][]int, via map[[2]int]reqItem) {
	n := len(refs)
	index := make([]int, n)
	low := make([]int, n)
	on := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	next := 0
	var groups [][]int
	var strong func(v int)
	strong = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		on[v] = true
		for _, w := range edges[v] {
			if index[w] < 0 {
				strong(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var g []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				g = append(g, w)
				if w == v {
					break
				}
			}
			self := false
			for _, w := range edges[v] {
				if w == v {
					self = true
				}
			}
			if len(g) > 1 || self {
				groups = append(groups, g)
			}
		}
	}
	for v := 0; v < n; v++ {
		if index[v] < 0 {
			strong(v)
		}
	}
	for _, g := range groups {
		first := g[0]
		for _, v := range g {
			first = min(first, v)
		}
		in := map[int]bool{}
		for _, v := range g {
			in[v] = true
		}
		// Walk the cycle from the first chunk for the detail, with the
		// place of each requisite closing it.
		path := []string{tagOf(refs[first])}
		var related []diag.Related
		seen := map[int]bool{first: true}
		cur := first
		for {
			nxt := -1
			for _, w := range edges[cur] {
				if in[w] && (w == first || !seen[w]) {
					nxt = w
					if w != first {
						break
					}
				}
			}
			if nxt < 0 {
				break
			}
			path = append(path, tagOf(refs[nxt]))
			if it, ok := via[[2]int{cur, nxt}]; ok {
				if rg, _ := c.requisiteRange(refs[cur], it); rg != nil && rg.Start.Line > 0 {
					related = append(related, diag.Related{Note: fmt.Sprintf("%q %s %q", refs[cur].id, requiresVerb(it.req), refs[nxt].id), Range: *rg})
				}
			}
			if nxt == first {
				break
			}
			seen[nxt] = true
			cur = nxt
		}
		r := refs[first]
		d := &diag.Diagnostic{
			Summary: "Requisite cycle",
			Detail:  "These states require each other, so none of them can run (Salt reports \"Recursive requisite found\"):\n  " + strings.Join(path, "\n  -> "),
			Related: related,
		}
		c.addAt(d, r.env, r.sls, keys(r.id))
	}
}

// requiresVerb says what a requisite keyword does, for cycle notes.
func requiresVerb(req string) string {
	switch req {
	case "require", "require_any":
		return "requires"
	case "watch", "watch_any":
		return "watches"
	case "onchanges", "onchanges_any":
		return "runs on changes of"
	case "onfail", "onfail_any", "onfail_all":
		return "runs on failure of"
	case "prereq":
		return "is a prereq of"
	case "listen":
		return "listens to"
	case "use":
		return "uses"
	}
	return req + " ->"
}

func tagOf(r chunkRef) string {
	return fmt.Sprintf("%s.%s %q (SLS %s)", r.state, str(r.low, "fun"), r.id, r.sls)
}

// findRequisiteIn finds, in the block of top-level ID id, the first
// "- mod: target" or "- target" list item.
func findRequisiteIn(text, id, target string) (keyLine, bool) {
	start, n := findPath(text, keys(id))
	if n != 1 || start.indent != 0 {
		return keyLine{}, false
	}
	lines := strings.Split(text, "\n")
	end := start.line
	for end < len(lines) {
		l := strings.TrimRight(lines[end], "\r")
		if l != "" && l[0] != ' ' && l[0] != '#' && l[0] != '\t' {
			break // the next top-level key
		}
		end++
	}
	kl, ok := scanRequisiteValue(lines[start.line:end], target)
	kl.line += start.line
	return kl, ok
}

// findRequisiteValue finds the first "- mod: id" or "- id" list item whose
// value is id.
func findRequisiteValue(text, id string) (keyLine, bool) {
	return scanRequisiteValue(strings.Split(text, "\n"), id)
}

// scanRequisiteValue is findRequisiteValue over lines.
func scanRequisiteValue(lines []string, id string) (keyLine, bool) {
	for i, l := range lines {
		body := strings.TrimSpace(strings.TrimRight(l, "\r"))
		item, ok := strings.CutPrefix(body, "- ")
		if !ok {
			continue
		}
		item = strings.TrimSpace(item)
		v := item
		if _, after, ok := strings.Cut(item, ": "); ok {
			v = strings.TrimSpace(after)
		}
		if v == id || v == "'"+id+"'" || v == `"`+id+`"` {
			col := strings.Index(l, item)
			return keyLine{line: i + 1, col: runeCol(l, col), width: len([]rune(item))}, true
		}
	}
	return keyLine{}, false
}

// nearest is the name of names closest to s, when close enough to be
// what was meant.
func nearest(names []string, s string) string {
	best, bestD := "", len(s)/3+2
	for _, n := range names {
		if n == s {
			continue
		}
		if d := diag.EditDistance(n, s); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}
