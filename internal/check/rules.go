package check

import (
	"fmt"
	"sort"
	"strings"

	"brine/internal/diag"
	"brine/internal/execmod"
	"brine/internal/match"
	"brine/internal/saltspec"
	"brine/internal/statemod"
	"brine/internal/top"
	"brine/internal/value"
)

// requisiteNames are the requisite keywords a misspelling is compared to.
var requisiteNames = append(append([]string{}, statemod.RequisiteKeywords...), statemod.RequisiteInKeywords...)

// Keys of an SLS that are not IDs.
var reservedKeys = map[string]bool{"include": true, "extend": true, "exclude": true}

// checkTop reports top file entries naming SLS that do not exist and the
// structural errors Salt's verify_tops finds.
func (c *checker) checkTop() {
	t := c.run.GetTop()
	for _, e := range top.Verify(t) {
		c.add(&diag.Diagnostic{Summary: "Invalid top file", Detail: e, Subject: c.topRange(c.run.Saltenv, nil)})
	}
	for _, env := range t.Keys() {
		envS := value.Str(env)
		targets, ok := mget(t, env).(*value.Map)
		if !ok {
			continue
		}
		for _, tgt := range targets.Keys() {
			l, ok := mget(targets, tgt).(*value.List)
			if !ok {
				continue
			}
			for _, it := range l.Items {
				name, ok := it.(string)
				if !ok {
					continue
				}
				path := []step{{key: envS}, {key: value.Str(tgt)}, {key: name, item: true}}
				if match.IsGlob(name) {
					if len(match.FnmatchFilter(c.run.Avail.States(envS), name)) == 0 {
						c.add(&diag.Diagnostic{
							Summary: fmt.Sprintf("No SLS matches %q", name),
							Detail:  fmt.Sprintf("The top file entry for target %q in saltenv %q matches no SLS file.", value.Str(tgt), envS),
							Subject: c.topRange(envS, path),
						})
					}
					continue
				}
				if s, ok := c.resolve(envS, name); ok {
					k := slsKey{envS, name}
					if _, had := c.parents[k]; !had {
						c.parents[k] = *c.topRange(envS, path)
					}
					_ = s
					continue
				}
				c.add(&diag.Diagnostic{
					Summary: fmt.Sprintf("Top file names missing SLS %q", name),
					Detail:  fmt.Sprintf("Target %q in saltenv %q lists SLS %q, which is not in the file roots of that saltenv.%s", value.Str(tgt), envS, name, c.slsSuggestion(envS, name)),
					Subject: c.topRange(envS, path),
				})
			}
		}
	}
}

// topRange locates path in the top file that mentions it.
func (c *checker) topRange(env string, path []step) *diag.Range {
	var first *file
	for _, f := range c.files {
		if f.isSLS {
			continue
		}
		if first == nil {
			first = f
		}
		if path == nil {
			break
		}
		if kl, n := findPath(f.src, path); n == len(path) {
			return &diag.Range{File: f.display, Start: diag.Pos{Line: kl.line, Col: kl.col}, End: diag.Pos{Line: kl.line, Col: kl.col + kl.width}}
		}
	}
	if first == nil {
		return nil
	}
	if path != nil {
		r, _ := c.locate(first, path)
		return r
	}
	return &diag.Range{File: first.display}
}

// highstateMatches returns the top's matches for this minion, nil without
// a top file.
func (c *checker) highstateMatches() *value.Map {
	hasTop := false
	for _, f := range c.files {
		if !f.isSLS {
			hasTop = true
		}
	}
	if !hasTop {
		return nil
	}
	m, err := c.run.TopMatches(c.run.GetTop())
	if err != nil || m == nil || m.Len() == 0 {
		return nil
	}
	return m
}

