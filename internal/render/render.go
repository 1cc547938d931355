// Package render is the renderer contract: renderers registered by name, the
// `jinja|yaml` pipelines that chain them, the `#!` first-line override, and
// Salt's rules for what a pipeline of a template produces (compile_template
// in salt/template.py).
//
// A text renderer turns text into text (jinja); a data renderer turns text
// into data (yaml, json) and must come last. Render runs a pipeline over a
// source and returns the data (or the text, for a pipeline of text
// renderers only, as slsutil.renderer with default_renderer=jinja does).
package render

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"sort"
	"strings"
	"time"

	"brine/internal/diag"
	"brine/internal/value"
)

// TextFunc renders text to text. argline is what followed the renderer's
// name in the pipeline ("jinja -s" gives "-s").
type TextFunc func(src string, rc *Context, argline string) (string, error)

// DataFunc renders text to data.
type DataFunc func(src string, rc *Context, argline string) (any, error)

// Entry is one registered renderer. Exactly one of Text, Data is set, or
// neither for a renderer Salt has and brine does not (Unsupported).
type Entry struct {
	Name        string
	Text        TextFunc
	Data        DataFunc
	Unsupported string // why the renderer is not available
	Doc         string
	// WalkData marks a data renderer that, placed after another data
	// renderer (`yaml|gpg`), is applied to every string inside the data it
	// receives, mappings and lists being changed in place, as Salt's gpg
	// renderer does.
	WalkData bool
}

// Registry maps names to renderers.
type Registry struct{ entries map[string]*Entry }

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{entries: map[string]*Entry{}} }

// Default is the registry renderer packages fill from init().
var Default = NewRegistry()

// RegisterText adds a text renderer to Default.
func RegisterText(name string, f TextFunc, doc string) {
	Default.Register(&Entry{Name: name, Text: f, Doc: doc})
}

// RegisterData adds a data renderer to Default.
func RegisterData(name string, f DataFunc, doc string) {
	Default.Register(&Entry{Name: name, Data: f, Doc: doc})
}

// RegisterUnsupported records a Salt renderer brine does not implement, so
// that using it gives a clear error instead of an unknown name.
func RegisterUnsupported(name, why string) {
	Default.Register(&Entry{Name: name, Unsupported: why})
}

// Register adds e. It panics on a malformed or duplicate name.
func (r *Registry) Register(e *Entry) {
	if e.Name == "" || strings.ContainsAny(e.Name, " |\t\n") {
		panic(fmt.Sprintf("render: malformed renderer name %q", e.Name))
	}
	if (e.Text != nil) && (e.Data != nil) {
		panic(fmt.Sprintf("render: renderer %q is both text and data", e.Name))
	}
	if _, dup := r.entries[e.Name]; dup {
		panic(fmt.Sprintf("render: duplicate renderer %q", e.Name))
	}
	r.entries[e.Name] = e
}

// Lookup returns the renderer registered under name.
func (r *Registry) Lookup(name string) (*Entry, bool) {
	e, ok := r.entries[name]
	return e, ok
}

