package check

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"brine/internal/diag"
	"brine/internal/execmod"
	"brine/internal/jinja"
	"brine/internal/render"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// file is one rendered file of the tree (an SLS or a top file).
type file struct {
	key      slsKey
	local    string // local path
	display  string // the name diagnostics use
	src      string // the file's text
	rendered string // the text after the pipeline's text stages; src when none ran
	data     any
	err      error
	isSLS    bool
	order    int
}

// slsKey names an SLS in an environment.
type slsKey struct{ env, sls string }

func (k slsKey) String() string { return k.env + ":" + k.sls }

// renderedName is the pseudo-file name under which positions in the
// rendered text of a file are reported.
func renderedName(display string) string { return display + " (rendered)" }

// sameLines reports whether the rendered text has as many lines as the
// source, so that a line of one is the same line of the other.
func (f *file) sameLines() bool {
	return strings.Count(f.src, "\n") == strings.Count(f.rendered, "\n")
}

// renderFile renders one file as highstate does, recording the text after
// the text stages for positions. Results are cached by file, saltenv and
// SLS name; callers get a copy of the data (the compiler changes it).
func (c *checker) renderFile(data []byte, path, source, saltenv, sls string) (any, error) {
	ck := path + "\x00" + saltenv + "\x00" + sls
	f, ok := c.cache[ck]
	if !ok {
		f = c.doRender(data, path, source, saltenv, sls)
		c.cache[ck] = f
		c.files = append(c.files, f)
	}
	if f.err != nil {
		return nil, f.err
	}
	return value.DeepCopy(f.data), nil
}

func (c *checker) doRender(data []byte, path, source, saltenv, sls string) *file {
	f := &file{
		key:     slsKey{saltenv, sls},
		local:   path,
		display: c.displayName(path),
		src:     string(data),
		isSLS:   sls != "",
		order:   len(c.files),
	}
	f.rendered = f.src
	c.byDisplay[f.display] = f
	if strings.TrimSpace(f.src) == "" {
		f.data = value.NewMap(0)
		return f
	}
	opts := c.run.Opts
	pipe, ok := render.Shebang(f.src)
	if !ok {
		pipe = optString(opts, "renderer", "jinja|yaml")
	}
	p, err := render.Default.Parse(pipe, optStrings(opts, "renderer_whitelist"), optStrings(opts, "renderer_blacklist"))
	var unknown *render.UnknownRendererError
	if errors.As(err, &unknown) {
		first, _, _ := strings.Cut(f.src, "\n")
		c.add(&diag.Diagnostic{
			Severity: diag.Warning,
			Summary:  fmt.Sprintf("Unknown renderer %q", unknown.Name),
			Detail:   fmt.Sprintf("The pipeline %q names a renderer that does not exist. Salt renders this file to empty data: its states are silently ignored.%s", unknown.Pipe, didYouMean(render.Default.Suggest(unknown.Name))),
			Subject:  &diag.Range{File: f.display, Start: diag.Pos{Line: 1, Col: 3}, End: diag.Pos{Line: 1, Col: len(strings.TrimRight(first, "\r")) + 1}},
		})
		f.data = value.NewMap(0)
		return f
	}
	if err != nil {
		f.err = err
		c.add(&diag.Diagnostic{Summary: "Invalid render pipeline", Detail: err.Error(), Subject: &diag.Range{File: f.display, Start: diag.Pos{Line: 1}}})
		return f
	}
	rc := c.run.Ctx.RenderContext(saltenv)
	cachedir := optString(opts, "cachedir", "")
	if c.loader != nil {
		rc.Loader = c.loader
	}
	if rc.Loader == nil {
		rc.Loader = &execmod.CachedFiles{Src: c.run.Roots, Cachedir: cachedir}
	}
	rc.Path = filepath.Join(cachedir, "files", saltenv, filepath.FromSlash(source))
	rc.Source = source
	rc.SLS = sls
	rc.HasSLS = true
	text := f.src
	i := 0
	textStages := 0
	for ; i < len(p) && p[i].Entry.Text != nil && p[i].Entry.Unsupported == ""; i++ {
		out, err := p[i].Entry.Text(text, rc, p[i].Argline)
		if err != nil {
			f.err = err
			c.renderDiag(f, err, textStages > 0)
			return f
		}
		text = out
		textStages++
	}
	f.rendered = text
	out, err := render.Pipeline(p[i:]).Run(text, rc)
	if i == len(p) {
		out = text
	}
	if err != nil {
		f.err = err
		c.renderDiag(f, err, textStages > 0)
		return f
	}
	f.data = out
	return f
}

