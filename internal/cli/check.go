package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"brine/internal/check"
	"brine/internal/diag"
	"brine/internal/execmod"
	"brine/internal/pillar"
	"brine/internal/value"
)

// Exit codes of brine check.
const (
	checkClean    = 0
	checkWarnings = 1 // warnings only, with --strict
	checkErrors   = 2
)

// checkFlags are brine check's options.
type checkFlags struct {
	tree                        treeOptions
	format                      string
	strict, noColor, forceColor bool
	all                         bool
}

// checkFlagSet defines brine check's flags on f.
func checkFlagSet(f *checkFlags) *pflag.FlagSet {
	fs := pflag.NewFlagSet("brine check", pflag.ContinueOnError)
	f.tree.register(fs)
	fs.StringVar(&f.format, "format", "text", "output format: text or json")
	fs.BoolVar(&f.strict, "strict", false, "exit with status 1 when there are warnings only")
	fs.BoolVar(&f.all, "all", false, "check every SLS under the file roots, not only those the top file reaches")
	fs.BoolVar(&f.noColor, "no-color", false, "disable coloured output")
	fs.BoolVar(&f.forceColor, "force-color", false, "colour the output even when not on a terminal")
	return fs
}

// Check runs `brine check`: it compiles the state tree as
// state.show_highstate and state.show_sls would and prints every problem
// found as a diagnostic. The exit status is 0 when clean, 1 for warnings
// only with --strict, 2 for errors (and for usage errors).
func Check(args []string, stdout, stderr io.Writer) int {
	var f checkFlags
	fs := checkFlagSet(&f)
	if rc, ok := parseCommand("check", fs, args, stdout, stderr); !ok {
		return rc
	}
	opts, format, strict, noColor, forceColor, all := f.tree, f.format, f.strict, f.noColor, f.forceColor, f.all
	if format != "text" && format != "json" {
		fmt.Fprintf(stderr, "brine check: unknown format %q (text or json)\n", format)
		return checkErrors
	}
	if configDirMissing(opts.configDir, stderr) {
		fmt.Fprintln(stderr, "brine check: no configuration to check the tree with (give -c DIR holding a minion file)")
		return checkErrors
	}
	cfg, err := opts.config(stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return checkErrors
	}
	ctx, svc, err := opts.context(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "brine check: %v\n", err)
		return checkErrors
	}
	var pre diag.Diagnostics
	var pfails []pillar.RenderFailure
	svc.OnRenderError = func(pf pillar.RenderFailure) { pfails = append(pfails, pf) }
	pil, err := compilePillar(nil, ctx, svc, cfg)
	if err != nil {
		pre = append(pre, &diag.Diagnostic{Summary: "Pillar failed to compile", Detail: err.Error()})
		pil = value.NewMap(0)
	}
	ctx.Pillar = pil
	var pillarSrc diag.Sources
	pillarFiles := map[string]bool{}
	if len(pfails) > 0 {
		var ds diag.Diagnostics
		ds, pillarSrc = pillarDiagnostics(ctx, pfails)
		pre = append(pre, ds...)
		for _, d := range ds {
			if d.Subject != nil {
				pillarFiles[d.Subject.File] = true
			}
		}
	}
	if err := execmod.RunSetups(ctx); err != nil {
		fmt.Fprintln(stderr, err)
		return checkErrors
	}
	cwd, _ := os.Getwd()
	res := check.Run(check.Options{Ctx: ctx, SLS: fs.Args(), Saltenv: opts.saltenv, BaseDir: cwd, All: all})
	ds := pre
	for _, d := range res.Diags {
		if len(pfails) == 0 || d.Summary != check.PillarFailed {
			ds = append(ds, d)
		}
	}
	src := res.Sources()
	if pillarSrc != nil {
		src = func(file string) (string, bool) {
			if pillarFiles[file] {
				return pillarSrc(file) // nothing with pillar_safe_render_error
			}
			return res.Sources()(file)
		}
	}

	if format == "json" {
		if err := diag.WriteJSON(stdout, ds, src); err != nil {
			fmt.Fprintln(stderr, err)
			return checkErrors
		}
	} else {
		color := useColor(stdout, forceColor, noColor)
		for i, d := range ds {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			_ = diag.Print(stdout, d, src, diag.TextOptions{Color: color})
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
		nsls, nfiles, nstates := res.Counts()
		fmt.Fprintf(stdout, "Checked %d SLS (%s, %s).\n", nsls, plural(nfiles, "file"), plural(nstates, "state"))
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

// plural formats n with noun, adding an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
