package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"brine/internal/fleet/client"
	"brine/internal/fleet/proto"
	"brine/internal/output"
	"brine/internal/value"
)

// Jobs runs `brine jobs list` and `brine jobs lookup JID`, which mirror
// jobsFlags are brine jobs' options.
type jobsFlags struct {
	fleetFlags
	out string
}

// jobsFlagSet defines brine jobs' flags on f.
func jobsFlagSet(f *jobsFlags) *pflag.FlagSet {
	fs := newFleetFlagSet("brine jobs")
	f.add(fs)
	fs.StringVar(&f.out, "out", "", "outputter: json, yaml, nested, raw, txt, quiet")
	return fs
}

// salt-run jobs.list_jobs and jobs.lookup_jid.
func Jobs(args []string, stdout, stderr io.Writer) int {
	var jf jobsFlags
	fs := jobsFlagSet(&jf)
	if rc, ok := parseCommand("jobs", fs, args, stdout, stderr); !ok {
		return rc
	}
	f, out := jf.fleetFlags, jf.out
	rest := fs.Args()
	if len(rest) == 0 || (rest[0] == "lookup" && len(rest) != 2) || (rest[0] != "lookup" && rest[0] != "list") {
		fmt.Fprintln(stderr, "Usage: brine jobs list | brine jobs lookup JID")
		return exitUsage
	}
	cfg, err := loadMaster(&f, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	c, err := client.Dial(cfg.Opts())
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	display := func(data any, def string) int {
		if out != "" {
			def = out
		}
		fmt.Fprint(stdout, output.Default.Display(data, def, &output.Options{Opts: cfg.Opts()}))
		return exitOK
	}
	if rest[0] == "list" {
		jobs, err := c.Jobs(ctx)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitGeneric
		}
		data := value.NewMap(len(jobs))
		for _, j := range jobs {
			t, _ := proto.JIDTime(j.JID)
			data.Set(j.JID, value.MapOf(
				"Arguments", j.Arg.V,
				"Function", j.Fun,
				"StartTime", t.Format("2006, Jan 02 15:04:05.000000"),
				"Target", j.Tgt,
				"Target-type", j.TgtType,
				"User", j.User,
			))
		}
		return display(data, "nested")
	}
	jid := rest[1]
	if !proto.ValidJID(jid) {
		fmt.Fprintf(stderr, "%q is not a job id\n", jid)
		return exitUsage
	}
	job, err := c.Job(ctx, jid)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	got, err := c.Returns(ctx, jid, nil, nil)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	data := value.NewMap(len(got))
	def := "nested"
	for _, id := range job.Minions {
		if r, ok := got[id]; ok {
			data.Set(id, r.Return.V)
			if r.Out != "" {
				def = r.Out
			}
		}
	}
	return display(data, def)
}
