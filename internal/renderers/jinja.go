package renderers

// jinja.go is salt/renderers/jinja.py: the jinja text renderer.
//
// PROVISIONAL: until internal/jinjasalt offers its Render entry point, this
// file builds the Salt environment itself from internal/jinja and the
// jinjasalt filter/test/global registry: the template variables Salt sets
// (salt, grains, pillar, opts, saltenv, sls and the tpl*/sls* path
// variables), a loader over the file roots, jinja_env/jinja_sls_env
// options, and Salt's wording of template errors.

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"brine/internal/execmod"
	"brine/internal/jinja"
	"brine/internal/jinjasalt"
	"brine/internal/render"
	"brine/internal/value"
)

func init() {
	render.RegisterText("jinja", renderJinja, "Jinja templates with Salt's context, filters and tags (salt/renderers/jinja.py). The only option is -s.")
}

func renderJinja(src string, rc *render.Context, argline string) (string, error) {
	if argline != "" && argline != "-s" {
		return "", &render.Error{Msg: "Unknown renderer option: " + argline}
	}
	if rc == nil {
		rc = &render.Context{}
	}
	env := newSaltEnv(rc)
	vars := templateVars(rc)
	for _, k := range []string{"tpldir", "tplfile", "tpldot", "tplpath"} {
		if v, ok := vars.Get(k); ok {
			env.AddGlobal(k, v)
		}
	}
	out, err := env.RenderString(rc.Path, src, vars)
	if err != nil {
		return "", jinjaError(err, src, rc)
	}
	// Jinja drops one final newline; Salt puts it back.
	if strings.HasSuffix(src, "\n") && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out, nil
}

func newSaltEnv(rc *render.Context) *jinja.Environment {
	env := jinja.New()
	for _, e := range jinjasalt.Entries(jinjasalt.Filter) {
		fn := e.Fn
		env.AddFilter(e.Name, func(val any, args []any, kwargs *value.Map) (any, error) {
			return fn(append([]any{val}, args...), kwargs)
		})
	}
	for _, e := range jinjasalt.Entries(jinjasalt.Test) {
		fn := e.Fn
		env.AddTest(e.Name, func(val any, args []any, kwargs *value.Map) (bool, error) {
			r, err := fn(append([]any{val}, args...), kwargs)
			return value.Truthy(r), err
		})
	}
	for _, e := range jinjasalt.Entries(jinjasalt.Global) {
		env.AddGlobal(e.Name, e.Fn)
	}
	opts := rc.Opts
	key := "jinja_env"
	if rc.HasSLS && rc.SLS != "" {
		key = "jinja_sls_env"
	}
	if opts != nil {
		if m, ok := opts.Get(key); ok {
			if mm, isMap := m.(*value.Map); isMap {
				applyEnvOptions(env, mm)
			}
		}
		if v, _ := opts.Get("jinja_trim_blocks"); value.Truthy(v) {
			env.TrimBlocks = true
		}
		if v, _ := opts.Get("jinja_lstrip_blocks"); value.Truthy(v) {
			env.LstripBlocks = true
		}
		if v, _ := opts.Get("allow_undefined"); value.Truthy(v) {
			env.Lenient = true
		}
	}
	if rc.Loader != nil {
		env.Loader = &rootsLoader{rc: rc}
	}
	return env
}

func applyEnvOptions(env *jinja.Environment, m *value.Map) {
	m.Range(func(k, v any) bool {
		switch strings.ToLower(value.Str(k)) {
		case "trim_blocks":
			env.TrimBlocks = value.Truthy(v)
		case "lstrip_blocks":
			env.LstripBlocks = value.Truthy(v)
		case "keep_trailing_newline":
			env.KeepTrailingNewline = value.Truthy(v)
		}
		return true
	})
}

// templateVars are the variables Salt's render_tmpl gives a template.
func templateVars(rc *render.Context) *value.Map {
	vars := value.NewMap(24)
	vars.Set("salt", &saltObject{rc: rc})
	vars.Set("grains", orEmpty(rc.Grains))
	vars.Set("pillar", orEmpty(rc.Pillar))
	vars.Set("opts", orEmpty(rc.Opts))
	saltenv := rc.Saltenv
	vars.Set("saltenv", saltenv)
	if rc.HasSLS {
		vars.Set("sls", rc.SLS)
		for k, v := range slsContext(rc.Path, rc.SLS) {
			vars.Set(k, v)
		}
	}
	if rc.Vars != nil {
		vars.Update(rc.Vars)
	}
	return vars
}

func orEmpty(m *value.Map) *value.Map {
	if m == nil {
		return value.NewMap(0)
	}
	return m
}