// renderDiag turns a render failure into a diagnostic. afterText is true
// when the failing stage read the output of a text stage (so its lines are
// those of the rendered text).
func (c *checker) renderDiag(f *file, err error, afterText bool) {
	var je *jinja.Error
	if errors.As(err, &je) {
		d := &diag.Diagnostic{Summary: "Jinja " + strings.TrimPrefix(je.Type, "jinja2.exceptions.") + ": " + firstLine(je.Msg)}
		if rest := restLines(je.Msg); rest != "" {
			d.Detail = rest
		}
		name := c.templateName(je.Name, f)
		if je.Line > 0 {
			d.Subject = &diag.Range{File: name, Start: diag.Pos{Line: je.Line, Col: je.Col}}
		} else {
			d.Subject = &diag.Range{File: name}
		}
		if len(je.Chain) == 0 && name != f.display {
			// A macro of an imported file failed: the chain stops at the
			// file being rendered.
			d.Chain = append(d.Chain, diag.Range{File: f.display})
		}
		// Jinja's chain is innermost first; diagnostics' outermost first.
		for i := len(je.Chain) - 1; i >= 0; i-- {
			fr := je.Chain[i]
			d.Chain = append(d.Chain, diag.Range{File: c.templateName(fr.Name, f), Start: diag.Pos{Line: fr.Line}})
		}
		if s := c.keySuggestion(je.Msg, name, je.Line); s != "" {
			d.Detail = joinNote(d.Detail, fmt.Sprintf("Did you mean %q?", s))
		}
		c.add(d)
		return
	}
	var ye *yamlload.Error
	if errors.As(err, &ye) {
		d := &diag.Diagnostic{Summary: "Invalid YAML: " + ye.Problem}
		if ye.Problem == "" {
			d.Summary = "Invalid YAML: " + firstLine(ye.Error())
		}
		if ye.Context != "" {
			d.Detail = strings.ToUpper(ye.Context[:1]) + ye.Context[1:]
			if m := ye.ContextMark; m.Line > 0 && m.Line != ye.Line() && !afterText {
				d.Detail += fmt.Sprintf(" started on line %d, column %d", m.Line, m.Column)
			}
			d.Detail += "."
		}
		d.Subject, d.Detail = c.textPos(f, ye.Line(), ye.Column(), 1, afterText, d.Detail)
		c.add(d)
		return
	}
	var re *render.Error
	if errors.As(err, &re) {
		d := re.Diagnostic()
		d.Summary = "Render error: " + d.Summary
		d.Subject, d.Detail = c.textPos(f, re.Line, re.Col, 1, afterText, d.Detail)
		c.add(d)
		return
	}
	c.add(&diag.Diagnostic{Summary: "Render error", Detail: err.Error(), Subject: &diag.Range{File: f.display}})
}

// textPos makes the range of a position in f's text: the source's when no
// text stage ran or the line counts agree, else the rendered text's (with
// a note appended to detail).
func (c *checker) textPos(f *file, line, col, width int, inRendered bool, detail string) (*diag.Range, string) {
	r := &diag.Range{File: f.display}
	if line <= 0 {
		return r, detail
	}
	r.Start = diag.Pos{Line: line, Col: col}
	if col > 0 {
		r.End = diag.Pos{Line: line, Col: col + width}
	}
	if inRendered && !f.sameLines() {
		r.File = renderedName(f.display)
		c.byDisplay[r.File] = &file{src: f.rendered}
		note := "The line is that of the rendered text: Jinja changed the file's line count."
		if detail != "" {
			detail += "\n\n"
		}
		detail += note
	}
	return r, detail
}

