package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"brine/internal/fleet/client"
	"brine/internal/fleet/events"
	"brine/internal/value"
)

// eventFlags are brine event's options.
type eventFlags struct {
	fleetFlags
	tag   string
	out   string
	count int
	since time.Duration
}

// eventFlagSet defines brine event's flags on f.
func eventFlagSet(f *eventFlags) *pflag.FlagSet {
	fs := newFleetFlagSet("brine event")
	f.add(fs)
	fs.StringVar(&f.tag, "tag", "*", "only events whose tag matches: exactly, as a glob or as a regular expression")
	fs.StringVar(&f.out, "out", "pretty", "pretty (the tag, then the data as indented JSON) or json (one object per line)")
	fs.IntVar(&f.count, "count", -1, "stop after this many matching events (-1: never)")
	fs.DurationVar(&f.since, "since", 0, "first print the events the master kept from this long ago (e.g. 30s, 5m; see event_retention)")
	return fs
}

// Event runs `brine event listen`, salt-run state.event: it prints the
// master's events as they are fired, until interrupted.
func Event(args []string, stdout, stderr io.Writer) int {
	var ef eventFlags
	fs := eventFlagSet(&ef)
	if rc, ok := parseCommand("event", fs, args, stdout, stderr); !ok {
		return rc
	}
	rest := fs.Args()
	if len(rest) != 1 || rest[0] != "listen" || (ef.out != "pretty" && ef.out != "json") {
		fmt.Fprintln(stderr, "Usage: brine event listen [--tag GLOB] [--out pretty|json] [--count N] [--since DURATION]")
		return exitUsage
	}
	cfg, err := loadMaster(&ef.fleetFlags, stderr)
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
	tag := ef.tag
	filter := func(t string) bool { return events.ExprMatch(tag, t) }
	var l *events.Listener
	if ef.since > 0 {
		l, err = events.ListenSince(c.NC, time.Now().Add(-ef.since), filter, 0)
	} else {
		l, err = events.Listen(c.NC, filter, 0)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	defer l.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	for n := ef.count; n != 0; n-- {
		ev, err := l.Next(ctx)
		if errors.Is(err, context.Canceled) {
			return exitOK
		}
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitGeneric
		}
		fmt.Fprint(stdout, FormatEvent(ev, ef.out))
	}
	return exitOK
}

// FormatEvent prints one event: as state.event pretty=True does (the tag,
// a tab, the data as JSON indented by 4 with sorted keys), or with "json"
// as one line holding tag and data.
func FormatEvent(ev events.Event, out string) string {
	if out == "json" {
		return value.ToJSON(value.MapOf("tag", ev.Tag, "data", ev.Data), value.JSONOptions{Indent: -1}) + "\n"
	}
	return ev.Tag + "\t" + value.ToJSON(ev.Data, value.JSONOptions{Indent: 4, SortKeys: true}) + "\n"
}
