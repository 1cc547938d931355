package pillar

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"

	"brine/internal/render"
	"brine/internal/value"
)

// TranslateNewlinesArg is the argline a decryption renderer receives when
// a literal `\n` in its input must become a newline first (Salt's
// translate_newlines=True, used for command-line pillar with pillar_enc).
const TranslateNewlinesArg = "translate_newlines=True"

// Renderers builds the RenderFunc and DecryptFunc of a compilation on a
// render registry.
type Renderers struct {
	// Registry holds the renderers; nil means render.Default.
	Registry *render.Registry
	// Salt resolves execution functions for templates' `salt`; nil means
	// none are available.
	Salt render.SaltLookup
	// Services is passed to renderers unchanged (render.Context.Services).
	Services map[string]any
}

func (r Renderers) registry() *render.Registry {
	if r.Registry == nil {
		return render.Default
	}
	return r.Registry
}

// Render returns a RenderFunc rendering files through the registry with
// Salt's compile_template rules: the shebang pipeline, else opts
// renderer, with renderer_whitelist/renderer_blacklist applied; an empty or
// whitespace-only file and an unknown renderer give an empty mapping.
//
// A data renderer given data instead of text (`#!yaml|gpg`) is applied
// to every string in that data, in place, as Salt's gpg renderer walks
// what yaml produced.
func (r Renderers) Render() RenderFunc {
	return func(req *RenderRequest) (any, error) {
		vars, err := includeDefaults(req.Defaults)
		if err != nil {
			return nil, err
		}
		src, err := os.ReadFile(req.Path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return value.NewMap(0), nil
			}
			return nil, err
		}
		if len(src) == 0 {
			return value.NewMap(0), nil
		}
		text, err := render.DecodeUTF8(src)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(text) == "" {
			return value.NewMap(0), nil
		}
		rc := &render.Context{
			Path:         req.Path,
			Source:       strings.TrimPrefix(req.Source, "salt://"),
			SLS:          req.SLS,
			HasSLS:       true,
			Saltenv:      req.Saltenv,
			Salt:         r.Salt,
			Grains:       req.Grains,
			Pillar:       req.Pillar,
			Opts:         req.Opts,
			Vars:         vars,
			Loader:       rootsLoader{req.Opts},
			Registry:     r.Registry,
			PillarRender: true,
			Services:     r.Services,
		}
		pipe, ok := render.Shebang(text)
		if !ok {
			pipe = optString(req.Opts, "renderer")
			if pipe == "" {
				pipe = "jinja|yaml"
			}
		}
		p, err := r.registry().Parse(pipe, stringList(optValue(req.Opts, "renderer_whitelist")), stringList(optValue(req.Opts, "renderer_blacklist")))
		if err != nil {
			var unknown *render.UnknownRendererError
			if errors.As(err, &unknown) {
				slog.Error(fmt.Sprintf("The renderer \"%s\" is not available", unknown.Pipe))
				slog.Warn(r.registry().UnknownWarning(req.Path, unknown))
				return value.NewMap(0), nil
			}
			return nil, err
		}
		return p.Run(text, rc)
	}
}

// Decrypt returns a DecryptFunc running the registry's renderers as Salt's
// decrypt does: the data is walked and the renderer applied to each string,
// mappings and lists changed in place.
func (r Renderers) Decrypt(opts *value.Map) DecryptFunc {
	return func(name string, data any, translateNewlines bool) (any, error) {
		e, ok := r.registry().Lookup(name)
		if !ok || e.Data == nil {
			return nil, ErrNoDecryptRenderer
		}
		rc := &render.Context{Opts: opts, Registry: r.Registry, Salt: r.Salt, Services: r.Services, PillarRender: true}
		arg := ""
		if translateNewlines {
			arg = TranslateNewlinesArg
		}
		return render.WalkStrings(data, func(s string) (any, error) { return e.Data(s, rc, arg) })
	}
}

// rootsLoader reads template imports from pillar_roots.
type rootsLoader struct{ opts *value.Map }

// Loader returns the loader pillar templates import and include from: the
// pillar_roots of opts.
func Loader(opts *value.Map) render.Loader { return rootsLoader{opts} }

// ReadFile finds path in the pillar_roots of saltenv and reads it.
func (l rootsLoader) ReadFile(saltenv, path string) ([]byte, string, error) {
	env := saltenv
	if env == "" {
		env = "base"
	}
	r := newRoots(l.opts, env)
	p := r.findFile(env, strings.TrimPrefix(path, "salt://"))
	if p == "" {
		return nil, "", fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	}
	data, err := os.ReadFile(p)
	return data, p, err
}

func optValue(m *value.Map, k string) any {
	v, _ := m.GetString(k)
	return v
}

// compileTemplateArgs are the parameters Salt's render_pstate passes to
// compile_template by position: an include's defaults naming one of them
// make the call fail.
var compileTemplateArgs = []string{"template", "renderers", "default", "blacklist", "whitelist", "saltenv", "sls"}

// includeDefaults checks an include's defaults the way Salt's call
// compile_template(..., saltenv, sls, **defaults) does: a key naming a
// positional parameter is a TypeError, and "env" is dropped.
func includeDefaults(d *value.Map) (*value.Map, error) {
	if d == nil || d.Len() == 0 {
		return d, nil
	}
	for _, name := range compileTemplateArgs {
		if d.Has(name) {
			return nil, fmt.Errorf("compile_template() got multiple values for argument '%s'", name)
		}
	}
	if d.Has("env") {
		d = d.Copy()
		d.Delete("env")
	}
	return d, nil
}
