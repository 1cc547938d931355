package pyext

import (
	"fmt"
	"log/slog"

	"brine/internal/execmod"
	"brine/internal/grains"
	"brine/internal/value"
)

// AutoSync is the sync a highstate performs after matching the top file
// (Salt's load_dynamic, unless autoload_dynamic_modules is False):
// saltutil.sync_all for the matched environments, then, when custom grains
// came in, the grains collected again, so templates see them (the top
// file was already matched without them). It reports whether the grains
// changed (the caller compiles the pillar again then).
func AutoSync(ctx *execmod.Context, envs []string) (bool, error) {
	if v, ok := ctx.Opts.Get("autoload_dynamic_modules"); ok && !value.Truthy(v) {
		return false, nil
	}
	list := value.NewList()
	for _, e := range envs {
		list.Append(e)
	}
	ret, err := ctx.Call("saltutil.sync_all", []any{list}, value.MapOf("refresh", false))
	if err != nil {
		return false, err
	}
	m, _ := ret.(*value.Map)
	if m == nil {
		return false, nil
	}
	g, _ := m.Get("grains")
	if l, ok := g.(*value.List); !ok || l.Len() == 0 {
		return false, nil
	}
	grains.Refresh()
	fresh, err := grains.Collect(ctx.Opts)
	if err != nil {
		slog.Warn(fmt.Sprintf("Bad syntax in grains file! Skipping. (%s)", err))
	}
	ctx.Grains = fresh
	if s, ok := ctx.Service(serviceName).(*session); ok && s.w != nil {
		if _, err := s.w.Request(value.MapOf("op", "init", "grains", fresh)); err != nil {
			return true, err
		}
	}
	return true, nil
}

// RefreshData sends the run's current grains and pillar to the worker, if
// one runs (after the pillar was compiled again).
func RefreshData(ctx *execmod.Context) error {
	s, ok := ctx.Service(serviceName).(*session)
	if !ok || s.w == nil {
		return nil
	}
	_, err := s.w.Request(value.MapOf("op", "init", "grains", ctx.Grains, "pillar", ctx.Pillar))
	return err
}
