package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"brine/internal/execmod"
	"brine/internal/fleet/runners"
	"brine/internal/output"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// runnerFlags are salt-run's options that brine run-runner supports.
type runnerFlags struct {
	fleetFlags
	out        string
	outIndent  int
	noColor    bool
	forceColor bool
	doc        bool
	timeout    int
}

// runnerFlagSet defines brine run-runner's flags on f.
func runnerFlagSet(f *runnerFlags) *pflag.FlagSet {
	fs := newFleetFlagSet("brine run-runner")
	f.add(fs)
	fs.StringVar(&f.out, "out", "", "outputter: nested (default), json, yaml, raw, txt, quiet, highstate")
	fs.IntVar(&f.outIndent, "out-indent", 0, "indentation of the json and yaml outputters")
	fs.BoolVar(&f.noColor, "no-color", false, "disable coloured output")
	fs.BoolVar(&f.forceColor, "force-color", false, "force coloured output")
	fs.BoolVarP(&f.doc, "doc", "d", false, "print the documentation of the runner functions starting with FUNCTION (all without one)")
	fs.IntVarP(&f.timeout, "timeout", "t", 0, "seconds the runners that talk to minions wait before asking those that have not returned (default: the master's timeout option)")
	return fs
}

// RunRunner runs `brine run-runner FUNCTION [ARG ...]`, which mirrors
// salt-run: a runner function run on the master, its return printed with
// the outputter it asks for (nested by default, highstate for
// orchestration), the exit code taken from a retcode in the return.
func RunRunner(args []string, stdout, stderr io.Writer) int {
	var f runnerFlags
	fs := runnerFlagSet(&f)
	if rc, ok := parseCommand("run-runner", fs, args, stdout, stderr); !ok {
		return rc
	}
	rest := fs.Args()
	reg := runners.Default
	if f.doc {
		prefix := ""
		if len(rest) > 0 {
			prefix = rest[0]
		}
		for _, n := range reg.Names() {
			if len(n) >= len(prefix) && n[:len(prefix)] == prefix {
				e, _ := reg.Lookup(n)
				fmt.Fprintf(stdout, "%s:\n%s\n\n", n, e.Doc)
			}
		}
		return exitOK
	}
	if len(rest) == 0 {
		fmt.Fprintln(stderr, "Usage: brine run-runner [options] FUNCTION [ARG ...] [KEY=VALUE ...]\n\nMust specify a function to run!\nex: manage.up")
		return exitUsage
	}
	cfg, err := loadMaster(&f.fleetFlags, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	if f.timeout > 0 {
		cfg.Set("timeout", int64(f.timeout))
	}
	show := func(data any, out string, rc int) {
		if f.out != "" {
			out = f.out
		}
		if out == "" {
			out = "nested"
		}
		o := &output.Options{Opts: cfg.Opts(), Indent: f.outIndent, HasIndent: fs.Changed("out-indent"),
			Color: useColor(stdout, f.forceColor, f.noColor), Retcode: rc}
		fmt.Fprint(stdout, output.Default.Display(data, out, o))
	}
	fun := rest[0]
	entry, ok := reg.Lookup(fun)
	if !ok {
		// salt-run lists the functions starting with the name given,
		// else says the function is not available.
		if docs := reg.Docs(fun + "*"); docs.Len() > 0 {
			show(docs, "nested", exitOK)
			return exitOK
		}
		show(runners.MissingFunString(fun), "nested", exitOK)
		if s := reg.Suggest(fun); s != "" {
			fmt.Fprintf(stderr, "Did you mean '%s'?\n", s)
		}
		return exitOK
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rc := runners.NewContext(ctx, cfg.Opts())
	rc.User = os.Getenv("USER")
	if rc.User == "" {
		rc.User = "root"
	}
	rc.Stdout = stdout
	defer rc.Close()
	pargs, kwargs := yamlload.ParseInput(rest[1:], nil)
	ret, err := entry.Func(rc, pargs, kwargs)
	if err != nil {
		// salt-run prints what went wrong as the return (and exits 0).
		var inv *execmod.InvocationError
		if errors.As(err, &inv) {
			show(fmt.Sprintf("\nPassed invalid arguments: %s\n\nUsage:\n%s", inv.Msg, entry.Doc), "nested", exitOK)
		} else {
			show(fmt.Sprintf("Exception occurred in runner %s: %s", fun, err), "nested", exitOK)
		}
		return exitOK
	}
	data, out, code := runnerDisplay(ret)
	show(data, out, code)
	return code
}

// runnerDisplay picks what salt-run prints of a return and how: a return
// of exactly {"data", "outputter"} prints its data with its outputter;
// another return naming an outputter prints whole with it; the exit code
// is the return's retcode, or its data's.
func runnerDisplay(ret any) (data any, out string, code int) {
	m, ok := ret.(*value.Map)
	if !ok {
		return ret, "", exitOK
	}
	data = ret
	if o, ok := m.Get("outputter"); ok {
		out = value.Str(o)
		if d, ok := m.Get("data"); ok && m.Len() == 2 {
			data = d
		}
	}
	rcv, ok := m.Get("retcode")
	if !ok {
		if d, _ := m.Get("data"); d != nil {
			if dm, isMap := d.(*value.Map); isMap {
				rcv, ok = dm.Get("retcode")
			}
		}
	}
	if ok {
		switch x := rcv.(type) {
		case int64:
			code = int(x)
		case bool:
			if x {
				code = 1
			}
		}
	}
	return data, out, code
}