// checkIncludes reports includes naming missing SLS and records where each
// SLS was included from.
func (c *checker) checkIncludes(f *file) {
	m, ok := f.data.(*value.Map)
	if !ok || f.err != nil {
		return
	}
	inc, ok := m.Get("include")
	if !ok {
		return
	}
	l, ok := inc.(*value.List)
	if !ok {
		return
	}
	isInit := strings.HasSuffix(f.local, "init.sls")
	for _, it := range l.Items {
		env, name := f.key.env, ""
		var last step
		switch x := it.(type) {
		case string:
			name = x
		case *value.Map:
			if x.Len() != 1 {
				continue
			}
			env = value.Str(x.Keys()[0])
			name = value.Str(x.Values()[0])
			last = step{key: env, val: name}
		default:
			continue
		}
		raw := name
		name, ok := relInclude(f.key.sls, name, isInit)
		if !ok {
			continue // compile reports it
		}
		if last.key == "" {
			last = step{key: raw, item: true}
		}
		r, _ := c.locate(f, []step{{key: "include"}, last})
		if match.IsGlob(name) || !c.run.Avail.Has(env) {
			continue // the compiler reports a missing saltenv
		}
		if _, ok := c.resolve(env, name); ok {
			k := slsKey{env, name}
			c.included[k] = true
			if _, had := c.parents[k]; !had {
				c.parents[k] = *r
			}
			if c.fileOf(env, name) == nil {
				continue
			}
			continue
		}
		found := false
		if env == f.key.env {
			for _, e := range c.run.Avail.Envs() {
				if _, ok := c.resolve(e, name); ok {
					found = true
				}
			}
		}
		if found {
			continue
		}
		c.add(&diag.Diagnostic{
			Summary: fmt.Sprintf("Missing include %q", raw),
			Detail:  fmt.Sprintf("SLS %q includes %q, which is not in the file roots of saltenv %q.%s", f.key.sls, name, env, c.slsSuggestion(env, name)),
			Subject: r,
		})
	}
}

// relInclude resolves a relative include (".foo", "..foo") against sls.
func relInclude(sls, name string, isInit bool) (string, bool) {
	if !strings.HasPrefix(name, ".") {
		return name, true
	}
	rest := strings.TrimLeft(name, ".")
	dots := len(name) - len(rest)
	parts := strings.Split(sls, ".")
	if !isInit {
		parts = parts[:len(parts)-1]
	}
	up := dots - 1
	if up > len(parts) {
		return "", false
	}
	parts = parts[:len(parts)-up]
	if rest != "" {
		parts = append(parts, rest)
	}
	return strings.Join(parts, "."), true
}

// slsSuggestion returns a did-you-mean sentence for a missing SLS.
func (c *checker) slsSuggestion(env, name string) string {
	if s := closest(name, c.run.Avail.States(env)); s != "" {
		return fmt.Sprintf(" Did you mean %q?", s)
	}
	return ""
}

// checkStates reports unknown state modules and functions and arguments
// the functions do not take.
func (c *checker) checkStates(f *file) {
	m, ok := f.data.(*value.Map)
	if !ok || f.err != nil {
		return
	}
	for i, k := range m.Keys() {
		id, ok := k.(string)
		if !ok || reservedKeys[id] || strings.HasPrefix(id, "__") {
			continue
		}
		if short, ok := m.Values()[i].(string); ok && strings.Contains(short, ".") {
			// The "ID: mod.fun" shorthand.
			c.checkDecl(f, id, short, shortForm)
			continue
		}
		body, ok := m.Values()[i].(*value.Map)
		if !ok {
			continue
		}
		for j, sk := range body.Keys() {
			skey, ok := sk.(string)
			if !ok || strings.HasPrefix(skey, "__") {
				continue
			}
			c.checkDecl(f, id, skey, body.Values()[j])
		}
	}
}

// shortForm marks a declaration written as "ID: mod.fun".
var shortForm = new(int)

