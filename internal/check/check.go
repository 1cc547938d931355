// Package check is `brine check`: a linter for state trees. It renders and
// compiles the tree the way state.show_highstate and state.show_sls do, for
// every environment (or the SLS given), and reports every problem found as
// diagnostics with file, line, column and the include chain: render errors
// (YAML, Jinja), missing includes, unknown state modules and functions,
// arguments a state function does not take, requisites naming nothing,
// requisite cycles, conflicting IDs, extends of missing IDs, top file
// entries naming missing SLS, and unknown renderers (which Salt silently
// renders to nothing).
package check

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"

	"brine/internal/diag"
	"brine/internal/execmod"
	"brine/internal/fileserver"
	"brine/internal/highstate"
	"brine/internal/match"
	"brine/internal/render"
	"brine/internal/statemod"
	"brine/internal/value"
)

// Options configure a check.
type Options struct {
	// Ctx is the minion the tree is compiled for: options (file_roots,
	// renderer, ...), grains and pillar.
	Ctx *execmod.Context
	// SLS restricts the check to these SLS (and what they include) in
	// Saltenv; empty checks the highstate: the top file and every SLS it
	// reaches for this minion (with All, every SLS of every environment).
	SLS []string
	// All checks every SLS under the file roots, not only those the top
	// file reaches.
	All bool
	// Saltenv restricts the check to one environment.
	Saltenv string
	// States is the state function registry (nil: statemod.Default).
	States *statemod.Registry
	// BaseDir makes file names in diagnostics relative to it.
	BaseDir string
}

// Result is the outcome of a check.
type Result struct {
	Diags diag.Diagnostics
	c     *checker
}

// Counts returns what the check covered: SLS files rendered, files read
// (SLS, top files and templates they import) and state IDs declared.
func (r *Result) Counts() (sls, files, states int) {
	for _, f := range r.c.files {
		files++
		if !f.isSLS {
			continue
		}
		sls++
		if m, ok := f.data.(*value.Map); ok && f.err == nil {
			for _, k := range m.Keys() {
				if ks, ok := k.(string); !ok || !reservedKeys[ks] {
					states++
				}
			}
		}
	}
	return sls, files, states
}

// Sources returns the texts the diagnostics quote.
func (r *Result) Sources() diag.Sources { return r.c.source }

// checker holds the state of one check.
type checker struct {
	opts      Options
	run       *highstate.Run
	states    *statemod.Registry
	modules   map[string]bool
	cache     map[string]*file
	files     []*file
	byDisplay map[string]*file
	diags     diag.Diagnostics
	seen      map[string]bool
	// parents records, for an SLS, where it was first included from (or
	// named in a top file), for include chains.
	parents map[slsKey]diag.Range
	// included holds the SLS some other SLS includes.
	included map[slsKey]bool
	// defined maps an SLS to its rendered file.
	bySLS map[slsKey]*file
	// unitIDs are the IDs of the high data being compiled, for
	// suggestions.
	unitIDs []string
	// loader, when set, is where templates import from instead of the
	// file roots (pillar_roots, for pillar files).
	loader render.Loader
}

func (c *checker) add(d *diag.Diagnostic) {
	k := d.Severity.String() + "\x00" + d.Summary + "\x00" + d.Detail
	if d.Subject != nil {
		k += "\x00" + d.Subject.String()
	}
	if c.seen[k] {
		return
	}
	c.seen[k] = true
	c.diags = append(c.diags, d)
}

// Run checks the tree of o.Ctx.
func Run(o Options) *Result {
	c := newChecker(o)
	c.check()
	return c.finish()
}

// RenderFile renders the one file at path (an SLS of saltenv, or a top
// file when sls is empty) as check does and returns the diagnostics of
// what fails, with templates importing through loader (nil: the file
// roots of o.Ctx). Pillar files are rendered so, with the pillar roots'
// loader, to place the errors Salt's pillar only quotes.
func RenderFile(o Options, loader render.Loader, path, source, saltenv, sls string) *Result {
	c := newChecker(o)
	c.loader = loader
	if data, err := os.ReadFile(path); err != nil {
		c.add(&diag.Diagnostic{Summary: "Cannot read " + path, Detail: err.Error()})
	} else {
		c.doRender(data, path, source, saltenv, sls)
	}
	return c.finish()
}

