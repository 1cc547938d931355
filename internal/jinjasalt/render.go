package jinjasalt

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"brine/internal/jinja"
	"brine/internal/value"
)

// Files reads template files from a file tree (the fileserver of one
// saltenv, or the pillar roots).
type Files interface {
	// ReadFile returns the file at path, a clean slash-separated path
	// relative to the roots of saltenv, and the path Salt would show for it
	// in messages (the minion's cached copy). A missing file is an error
	// wrapping fs.ErrNotExist.
	ReadFile(saltenv, path string) (data []byte, shown string, err error)
}

// Context is everything a Salt Jinja render needs besides the source.
type Context struct {
	// Path is tplpath: the file being rendered as Salt shows it (the
	// cached copy under the minion cachedir); "" for a string template.
	Path string
	// Saltenv is the environment imports are resolved in.
	Saltenv string
	// SLS is the SLS name ("" for slsutil.renderer). NoSLS says the render
	// has no sls at all (then tplfile, tpldir, ... are not set).
	SLS   string
	NoSLS bool
	// Salt finds execution functions for the `salt` variable; SaltModules,
	// when set, says whether a module exists (for salt.mod lookups).
	Salt        Funcs
	SaltModules func(mod string) bool
	// Grains, Pillar and Opts are the grains, pillar and opts variables.
	Grains, Pillar, Opts *value.Map
	// Vars are extra variables (defaults merged with context, rendered_sls,
	// ...); they override the standard ones, as Salt's context does.
	Vars *value.Map
	// Files resolves include, import and import_* names; nil means none.
	Files Files
	// Options overrides the environment options read from Opts.
	Options *Options
}

// mainName is the name of the rendered template itself, as Jinja's
// from_string names it in tracebacks.
const mainName = "<template>"

// Render renders source as Salt's jinja renderer does and returns the
// text. A template failure is an *Error carrying Salt's message.
func Render(source []byte, ctx *Context) (string, error) {
	if ctx == nil {
		ctx = &Context{}
	}
	src := string(source)
	vars := contextVars(ctx)
	opts := ctx.Options
	if opts == nil {
		o := OptionsFromOpts(ctx.Opts, ctx.SLS, !ctx.NoSLS)
		opts = &o
	}
	se := envFor(*opts)
	// Salt's context is also its environment's globals (imports without
	// context see it).
	globals := make(map[string]any, vars.Len()+3)
	vars.Range(func(k, v any) bool {
		globals[pyStr(k)] = v
		return true
	})
	ld := &loader{globals: globals, files: ctx.Files, saltenv: ctx.Saltenv, sources: map[string]loaded{}}
	if td, ok := vars.Get("tpldir"); ok {
		ld.tpldir, ld.hasTpldir = pyStr(td), true
	}

	t, err := se.parse(src)
	if err != nil {
		return "", saltError(err, src, ld, !ctx.NoSLS)
	}
	out, err := t.RenderWith(vars, jinja.RenderConfig{Globals: globals, Loader: ld, ObjectNames: objectNames(ctx, vars)})
	if err != nil {
		return "", saltError(err, src, ld, !ctx.NoSLS)
	}
	// Salt appends the newline Jinja drops (keep_trailing_newline=False).
	if strings.HasSuffix(src, "\n") {
		out += "\n"
	}
	return out, nil
}

// objectNames names the pillar as Salt's templates see it: the loader
// packs it as a NamespacedDictWrapper, so a missing key's message names
// that class (unless the caller passed a pillar of its own).
func objectNames(ctx *Context, vars *value.Map) map[*value.Map]string {
	p, _ := vars.Get("pillar")
	m, ok := p.(*value.Map)
	if !ok || ctx.Vars != nil && ctx.Vars.Has("pillar") {
		return nil
	}
	return map[*value.Map]string{m: "salt.utils.context.NamespacedDictWrapper object"}
}

// contextVars builds the variables Salt passes to a template.
func contextVars(ctx *Context) *value.Map {
	m := value.NewMap(24)
	orEmpty := func(x *value.Map) *value.Map {
		if x == nil {
			return value.NewMap(0)
		}
		return x
	}
	if ctx.Salt != nil {
		m.Set("salt", NewSaltObject(ctx.Salt, ctx.SaltModules))
	}
	m.Set("grains", orEmpty(ctx.Grains))
	m.Set("opts", orEmpty(ctx.Opts))
	m.Set("pillar", orEmpty(ctx.Pillar))
	m.Set("saltenv", ctx.Saltenv)
	if !ctx.NoSLS {
		m.Set("sls", ctx.SLS)
	}
	m.Set("proxy", value.NewMap(0))
	if ctx.Vars != nil {
		m.Update(ctx.Vars)
	}
	if s, ok := m.Get("sls"); ok {
		m.Update(SLSVars(ctx.Path, pyStr(s)))
	}
	return m
}

// loaded is a template file read during a render.
type loaded struct {
	shown  string
	source string
}

// loader is Salt's SaltCacheLoader over Files. Like Salt's, it keeps the
// render's tpldir global up to date: loading a template by a
// root-relative name sets tpldir to that template's directory, and later
// "./" and "../" names resolve against it (the tpldir leak in QUIRKS.md).
type loader struct {
	globals   map[string]any // the render's globals
	files     Files
	saltenv   string
	tpldir    string
	hasTpldir bool
	sources   map[string]loaded // resolved name -> file
}

// Load resolves name for the engine.
func (l *loader) Load(name, parent string) (string, string, error) {
	notFound := fmt.Errorf("%s: %w", name, jinja.ErrNotFound)
	first, _, _ := strings.Cut(name, "/")
	relative := first == "." || first == ".."
	path := name
	if relative {
		if !l.hasTpldir {
			return "", "", notFound
		}
		path = pyNormpath(l.tpldir + "/" + name)
		if first, _, _ := strings.Cut(path, "/"); first == ".." {
			return "", "", notFound
		}
	}
	if name != "" {
		tpldir := posixDir(path)
		tplfile := path
		if relative {
			tpldir, tplfile = l.tpldir, name
		}
		shownDir := tpldir
		if shownDir == "" {
			shownDir = "."
		}
		l.tpldir, l.hasTpldir = shownDir, true
		l.globals["tplfile"] = tplfile
		l.globals["tpldir"] = shownDir
		l.globals["tpldot"] = strings.ReplaceAll(tpldir, "/", ".")
	}
	clean := confine(path)
	if clean == "" || l.files == nil {
		return "", "", notFound
	}
	data, shown, err := l.files.ReadFile(l.saltenv, clean)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", "", notFound
		}
		return "", "", err
	}
	if shown == "" {
		shown = clean
	}
	src := string(data)
	l.sources[clean] = loaded{shown: shown, source: src}
	return src, clean, nil
}

// posixDir is os.path.dirname for slash paths.
func posixDir(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ""
	}
	d := p[:i]
	if d == "" {
		return "/"
	}
	return strings.TrimRight(d, "/")
}

// confine turns a template name into a clean root-relative path, or ""
// when it would leave the file roots. A salt:// prefix and leading slashes
// are dropped.
func confine(p string) string {
	p = strings.TrimPrefix(p, "salt://")
	p = pyNormpath(strings.TrimLeft(p, "/"))
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return ""
	}
	return p
}