// checkDecl checks one state declaration "mod.fun: [args]" or
// "mod: [fun, args]" of ID id.
func (c *checker) checkDecl(f *file, id, skey string, v any) {
	mod, fun, _ := strings.Cut(skey, ".")
	l, _ := v.(*value.List)
	declPath := keys(id, skey)
	if v == shortForm {
		declPath = []step{{key: id, val: skey}}
		if _, n := findPath(f.src, declPath); n == 0 {
			declPath = []step{{key: id}, {key: skey, bare: true}}
		}
	}
	funIsItem := false
	var args []string
	if l != nil {
		for _, it := range l.Items {
			switch x := it.(type) {
			case string:
				if fun == "" {
					fun, funIsItem = x, true
				}
			case *value.Map:
				if x.Len() == 1 {
					if k, ok := x.Keys()[0].(string); ok {
						args = append(args, k)
					}
				}
			}
		}
	}
	if fun == "" || strings.ContainsAny(fun, " \t") {
		return // verify_high reports these
	}
	full := mod + "." + fun
	fn, ok := c.states.Lookup(full)
	if !ok {
		saltMod := saltspec.HasModule(saltspec.State, mod)
		path := declPath
		if funIsItem && (c.modules[mod] || saltMod) {
			path = append(path, step{key: fun, item: true})
		}
		r, note := c.locate(f, path)
		d := &diag.Diagnostic{Subject: r}
		switch ni := saltspec.NotImplemented(saltspec.State, full); {
		case ni != "":
			// Salt has it: no did-you-mean towards another function.
			d.Summary = fmt.Sprintf("State function %q is not implemented in brine", full)
			d.Detail = ni + "."
		case !c.modules[mod] && !saltMod:
			d.Summary = fmt.Sprintf("Unknown state module %q", mod)
			d.Detail = fmt.Sprintf("ID %q uses state %q, but no state module %q exists.", id, full, mod) + c.stateSuggestion(full)
		default:
			d.Summary = fmt.Sprintf("Unknown state function %q", full)
			d.Detail = fmt.Sprintf("The state module %q has no function %q.", mod, fun) + c.stateSuggestion(full)
		}
		d.Detail = joinNote(d.Detail, note)
		c.add(d)
		return
	}
	if mod == "module" && (fun == "run" || fun == "wait" || fun == "watch") {
		for _, a := range args {
			if strings.Contains(a, ".") {
				c.checkModuleRunFunc(f, id, skey, a)
			}
		}
	}
	// Salt's argument list decides what the function takes; brine's is
	// the fallback for a function Salt does not have.
	params := map[string]bool{}
	var names []string
	for _, p := range fn.Params {
		params[p.Name] = true
		names = append(names, p.Name)
	}
	takesKwargs := fn.Kwargs
	sf, inSalt := saltspec.Lookup(saltspec.State, full)
	if inSalt {
		takesKwargs = sf.TakesKwargs()
		names = sf.ParamNames()
	}
	low := value.MapOf("name", id)
	for _, a := range args {
		low.Set(a, true)
		if inSalt && sf.Accepts(a) && !params[a] && !fn.Kwargs && a != "name" && a != "names" && !statemod.IsInternalKeyword(a) && !strings.HasPrefix(a, "__") {
			r, note := c.locate(f, append(keys(id, skey), step{key: a}))
			c.add(&diag.Diagnostic{
				Severity: diag.Warning,
				Summary:  fmt.Sprintf("Argument %q is not implemented in brine", a),
				Detail:   joinNote(fmt.Sprintf("%q is an argument of the Salt %s state function %q that brine does not implement yet.", a, saltspec.SaltVersion(), full), note),
				Subject:  r,
			})
			continue
		}
		if inSalt {
			params[a] = params[a] || sf.Accepts(a)
		}
		if takesKwargs && !params[a] && !statemod.IsInternalKeyword(a) && !strings.HasPrefix(a, "__") {
			// **kwargs swallows anything, a misspelt requisite included.
			if s := closest(a, requisiteNames); s != "" {
				r, note := c.locate(f, append(keys(id, skey), step{key: a}))
				c.add(&diag.Diagnostic{
					Severity: diag.Warning,
					Summary:  fmt.Sprintf("Argument %q looks like a misspelt requisite", a),
					Detail:   joinNote(fmt.Sprintf("%q takes any keyword argument, so Salt passes %q to the function instead of ordering by it. Did you mean %q?", full, a, s), note),
					Subject:  r,
				})
			}
			continue
		}
		if takesKwargs || params[a] || a == "names" || a == "name" || statemod.IsInternalKeyword(a) || strings.HasPrefix(a, "__") {
			continue
		}
		r, note := c.locate(f, append(keys(id, skey), step{key: a}))
		d := &diag.Diagnostic{
			Summary: fmt.Sprintf("Unsupported argument %q", a),
			Detail:  fmt.Sprintf("The state function %q takes no argument %q.", full, a),
			Subject: r,
		}
		if s := closest(a, names); s != "" {
			d.Detail += fmt.Sprintf(" Did you mean %q?", s)
		}
		d.Detail = joinNote(d.Detail, note)
		c.add(d)
	}
	if missing := fn.MissingParams(low); len(missing) > 0 {
		r, note := c.locate(f, declPath)
		c.add(&diag.Diagnostic{
			Summary: fmt.Sprintf("Missing required argument %q", missing[0]),
			Detail:  joinNote(fmt.Sprintf("The state function %q requires: %s.", full, strings.Join(missing, ", ")), note),
			Subject: r,
		})
	}
}

