package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"brine/internal/check"
	"brine/internal/diag"
	"brine/internal/execmod"
	"brine/internal/pillar"
	"brine/internal/value"
)

// compileFuns are the state functions whose list return means the run did
// not compile (render, include, compile, requisite or pillar errors). The
// value says where their SLS argument is: the position of mods among the
// positional arguments, or -1 for the highstate.
var compileFuns = map[string]int{
	"state.apply": 0, "state.sls": 0, "state.test": 0,
	"state.show_sls": 0, "state.show_low_sls": 0,
	"state.sls_id": 1, "state.show_sls_id": 1,
	"state.highstate": -1, "state.show_highstate": -1, "state.show_lowstate": -1,
}

// explainCompileFailure prints, on stderr, the diagnostics `brine check`
// gives for the SLS a failed state run named: Salt's own sentences stay on
// stdout, and the user also sees the file, line, source and include chain
// of each problem. It costs nothing unless the run failed to compile, and
// ends with the command that lists every problem of the tree at once.
func explainCompileFailure(ctx *execmod.Context, f *callFlags, fun string, args []any, kwargs *value.Map, ret any, stderr io.Writer) {
	pos, ok := compileFuns[fun]
	if !ok || !isErrorList(ret) {
		return
	}
	if fun == "state.apply" && len(args) == 0 && !kwargs.Has("mods") {
		pos = -1 // state.apply without SLS is the highstate
	}
	sls := slsArgs(args, kwargs, pos)
	saltenv := ""
	if v, ok := kwargs.Get("saltenv"); ok && v != nil {
		saltenv = value.Str(v)
	}
	cwd, _ := os.Getwd()
	res := check.Run(check.Options{Ctx: ctx, SLS: sls, Saltenv: saltenv, BaseDir: cwd})
	var errs diag.Diagnostics
	for _, d := range res.Diags {
		// Pillar errors were shown when the pillar was compiled, with
		// their files and lines.
		if d.Severity != diag.Warning && d.Summary != check.PillarFailed {
			errs = append(errs, d)
		}
	}
	if len(errs) == 0 {
		return
	}
	printDiagnostics(stderr, errs, res.Sources(), useColor(stderr, f.forceColor, f.noColor))
	fmt.Fprintln(stderr)
	cmd := []string{"brine", "check", "-c", shellQuote(f.configDir)}
	if f.fileRoot != "" {
		cmd = append(cmd, "--file-root", shellQuote(f.fileRoot))
	}
	if f.pillarRoot != "" {
		cmd = append(cmd, "--pillar-root", shellQuote(f.pillarRoot))
	}
	if saltenv != "" {
		cmd = append(cmd, "--saltenv", shellQuote(saltenv))
	}
	if f.id != "" {
		cmd = append(cmd, "--id", shellQuote(f.id))
	}
	for _, s := range sls {
		cmd = append(cmd, shellQuote(s))
	}
	fmt.Fprintf(stderr, "The run did not compile. To see every problem at once: %s\n", strings.Join(cmd, " "))
}

// isErrorList reports whether a state function's return is Salt's list of
// error strings.
func isErrorList(ret any) bool {
	l, ok := ret.(*value.List)
	if !ok || len(l.Items) == 0 {
		return false
	}
	for _, it := range l.Items {
		if _, ok := it.(string); !ok {
			return false
		}
	}
	return true
}

// slsArgs returns the SLS a state function was given: mods as a keyword or
// at position pos, a comma-separated string or a list. Nil means the
// highstate.
func slsArgs(args []any, kwargs *value.Map, pos int) []string {
	if pos < 0 {
		return nil
	}
	v, ok := kwargs.Get("mods")
	if !ok && pos < len(args) {
		v, ok = args[pos], true
	}
	if !ok || v == nil {
		return nil
	}
	var out []string
	switch x := v.(type) {
	case *value.List:
		for _, it := range x.Items {
			out = append(out, value.Str(it))
		}
	default:
		for _, s := range strings.Split(value.Str(x), ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// printDiagnostics prints ds, a blank line between two.
func printDiagnostics(w io.Writer, ds diag.Diagnostics, src diag.Sources, color bool) {
	for i, d := range ds {
		if i > 0 {
			fmt.Fprintln(w)
		}
		_ = diag.Print(w, d, src, diag.TextOptions{Color: color})
	}
}

// pillarDiagnostics turns the pillar files that failed to render into
// diagnostics with file and line: each is rendered again as brine check
// renders files, importing from the pillar roots. Salt's pillar output
// only says "Rendering SLS 'x' failed" (and with pillar_safe_render_error,
// the default, not even why, since a template's text may hold secrets):
// with that option on, the diagnostics keep the file, line and kind of
// error and leave out the source line and the message's detail.
func pillarDiagnostics(ctx *execmod.Context, fails []pillar.RenderFailure) (diag.Diagnostics, diag.Sources) {
	safe := true
	if v, ok := ctx.Opts.Get("pillar_safe_render_error"); ok && v != nil {
		safe = value.Truthy(v)
	}
	cwd, _ := os.Getwd()
	var ds diag.Diagnostics
	var srcs []diag.Sources
	for _, pf := range fails {
		what := fmt.Sprintf("pillar SLS %q", pf.SLS)
		if pf.SLS == "" {
			what = "the pillar top file"
		}
		res := check.RenderFile(check.Options{Ctx: ctx, BaseDir: cwd}, pillar.Loader(ctx.Opts), pf.Path, pf.Source, pf.Saltenv, pf.SLS)
		var found diag.Diagnostics
		for _, d := range res.Diags {
			if d.Severity != diag.Warning {
				found = append(found, d)
			}
		}
		if len(found) == 0 {
			// The file renders alone: what failed depends on the compile
			// (pillar seen so far, include defaults). Salt's text then.
			d := &diag.Diagnostic{Summary: "Render error", Subject: &diag.Range{File: relPath(cwd, pf.Path)}}
			if !safe {
				d.Detail = pf.Err.Error()
			}
			found = diag.Diagnostics{d}
		}
		for _, d := range found {
			d.Summary = fmt.Sprintf("Pillar: %s failed to render: %s", what, d.Summary)
			if safe {
				d.Detail = "The source is not shown while pillar_safe_render_error is True (the default): pillar may hold secrets."
			}
			ds = append(ds, d)
		}
		if !safe {
			srcs = append(srcs, res.Sources())
		}
	}
	return ds, func(file string) (string, bool) {
		for _, s := range srcs {
			if text, ok := s(file); ok {
				return text, true
			}
		}
		return "", false
	}
}

// relPath is path relative to base when it lies under it.
func relPath(base, path string) string {
	if rel, err := filepath.Rel(base, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// configDirMissing warns, as salt-call does before anything else, when
// the configuration directory does not exist, and reports it.
func configDirMissing(dir string, stderr io.Writer) bool {
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return false
	}
	fmt.Fprintf(stderr, "WARNING: CONFIG '%s' directory does not exist.\n", dir)
	return true
}