// templateName is the display name of a template Jinja names: the file
// being rendered for the main template ("<template>").
func (c *checker) templateName(name string, f *file) string {
	if name == "" || strings.HasPrefix(name, "<") || name == f.local || name == c.localize(f.local) {
		return f.display
	}
	l := c.localize(name)
	if l == name && !filepath.IsAbs(name) {
		if strings.HasSuffix(filepath.ToSlash(f.local), "/"+filepath.ToSlash(name)) {
			return f.display
		}
		if p, err := c.run.Roots.Find(f.key.env, filepath.ToSlash(name)); err == nil {
			l = p
		}
	}
	return c.displayName(l)
}

// localize maps a template name (the cached copy's path Jinja saw) back to
// the file in the roots.
func (c *checker) localize(name string) string {
	cachedir := optString(c.run.Opts, "cachedir", "")
	prefix := filepath.Join(cachedir, "files") + string(filepath.Separator)
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return name
	}
	env, rel, ok := strings.Cut(rest, string(filepath.Separator))
	if !ok {
		return name
	}
	if p, err := c.run.Roots.Find(env, filepath.ToSlash(rel)); err == nil {
		return p
	}
	return name
}

// displayName is path relative to the base directory when under it.
func (c *checker) displayName(path string) string {
	if c.opts.BaseDir != "" {
		if rel, err := filepath.Rel(c.opts.BaseDir, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return path
}

// source returns the text of a file named as in diagnostics.
func (c *checker) source(name string) (string, bool) {
	if f, ok := c.byDisplay[name]; ok {
		return f.src, true
	}
	p := name
	if c.opts.BaseDir != "" && !filepath.IsAbs(p) {
		p = filepath.Join(c.opts.BaseDir, p)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", false
	}
	return string(b), true
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func restLines(s string) string {
	_, r, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(r)
}

func optString(opts *value.Map, key, def string) string {
	v, ok := opts.Get(key)
	if !ok || v == nil {
		return def
	}
	if s, ok := v.(string); ok {
		return s
	}
	return value.Str(v)
}

func optStrings(opts *value.Map, key string) []string {
	v, _ := opts.Get(key)
	var out []string
	switch x := v.(type) {
	case *value.List:
		for _, e := range x.Items {
			out = append(out, value.Str(e))
		}
	case string:
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

// didYouMean is " Did you mean "s"?", or "" without a suggestion.
func didYouMean(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf(" Did you mean %q?", s)
}

var reNoAttr = regexp.MustCompile(`has no attribute '([^']+)'`)

// keySuggestion proposes, for a template's "has no attribute 'x'" on a
// line reading pillar or grains, the key of the minion's pillar or grains
// (at any depth) closest to x.
func (c *checker) keySuggestion(msg, file string, line int) string {
	m := reNoAttr.FindStringSubmatch(msg)
	if m == nil || line <= 0 {
		return ""
	}
	text, ok := c.source(file)
	if !ok {
		return ""
	}
	lines := strings.Split(text, "\n")
	if line > len(lines) {
		return ""
	}
	var data *value.Map
	switch l := lines[line-1]; {
	case strings.Contains(l, "pillar"):
		data = c.run.Ctx.Pillar
	case strings.Contains(l, "grains"):
		data = c.run.Ctx.Grains
	default:
		return ""
	}
	var keys []string
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		mp, ok := v.(*value.Map)
		if !ok || depth > 8 || len(keys) > 10000 {
			return
		}
		mp.Range(func(k, v any) bool {
			if ks, ok := k.(string); ok {
				keys = append(keys, ks)
			}
			walk(v, depth+1)
			return true
		})
	}
	if data != nil {
		walk(data, 0)
	}
	return nearest(keys, m[1])
}
