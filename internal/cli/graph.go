package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"brine/internal/config"
	"brine/internal/execmod"
	"brine/internal/graph"
	"brine/internal/highstate"
	"brine/internal/value"
)

// graphFlags are brine graph's options.
type graphFlags struct {
	tree          treeOptions
	format, kinds string
}

// graphFlagSet defines brine graph's flags on f.
func graphFlagSet(f *graphFlags) *pflag.FlagSet {
	fs := pflag.NewFlagSet("brine graph", pflag.ContinueOnError)
	f.tree.register(fs)
	fs.StringVar(&f.format, "format", "text", "output format: dot, text or json")
	fs.StringVar(&f.kinds, "kinds", "", "comma-separated requisite kinds to show (default all: "+strings.Join(graph.Kinds, ",")+")")
	return fs
}

// Graph runs `brine graph`: it compiles the low chunks a state run would
// execute (state.sls for the SLS given, else state.highstate), resolves
// their requisites and prints the graph as Dot, text (predicted run order
// with __run_num__) or JSON, without running anything. Requisites that
// name nothing and cycles are shown, not fatal: the exit status is 0 when
// the tree compiles, 2 when it does not (or on a usage error).
func Graph(args []string, stdout, stderr io.Writer) int {
	var f graphFlags
	fs := graphFlagSet(&f)
	if rc, ok := parseCommand("graph", fs, args, stdout, stderr); !ok {
		return rc
	}
	opts, format, kinds := f.tree, f.format, f.kinds
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
	configDirMissing(opts.configDir, stderr)
	cfg, err := opts.config(stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	ctx, err := graphContext(&opts, cfg)
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

// graphContext builds the minion context a compile needs, pillar
// included: a pillar that does not compile is an error here.
func graphContext(opts *treeOptions, cfg *config.Config) (*execmod.Context, error) {
	ctx, svc, err := opts.context(cfg)
	if err != nil {
		return nil, err
	}
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
