// Package cli is brine's command line: `brine call`, which mirrors
// salt-call (same flags, same argument typing, same output and return
// codes); `brine check`, which reports the problems of a state tree
// without running it; and the fleet commands (master, minion, key, run,
// jobs) that mirror Salt's master, minion, salt-key, salt and salt-run.
package cli

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"brine/internal/config"
	"brine/internal/execmod"
	"brine/internal/output"
	"brine/internal/pillar"
	"brine/internal/render"
	"brine/internal/value"
	"brine/internal/version"
	"brine/internal/yamlload"
)

// Exit codes of salt-call.
const (
	exitOK      = 0
	exitGeneric = 1
	exitUsage   = 2
	exitMissing = 255 // sys.exit(-1) for an unknown function
)

// Main runs the brine command line with args (without the program name)
// and returns the process exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	defer startProfiles(stderr)()
	if len(args) == 0 {
		fmt.Fprint(stderr, mainUsage())
		return exitUsage
	}
	if c := lookupCommand(args[0]); c != nil {
		return c.run(args[1:], stdout, stderr)
	}
	switch args[0] {
	case "help":
		return Help(args[1:], stdout, stderr)
	case "-h", "--help":
		fmt.Fprint(stdout, mainUsage())
		return exitOK
	case "version", "--version":
		fmt.Fprintln(stdout, version.Read())
		return exitOK
	case "--versions-report", "-V":
		fmt.Fprint(stdout, version.Read().Report())
		return exitOK
	case "completion":
		return Completion(args[1:], stdout, stderr)
	case "man":
		return Man(args[1:], stdout, stderr)
	case completeCommand:
		return complete(args[1:], stdout)
	}
	fmt.Fprintf(stderr, "brine: unknown command %q\n\n%s", args[0], mainUsage())
	return exitUsage
}

// callFlags are salt-call's options that brine supports.
type callFlags struct {
	configDir          string
	local              bool
	fileRoot           string
	pillarRoot         string
	id                 string
	out                string
	outIndent          int
	outFile            string
	outFileAppend      bool
	logLevel           string
	logFormat          string
	retcodePassthrough bool
	stateOutput        string
	stateVerbose       string
	saltenv            string
	pillarenv          string
	forceColor         bool
	noColor            bool
	cachedir           string
	grainsOnly         bool
	doc                bool
	version            bool
	versionsReport     bool
}

