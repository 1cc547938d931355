package pyext

import (
	"brine/internal/execmod"
	"brine/internal/render"
	"brine/internal/value"
)

// registerRenderers puts the loaded custom renderers (salt://_renderers)
// into a copy of the run's renderer registry, replacing builtin renderers
// of the same name.
func registerRenderers(ctx *execmod.Context, w *Worker, m *value.Map) {
	var names []string
	for _, f := range listOf(m, "functions") {
		fm, _ := f.(*value.Map)
		if fm == nil {
			continue
		}
		if mod, fun, _ := stringsCut(str(fm, "name")); fun == "render" {
			names = append(names, mod)
		}
	}
	if len(names) == 0 {
		return
	}
	reg := ctx.Renderers
	if reg == nil {
		reg = render.Default
	}
	reg = reg.Clone()
	for _, n := range names {
		reg.Replace(&render.Entry{Name: n, Data: pyRenderer(w, n), Doc: "custom renderer from salt://_renderers"})
	}
	ctx.Renderers = reg
}

// pyRenderer is the render.DataFunc of the custom renderer name: its
// render() gets the text as a StringIO, with saltenv, sls and argline.
func pyRenderer(w *Worker, name string) render.DataFunc {
	return func(src string, rc *render.Context, argline string) (any, error) {
		ex, _ := execContext(rc)
		w, err := workerOf(ex, w)
		if err != nil {
			return nil, err
		}
		return w.Request(value.MapOf("op", "render", "name", name, "src", src,
			"saltenv", rc.Saltenv, "sls", rc.SLS, "argline", argline))
	}
}
