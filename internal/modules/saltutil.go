package modules

// saltutil.go is the part of salt/modules/saltutil.py brine has:
// refresh_pillar, refresh_grains and the sync_* family.

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"brine/internal/execmod"
	"brine/internal/grains"
	"brine/internal/value"
)

func init() {
	execmod.Register("saltutil.refresh_pillar", saltutilRefreshPillar,
		"Ask the running minion to refresh its pillar; false when no minion listens (salt-call --local).")
}

// saltutilRefreshPillar fires Salt's pillar_refresh event. A local run has no
// minion process listening for it, so firing fails and, as Salt does under
// salt-call --local, the function returns false. With wait=True Salt waits
// for the completion event, which never comes either: false as well.
func saltutilRefreshPillar(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("refresh_pillar", args, kwargs,
		execmod.Opt("wait", false),
		execmod.Opt("timeout", int64(30)),
		execmod.Opt("clean_cache", true),
	); err != nil {
		return nil, err
	}
	return false, nil
}

func init() {
	execmod.Register("saltutil.refresh_grains", saltutilRefreshGrains,
		"Collect the grains again (and refresh pillar unless refresh_pillar=False); returns True.")
	execmod.Register("saltutil.sync_all", saltutilSyncAll,
		"Sync custom modules from the file roots. brine runs no Python extension modules, so every list is empty; custom module directories found are logged.")
	for _, kind := range syncKinds {
		execmod.Register("saltutil.sync_"+kind, func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
			warnCustomModules(ctx, kind)
			return value.NewList(), nil
		}, "Sync custom "+kind+" from the file roots: brine has no Python extension modules, so nothing is synced.")
	}
}

// syncKinds are the extension kinds sync_all reports, in Salt's order.
var syncKinds = []string{"clouds", "beacons", "modules", "states", "sdb", "grains", "renderers",
	"returners", "output", "utils", "log_handlers", "executors", "proxymodules", "engines",
	"thorium", "serializers", "matchers"}

// saltutilRefreshGrains drops the cached grains and collects them again, so
// later calls in this run see grains written by grains.setval and friends.
func saltutilRefreshGrains(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("refresh_grains", args, kwargs,
		execmod.Opt("refresh_pillar", true),
		execmod.Opt("clean_pillar_cache", false),
	); err != nil {
		return nil, err
	}
	grains.Refresh()
	g, err := grains.Collect(ctx.Opts)
	if err != nil {
		slog.Warn(fmt.Sprintf("Bad syntax in grains file! Skipping. (%s)", err))
	}
	ctx.Grains = g
	return true, nil
}

// saltutilSyncAll returns Salt's sync_all shape: one empty list per kind
// (and pillar, as under file_client: local).
func saltutilSyncAll(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	ret := value.NewMap(len(syncKinds) + 1)
	for _, kind := range syncKinds {
		warnCustomModules(ctx, kind)
		ret.Set(kind, value.NewList())
	}
	if v, _ := ctx.Opts.Get("file_client"); v == "local" {
		ret.Set("pillar", value.NewList())
	}
	return ret, nil
}

// warnCustomModules logs when the file roots hold a _<kind> directory whose
// Python modules brine cannot load.
func warnCustomModules(ctx *execmod.Context, kind string) {
	roots, _ := ctx.Opts.Get("file_roots")
	m, ok := roots.(*value.Map)
	if !ok {
		return
	}
	m.Range(func(env, dirs any) bool {
		l, _ := dirs.(*value.List)
		for _, d := range l.Items {
			if dir, ok := d.(string); ok {
				if st, err := os.Stat(filepath.Join(dir, "_"+kind)); err == nil && st.IsDir() {
					slog.Warn(fmt.Sprintf("brine cannot load custom %s from %s: Python extension modules are not supported", kind, filepath.Join(dir, "_"+kind)))
				}
			}
		}
		return true
	})
}
