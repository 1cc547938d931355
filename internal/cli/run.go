package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"brine/internal/config"
	"brine/internal/fleet/client"
	"brine/internal/fleet/proto"
	"brine/internal/output"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// runFlags are the salt command's options that brine run supports.
type runFlags struct {
	fleetFlags
	pcre, list, grain, pillar, compound, nodegroup, ipcidr bool

	timeout          int
	gatherJobTimeout int
	batch            string
	async            bool
	out              string
	outIndent        int
	noColor          bool
	force            bool
	static           bool
	// Returners the minions run after the job (Salt's --return,
	// --return_config, --return_kwargs).
	ret, retConfig, retKwargs string
}

// runFlagSet defines brine run's flags on f.
func runFlagSet(f *runFlags) *pflag.FlagSet {
	fs := newFleetFlagSet("brine run")
	f.add(fs)
	fs.BoolVarP(&f.pcre, "pcre", "E", false, "the target is a regular expression on minion ids")
	fs.BoolVarP(&f.list, "list", "L", false, "the target is a comma-separated list of minion ids")
	fs.BoolVarP(&f.grain, "grain", "G", false, "the target is a grain: key:value (glob)")
	fs.BoolVarP(&f.pillar, "pillar", "I", false, "the target is a pillar: key:value (glob)")
	fs.BoolVarP(&f.compound, "compound", "C", false, "the target is a compound expression")
	fs.BoolVarP(&f.nodegroup, "nodegroup", "N", false, "the target is a nodegroup")
	fs.BoolVarP(&f.ipcidr, "ipcidr", "S", false, "the target is an address or network")
	fs.IntVarP(&f.timeout, "timeout", "t", 0, "seconds to wait before asking the minions that have not returned whether they still run the job (default: the master's timeout option, 5)")
	fs.IntVar(&f.gatherJobTimeout, "gather-job-timeout", 0, "seconds the minions have to answer that question (default: the master's gather_job_timeout option, 10)")
	fs.StringVarP(&f.batch, "batch-size", "b", "", "run on this many minions (or this percentage) at a time")
	fs.BoolVar(&f.async, "async", false, "publish the job and print its job id without waiting")
	fs.StringVar(&f.out, "out", "", "outputter: json, yaml, nested, raw, txt, quiet, highstate")
	fs.IntVar(&f.outIndent, "out-indent", 0, "indentation of the json and yaml outputters")
	fs.BoolVar(&f.noColor, "no-color", false, "disable coloured output")
	fs.BoolVar(&f.force, "force-color", false, "force coloured output")
	fs.BoolVar(&f.static, "static", false, "wait for every return and print them together (default: each as it arrives)")
	fs.StringVar(&f.ret, "return", "", "returners (comma-separated) the minions also send the return to: local_cache, syslog, rawfile_json, pgjsonb")
	fs.StringVar(&f.retConfig, "return_config", "", "read the returners' options under this alternative name (ALT.<returner>.<key>)")
	fs.StringVar(&f.retKwargs, "return_kwargs", "", "returner options overriding the configured ones, as YAML or JSON: '{\"db\": \"salt2\"}'")
	return fs
}