// checkModuleRunFunc reports the execution function a module.run names
// (its key a, "mod.fun" or "mod.fun:suffix") when brine does not have it:
// as not implemented when Salt has it, else as unknown.
func (c *checker) checkModuleRunFunc(f *file, id, skey, a string) {
	if c.run == nil || c.run.Ctx == nil {
		return
	}
	name, _, _ := strings.Cut(a, ":")
	if _, ok := c.run.Ctx.Lookup(name); ok {
		return
	}
	reg := c.run.Ctx.Registry
	if reg == nil {
		reg = execmod.Default
	}
	u := reg.Unknown(name)
	r, note := c.locate(f, append(keys(id, skey), step{key: a}))
	d := &diag.Diagnostic{Subject: r}
	if u.NotImplemented != "" && u.Suggestion == "" {
		d.Summary = fmt.Sprintf("Execution function %q is not implemented in brine", name)
		d.Detail = u.NotImplemented + "."
	} else {
		d.Summary = fmt.Sprintf("Unknown execution function %q", name)
		d.Detail = fmt.Sprintf("%q calls %q, which is no execution function of Salt %s.", skey, name, saltspec.SaltVersion())
		if u.Suggestion != "" {
			d.Detail += fmt.Sprintf(" Did you mean %q?", u.Suggestion)
		}
		if u.NotImplemented != "" {
			d.Detail += " " + u.NotImplemented + "."
		}
	}
	d.Detail = joinNote(d.Detail, note)
	c.add(d)
}

// stateSuggestion returns " Did you mean "x"?" for the state function
// closest to full: a registered one, or one of Salt's functions of the
// module that brine does not implement (then saying so).
func (c *checker) stateSuggestion(full string) string {
	best := c.states.Suggest(full)
	bestD := 4
	if best != "" {
		bestD = editDistance(full, best)
	}
	fromSalt := false
	mod, fun, _ := strings.Cut(full, ".")
	if !saltspec.HasModule(saltspec.State, mod) {
		// A misspelt module: the function of the closest Salt module.
		if m := closest(mod, saltspec.Modules(saltspec.State)); m != "" && saltspec.Exists(saltspec.State, m+"."+fun) {
			mod = m
		}
	}
	for _, fn := range saltspec.FunctionNames(saltspec.State, mod) {
		cand := mod + "." + fn
		if c.states.Has(cand) {
			continue
		}
		if d := editDistance(full, cand); d < bestD {
			best, bestD, fromSalt = cand, d, true
		}
	}
	switch {
	case best == "":
		return ""
	case fromSalt:
		return fmt.Sprintf(" Did you mean %q? %s.", best, saltspec.NotImplemented(saltspec.State, best))
	}
	return fmt.Sprintf(" Did you mean %q?", best)
}

func joinNote(detail, note string) string {
	if note == "" {
		return detail
	}
	if detail == "" {
		return note
	}
	return detail + "\n\n" + note
}

// closest returns the candidate nearest to s by edit distance, "" when
// none is close (a third of the length, at least 2 edits).
func closest(s string, cands []string) string {
	best, bestD := "", max(1, len(s)/3)+1
	sorted := append([]string(nil), cands...)
	sort.Strings(sorted)
	for _, cnd := range sorted {
		if d := editDistance(s, cnd); d < bestD && cnd != s {
			best, bestD = cnd, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