func newChecker(o Options) *checker {
	kw := value.NewMap(1)
	if o.Saltenv != "" {
		kw.Set("saltenv", o.Saltenv)
	}
	c := &checker{
		opts:      o,
		run:       highstate.NewRun(o.Ctx, kw),
		states:    o.States,
		cache:     map[string]*file{},
		byDisplay: map[string]*file{},
		seen:      map[string]bool{},
		parents:   map[slsKey]diag.Range{},
		included:  map[slsKey]bool{},
		bySLS:     map[slsKey]*file{},
	}
	if c.states == nil {
		c.states = statemod.Default
	}
	c.modules = map[string]bool{}
	for _, n := range c.states.Names() {
		if i := indexByte(n, '.'); i > 0 {
			c.modules[n[:i]] = true
		}
	}
	c.run.Render = c.renderFile
	return c
}

// finish sorts the diagnostics and adds their include chains.
func (c *checker) finish() *Result {
	slices.SortStableFunc(c.diags, func(a, b *diag.Diagnostic) int {
		return cmp.Or(cmp.Compare(subjFile(a), subjFile(b)), cmp.Compare(subjLine(a), subjLine(b)))
	})
	for _, d := range c.diags {
		switch {
		case len(d.Chain) > 0:
			// A Jinja import chain: prefix the includes of its first file.
			d.Chain = append(c.chain(d.Chain[0].File), d.Chain...)
		case d.Subject != nil:
			d.Chain = c.chain(d.Subject.File)
		}
	}
	return &Result{Diags: c.diags, c: c}
}

func indexByte(s string, b byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return i
		}
	}
	return -1
}

func subjFile(d *diag.Diagnostic) string {
	if d.Subject == nil {
		return ""
	}
	return d.Subject.File
}

func subjLine(d *diag.Diagnostic) int {
	if d.Subject == nil {
		return 0
	}
	return d.Subject.Start.Line
}

// envs returns the environments to check.
func (c *checker) envs() []string {
	if c.opts.Saltenv != "" {
		return []string{c.opts.Saltenv}
	}
	return c.run.Avail.Envs()
}

func (c *checker) check() {
	c.checkPillar()
	var units []*value.Map
	inHighstate := map[slsKey]bool{}
	if len(c.opts.SLS) > 0 {
		env := c.run.Saltenv
		if env == "" {
			env = "base"
		}
		for _, name := range c.opts.SLS {
			if match.IsGlob(name) {
				continue
			}
			if c.renderSLS(env, name) == nil {
				c.add(&diag.Diagnostic{
					Summary: fmt.Sprintf("SLS %q not found", name),
					Detail:  fmt.Sprintf("No file for SLS %q in saltenv %q.%s", name, env, c.slsSuggestion(env, name)),
				})
			}
		}
		units = append(units, c.run.SLSMatches(c.opts.SLS))
	} else if !c.opts.All {
		// What state.apply runs: the top file and the SLS it reaches.
		c.checkTop()
		hs := c.highstateMatches()
		if hs == nil {
			c.add(&diag.Diagnostic{
				Summary: "No top file entry matches this minion",
				Detail:  fmt.Sprintf("Salt would say: \"No Top file or master_tops data matches found.\" (minion id %q; state_top %q). Name the SLS to check, or use --all.", value.Str(mget(c.opts.Ctx.Opts, "id")), c.run.TopOptions().StateTop),
			})
		} else {
			for _, env := range hs.Keys() {
				if l, ok := mget(hs, env).(*value.List); ok {
					for _, n := range l.Items {
						c.renderSLS(value.Str(env), value.Str(n))
					}
				}
			}
			units = append(units, hs)
		}
	} else {
		// Every SLS file renders on its own first (render errors, includes).
		total := 0
		for _, env := range c.envs() {
			total += len(c.run.Avail.States(env))
		}
		if total == 0 {
			c.add(&diag.Diagnostic{Summary: "No SLS files found", Detail: "The file roots hold no .sls file: check file_roots (or --file-root) and --saltenv."})
		}
		for _, env := range c.envs() {
			for _, name := range c.run.Avail.States(env) {
				if !c.isTop(env, name) {
					c.renderSLS(env, name)
				}
			}
		}
		c.checkTop()
		if hs := c.highstateMatches(); hs != nil {
			units = append(units, hs)
			for _, env := range hs.Keys() {
				if l, ok := mget(hs, env).(*value.List); ok {
					for _, n := range l.Items {
						inHighstate[slsKey{value.Str(env), value.Str(n)}] = true
					}
				}
			}
		}
	}
	// Includes render the files they name: the list grows as it is walked.
	for i := 0; i < len(c.files); i++ {
		if f := c.files[i]; f.isSLS {
			c.checkIncludes(f)
		}
	}
	if len(c.opts.SLS) == 0 && c.opts.All {
		// SLS files no other file includes are compiled alone as well, as
		// state.show_sls would.
		for _, env := range c.envs() {
			for _, name := range c.run.Avail.States(env) {
				k := slsKey{env, name}
				if !c.included[k] && !inHighstate[k] && !c.isTop(env, name) {
					units = append(units, value.MapOf(env, value.NewList(name)))
				}
			}
		}
	}
	for _, m := range units {
		c.compileUnit(m)
	}
	for _, f := range c.slsFiles() {
		c.checkStates(f)
	}
}

