package check

import (
	"fmt"
	"os"
	"strings"

	"brine/internal/diag"
	"brine/internal/execmod"
	"brine/internal/fileserver"
	"brine/internal/render"
	"brine/internal/value"
)

// sourceSpec says which arguments of a state function name salt:// files.
type sourceSpec struct {
	dir      bool // the source is a directory (file.recurse)
	template bool // the source may be a template (template: jinja)
}

// sourceFuns are the state functions whose sources check follows.
var sourceFuns = map[string]sourceSpec{
	"file.managed":      {template: true},
	"file.recurse":      {dir: true},
	"cmd.script":        {template: true},
	"archive.extracted": {},
}

// checkSources reports salt:// sources that are in no file root (Salt only
// finds out when the state runs), and renders the templates of the
// sources that exist with the state's context and defaults, reporting
// their errors in the template file.
func (c *checker) checkSources(chunks []*value.Map) {
	for _, ch := range chunks {
		spec, ok := sourceFuns[str(ch, "state")+"."+str(ch, "fun")]
		if !ok {
			continue
		}
		src, _ := ch.Get("source")
		if src == nil {
			continue
		}
		r := chunkRef{low: ch, id: str(ch, "__id__"), state: str(ch, "state"), name: str(ch, "name"), sls: str(ch, "__sls__"), env: str(ch, "__env__")}
		env := r.env
		if e := str(ch, "saltenv"); e != "" {
			env = e
		}
		urls := sourceURLs(src)
		var found string
		var missing []string
		for _, u := range urls {
			rel, uenv, isSalt := fileserver.ParseURL(u)
			if !isSalt {
				found = u // a local path or remote URL: known at run time only
				break
			}
			if uenv == "" {
				uenv = env
			}
			if c.sourceExists(uenv, rel, spec.dir) {
				found = u
				break
			}
			missing = append(missing, u)
		}
		if found == "" && len(missing) > 0 {
			c.missingSource(r, env, missing, spec.dir)
			continue
		}
		c.checkSourceHash(r, env)
		if spec.template && found != "" && strings.HasPrefix(found, "salt://") {
			if engine := str(ch, "template"); engine != "" {
				c.renderSource(r, env, found, engine)
			}
		}
	}
}

// checkSourceHash reports a source_hash naming a salt:// file (a hash
// file) that is in no file root.
func (c *checker) checkSourceHash(r chunkRef, env string) {
	h := str(r.low, "source_hash")
	rel, uenv, ok := fileserver.ParseURL(h)
	if !ok {
		return
	}
	if uenv == "" {
		uenv = env
	}
	if c.sourceExists(uenv, rel, false) {
		return
	}
	d := &diag.Diagnostic{
		Summary: fmt.Sprintf("Source hash file %s not found in saltenv '%s'", h, uenv),
		Detail:  fmt.Sprintf("ID %q (%s.%s) takes its source_hash from %s, which is in no file root of saltenv %q: the state fails when it runs.%s", r.id, r.state, str(r.low, "fun"), h, uenv, didYouMean(prefixed("salt://", c.nearestFile(uenv, rel)))),
	}
	c.placeArg(d, r, "source_hash", h)
	c.add(d)
}

// prefixed is p+s, or "" when s is.
func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

// sourceURLs lists a source argument's URLs: a string, or a list of
// strings and one-key {url: hash} mappings (file.source_list).
func sourceURLs(src any) []string {
	l, ok := src.(*value.List)
	if !ok {
		return []string{value.Str(src)}
	}
	var out []string
	for _, it := range l.Items {
		if m, ok := it.(*value.Map); ok {
			if m.Len() == 1 {
				out = append(out, value.Str(m.Keys()[0]))
			}
			continue
		}
		out = append(out, value.Str(it))
	}
	return out
}

// sourceExists reports whether rel is a file (or, with dir, a directory
// holding files) in the roots of env.
func (c *checker) sourceExists(env, rel string, dir bool) bool {
	rel = strings.Trim(rel, "/")
	if !dir {
		_, err := c.run.Roots.Find(env, rel)
		return err == nil
	}
	for _, f := range c.run.Roots.FileList(env) {
		if strings.HasPrefix(f, rel+"/") {
			return true
		}
	}
	return false
}

