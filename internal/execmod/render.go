package execmod

import (
	"path/filepath"

	"brine/internal/render"
)

// RenderContext returns a render.Context for a template of saltenv, wired
// to this run: templates' `salt` calls functions through c, they see c's
// grains, pillar and opts, and includes read through c.Files. The
// execution context itself is available to renderers as
// Services["execmod"].
func (c *Context) RenderContext(saltenv string) *render.Context {
	rc := &render.Context{
		Saltenv:  saltenv,
		Salt:     c.Callable,
		Grains:   c.Grains,
		Pillar:   c.Pillar,
		Opts:     c.Opts,
		Services: map[string]any{"execmod": c},
		Registry: c.Renderers,
	}
	if c.Files != nil {
		rc.Loader = c.Files
	}
	return rc
}

// FromRender returns the execution context a render.Context was built
// from by RenderContext, or nil.
func FromRender(rc *render.Context) *Context {
	if rc == nil {
		return nil
	}
	c, _ := rc.Services["execmod"].(*Context)
	return c
}

// CachedFiles presents a FileSource the way Salt's local file client does:
// files keep their content, but their local path is the minion's cached
// copy, cachedir/files/<saltenv>/<path> (what templates see as tplpath).
type CachedFiles struct {
	Src      FileSource
	Cachedir string
}

// ReadFile reads path of saltenv from Src and reports its cache path.
func (f *CachedFiles) ReadFile(saltenv, path string) ([]byte, string, error) {
	data, _, err := f.Src.ReadFile(saltenv, path)
	if err != nil {
		return nil, "", err
	}
	return data, filepath.Join(f.Cachedir, "files", saltenv, filepath.FromSlash(path)), nil
}
