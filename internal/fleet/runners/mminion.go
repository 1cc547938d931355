package runners

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"brine/internal/execmod"
	"brine/internal/grains"
	"brine/internal/highstate"
	"brine/internal/pillar"
	"brine/internal/value"
)

// MinionID is the id of the master's own minion (Salt's MasterMinion),
// under which orchestration runs and whose pillar it sees: the master's
// id option when set, else the host name with "_master" appended, as
// Salt's master_config does.
func (c *Context) MinionID() string {
	if id := c.optString("id"); id != "" {
		return id
	}
	host, _ := os.Hostname()
	return host + "_master"
}

// masterMinion builds the execution context of the master's own minion:
// the master's options with file_client local and the MinionID, the
// master's grains, its file roots, and an empty pillar (the caller
// compiles one when it needs it, as Salt's state runs do).
func (c *Context) masterMinion() (*execmod.Context, pillar.Service) {
	opts := c.Opts.Copy()
	opts.Set("id", c.MinionID())
	opts.Set("file_client", "local")
	g, err := grains.Collect(opts)
	if err != nil {
		slog.Warn(fmt.Sprintf("Bad syntax in grains file! Skipping. (%s)", err))
	}
	if g == nil {
		g = value.NewMap(0)
	}
	ctx := execmod.NewContext()
	ctx.Opts = opts
	ctx.Grains = g
	ctx.Saltenv = execmod.String(mapGet(opts, "saltenv"))
	ctx.Pillarenv = execmod.String(mapGet(opts, "pillarenv"))
	ctx.Files = &execmod.CachedFiles{Src: highstate.FileRoots(opts), Cachedir: filepath.Join(c.optString("cachedir"), "mminion")}
	svc := pillar.Service{Renderers: pillar.Renderers{Salt: ctx.Callable, Services: map[string]any{"execmod": ctx}}}
	ctx.SetService("pillar", svc)
	ctx.SetService(RunnerService, c)
	return ctx, svc
}

// RunnerService is the execmod.Context service under which a master-side
// run (orchestration) finds its runner context: the salt.* state
// functions reach the master through it.
const RunnerService = "runners.context"

// compilePillar compiles the master minion's pillar from the master's
// pillar_roots.
func compilePillar(ctx *execmod.Context, svc pillar.Service) {
	p, err := svc.Compile(ctx.Opts, ctx.Grains, execmod.String(mapGet(ctx.Opts, "id")), ctx.Saltenv, ctx.Pillarenv, nil, nil)
	if err != nil {
		slog.Error(fmt.Sprintf("Pillar failed to compile: %s", err))
		p = value.NewMap(0)
	}
	ctx.Pillar = p
}
