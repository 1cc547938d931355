package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"brine/internal/check"
	"brine/internal/diag"
	"brine/internal/execmod"
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
		if d.Severity != diag.Warning {
			errs = append(errs, d)
		}
	}
	if len(errs) == 0 {
		return
	}
	color := useColor(stderr, f.forceColor, f.noColor)
	for i, d := range errs {
		if i > 0 {
			fmt.Fprintln(stderr)
		}
		_ = diag.Print(stderr, d, res.Sources(), diag.TextOptions{Color: color})
	}
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
