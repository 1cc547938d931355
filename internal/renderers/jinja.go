package renderers

// jinja.go is salt/renderers/jinja.py: the jinja text renderer, a thin
// adapter from the render contract to internal/jinjasalt, which holds
// Salt's template context, loader, filters, tags and error wording.

import (
	"brine/internal/execmod"
	"brine/internal/jinjasalt"
	"brine/internal/render"
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
	jc := &jinjasalt.Context{
		Path:    rc.Path,
		Saltenv: rc.Saltenv,
		SLS:     rc.SLS,
		NoSLS:   !rc.HasSLS,
		Grains:  rc.Grains,
		Pillar:  rc.Pillar,
		Opts:    rc.Opts,
		Vars:    rc.Vars,
	}
	if rc.Salt != nil {
		jc.Salt = jinjasalt.Funcs(rc.Salt)
		if ec := execmod.FromRender(rc); ec != nil {
			reg := ec.Registry
			if reg == nil {
				reg = execmod.Default
			}
			jc.SaltModules = reg.HasModule
		}
	}
	if rc.Loader != nil {
		jc.Files = rc.Loader
	}
	out, err := jinjasalt.Render([]byte(src), jc)
	if err != nil {
		// jinjasalt words the message as Salt's SaltRenderError prints it.
		e := &render.Error{Msg: err.Error(), File: rc.Path, Err: err}
		if je, ok := err.(*jinjasalt.Error); ok && je.Err != nil {
			e.Line, e.Col = je.Err.Line, je.Err.Col
		}
		return "", e
	}
	return out, nil
}