// PillarFailed is the summary of the diagnostics of the pillar's errors.
const PillarFailed = "Pillar failed to render"

// checkPillar reports the pillar's render errors: Salt refuses to apply
// states while there are any.
func (c *checker) checkPillar() {
	p := c.opts.Ctx.Pillar
	if p == nil {
		return
	}
	errs, ok := p.Get("_errors")
	if !ok || !value.Truthy(errs) {
		return
	}
	l, ok := errs.(*value.List)
	if !ok {
		l = value.NewList(errs)
	}
	for _, e := range l.Items {
		c.add(&diag.Diagnostic{Summary: PillarFailed, Detail: value.Str(e) + "\n\nSalt applies no states while the pillar has errors."})
	}
}

// renderSLS renders the SLS name of env through the cache.
func (c *checker) renderSLS(env, name string) *file {
	s, ok := c.run.Roots.ResolveSLS(env, name)
	if !ok {
		return nil
	}
	data, err := os.ReadFile(s.Path)
	if err != nil {
		return nil
	}
	_, _ = c.renderFile(data, s.Path, s.Source, env, name)
	return c.cache[s.Path+"\x00"+env+"\x00"+name]
}

// slsFiles returns the rendered SLS files, in render order.
func (c *checker) slsFiles() []*file {
	var out []*file
	for _, f := range c.files {
		if f.isSLS {
			if _, ok := c.bySLS[f.key]; !ok {
				c.bySLS[f.key] = f
			}
			out = append(out, f)
		}
	}
	return out
}

// fileOf returns the rendered file of an SLS, rendering it if needed.
func (c *checker) fileOf(env, sls string) *file {
	c.slsFiles()
	if f, ok := c.bySLS[slsKey{env, sls}]; ok {
		return f
	}
	f := c.renderSLS(env, sls)
	if f != nil {
		c.bySLS[f.key] = f
	}
	return f
}

// chain returns the include chain of the file named display, outermost
// first.
func (c *checker) chain(display string) []diag.Range {
	f, ok := c.byDisplay[display]
	if !ok || !f.isSLS {
		return nil
	}
	var out []diag.Range
	seen := map[slsKey]bool{f.key: true}
	k := f.key
	for len(out) < 32 {
		p, ok := c.parents[k]
		if !ok {
			break
		}
		out = append(out, p)
		pf, ok := c.byDisplay[p.File]
		if !ok || !pf.isSLS || seen[pf.key] {
			break
		}
		seen[pf.key] = true
		k = pf.key
	}
	slices.Reverse(out)
	return out
}

// isTop reports whether the SLS name of env is the top file.
func (c *checker) isTop(env, name string) bool {
	s, ok := c.resolve(env, name)
	if !ok {
		return false
	}
	top := strings.TrimPrefix(c.run.TopOptions().StateTop, "salt://")
	return s.Source == top
}

// resolve finds an SLS in env.
func (c *checker) resolve(env, name string) (fileserver.SLS, bool) {
	return c.run.Roots.ResolveSLS(env, name)
}
