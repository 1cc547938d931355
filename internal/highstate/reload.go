package highstate

import (
	"fmt"
	"log/slog"
	"strings"

	"brine/internal/grains"
	"brine/internal/pyext"
	"brine/internal/statemod"
	"brine/internal/value"
)

// refresh is Salt's State.check_refresh, run after each state: with
// reload_grains the grains are collected again, with reload_pillar the
// pillar is compiled again (whether or not the state changed anything);
// either, or reload_modules, reloads the modules when the state changed
// something, as do changes of a file.managed Python module, a
// file.recurse, a file.symlink into a bin directory, and any pkg or pip
// change; force_reload_modules reloads them even without changes. The
// states after it see the new grains, pillar and functions (their own
// arguments were rendered before the run, as in Salt).
func (r *Run) refresh(low, ret *value.Map) *statemod.Registry {
	reload := false
	if v, _ := low.Get("reload_grains"); value.Truthy(v) {
		slog.Debug("Refreshing grains...")
		grains.Refresh()
		g, err := grains.Collect(r.Opts)
		if err != nil {
			slog.Warn(fmt.Sprintf("Bad syntax in grains file! Skipping. (%s)", err))
		}
		r.Ctx.Grains = g
		reload = true
	}
	if v, _ := low.Get("reload_pillar"); value.Truthy(v) {
		slog.Debug("Refreshing pillar...")
		r.recompilePillar()
		reload = true
	}
	if v, _ := ret.Get("changes"); !value.Truthy(v) {
		if v, _ := low.Get("force_reload_modules"); value.Truthy(v) {
			return r.moduleRefresh()
		}
		if reload {
			r.refreshPythonData()
		}
		return nil
	}
	if v, _ := low.Get("reload_modules"); value.Truthy(v) || reload {
		return r.moduleRefresh()
	}
	name := value.Str(lowValue(low, "name"))
	switch value.Str(lowValue(low, "state")) {
	case "file":
		switch value.Str(lowValue(low, "fun")) {
		case "managed":
			for _, ext := range []string{".py", ".pyx", ".pyo", ".pyc", ".so"} {
				if strings.HasSuffix(name, ext) {
					return r.moduleRefresh()
				}
			}
		case "recurse":
			return r.moduleRefresh()
		case "symlink":
			if strings.Contains(name, "bin") {
				return r.moduleRefresh()
			}
		}
	case "pkg", "ports", "pip":
		return r.moduleRefresh()
	}
	return nil
}

func lowValue(low *value.Map, k string) any {
	v, _ := low.Get(k)
	return v
}

// moduleRefresh is Salt's State.module_refresh: the custom modules of the
// extension module cache are loaded again (a Python module written by a
// state becomes callable), and the run goes on with the state registry
// that results.
func (r *Run) moduleRefresh() *statemod.Registry {
	slog.Debug("Refreshing modules...")
	if err := pyext.Reload(r.Ctx, ""); err != nil {
		slog.Warn(fmt.Sprintf("The modules were not reloaded: %s", err))
	}
	r.refreshPythonData()
	return statemod.For(r.Ctx)
}

// refreshPythonData hands the current grains and pillar to the Python
// worker, if the run has one.
func (r *Run) refreshPythonData() {
	if err := pyext.RefreshData(r.Ctx); err != nil {
		slog.Warn(fmt.Sprintf("The Python modules did not get the new grains and pillar: %s", err))
	}
}
