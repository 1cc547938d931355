package pyext

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"brine/internal/execmod"
	"brine/internal/render"
	"brine/internal/value"
)

func init() {
	render.RegisterData("py", renderPy,
		"Salt's py renderer: imports the file (re-read from disk, so a preceding renderer's output is ignored), sets the dunders (__salt__, __grains__, __pillar__, __opts__, __env__, __sls__ and their plain names) and returns what run() returns. Needs python3.")
}

// execContext finds the run's execmod.Context among the render services.
func execContext(rc *render.Context) (*execmod.Context, error) {
	if rc != nil {
		if c, ok := rc.Services["execmod"].(*execmod.Context); ok {
			return c, nil
		}
	}
	return nil, fmt.Errorf("the py renderer needs a minion run")
}

func renderPy(_ string, rc *render.Context, _ string) (any, error) {
	ctx, err := execContext(rc)
	if err != nil {
		return nil, err
	}
	if rc.Path == "" {
		return nil, fmt.Errorf("the py renderer needs a file")
	}
	if err := ensureCached(rc); err != nil {
		return nil, err
	}
	w, err := WorkerFor(ctx, rc.Path)
	if err != nil {
		return nil, err
	}
	msg := value.MapOf("op", "render_py", "path", rc.Path, "saltenv", rc.Saltenv, "sls", rc.SLS)
	if rc.Pillar != nil {
		msg.Set("pillar", rc.Pillar)
	}
	if rc.Grains != nil {
		msg.Set("grains", rc.Grains)
	}
	ret, err := w.Request(msg)
	if err != nil {
		return nil, err
	}
	m, _ := ret.(*value.Map)
	if m == nil {
		return nil, fmt.Errorf("the python worker gave no result for %s", rc.Path)
	}
	if v, ok := m.Get("import_error"); ok {
		// a failure while importing: Salt's generic "render error" form
		return nil, fmt.Errorf("%v\n%s", v, str(m, "tb"))
	}
	if _, ok := m.Get("run_error"); ok {
		// an exception inside run(): Salt's SaltRenderError with the traceback
		return nil, &render.Error{Msg: str(m, "run_error"), File: rc.Path}
	}
	data, _ := m.Get("data")
	return data, nil
}

// ensureCached makes sure the file Salt would import (its copy in the
// minion's file cache, rc.Path) exists with the template's original
// content: the py renderer reads the file itself, not what a preceding
// renderer produced.
func ensureCached(rc *render.Context) error {
	if _, err := os.Stat(rc.Path); err == nil {
		if rc.Loader == nil || rc.Source == "" {
			return nil
		}
	}
	if rc.Loader == nil || rc.Source == "" {
		return fmt.Errorf("%s: no such file", rc.Path)
	}
	data, _, err := rc.Loader.ReadFile(rc.Saltenv, rc.Source)
	if err != nil {
		return err
	}
	if old, err := os.ReadFile(rc.Path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(rc.Path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(rc.Path, data, 0o644)
}