// Run runs `brine run TARGET FUNCTION [ARG ...]`, which mirrors the salt
// command.
func Run(args []string, stdout, stderr io.Writer) int {
	var f runFlags
	fs := runFlagSet(&f)
	if rc, ok := parseCommand("run", fs, args, stdout, stderr); !ok {
		return rc
	}
	rest := fs.Args()
	if len(rest) < 2 {
		fmt.Fprintln(stderr, "Usage: brine run [options] TARGET FUNCTION [ARG ...] [KEY=VALUE ...]")
		return exitUsage
	}
	tgtType := "glob"
	for _, t := range []struct {
		on   bool
		name string
	}{{f.pcre, "pcre"}, {f.list, "list"}, {f.grain, "grain"}, {f.pillar, "pillar"}, {f.compound, "compound"}, {f.nodegroup, "nodegroup"}, {f.ipcidr, "ipcidr"}} {
		if t.on {
			tgtType = t.name
		}
	}
	cfg, err := loadMaster(&f.fleetFlags, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	if f.timeout <= 0 {
		f.timeout = int(optInt(cfg.Opts(), "timeout", 5))
	}
	if f.gatherJobTimeout <= 0 {
		f.gatherJobTimeout = int(optInt(cfg.Opts(), "gather_job_timeout", 10))
	}
	c, err := client.Dial(cfg.Opts())
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	defer c.Close()
	pargs, kwargs := yamlload.ParseInput(rest[2:], nil)
	req := proto.PublishRequest{
		Tgt: rest[0], TgtType: tgtType, Fun: rest[1],
		Arg: proto.ValueJSON{V: value.NewList(pargs...)}, Kwarg: proto.ValueJSON{V: kwargs},
		User: os.Getenv("USER"), Timeout: float64(f.timeout),
	}
	if req.ReturnSpec, err = returnSpec(&f); err != nil {
		fmt.Fprintln(stderr, "Error:", err)
		return exitUsage
	}
	// One interrupt context for the whole run: Ctrl-C stops the waiting
	// and, with batches, the batches not yet published.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := &runner{ctx: ctx, f: &f, cfg: cfg, c: c, stdout: stdout, stderr: stderr}
	if f.batch != "" && !f.async {
		return r.batched(req)
	}
	return r.once(req)
}

func optInt(opts *value.Map, k string, def int64) int64 {
	v, _ := opts.Get(k)
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return def
}

type runner struct {
	ctx    context.Context // ends on Ctrl-C or SIGTERM
	f      *runFlags
	cfg    *config.Config
	c      *client.Client
	stdout io.Writer
	stderr io.Writer
}

// once publishes the job and prints every return (or the jid with --async).
func (r *runner) once(req proto.PublishRequest) int {
	rep, err := r.c.Publish(req)
	if err != nil {
		fmt.Fprintln(r.stderr, "Error:", err)
		return exitGeneric
	}
	if len(rep.Minions) == 0 {
		fmt.Fprintln(r.stderr, "No minions matched the target. No command was sent, no jid was assigned.")
		return exitUsage
	}
	if r.f.async {
		fmt.Fprintf(r.stdout, "Executed command with job ID: %s\n", rep.JID)
		return exitOK
	}
	return r.collect(req.Fun, rep, missing(req, rep.Minions))
}

// missing returns the ids of a list target that name no accepted minion:
// salt reports them as minions that did not return (CkMinions'
// "missing"), after the others.
func missing(req proto.PublishRequest, minions []string) []string {
	if req.TgtType != "list" {
		return nil
	}
	have := make(map[string]bool, len(minions))
	for _, id := range minions {
		have[id] = true
	}
	var out []string
	for _, id := range strings.Split(req.Tgt, ",") {
		if id != "" && !have[id] {
			have[id] = true
			out = append(out, id)
		}
	}
	return out
}

// collect waits for the returns of a published job and prints them: as
// each arrives, one minion at a time, as the salt command does; with
// --static, all together at the end. It waits as salt does (see
// client.Wait): --timeout is when the minions that have not returned are
// asked whether they still run the job, not a deadline; those that do
// are waited for. The exit code is 1 when a minion failed or did not
// return.
func (r *runner) collect(fun string, rep proto.PublishReply, missing []string) int {
	ctx := r.ctx
	rc := exitOK
	o := client.WaitOptions{
		Timeout:          time.Duration(r.f.timeout) * time.Second,
		GatherJobTimeout: time.Duration(r.f.gatherJobTimeout) * time.Second,
		User:             os.Getenv("USER"),
	}
	if !r.f.static {
		o.OnReturn = func(ret proto.Return) {
			r.show(value.MapOf(ret.ID, ret.Return.V), r.outFor(ret.Out), ret.Retcode)
			if ret.Retcode != 0 {
				rc = exitGeneric
			}
		}
		o.OnFail = func(f client.Failed) {
			r.show(value.MapOf(f.ID, noReturn(f.Why, rep.JID)), r.outFor(""), exitGeneric)
			rc = exitGeneric
		}
	}
	got, failed, err := r.c.Wait(ctx, rep.JID, rep.Minions, o)
	if err != nil {
		fmt.Fprintln(r.stderr, "Error:", err)
		return exitGeneric
	}
	if ctx.Err() != nil {
		// What salt prints on Ctrl-C (a SystemExit, hence exit code 1).
		fmt.Fprintf(r.stderr, "\nThis job's jid is: %s\nExiting gracefully on Ctrl-c\n%s\n", rep.JID, lookupHint(rep.JID))
		return exitGeneric
	}
	for _, id := range missing {
		f := client.Failed{ID: id, Why: client.NoResponse}
		failed = append(failed, f)
		if o.OnFail != nil {
			o.OnFail(f)
		}
	}
	if !r.f.static {
		if rc != exitOK {
			fmt.Fprintln(r.stderr, "ERROR: Minions returned with non-zero exit code")
		}
		return rc
	}
	why := map[string]client.Failure{}
	for _, f := range failed {
		why[f.ID] = f.Why
	}
	ids := append(append([]string(nil), rep.Minions...), missing...)
	sort.Strings(ids)
	data := value.NewMap(len(ids))
	for _, id := range ids {
		ret, ok := got[id]
		switch {
		case !ok:
			w := why[id]
			if w == 0 {
				w = client.NoResponse
			}
			data.Set(id, noReturn(w, rep.JID))
			rc = exitGeneric
		default:
			data.Set(id, ret.Return.V)
			if ret.Retcode != 0 {
				rc = exitGeneric
			}
		}
	}
	out := r.f.out
	if out == "" || out == "highstate" {
		// Salt's --static drops the functions' outputters but for
		// the state functions.
		out = "nested"
		if strings.HasPrefix(fun, "state.") {
			out = "highstate"
		}
	}
	r.show(data, out, rc)
	return rc
}

// The messages salt prints for a minion without a return (salt/client's
// get_cli_event_returns), but for the command that looks the job up.
const notConnected = "Minion did not return. [Not connected]"

func noReturn(why client.Failure, jid string) string {
	if why == client.NotConnected {
		return notConnected
	}
	return "Minion did not return. [No response]\n" + lookupHint(jid)
}

func lookupHint(jid string) string {
	return "The minions may not have all finished running and any remaining minions will return upon completion. To look up the return data for this job later, run the following command:\n\nbrine jobs lookup " + jid
}

// outFor is the outputter of a return whose function asks for out: the
// --out option (but for highstate, which only state functions can use),
// else out, else nested.
func (r *runner) outFor(out string) string {
	if r.f.out != "" && r.f.out != "highstate" {
		out = r.f.out
	}
	if out == "" {
		out = "nested"
	}
	return out
}

// show prints data with an outputter.
func (r *runner) show(data *value.Map, out string, rc int) {
	o := &output.Options{Opts: r.cfg.Opts(), Indent: r.f.outIndent, Color: r.f.force && !r.f.noColor, Retcode: rc}
	fmt.Fprint(r.stdout, output.Default.Display(data, out, o))
}

// batched runs the job on batch-size minions at a time, as salt -b does.
func (r *runner) batched(req proto.PublishRequest) int {
	minions, err := r.c.Resolve(req.Tgt, req.TgtType)
	if err != nil {
		fmt.Fprintln(r.stderr, "Error:", err)
		return exitGeneric
	}
	if len(minions) == 0 {
		fmt.Fprintln(r.stderr, "No minions matched the target. No command was sent, no jid was assigned.")
		return exitUsage
	}
	size, err := batchSize(r.f.batch, len(minions))
	if err != nil {
		fmt.Fprintln(r.stderr, err)
		return exitUsage
	}
	rc := exitOK
	for i := 0; i < len(minions); i += size {
		part := minions[i:min(i+size, len(minions))]
		fmt.Fprintf(r.stderr, "\nExecuting run on %s\n\n", strings.Join(part, ", "))
		req.Tgt, req.TgtType = strings.Join(part, ","), "list"
		rep, err := r.c.Publish(req)
		if err != nil {
			fmt.Fprintln(r.stderr, "Error:", err)
			return exitGeneric
		}
		if c := r.collect(req.Fun, rep, nil); c != exitOK {
			rc = c
		}
		if r.ctx.Err() != nil {
			return exitGeneric // interrupted: no further batch
		}
	}
	return rc
}

// batchSize reads --batch-size: a count or a percentage of n.
func batchSize(s string, n int) (int, error) {
	var v float64
	pct := strings.HasSuffix(s, "%")
	if _, err := fmt.Sscanf(strings.TrimSuffix(s, "%"), "%g", &v); err != nil || v <= 0 {
		return 0, fmt.Errorf("invalid batch size %q", s)
	}
	if pct {
		v = float64(n) * v / 100
	}
	size := int(v)
	if size < 1 {
		size = 1
	}
	return size, nil
}

// returnSpec reads --return, --return_config and --return_kwargs (a YAML
// mapping, as salt's yamlify_arg reads it).
func returnSpec(f *runFlags) (proto.ReturnSpec, error) {
	spec := proto.ReturnSpec{Ret: f.ret, RetConfig: f.retConfig}
	if f.retKwargs != "" {
		v, err := yamlload.Load([]byte(f.retKwargs), "--return_kwargs")
		if err != nil {
			return spec, fmt.Errorf("--return_kwargs: %w", err)
		}
		m, ok := v.(*value.Map)
		if !ok {
			return spec, fmt.Errorf("--return_kwargs must be a mapping, not %q", f.retKwargs)
		}
		spec.RetKwargs = &proto.ValueJSON{V: m}
	}
	return spec, nil
}
