package modules

// slsutil.go is salt/modules/slsutil.py: slsutil.renderer, which runs a
// file or string through the render pipeline.

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"brine/internal/execmod"
	"brine/internal/fileserver"
	"brine/internal/render"
	"brine/internal/value"
)

func init() {
	execmod.Register("slsutil.renderer", slsutilRenderer,
		"Render a file (salt:// URL or absolute path) or string through a renderer pipeline (default_renderer, default jinja|yaml; a #! first line overrides it). Extra keyword arguments are template variables.")
}

// compileTemplateArgs are compile_template's own parameters: they do not
// reach the renderers as template variables.
var compileTemplateArgs = map[string]bool{
	"saltenv": true, "sls": true, "input_data": true, "context": true, "env": true,
	"renderers": true, "default": true, "blacklist": true, "whitelist": true,
	"tmplpath": true, "argline": true, "template": true,
}

func slsutilRenderer(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("renderer", args, kwargs,
		execmod.Opt("path", nil), execmod.Opt("string", nil), execmod.Opt("default_renderer", "jinja|yaml"))
	if err != nil {
		return nil, err
	}
	path, str, pipe := v[0], v[1], execmod.String(v[2])
	if !value.Truthy(path) && !value.Truthy(str) {
		return nil, &execmod.InvocationError{Msg: "Must pass either path or string"}
	}
	saltenv := "base"
	if s, ok := rest.Get("saltenv"); ok && value.Truthy(s) {
		saltenv = execmod.String(s)
	}
	sls := ""
	if s, ok := rest.Get("sls"); ok && s != nil {
		sls = execmod.String(s)
	}
	vars := value.NewMap(rest.Len())
	rest.Range(func(k, val any) bool {
		if ks, _ := k.(string); !compileTemplateArgs[ks] {
			vars.Set(k, val)
		}
		return true
	})
	if c, ok := rest.Get("context"); ok {
		if cm, isMap := c.(*value.Map); isMap {
			vars.Update(cm)
		}
	}

	rc := ctx.RenderContext(saltenv)
	rc.SLS, rc.HasSLS = sls, true
	rc.Vars = vars
	opts := render.Options{
		Default:   pipe,
		Whitelist: optStrings(ctx.Opts, "renderer_whitelist"),
		Blacklist: optStrings(ctx.Opts, "renderer_blacklist"),
	}
	var src []byte
	if value.Truthy(path) {
		p := execmod.String(path)
		data, local, rel, err := getURL(ctx, p, saltenv)
		if err != nil {
			var ce *execmod.CommandExecutionError
			if errors.As(err, &ce) {
				return nil, err
			}
			slog.Error(fmt.Sprintf("Unable to fetch file %s from saltenv %s.", p, saltenv))
			return value.NewMap(0), nil
		}
		src, rc.Path, rc.Source = data, local, rel
	} else {
		src = []byte(execmod.String(str))
		rc.Path = ":string:"
		opts.FromString = true
	}
	out, err := render.Render(src, rc, opts)
	var unknown *render.UnknownRendererError
	if errors.As(err, &unknown) {
		slog.Error(fmt.Sprintf("The renderer %q is not available", unknown.Pipe))
		return value.NewMap(0), nil
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// getURL reads what cp.get_url fetches: a salt:// file of saltenv (its
// local path being the minion's cached copy) or an absolute local path.
func getURL(ctx *execmod.Context, u, saltenv string) (data []byte, local, rel string, err error) {
	if r, env, ok := fileserver.ParseURL(u); ok {
		if env != "" {
			saltenv = env
		}
		if ctx.Files == nil {
			return nil, "", "", fs.ErrNotExist
		}
		data, local, err := ctx.Files.ReadFile(saltenv, r)
		return data, local, r, err
	}
	p := u
	if after, ok := strings.CutPrefix(u, "file://"); ok {
		p = after
	}
	if !filepath.IsAbs(p) {
		return nil, "", "", &execmod.CommandExecutionError{Msg: fmt.Sprintf("Path '%s' is not absolute", p)}
	}
	data, err = os.ReadFile(p)
	return data, p, "", err
}

func optStrings(opts *value.Map, key string) []string {
	v, _ := opts.Get(key)
	l, ok := v.(*value.List)
	if !ok {
		return nil
	}
	out := make([]string, 0, l.Len())
	for _, it := range l.Items {
		out = append(out, value.Str(it))
	}
	return out
}