// missingSource reports sources of r that exist in no file root.
func (c *checker) missingSource(r chunkRef, env string, missing []string, dir bool) {
	what := fmt.Sprintf("Source file %s not found in saltenv '%s'", missing[0], env)
	if dir {
		what = fmt.Sprintf("Source directory %s not found in saltenv '%s'", missing[0], env)
	}
	detail := fmt.Sprintf("ID %q (%s.%s) names %s, which is in no file root of saltenv %q: the state fails when it runs.", r.id, r.state, str(r.low, "fun"), missing[0], env)
	if len(missing) > 1 {
		what = "None of the specified sources were found"
		detail = fmt.Sprintf("ID %q (%s.%s) lists the sources %s; none is in the file roots of saltenv %q.", r.id, r.state, str(r.low, "fun"), strings.Join(missing, ", "), env)
	}
	if rel, _, ok := fileserver.ParseURL(missing[0]); ok && !dir {
		if s := c.nearestFile(env, rel); s != "" {
			detail += fmt.Sprintf(" Did you mean \"salt://%s\"?", s)
		}
	}
	d := &diag.Diagnostic{Summary: what, Detail: detail}
	c.placeArg(d, r, "source", missing[0])
	c.add(d)
}

// nearestFile is the file of env whose path is closest to rel, when close.
func (c *checker) nearestFile(env, rel string) string {
	best, bestD := "", len(rel)/4+1
	for _, f := range c.run.Roots.FileList(env) {
		if d := diag.EditDistance(f, rel); d < bestD {
			best, bestD = f, d
		}
	}
	return best
}

// placeArg sets d's subject to argument arg (with value val, when the
// line shows it) of r's state, else to r's ID.
func (c *checker) placeArg(d *diag.Diagnostic, r chunkRef, arg, val string) {
	f := c.findSLS(r.env, r.sls)
	if f == nil {
		return
	}
	for _, sk := range []string{r.state, r.state + "." + str(r.low, "fun")} {
		for _, last := range []step{{key: arg, val: val}, {key: arg}} {
			path := []step{{key: r.id}, {key: sk}, last}
			if _, n := findPath(f.src, path); n == 3 {
				var note string
				d.Subject, note = c.locate(f, path)
				d.Detail = joinNote(d.Detail, note)
				return
			}
		}
	}
	var note string
	d.Subject, note = c.locate(f, keys(r.id))
	d.Detail = joinNote(d.Detail, note)
}

// renderSource renders the template source u of r as the state would
// (file.get_managed's context: name, source, user, group, mode, attrs,
// saltenv, then defaults and context) and reports a failure in the
// template, with the state that uses it.
func (c *checker) renderSource(r chunkRef, env, u, engine string) {
	e, ok := render.Default.Lookup(engine)
	if !ok || e.Text == nil {
		d := &diag.Diagnostic{
			Summary: fmt.Sprintf("Unknown template engine %q", engine),
			Detail:  fmt.Sprintf("Specified template format %s is not supported.", engine),
		}
		c.placeArg(d, r, "template", engine)
		c.add(d)
		return
	}
	rel, uenv, _ := fileserver.ParseURL(u)
	if uenv == "" {
		uenv = env
	}
	local, err := c.run.Roots.Find(uenv, strings.Trim(rel, "/"))
	if err != nil {
		return
	}
	data, err := os.ReadFile(local)
	if err != nil {
		return
	}
	vars := value.NewMap(8)
	for _, k := range []string{"name", "source", "user", "group", "mode", "attrs"} {
		v, _ := r.low.Get(k)
		if k == "source" {
			v = u
		}
		vars.Set(k, v)
	}
	vars.Set("saltenv", env)
	for _, k := range []string{"defaults", "context"} {
		if m, ok := mget(r.low, k).(*value.Map); ok {
			vars.Update(m)
		}
	}
	rc := c.run.Ctx.RenderContext(uenv)
	if rc.Loader == nil {
		rc.Loader = &execmod.CachedFiles{Src: c.run.Roots, Cachedir: optString(c.run.Opts, "cachedir", "")}
	}
	rc.Vars = vars
	rc.Path = local
	rc.Source = strings.Trim(rel, "/")
	_, err = e.Text(string(data), rc, "")
	if err == nil {
		return
	}
	f := &file{local: local, display: c.displayName(local), src: string(data)}
	f.rendered = f.src
	if _, known := c.byDisplay[f.display]; !known {
		c.byDisplay[f.display] = f
	}
	n := len(c.diags)
	c.renderDiag(f, err, false)
	if len(c.diags) == n {
		return
	}
	use := &diag.Diagnostic{}
	c.placeArg(use, r, "source", u)
	for _, d := range c.diags[n:] {
		d.Summary = "Template " + u + ": " + d.Summary
		if use.Subject != nil && use.Subject.Start.Line > 0 {
			d.Related = append(d.Related, diag.Related{Note: fmt.Sprintf("used by %s.%s %q", r.state, str(r.low, "fun"), r.id), Range: *use.Subject})
		}
	}
}