// slsContext is salt.utils.templates.generate_sls_context.
func slsContext(tmplpath, sls string) map[string]any {
	out := map[string]any{}
	slspath := strings.TrimRight(strings.ReplaceAll(sls, ".", "/"), "/")
	if tmplpath != "" {
		template := tmplpath
		switch {
		case sls == "":
			if i := strings.LastIndex(template, "/"); i >= 0 {
				template = template[i+1:]
			}
		case strings.HasSuffix(template, slspath+".sls"):
			template = template[len(template)-(4+len(slspath)):]
		case strings.HasSuffix(template, slspath+"/init.sls"):
			template = template[len(template)-(9+len(slspath)):]
		}
		slspath = ""
		if i := strings.LastIndex(template, "/"); i >= 0 {
			slspath = template[:i]
		}
		tpldir := slspath
		if tpldir == "" {
			tpldir = "."
		}
		out["tplpath"] = tmplpath
		out["tplfile"] = template
		out["tpldir"] = tpldir
		out["tpldot"] = strings.ReplaceAll(slspath, "/", ".")
	}
	out["slspath"] = slspath
	out["slsdotpath"] = strings.ReplaceAll(slspath, "/", ".")
	out["slscolonpath"] = strings.ReplaceAll(slspath, "/", ":")
	out["sls_path"] = strings.ReplaceAll(slspath, "/", "_")
	return out
}

// rootsLoader resolves include/import names against the file roots:
// "./x" and "../x" relative to the importing template's directory.
type rootsLoader struct{ rc *render.Context }

func (l *rootsLoader) Load(name, parent string) (string, string, error) {
	resolved := name
	first, _, _ := strings.Cut(name, "/")
	if first == "." || first == ".." {
		base := "."
		if parent != "" && !strings.HasPrefix(parent, "/") {
			base = path.Dir(parent)
		} else if l.rc.Source != "" {
			base = path.Dir(l.rc.Source)
		}
		resolved = path.Clean(base + "/" + name)
		if strings.HasPrefix(resolved, "../") || resolved == ".." {
			return "", "", fmt.Errorf("%s: %w", name, jinja.ErrNotFound)
		}
	}
	resolved = strings.TrimPrefix(resolved, "salt://")
	data, _, err := l.rc.Loader.ReadFile(l.rc.Saltenv, resolved)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", name, jinja.ErrNotFound)
	}
	return string(data), resolved, nil
}

// saltObject is the `salt` template variable: salt['mod.fun'](...),
// salt.mod.fun(...).
type saltObject struct{ rc *render.Context }

func (s *saltObject) PyTypeName() string { return "salt.utils.templates.AliasedLoader" }

func (s *saltObject) Getitem(key any) (any, bool, error) {
	name, ok := key.(string)
	if !ok || s.rc.Salt == nil {
		return nil, false, nil
	}
	if name == "cmd.run" {
		name = "cmd.shell"
		if _, found := s.rc.Salt(name); !found {
			name = "cmd.run"
		}
	}
	f, found := s.rc.Salt(name)
	if !found {
		return nil, false, nil
	}
	return f, true, nil
}

func (s *saltObject) Getattr(name string) (any, bool) {
	if v, ok, _ := s.Getitem(name); ok {
		return v, true
	}
	return &saltModule{s: s, mod: name}, true
}

type saltModule struct {
	s   *saltObject
	mod string
}

func (m *saltModule) PyTypeName() string { return "salt.loader.lazy.LoaderModule" }

func (m *saltModule) Getattr(name string) (any, bool) {
	v, ok, _ := m.s.Getitem(m.mod + "." + name)
	return v, ok
}

// jinjaError words a template failure as Salt's render_jinja_tmpl does.
func jinjaError(err error, src string, rc *render.Context) error {
	var je *jinja.Error
	if !errors.As(err, &je) {
		return &render.Error{Msg: "Jinja error: " + err.Error(), Err: err}
	}
	line := je.Line
	if len(je.Chain) > 0 {
		line = je.Chain[0].Line
	}
	var ce *execmod.CommandExecutionError
	var ie *execmod.InvocationError
	prefix := "Jinja error: "
	switch {
	case errors.As(err, &ce) || errors.As(err, &ie):
		prefix = "Problem running salt function in Jinja template: "
	case je.Kind == jinja.KindUndefined:
		prefix = "Jinja variable "
	case je.Kind == jinja.KindSyntax || je.Kind == jinja.KindSecurity:
		prefix = "Jinja syntax error: "
	}
	msg := je.Msg
	if je.Err != nil && (ce != nil || ie != nil) {
		msg = je.Err.Error()
	}
	e := &render.Error{Msg: prefix + msg, File: rc.Path, Line: line, Col: je.Col, Err: err}
	if line > 0 {
		e.Buf = src
	}
	return e
}