// Names returns the registered names, sorted.
// Suggest returns the registered renderer closest to name, when one is
// close enough to be what was meant ("" otherwise).
func (r *Registry) Suggest(name string) string {
	best, bestD := "", len(name)/3+2
	for _, n := range r.Names() {
		if d := diag.EditDistance(n, name); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// UnknownWarning is brine's word after Salt's "The renderer ... is not
// available" error: where the shebang is and what was likely meant.
func (r *Registry) UnknownWarning(path string, e *UnknownRendererError) string {
	msg := fmt.Sprintf("%s line 1: the shebang names the renderer %q, which does not exist, so the file renders to nothing and its states are ignored", path, e.Name)
	if s := r.Suggest(e.Name); s != "" {
		msg += fmt.Sprintf(". Did you mean %q?", s)
	}
	return msg
}

func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.entries))
	for n := range r.entries {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Loader gives templates access to other files of the file roots (Jinja
// include/import, import_yaml, ...). Paths are relative to the roots of
// saltenv, without "salt://".
type Loader interface {
	// ReadFile returns the content of path and the local path it stands
	// for. A missing file is an error wrapping fs.ErrNotExist.
	ReadFile(saltenv, path string) (data []byte, local string, err error)
}

// SaltLookup resolves an execution function for templates' `salt` object.
type SaltLookup func(name string) (value.Callable, bool)

// Context is what renderers see of the template being rendered and of the
// minion: Salt's render kwargs and the Jinja variables.
type Context struct {
	Path    string // local path of the template (tmplpath); "" for a string
	Source  string // salt:// relative path of the template when known ("top.sls", "web/init.sls")
	SLS     string // SLS name ("web.server"); "" outside SLS rendering
	HasSLS  bool   // whether `sls` is in the template context at all
	Saltenv string

	Salt   SaltLookup // execution functions (salt['grains.get'])
	Grains *value.Map
	Pillar *value.Map
	Opts   *value.Map

	// Vars are extra template variables (slsutil.renderer's keyword
	// arguments, Salt's `context` argument); they override the defaults.
	Vars *value.Map

	Loader   Loader    // nil: includes and imports fail
	Registry *Registry // nil means Default; renderers use it for nested renders

	// PillarRender is set while pillar is being rendered (Salt's
	// _pillar_rend: the loader reads pillar_roots).
	PillarRender bool

	// Services carries run-wide objects renderers may need (an
	// *execmod.Context, for example) without this package importing them.
	Services map[string]any
}

// Salt's profile and garbage levels among slog's.
const (
	levelProfile = slog.LevelDebug + 2
	levelGarbage = slog.LevelDebug - 6
)

// logName names the template in log messages: its local path, else its
// salt:// source, else Salt's name for a string template.
func (rc *Context) logName() string {
	switch {
	case rc == nil:
	case rc.Path != "":
		return rc.Path
	case rc.Source != "":
		return "salt://" + rc.Source
	}
	return "<string>"
}

func (rc *Context) registry() *Registry {
	if rc == nil || rc.Registry == nil {
		return Default
	}
	return rc.Registry
}

// Stage is one step of a pipeline.
type Stage struct {
	Name    string
	Argline string
	Entry   *Entry
}

// Pipeline is a parsed render pipe, applied left to right.
type Pipeline []Stage

// String gives the pipeline back in `a|b` form.
func (p Pipeline) String() string {
	parts := make([]string, len(p))
	for i, s := range p {
		parts[i] = s.Name
		if s.Argline != "" {
			parts[i] += " " + s.Argline
		}
	}
	return strings.Join(parts, "|")
}

// oldStyle maps Salt's combined renderer names to pipes.
var oldStyle = map[string]string{
	"yaml_jinja":         "jinja|yaml",
	"yaml_mako":          "mako|yaml",
	"yaml_wempy":         "wempy|yaml",
	"json_jinja":         "jinja|json",
	"json_mako":          "mako|json",
	"json_wempy":         "wempy|json",
	"yamlex_jinja":       "jinja|yamlex",
	"yamlexyamlex_mako":  "mako|yamlexyamlex",
	"yamlexyamlex_wempy": "wempy|yamlexyamlex",
}

// UnknownRendererError reports a renderer name that is not registered.
// Salt logs it and renders the template to nothing; brine's compiler does
// the same, and callers that want to tell the user can.
type UnknownRendererError struct {
	Name string
	Pipe string
}

// Error returns Salt's message for the unknown renderer.
func (e *UnknownRendererError) Error() string {
	return fmt.Sprintf("The renderer %q is not available", e.Name)
}

// Parse reads a pipe string the way Salt's check_render_pipe_str does:
// renderers separated by "|", spaces around them ignored, anything after the
// first space of a part being that renderer's argline, and an old-style
// combined name (yaml_jinja) standing for its pipe. Renderers disallowed by
// whitelist/blacklist are skipped. An unknown name is an
// *UnknownRendererError.
func (r *Registry) Parse(pipe string, whitelist, blacklist []string) (Pipeline, error) {
	parts := strings.Split(pipe, "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	if len(parts) == 1 && parts[0] == pipe {
		if alt, ok := oldStyle[pipe]; ok {
			parts = strings.Split(alt, "|")
		}
	}
	var out Pipeline
	for _, part := range parts {
		name, arg, _ := strings.Cut(part+" ", " ")
		if len(whitelist) > 0 && !contains(whitelist, name) || contains(blacklist, name) {
			continue
		}
		e, ok := r.entries[name]
		if !ok {
			return nil, &UnknownRendererError{Name: name, Pipe: pipe}
		}
		out = append(out, Stage{Name: name, Argline: strings.TrimSpace(arg), Entry: e})
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Shebang returns the pipe named on the first line of src ("#!jinja|yaml"
// gives "jinja|yaml"), or ok=false when the first line is not a shebang (a
// "#!/" line is a path, not a shebang).
func Shebang(src string) (pipe string, ok bool) {
	line, _, _ := strings.Cut(src, "\n")
	if !strings.HasPrefix(line, "#!") || strings.HasPrefix(line, "#!/") {
		return "", false
	}
	return strings.TrimSpace(line)[2:], true
}

// StringShebang is Shebang for a template given as a string (Salt's
// ":string:" templates): only the first whitespace-separated word counts,
// so "#!jinja foo|yaml" names just "jinja".
func StringShebang(src string) (pipe string, ok bool) {
	f := strings.Fields(src)
	if len(f) == 0 || !strings.HasPrefix(f[0], "#!") || strings.HasPrefix(f[0], "#!/") {
		return "", false
	}
	return f[0][2:], true
}

// Options select how Render picks the pipeline.
type Options struct {
	Default    string   // the pipe used when there is no shebang (opts renderer)
	Whitelist  []string // renderer_whitelist
	Blacklist  []string // renderer_blacklist
	FromString bool     // the source is a string, not a file (":string:")
}

// Render runs src through its pipeline: the shebang's when the first line is
// one, else opts.Default. A file that is not UTF-8 is a
// *UnicodeDecodeError. As in Salt, an empty or whitespace-only file
// renders to an empty mapping without running any renderer, and a pipeline
// naming an unknown renderer renders to an empty mapping too (the
// *UnknownRendererError is returned alongside for callers that log it).
//
// The result is a value (data renderer last) or a string (text renderers
// only). A renderer's failure is returned as is: renderers return *Error for
// Salt's SaltRenderError and other errors for internal failures.
func Render(src []byte, rc *Context, opts Options) (any, error) {
	text := string(src)
	if !opts.FromString {
		if len(src) == 0 {
			return value.NewMap(0), nil
		}
		var err error
		if text, err = DecodeUTF8(src); err != nil {
			return nil, err
		}
		if strings.TrimSpace(text) == "" {
			return value.NewMap(0), nil
		}
	}
	pipe, ok := "", false
	if opts.FromString {
		pipe, ok = StringShebang(text)
	} else {
		pipe, ok = Shebang(text)
	}
	if !ok {
		pipe = opts.Default
	}
	reg := rc.registry()
	p, err := reg.Parse(pipe, opts.Whitelist, opts.Blacklist)
	if err != nil {
		return value.NewMap(0), err
	}
	var start time.Time
	logged := slog.Default().Enabled(context.Background(), slog.LevelDebug)
	if logged {
		start = time.Now()
		slog.Debug("compile template: " + rc.logName())
	}
	out, err := p.Run(text, rc)
	if logged {
		what := "Rendered"
		if err != nil {
			what = "Failed to render"
		}
		sls := ""
		if rc != nil && rc.SLS != "" {
			sls = fmt.Sprintf(" (SLS '%s', saltenv '%s')", rc.SLS, rc.Saltenv)
		}
		slog.Debug(fmt.Sprintf("%s %s%s with renderer pipeline %s in %.3f ms", what, rc.logName(), sls, p, float64(time.Since(start).Microseconds())/1000))
	}
	if err != nil {
		return out, err
	}
	// Salt keeps a Windows template's line endings: a text result without
	// any CRLF gets its newlines turned back into CRLF.
	if s, isText := out.(string); isText && strings.Contains(text, "\r\n") && !strings.Contains(s, "\r\n") {
		out = strings.ReplaceAll(s, "\n", "\r\n")
	}
	return out, nil
}

// CheckDefault reports whether pipe, the renderer option, leaves at least
// one usable renderer once whitelist and blacklist are applied, as Salt's
// loader checks before compiling pillar or states. Salt refuses to start
// otherwise; the error carries its message.
func (r *Registry) CheckDefault(pipe string, whitelist, blacklist []string) error {
	p, err := r.Parse(pipe, whitelist, blacklist)
	if err == nil && len(p) > 0 {
		return nil
	}
	return fmt.Errorf("The renderer %s is unavailable, this error is often because the needed software is unavailable", pipe)
}

// Run applies the pipeline to src. An empty pipeline gives an empty mapping.
func (p Pipeline) Run(src string, rc *Context) (any, error) {
	var cur any = src
	if len(p) == 0 {
		return value.NewMap(0), nil
	}
	profile := slog.Default().Enabled(context.Background(), levelProfile)
	for i, st := range p {
		var start time.Time
		if profile {
			start = time.Now()
		}
		out, err := p.runStage(i, cur, rc)
		if profile {
			slog.Log(context.Background(), levelProfile, fmt.Sprintf("Time (in seconds) to render '%s' using '%s' renderer: %s",
				rc.logName(), st.Name, value.Str(time.Since(start).Seconds())))
		}
		if err != nil {
			return nil, err
		}
		// Salt shows the text a renderer produced at garbage level.
		if text, ok := out.(string); ok && slog.Default().Enabled(context.Background(), levelGarbage) {
			slog.Debug(fmt.Sprintf("Rendered data from file: %s:\n%s", rc.logName(), text))
		}
		cur = out
	}
	return cur, nil
}

// runStage applies stage i of the pipeline to cur.
func (p Pipeline) runStage(i int, cur any, rc *Context) (any, error) {
	st := p[i]
	if st.Entry.Unsupported != "" {
		return nil, &Error{Msg: fmt.Sprintf("The %q renderer is not supported by brine: %s", st.Name, st.Entry.Unsupported)}
	}
	text, isText := cur.(string)
	if !isText {
		if st.Entry.Data == nil || !st.Entry.WalkData {
			return nil, NewPipelineError(p, i, cur)
		}
		return WalkStrings(cur, func(s string) (any, error) { return st.Entry.Data(s, rc, st.Argline) })
	}
	if st.Entry.Text != nil {
		return st.Entry.Text(text, rc, st.Argline)
	}
	return st.Entry.Data(text, rc, st.Argline)
}

// WalkStrings replaces every string in v by f(string), changing mappings
// and lists in place (how Salt's gpg renderer decrypts data it is given).
func WalkStrings(v any, f func(string) (any, error)) (any, error) {
	switch x := v.(type) {
	case string:
		return f(x)
	case *value.Map:
		for i, e := range x.Values() {
			n, err := WalkStrings(e, f)
			if err != nil {
				return nil, err
			}
			x.SetAt(i, n)
		}
	case *value.List:
		for i, e := range x.Items {
			n, err := WalkStrings(e, f)
			if err != nil {
				return nil, err
			}
			x.Items[i] = n
		}
	}
	return v, nil
}

// PipelineError is a data renderer placed before another renderer
// (`yaml|jinja`): the later renderer receives data instead of text.
type PipelineError struct {
	Pipe  string
	Stage string // the renderer that received data
	Prev  string // the data renderer before it
	// Got is the Python type name of the data received ("OrderedDict"
	// for a yaml mapping); "" reads as "dict".
	Got string
}

// NewPipelineError describes stage i of p receiving data instead of text.
func NewPipelineError(p Pipeline, i int, data any) *PipelineError {
	got := value.TypeName(data)
	// Salt's yaml loader builds OrderedDicts; an empty document is a dict.
	if m, ok := data.(*value.Map); ok && m.Len() > 0 && strings.HasPrefix(p[i-1].Name, "yaml") {
		got = "OrderedDict"
	}
	return &PipelineError{Pipe: p.String(), Stage: p[i].Name, Prev: p[i-1].Name, Got: got}
}

// Error is the exception Salt raises there: the renderer calls read() on
// what it received.
func (e *PipelineError) Error() string {
	got := e.Got
	if got == "" {
		got = "dict"
	}
	return fmt.Sprintf("'%s' object has no attribute 'read'", got)
}

// Explain says which data renderer comes too early in the pipe.
func (e *PipelineError) Explain() string {
	return fmt.Sprintf("renderer %q cannot follow %q in pipeline %q: %q returns data, not text (a data renderer such as yaml or json must come last)", e.Stage, e.Prev, e.Pipe, e.Prev)
}

// IsNotExist reports whether err means a missing file.
func IsNotExist(err error) bool { return err != nil && errorsIs(err, fs.ErrNotExist) }

// Clone returns a copy of r that one run may change (custom renderers
// from the extension module cache are added to a run's copy only).
func (r *Registry) Clone() *Registry {
	c := &Registry{entries: make(map[string]*Entry, len(r.entries))}
	for n, e := range r.entries {
		c.entries[n] = e
	}
	return c
}

// Replace registers e, replacing a renderer of the same name (a custom
// renderer replaces the builtin one): for a run's registry, never Default.
func (r *Registry) Replace(e *Entry) { r.entries[e.Name] = e }