func newFlagSet(f *callFlags, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet("brine call", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SetInterspersed(true)
	fs.StringVarP(&f.configDir, "config-dir", "c", "/etc/salt", "directory holding the minion config file")
	fs.BoolVar(&f.local, "local", false, "run without a master (file_client: local)")
	fs.StringVar(&f.fileRoot, "file-root", "", "set file_roots to {base: [DIR]}")
	fs.StringVar(&f.pillarRoot, "pillar-root", "", "set pillar_roots to {base: [DIR]}")
	fs.StringVar(&f.id, "id", "", "minion id")
	fs.StringVar(&f.out, "out", "", "outputter: json, yaml, nested, raw, txt, quiet, highstate")
	fs.StringVar(&f.out, "output", "", "same as --out")
	fs.IntVar(&f.outIndent, "out-indent", 0, "indentation of the json and yaml outputters (negative: none)")
	fs.IntVar(&f.outIndent, "output-indent", 0, "same as --out-indent")
	fs.StringVar(&f.outFile, "out-file", "", "write the output to this file")
	fs.StringVar(&f.outFile, "output-file", "", "same as --out-file")
	fs.BoolVar(&f.outFileAppend, "out-file-append", false, "append to --out-file")
	fs.StringVarP(&f.logLevel, "log-level", "l", "", "console log level: all, garbage, trace, debug, info, warning, error, critical, quiet")
	fs.StringVar(&f.logFormat, "log-format", "", "log format: text (Salt's) or json (one object per line)")
	fs.BoolVar(&f.retcodePassthrough, "retcode-passthrough", false, "exit with the function's return code")
	fs.StringVar(&f.stateOutput, "state-output", "", "state_output: full, terse, mixed, changes, ...")
	fs.StringVar(&f.stateOutput, "state_output", "", "same as --state-output")
	fs.StringVar(&f.stateVerbose, "state-verbose", "", "state_verbose: True or False")
	fs.StringVar(&f.stateVerbose, "state_verbose", "", "same as --state-verbose")
	fs.StringVar(&f.saltenv, "saltenv", "", "salt environment")
	fs.StringVar(&f.pillarenv, "pillarenv", "", "pillar environment")
	fs.BoolVar(&f.forceColor, "force-color", false, "force coloured output")
	fs.BoolVar(&f.forceColor, "force-colour", false, "same as --force-color")
	fs.BoolVar(&f.noColor, "no-color", false, "disable coloured output")
	fs.BoolVar(&f.noColor, "no-colour", false, "same as --no-color")
	fs.StringVar(&f.cachedir, "cachedir", "", "cache directory")
	fs.BoolVarP(&f.grainsOnly, "grains", "g", false, "print the grains and exit")
	fs.BoolVarP(&f.doc, "doc", "d", false, "print the documentation of the functions starting with FUNCTION (all without one)")
	fs.BoolVar(&f.version, "version", false, "print brine's version and the Salt release it follows")
	fs.BoolVarP(&f.versionsReport, "versions-report", "V", false, "print brine's, its dependencies' and the system's versions, as Salt's report")
	for _, hidden := range []string{"output", "output-indent", "output-file", "state_output", "state_verbose", "force-colour", "no-colour"} {
		_ = fs.MarkHidden(hidden)
	}
	return fs
}

// Call runs `brine call`.
func Call(args []string, stdout, stderr io.Writer) int {
	var f callFlags
	fs := newFlagSet(&f, stderr)
	if rc, ok := parseCommand("call", fs, args, stdout, stderr); !ok {
		return rc
	}
	rest := fs.Args()
	switch {
	case f.version:
		fmt.Fprintln(stdout, version.Read())
		return exitOK
	case f.versionsReport:
		fmt.Fprint(stdout, version.Read().Report())
		return exitOK
	}
	if f.doc {
		prefix := ""
		if len(rest) > 0 {
			prefix = rest[0]
		}
		reg := execmod.Default
		for _, n := range reg.Names() {
			if doc := reg.Entry(n).Doc; doc != "" && strings.HasPrefix(n, prefix) {
				fmt.Fprintf(stdout, "%s:\n%s\n\n", n, doc)
			}
		}
		return exitOK
	}
	configDirMissing(f.configDir, stderr)
	if len(rest) == 0 && !f.grainsOnly {
		fmt.Fprintln(stderr, "Usage: brine call [options] FUNCTION [ARG ...] [KEY=VALUE ...]\n\nbrine call: error: Requires function, --grains or --doc")
		return exitUsage
	}

	overrides := value.NewMap(8)
	if f.local {
		overrides.Set("file_client", "local")
		overrides.Set("local", true)
	}
	if f.id != "" {
		overrides.Set("id", f.id)
	}
	// salt-call makes --file-root and --pillar-root absolute.
	if f.fileRoot != "" {
		overrides.Set("file_roots", value.MapOf("base", value.NewList(absPath(f.fileRoot))))
	}
	if f.pillarRoot != "" {
		overrides.Set("pillar_roots", value.MapOf("base", value.NewList(absPath(f.pillarRoot))))
	}
	if f.saltenv != "" {
		overrides.Set("saltenv", f.saltenv)
	}
	if f.pillarenv != "" {
		overrides.Set("pillarenv", f.pillarenv)
	}
	if f.stateOutput != "" {
		overrides.Set("state_output", f.stateOutput)
	}
	switch f.stateVerbose {
	case "":
	case "True", "true":
		overrides.Set("state_verbose", true)
	case "False", "false":
		overrides.Set("state_verbose", false)
	default:
		overrides.Set("state_verbose", f.stateVerbose)
	}
	if f.cachedir != "" {
		overrides.Set("cachedir", f.cachedir)
	}
	if f.retcodePassthrough {
		overrides.Set("retcode_passthrough", true)
	}
	if f.out != "" {
		overrides.Set("output", f.out)
	}
	if fs.Changed("out-indent") || fs.Changed("output-indent") {
		overrides.Set("output_indent", int64(f.outIndent))
	}
	if f.outFile != "" {
		overrides.Set("output_file", f.outFile)
	}
	if f.forceColor {
		overrides.Set("force_color", true)
	}
	if f.noColor {
		overrides.Set("no_color", true)
	}
	if f.logLevel != "" {
		overrides.Set("log_level", f.logLevel)
	}

	deferLogging()
	cfg, err := config.Load(f.configDir, overrides)
	if err != nil {
		setupLogging(f.logLevel, stderr)
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	if err := setupLoggingConfig(cfg, "", f.logFormat, stderr); err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	// Salt's loader refuses to start when the default renderer pipeline
	// names nothing usable.
	if err := render.Default.CheckDefault(cfg.Renderer(), cfg.Strings("renderer_whitelist"), cfg.Strings("renderer_blacklist")); err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	if cfg.ID() == "" {
		host, _ := os.Hostname()
		cfg.Set("id", host)
	}

	ctx, svc := newContext(cfg, collectGrains(cfg))
	ctx.Test = cfg.Test()
	// Fleet mode (minion.go): without --local, a minion talks to its master.
	sess, closeSess, err := remoteSession(f.local, cfg, ctx.Grains)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	defer closeSess()

	p := &printer{cfg: cfg, flags: &f, stdout: stdout, stderr: stderr}
	if f.grainsOnly {
		return p.print(value.MapOf("local", ctx.Grains), "", 0)
	}
	// salt-call compiles the minion's pillar at start-up; templates and
	// functions see it as __pillar__.
	var pfails []pillar.RenderFailure
	svc.OnRenderError = func(pf pillar.RenderFailure) { pfails = append(pfails, pf) }
	pstart := time.Now()
	pil, err := compilePillar(sess, ctx, svc, cfg)
	if err != nil {
		slog.Error(fmt.Sprintf("Pillar failed to compile: %s", err))
		pil = value.NewMap(0)
	}
	slog.Debug(fmt.Sprintf("Pillar compiled (duration_in_ms=%s)", value.Str(float64(time.Since(pstart).Microseconds())/1000)))
	ctx.Pillar = pil
	if len(pfails) > 0 {
		ds, src := pillarDiagnostics(ctx, pfails)
		printDiagnostics(stderr, ds, src, useColor(stderr, f.forceColor, f.noColor))
	}
	if err := execmod.RunSetups(ctx); err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}

	fun := rest[0]
	fn, ok := ctx.Lookup(fun)
	if !ok {
		// salt-call shows the docs of the functions starting with the name
		// given (`brine call test` lists test.*), else an error.
		if docs := docsMatching(ctx.Registry, fun); docs.Len() > 0 {
			docs.Set(fun, ctx.Registry.MissingFunString(fun))
			return p.print(value.MapOf("local", docs), "nested", 0)
		}
		fmt.Fprintln(stderr, ctx.Registry.MissingMessage(fun))
		return exitMissing
	}
	cargs, ckwargs := yamlload.ParseInput(rest[1:], nil)
	if err := execmod.CheckKwargs(ctx.Registry, fun, ckwargs); err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	jid := addPubData(ckwargs, fun)
	defer writeCallProc(cfg, fun, jid, stderr)()
	// what ran before the function (the pillar's rendering) used a loader
	// of its own in Salt: its retcode is not the function's
	ctx.SetRetcode(0)
	ret, err := fn(ctx, cargs, ckwargs)
	if err != nil {
		// salt-call: a TypeError (SaltInvocationError is one) prints
		// the message, then the function's doc as its usage.
		var inv *execmod.InvocationError
		if errors.As(err, &inv) {
			fmt.Fprintf(stderr, "\nPassed invalid arguments: %s.\n\nUsage:\n", inv.Msg)
			if e := ctx.Registry.Entry(fun); e != nil {
				fmt.Fprintln(stdout, e.Doc)
			}
			return exitGeneric
		}
		if c, ok := err.(interface{ SaltExceptionClass() string }); ok && c.SaltExceptionClass() == "salt.exceptions.CommandNotFoundError" {
			fmt.Fprintf(stderr, "Command required for '%s' not found: %s\n", fun, err)
			return exitGeneric
		}
		// a module its __virtual__ leaves out: Salt's missing function
		if un := (*execmod.UnavailableError)(nil); errors.As(err, &un) {
			fmt.Fprintln(stderr, un)
			return exitMissing
		}
		fmt.Fprintf(stderr, "Error running '%s': %s\n", fun, err)
		return exitGeneric
	}
	retcode := ctx.Retcode()
	if retcode == 0 {
		if m, isMap := ret.(*value.Map); isMap {
			for _, k := range []string{"result", "success"} {
				if v, has := m.Get(k); has && !value.Truthy(v) {
					retcode = exitGeneric
				}
			}
		}
	}
	defOut := ""
	if e := ctx.Registry.Entry(fun); e != nil {
		defOut = e.Outputter
	}
	if rc := p.print(value.MapOf("local", ret), defOut, retcode); rc != 0 {
		return rc
	}
	explainCompileFailure(ctx, &f, fun, cargs, ckwargs, ret, stderr)
	if f.retcodePassthrough {
		return retcode
	}
	if retcode != 0 {
		return exitGeneric
	}
	return exitOK
}

// addPubData adds the publication data salt-call hands every function that
// takes **kwargs (__pub_fun, __pub_pid, __pub_jid, __pub_tgt): functions
// binding their arguments drop them, and cmd.* reads __pub_jid to know it
// was called from the command line.
func addPubData(kwargs *value.Map, fun string) string {
	now := time.Now()
	jid := now.Format("20060102150405") + fmt.Sprintf("%06d", now.Nanosecond()/1000)
	kwargs.Set("__pub_fun", fun)
	kwargs.Set("__pub_pid", int64(os.Getpid()))
	kwargs.Set("__pub_jid", jid)
	kwargs.Set("__pub_tgt", "salt-call")
	return jid
}

// docsMatching returns the docs of the functions whose names start with
// prefix, as sys.doc("prefix*") does.
func docsMatching(reg *execmod.Registry, prefix string) *value.Map {
	out := value.NewMap(0)
	for _, n := range reg.Names() {
		if strings.HasPrefix(n, prefix) {
			out.Set(n, reg.Entry(n).Doc)
		}
	}
	return out
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

type printer struct {
	cfg    *config.Config
	flags  *callFlags
	stdout io.Writer
	stderr io.Writer
}

// print displays data as salt.output.display_output does.
func (p *printer) print(data any, defOut string, retcode int) int {
	// Salt's get_printout: an explicit --out wins, except --out=highstate,
	// which defers to the function's own outputter (nested for most).
	out := defOut
	if p.flags.out != "" && p.flags.out != "highstate" {
		out = p.flags.out
	}
	if name, ok := output.Default.Resolve(out); !ok {
		slog.Error(fmt.Sprintf("Invalid outputter %s specified, fall back to nested", out))
		out = name
	}
	color := useColor(p.stdout, p.flags.forceColor, p.flags.noColor || p.flags.outFile != "")
	o := &output.Options{
		Opts:      p.cfg.Opts(),
		Indent:    p.flags.outIndent,
		HasIndent: p.cfg.Opts().Has("output_indent"),
		Color:     color,
		Retcode:   retcode,
	}
	text := output.Default.Display(data, out, o)
	if p.flags.outFile != "" {
		mode := os.O_CREATE | os.O_WRONLY | os.O_APPEND
		if !p.flags.outFileAppend {
			mode |= os.O_TRUNC
		}
		fh, err := os.OpenFile(p.flags.outFile, mode, 0o644)
		if err != nil {
			fmt.Fprintf(p.stderr, "%s: Access denied: %s\n", p.flags.outFile, err)
			return exitGeneric
		}
		defer fh.Close()
		if text != "" {
			if _, err := io.WriteString(fh, text); err != nil {
				fmt.Fprintln(p.stderr, err)
				return exitGeneric
			}
		}
		return 0
	}
	if _, err := io.WriteString(p.stdout, text); err != nil && !isBrokenPipe(err) {
		fmt.Fprintln(p.stderr, err)
		return exitGeneric
	}
	return 0
}

func isBrokenPipe(err error) bool { return strings.Contains(err.Error(), "broken pipe") }

// useColor says whether output to w gets ANSI colours: always when forced,
// never when disabled, else only when w is a terminal.
func useColor(w io.Writer, force, disable bool) bool {
	if force {
		return true
	}
	if disable {
		return false
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
