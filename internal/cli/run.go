package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

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

	timeout   int
	batch     string
	async     bool
	out       string
	outIndent int
	noColor   bool
	force     bool
	static    bool
}

// noReturn is what salt prints for a minion that did not return.
const noReturn = "Minion did not return. [No response]"

// Run runs `brine run TARGET FUNCTION [ARG ...]`, which mirrors the salt
// command.
func Run(args []string, stdout, stderr io.Writer) int {
	var f runFlags
	fs := newFleetFlagSet("brine run", stderr)
	f.add(fs)
	fs.BoolVarP(&f.pcre, "pcre", "E", false, "the target is a regular expression on minion ids")
	fs.BoolVarP(&f.list, "list", "L", false, "the target is a comma-separated list of minion ids")
	fs.BoolVarP(&f.grain, "grain", "G", false, "the target is a grain: key:value (glob)")
	fs.BoolVarP(&f.pillar, "pillar", "I", false, "the target is a pillar: key:value (glob)")
	fs.BoolVarP(&f.compound, "compound", "C", false, "the target is a compound expression")
	fs.BoolVarP(&f.nodegroup, "nodegroup", "N", false, "the target is a nodegroup")
	fs.BoolVarP(&f.ipcidr, "ipcidr", "S", false, "the target is an address or network")
	fs.IntVarP(&f.timeout, "timeout", "t", 0, "seconds to wait for returns (default: the master's timeout option, 5)")
	fs.StringVarP(&f.batch, "batch-size", "b", "", "run on this many minions (or this percentage) at a time")
	fs.BoolVar(&f.async, "async", false, "publish the job and print its job id without waiting")
	fs.StringVar(&f.out, "out", "", "outputter: json, yaml, nested, raw, txt, quiet, highstate")
	fs.IntVar(&f.outIndent, "out-indent", 0, "indentation of the json and yaml outputters")
	fs.BoolVar(&f.noColor, "no-color", false, "disable coloured output")
	fs.BoolVar(&f.force, "force-color", false, "force coloured output")
	fs.BoolVar(&f.static, "static", false, "wait for every return and print them together (default: each as it arrives)")
	if rc, ok := parseFleet(fs, args); !ok {
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
	r := &runner{f: &f, cfg: cfg, c: c, stdout: stdout, stderr: stderr}
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
	return r.collect(req.Fun, rep)
}

// collect waits for the returns of a published job and prints them: as
// each arrives, one minion at a time, as the salt command does; with
// --static, all together once every minion returned or the timeout
// passed. The exit code is 1 when a minion failed or did not return.
func (r *runner) collect(fun string, rep proto.PublishReply) int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(r.f.timeout)*time.Second)
	defer cancel()
	rc := exitOK
	var each func(proto.Return)
	if !r.f.static {
		each = func(ret proto.Return) {
			r.show(value.MapOf(ret.ID, ret.Return.V), r.outFor(ret.Out), ret.Retcode)
			if ret.Retcode != 0 {
				rc = exitGeneric
			}
		}
	}
	got, err := r.c.Returns(ctx, rep.JID, rep.Minions, each)
	if err != nil {
		fmt.Fprintln(r.stderr, "Error:", err)
		return exitGeneric
	}
	ids := append([]string(nil), rep.Minions...)
	sort.Strings(ids)
	if r.f.static {
		data := value.NewMap(len(ids))
		for _, id := range ids {
			ret, ok := got[id]
			switch {
			case !ok:
				data.Set(id, noReturn)
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
	for _, id := range ids {
		if _, ok := got[id]; !ok {
			r.show(value.MapOf(id, noReturn), r.outFor(""), exitGeneric)
			rc = exitGeneric
		}
	}
	if rc != exitOK {
		fmt.Fprintln(r.stderr, "ERROR: Minions returned with non-zero exit code")
	}
	return rc
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
		if c := r.collect(req.Fun, rep); c != exitOK {
			rc = c
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
