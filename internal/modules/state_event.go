package modules

// state_event.go is state.event of salt/modules/state.py: print the
// events of the minion's own bus as they arrive, "<tag>\t<data as JSON>",
// until count of them matched tagmatch.
//
// The bus is the minion daemon's (internal/fleet/minion): the event
// service of a run reaches it when it can subscribe (EventSubscriber); a
// run without one (brine call --local) dials the bus of the daemon with
// its options, as salt-call --local does. Where no daemon serves it,
// Salt waits forever for the socket; brine says so instead.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"

	"brine/internal/catalog"
	"brine/internal/execmod"
	"brine/internal/match"
	"brine/internal/pyops"
	"brine/internal/value"
)

func init() {
	execmod.Register("state.event", stateEvent,
		"Print the events of the minion's event bus as they arrive, one line each: the tag, a tab and the data as JSON "+
			"(pretty=True: indented, keys sorted); only the tags matching tagmatch (a glob or a regular expression; * by default); "+
			"stop after count matches (-1: never); quiet=True prints nothing, it only waits. node=minion only.")
}

// EventSubscriber is an event service that can watch a bus.
type EventSubscriber interface {
	// Subscribe watches node's bus ("minion" or "master"; sockDir, when
	// set, is where its socket lives). next blocks for the next event;
	// stop ends the subscription.
	Subscribe(node, sockDir string) (next func() (string, any, error), stop func(), err error)
}

// eventOut is where state.event prints (standard output, as Salt's
// print_cli; a job process sends it to its log).
var eventOut io.Writer = os.Stdout

func stateEvent(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("state.event", args, kwargs, execmod.Opt("tagmatch", "*"), execmod.Opt("count", int64(-1)),
		execmod.Opt("quiet", false), execmod.Opt("sock_dir", nil), execmod.Opt("pretty", false), execmod.Opt("node", "minion"))
	if err != nil {
		return nil, err
	}
	tagmatch := execmod.String(v[0])
	n, err := pyops.Int(v[1], 10)
	if err != nil {
		return nil, err
	}
	count, ok := n.(int64)
	if !ok {
		return nil, &execmod.InvocationError{Msg: "count is out of range"}
	}
	quiet, pretty := value.Truthy(v[2]), value.Truthy(v[4])
	node, sockDir := execmod.String(v[5]), execmod.String(v[3])
	var next func() (string, any, error)
	var stop func()
	if sub, ok := ctx.Service("event").(EventSubscriber); ok {
		next, stop, err = sub.Subscribe(node, sockDir)
	} else if bus := catalog.LocalBusClient(); bus != nil {
		// no session: the bus of a minion daemon with these options
		next, stop, err = bus(optMap(ctx), node, sockDir)
	} else {
		err = errors.New("this program has no minion event bus")
	}
	if err != nil {
		// Salt would wait for the bus forever
		return nil, execmod.Errorf("%s", err)
	}
	defer stop()
	for {
		tag, data, err := next()
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		if !exprMatch(tag, tagmatch) {
			continue
		}
		if !quiet {
			fmt.Fprintf(eventOut, "%s\t%s\n", tag, eventJSON(data, pretty))
		}
		if count > 0 {
			count--
		}
		if count == 0 {
			return nil, nil
		}
	}
}

// eventJSON is Salt's json.dumps of an event's data: on one line, or
// indented by 4 with sorted keys when pretty; non-ASCII kept.
func eventJSON(data any, pretty bool) string {
	if pretty {
		return value.ToJSON(data, value.JSONOptions{Indent: 4, SortKeys: true})
	}
	return value.ToJSON(data, value.JSONOptions{Indent: -1})
}

// exprMatch is Salt's expr_match: a glob, or else a regular expression
// matching the whole tag.
func exprMatch(tag, expr string) bool {
	if match.Fnmatch(tag, expr) {
		return true
	}
	re, err := regexp.Compile(`\A(?:` + expr + `)\z`)
	return err == nil && re.MatchString(tag)
}
