package cli

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/pflag"

	"brine/internal/check"
	"brine/internal/config"
	"brine/internal/diag"
	"brine/internal/execmod"
	"brine/internal/fileserver"
	"brine/internal/grains"
	"brine/internal/pillar"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// Exit codes of brine check.
const (
	checkClean    = 0
	checkWarnings = 1 // warnings only, with --strict
	checkErrors   = 2
)

// Check runs `brine check`: it compiles the state tree as
// state.show_highstate and state.show_sls would and prints every problem
// found as a diagnostic. The exit status is 0 when clean, 1 for warnings
// only with --strict, 2 for errors (and for usage errors).
func Check(args []string, stdout, stderr io.Writer) int {
	var (
		configDir, saltenv, id, grainsFile, fileRoot, format, logLevel string
		pillarRoots                                                    []string
		strict, noColor, forceColor                                    bool
	)
	fs := pflag.NewFlagSet("brine check", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVarP(&configDir, "config-dir", "c", "/etc/salt", "directory holding the minion config file")
	fs.StringVar(&saltenv, "saltenv", "", "check only this environment (and the SLS given in it)")
	fs.StringVar(&id, "id", "", "minion id the top file is matched for")
	fs.StringVar(&grainsFile, "grains-file", "", "YAML or JSON file of grains to use instead of collecting them")
	fs.StringVar(&fileRoot, "file-root", "", "set file_roots to {base: [DIR]}")
	fs.StringArrayVar(&pillarRoots, "pillar-root", nil, "set pillar_roots to {base: [DIR, ...]} (repeatable)")
	fs.StringVar(&format, "format", "text", "output format: text or json")
	fs.BoolVar(&strict, "strict", false, "exit with status 1 when there are warnings only")
	fs.BoolVar(&noColor, "no-color", false, "disable coloured output")
	fs.BoolVar(&forceColor, "force-color", false, "colour the output even when not on a terminal")
	fs.StringVarP(&logLevel, "log-level", "l", "quiet", "console log level")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: brine check [options] [SLS ...]\n\nRender and compile the state tree and report every problem found.\n\nOptions:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return checkClean
		}
		return checkErrors
	}
	if format != "text" && format != "json" {
		fmt.Fprintf(stderr, "brine check: unknown format %q (text or json)\n", format)
		return checkErrors
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
		return checkErrors
	}
	setupLogging(logLevel, stderr)
	if cfg.ID() == "" {
		host, _ := os.Hostname()
		cfg.Set("id", host)
	}
	ctx := execmod.NewContext()
	ctx.Opts = cfg.Opts()
	if grainsFile != "" {
		raw, err := os.ReadFile(grainsFile)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return checkErrors
		}
		v, err := yamlload.SafeLoad(raw, grainsFile)
		g, ok := v.(*value.Map)
		if err != nil || !ok && v != nil {
			fmt.Fprintf(stderr, "brine check: %s: not a mapping of grains: %v\n", grainsFile, err)
			return checkErrors
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
	var pre diag.Diagnostics
	pil, err := compilePillar(nil, ctx, svc, cfg)
	if err != nil {
		pre = append(pre, &diag.Diagnostic{Summary: "Pillar failed to compile", Detail: err.Error()})
		pil = value.NewMap(0)
	}
	ctx.Pillar = pil
	if err := execmod.RunSetups(ctx); err != nil {
		fmt.Fprintln(stderr, err)
		return checkErrors
	}
	cwd, _ := os.Getwd()
	res := check.Run(check.Options{Ctx: ctx, SLS: fs.Args(), Saltenv: saltenv, BaseDir: cwd})
	ds := append(pre, res.Diags...)

	if format == "json" {
		if err := diag.WriteJSON(stdout, ds, res.Sources()); err != nil {
			fmt.Fprintln(stderr, err)
			return checkErrors
		}
	} else {
		color := useColor(stdout, forceColor, noColor)
		for i, d := range ds {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			_ = diag.Print(stdout, d, res.Sources(), diag.TextOptions{Color: color})
		}
		nerr, nwarn := 0, 0
		for _, d := range ds {
			if d.Severity == diag.Warning {
				nwarn++
			} else {
				nerr++
			}
		}
		if len(ds) > 0 {
			fmt.Fprintln(stdout)
		}
		if nerr == 0 && nwarn == 0 {
			fmt.Fprintln(stdout, "Success! The state tree is valid.")
		} else {
			fmt.Fprintf(stdout, "%d error(s), %d warning(s).\n", nerr, nwarn)
		}
	}
	switch {
	case ds.HasErrors():
		return checkErrors
	case len(ds) > 0 && strict:
		return checkWarnings
	}
	return checkClean
}
