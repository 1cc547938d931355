package cli

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/pflag"

	"brine/internal/config"
	"brine/internal/execmod"
	"brine/internal/grains"
	"brine/internal/highstate"
	"brine/internal/pillar"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// treeOptions are the flags the offline tree tools (check, graph) share:
// where the config and the roots are, and which minion to act as.
type treeOptions struct {
	configDir, saltenv, id, grainsFile, fileRoot, logLevel string
	logFormat                                              string
	pillarRoots                                            []string
}

// register adds the shared flags to fs.
func (o *treeOptions) register(fs *pflag.FlagSet) {
	fs.StringVarP(&o.configDir, "config-dir", "c", "/etc/salt", "directory holding the minion config file")
	fs.StringVar(&o.saltenv, "saltenv", "", "salt environment to use (and of the SLS given)")
	fs.StringVar(&o.id, "id", "", "minion id the top file is matched for")
	fs.StringVar(&o.grainsFile, "grains-file", "", "YAML or JSON file of grains to use instead of collecting them")
	fs.StringVar(&o.fileRoot, "file-root", "", "set file_roots to {base: [DIR]}")
	fs.StringArrayVar(&o.pillarRoots, "pillar-root", nil, "set pillar_roots to {base: [DIR, ...]} (repeatable)")
	fs.StringVarP(&o.logLevel, "log-level", "l", "quiet", "console log level")
	fs.StringVar(&o.logFormat, "log-format", "", "log format: text (Salt's) or json (one object per line)")
}

// config loads the minion config with the flags applied over it, sets up
// logging, and defaults the id to the host name.
func (o *treeOptions) config(stderr io.Writer) (*config.Config, error) {
	overrides := value.MapOf("file_client", "local", "local", true)
	if o.id != "" {
		overrides.Set("id", o.id)
	}
	if o.fileRoot != "" {
		overrides.Set("file_roots", value.MapOf("base", value.NewList(absPath(o.fileRoot))))
	}
	if len(o.pillarRoots) > 0 {
		l := value.NewList()
		for _, p := range o.pillarRoots {
			l.Append(absPath(p))
		}
		overrides.Set("pillar_roots", value.MapOf("base", l))
	}
	if o.saltenv != "" {
		overrides.Set("saltenv", o.saltenv)
	}
	deferLogging()
	cfg, err := config.Load(o.configDir, overrides)
	if err != nil {
		setupLogging(o.logLevel, stderr)
		return nil, err
	}
	if err := setupLoggingConfig(cfg, o.logLevel, o.logFormat, stderr); err != nil {
		return nil, err
	}
	if cfg.ID() == "" {
		host, _ := os.Hostname()
		cfg.Set("id", host)
	}
	return cfg, nil
}

// context builds the minion context a compile needs, all but pillar: the
// options, grains (read from the grains file when one is given, else
// collected), the file server and the pillar service to compile with.
func (o *treeOptions) context(cfg *config.Config) (*execmod.Context, pillar.Service, error) {
	if o.grainsFile == "" {
		ctx, svc := newContext(cfg, collectGrains(cfg))
		return ctx, svc, nil
	}
	g, err := readGrainsFile(o.grainsFile)
	if err != nil {
		return nil, pillar.Service{}, err
	}
	if !g.Has("id") {
		g.Set("id", cfg.ID())
	}
	ctx, svc := newContext(cfg, g)
	return ctx, svc, nil
}

// collectGrains collects the machine's grains with the config's static
// grains over them; a broken grains file is logged and skipped, as Salt does.
func collectGrains(cfg *config.Config) *value.Map {
	start := time.Now()
	g, err := grains.Collect(cfg.Opts())
	if err != nil {
		slog.Warn(fmt.Sprintf("Bad syntax in grains file! Skipping. (%s)", err))
	}
	slog.Debug(fmt.Sprintf("Grains collected (duration_in_ms=%s)", value.Str(float64(time.Since(start).Microseconds())/1000)))
	return g
}

// newContext builds the execution context of a minion run from its config
// and grains: options, environments, the file server, and the services
// functions reach (config, pillar). Pillar itself is compiled by the caller.
func newContext(cfg *config.Config, g *value.Map) (*execmod.Context, pillar.Service) {
	ctx := execmod.NewContext()
	ctx.Opts = cfg.Opts()
	ctx.Grains = g
	ctx.Saltenv = cfg.Saltenv()
	ctx.Pillarenv = cfg.Pillarenv()
	ctx.Files = &execmod.CachedFiles{Src: highstate.FileRoots(cfg.Opts()), Cachedir: cfg.Cachedir()}
	ctx.SetService("config", cfg)
	svc := pillar.Service{Renderers: pillar.Renderers{Salt: ctx.Callable, Services: map[string]any{"execmod": ctx}}}
	ctx.SetService("pillar", svc)
	return ctx, svc
}

// readGrainsFile reads a YAML (or JSON) mapping of grains.
func readGrainsFile(path string) (*value.Map, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v, err := yamlload.SafeLoad(raw, path)
	g, ok := v.(*value.Map)
	if err != nil || !ok && v != nil {
		return nil, fmt.Errorf("%s: not a mapping of grains: %v", path, err)
	}
	if g == nil {
		g = value.NewMap(0)
	}
	return g, nil
}
