package cli

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"brine/internal/config"
	"brine/internal/execmod"
	"brine/internal/fileserver"
	"brine/internal/grains"
	"brine/internal/graph"
	"brine/internal/highstate"
	"brine/internal/pillar"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// Graph runs `brine graph`: it compiles the low chunks a state run would
// execute (state.sls for the SLS given, else state.highstate), resolves
// their requisites and prints the graph as Dot, text (predicted run order
// with __run_num__) or JSON, without running anything. Requisites that
// name nothing and cycles are shown, not fatal: the exit status is 0 when
// the tree compiles, 2 when it does not (or on a usage error).
func Graph(args []string, stdout, stderr io.Writer) int {
	var (
		configDir, saltenv, id, grainsFile, fileRoot, format, kinds, logLevel string
		pillarRoots                                                           []string
	)
	fs := pflag.NewFlagSet("brine graph", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVarP(&configDir, "config-dir", "c", "/etc/salt", "directory holding the minion config file")
	fs.StringVar(&saltenv, "saltenv", "", "salt environment of the SLS given")
	fs.StringVar(&id, "id", "", "minion id the top file is matched for")
	fs.StringVar(&grainsFile, "grains-file", "", "YAML or JSON file of grains to use instead of collecting them")
	fs.StringVar(&fileRoot, "file-root", "", "set file_roots to {base: [DIR]}")
	fs.StringArrayVar(&pillarRoots, "pillar-root", nil, "set pillar_roots to {base: [DIR, ...]} (repeatable)")
	fs.StringVar(&format, "format", "text", "output format: dot, text or json")
	fs.StringVar(&kinds, "kinds", "", "comma-separated requisite kinds to show (default all: "+strings.Join(graph.Kinds, ",")+")")
	fs.StringVarP(&logLevel, "log-level", "l", "quiet", "console log level")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: brine graph [options] [SLS ...]\n\nShow the requisite graph and predicted run order of a state run without running it.\nWithout SLS, the highstate of the minion is shown.\n\nOptions:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if format != "text" && format != "dot" && format != "json" {
		fmt.Fprintf(stderr, "brine graph: unknown format %q (dot, text or json)\n", format)
		return exitUsage
	}
	var kindList []string
	if kinds != "" {
		for _, k := range strings.Split(kinds, ",") {
			k = strings.TrimSpace(k)
			known := false
			for _, g := range graph.Kinds {
				known = known || g == k
			}
			if !known {
				fmt.Fprintf(stderr, "brine graph: unknown requisite kind %q (known: %s)\n", k, strings.Join(graph.Kinds, ", "))
				return exitUsage
			}
			kindList = append(kindList, k)
		}
	}
	overrides := value.MapOf("file_client", "local", "local", true)
	if id != "" {
		overrides.Set("id", id)
	}
	if fileRoot != "" {
		overrides.Set("file_roots", value.MapOf("base", value.NewList(absPath(fileRoot))))
	}
	if len(pillarRoots) > 0 {
		l := value.NewList()
		for _, p := range pillarRoots {
			l.Append(absPath(p))
		}
		overrides.Set("pillar_roots", value.MapOf("base", l))
	}
	if saltenv != "" {
		overrides.Set("saltenv", saltenv)
	}
	cfg, err := config.Load(configDir, overrides)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	setupLogging(logLevel, stderr)
	if cfg.ID() == "" {
		host, _ := os.Hostname()
		cfg.Set("id", host)
	}
	ctx, err := graphContext(cfg, grainsFile)
	if err != nil {
		fmt.Fprintf(stderr, "brine graph: %v\n", err)
		return exitUsage
	}
	r := highstate.NewRun(ctx, value.NewMap(0))
	sls := fs.Args()
	if len(sls) > 0 && r.Saltenv == "" {
		r.Saltenv = "base"
	}
	chunks, notes, err := graph.Compile(r, sls)
	if err != nil {
		fmt.Fprintf(stderr, "brine graph: %v\n", err)
		return exitUsage
	}
	g := graph.Build(chunks, graph.Options{Kinds: kindList, DisabledRequisites: graph.DisabledRequisites(cfg.Opts())})
	g.Notes = notes
	switch format {
	case "dot":
		err = g.WriteDot(stdout)
		for _, n := range notes {
			fmt.Fprintf(stderr, "note: %s\n", strings.TrimSpace(n))
		}
	case "json":
		err = g.WriteJSON(stdout)
	default:
		err = g.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	return exitOK
}

// graphContext builds the minion context a compile needs: options, grains
// (from grainsFile when given), pillar, file server.
func graphContext(cfg *config.Config, grainsFile string) (*execmod.Context, error) {
	ctx := execmod.NewContext()
	ctx.Opts = cfg.Opts()
	if grainsFile != "" {
		raw, err := os.ReadFile(grainsFile)
		if err != nil {
			return nil, err
		}
		v, err := yamlload.SafeLoad(raw, grainsFile)
		g, ok := v.(*value.Map)
		if err != nil || !ok && v != nil {
			return nil, fmt.Errorf("%s: not a mapping of grains: %v", grainsFile, err)
		}
		if g == nil {
			g = value.NewMap(0)
		}
		if !g.Has("id") {
			g.Set("id", cfg.ID())
		}
		ctx.Grains = g
	} else {
		g, gerr := grains.Collect(cfg.Opts())
		if gerr != nil {
			slog.Warn(fmt.Sprintf("Bad syntax in grains file! Skipping. (%s)", gerr))
		}
		ctx.Grains = g
	}
	ctx.Saltenv = cfg.Saltenv()
	ctx.Pillarenv = cfg.Pillarenv()
	ctx.Files = &execmod.CachedFiles{Src: fileserver.New(cfg.Map("file_roots")), Cachedir: cfg.Cachedir()}
	ctx.SetService("config", cfg)
	svc := pillar.Service{Renderers: pillar.Renderers{Salt: ctx.Callable, Services: map[string]any{"execmod": ctx}}}
	ctx.SetService("pillar", svc)
	pil, err := compilePillar(nil, ctx, svc, cfg)
	if err != nil {
		return nil, fmt.Errorf("pillar failed to compile: %w", err)
	}
	ctx.Pillar = pil
	if err := execmod.RunSetups(ctx); err != nil {
		return nil, err
	}
	return ctx, nil
}
