package modules

// publish.go is salt/modules/publish.py: a minion publishes jobs to other
// minions, or runs runners, through its master. The master allows only
// what its peer and peer_run options grant this minion (see
// internal/fleet/master/peer.go); a refused request comes back empty.

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"brine/internal/execmod"
	"brine/internal/pyops"
	"brine/internal/value"
	"brine/internal/yamlload"
)

func init() {
	execmod.Register("publish.publish", publishPublish,
		"Publish a job from this minion to the minions tgt selects and return their returns by id: publish.publish TGT FUN "+
			"[arg=ARG|LIST] [tgt_type=glob] [returner=''] [timeout=5] [via_master=None]. The master's peer option must allow it "+
			"({} otherwise, and {} without a master).")
	execmod.Register("publish.full_data", publishFullData,
		"As publish.publish, but each minion's return is the full data {ret, out}: publish.full_data TGT FUN [arg=...] "+
			"[tgt_type=glob] [returner=''] [timeout=5].")
	execmod.Register("publish.runner", publishRunner,
		"Run a runner on the master and return its return: publish.runner FUN [arg=ARG|LIST] [timeout=5]. The master's "+
			"peer_run option must allow it ({} otherwise).")
}

// MasterServiceName is the name of the MasterService of a run.
const MasterServiceName = "master"

// MasterService is what a minion of a brine master asks of it for peer
// communication and its own key (internal/fleet/minion's "master"
// service). A run without a master has none.
type MasterService interface {
	// Publish publishes a job; an empty jid means the master refused it.
	Publish(tgt, tgtType, fun string, arg []any, kwarg *value.Map, ret string, timeout float64) (jid string, minions []string, err error)
	// Returns gives the returns so far ({minion: {ret, out}}) of a job
	// this minion published.
	Returns(jid string) (*value.Map, error)
	// Runner runs a runner on the master.
	Runner(fun string, arg []any, kwarg *value.Map, timeout time.Duration) (any, error)
	// RevokeAuth asks the master to delete this minion's key.
	RevokeAuth(preserveMinionCache bool) error
	// RegenKey creates a new minion key under pki.
	RegenKey(pki string) error
}

func masterService(ctx *execmod.Context) (MasterService, bool) {
	s, ok := ctx.Service(MasterServiceName).(MasterService)
	return s, ok
}

// publishParseArgs is publish.py's _parse_args: the argument typed as on
// the command line, as a list.
func publishParseArgs(arg any) []any {
	if s, ok := arg.(string); ok {
		arg = yamlload.LoadArg(s)
	}
	switch a := arg.(type) {
	case nil:
		return nil
	case *value.List:
		return a.Items
	default:
		return []any{a}
	}
}

func publishPublish(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("publish", args, kwargsOf(kwargs), execmod.Req("tgt"), execmod.Req("fun"), execmod.Opt("arg", nil),
		execmod.Opt("tgt_type", "glob"), execmod.Opt("returner", ""), execmod.Opt("timeout", int64(5)), execmod.Opt("via_master", nil))
	if err != nil {
		return nil, err
	}
	return publishJob(ctx, v[0], v[1], v[2], v[3], v[4], v[5], "clean", v[6])
}

func publishFullData(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("full_data", args, kwargsOf(kwargs), execmod.Req("tgt"), execmod.Req("fun"), execmod.Opt("arg", nil),
		execmod.Opt("tgt_type", "glob"), execmod.Opt("returner", ""), execmod.Opt("timeout", int64(5)))
	if err != nil {
		return nil, err
	}
	return publishJob(ctx, v[0], v[1], v[2], v[3], v[4], v[5], "full", nil)
}

// publishJob is publish.py's _publish with wait=True: publish, then ask
// for the returns every 0.3 s until every targeted minion returned or
// timeout passed.
func publishJob(ctx *execmod.Context, tgt, fun, arg, tgtType, returner, timeout any, form string, viaMaster any) (any, error) {
	svc, ok := masterService(ctx)
	if !ok {
		slog.Error("Cannot run publish commands without a connection to a salt master. No command sent.")
		return value.NewMap(0), nil
	}
	f := execmod.String(fun)
	if strings.HasPrefix(f, "publish.") {
		slog.Info("Cannot publish publish calls. Returning {}")
		return value.NewMap(0), nil
	}
	list := publishParseArgs(arg)
	if value.Truthy(viaMaster) {
		return nil, &execmod.InvocationError{Msg: "Could not find list of masters in minion configuration but `via_master` was specified."}
	}
	tmo, err := pyops.Float(timeout)
	if err != nil {
		return nil, err
	}
	cargs, ckw := clientArgs(list, nil)
	jid, minions, err := svc.Publish(execmod.String(tgt), execmod.String(tgtType), f, cargs, ckw, execmod.String(returner), tmo)
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) || strings.Contains(err.Error(), "timeout") {
			return fmt.Sprintf("'%s' publish timed out", f), nil
		}
		return nil, err
	}
	if jid == "" || len(minions) == 0 {
		return value.NewMap(0), nil
	}
	const interval = 300 * time.Millisecond
	for n := 0; ; n++ {
		rets, err := svc.Returns(jid)
		if err != nil {
			return nil, err
		}
		all := true
		for _, id := range minions {
			if !rets.Has(id) {
				all = false
				break
			}
		}
		if !all && time.Duration(n)*interval > time.Duration(tmo*float64(time.Second)) {
			if rets.Len() == 0 {
				return value.NewMap(0), nil
			}
			all = true
		}
		if all {
			if form == "full" {
				return rets, nil
			}
			clean := value.NewMap(rets.Len())
			rets.Range(func(k, d any) bool {
				dm, _ := d.(*value.Map)
				r, _ := dm.Get("ret")
				clean.Set(k, r)
				return true
			})
			return clean, nil
		}
		time.Sleep(interval)
	}
}

func publishRunner(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("runner", args, kwargsOf(kwargs), execmod.Req("fun"), execmod.Opt("arg", nil), execmod.Opt("timeout", int64(5)))
	if err != nil {
		return nil, err
	}
	list := publishParseArgs(v[1])
	svc, ok := masterService(ctx)
	if !ok {
		return "No access to master. If using salt-call with --local, please remove.", nil
	}
	fun := execmod.String(v[0])
	cargs, ckw := clientArgs(list, nil)
	// Salt's request channel waits 60 s for the master, whatever timeout says
	ret, err := svc.Runner(fun, cargs, ckw, 60*time.Second)
	if err != nil {
		if strings.Contains(err.Error(), "timeout") {
			return fmt.Sprintf("'%s' runner publish timed out", fun), nil
		}
		return nil, err
	}
	return ret, nil
}
