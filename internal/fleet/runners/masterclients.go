package runners

// masterclients.go plugs this package's runner and wheel functions into
// internal/catalog, so saltutil.runner and saltutil.wheel (execution
// functions, which may not import fleet) run them in-process on a
// minion beside its master, as Salt's RunnerClient and WheelClient do.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"brine/internal/catalog"
	"brine/internal/execmod"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

func init() { catalog.SetMaster(masterClients{}) }

type masterClients struct{}

// Has reports whether the runner or wheel function fun exists.
func (masterClients) Has(client, fun string) bool {
	if client == catalog.Wheel {
		_, ok := wheels[fun]
		return ok
	}
	_, ok := Default.Lookup(fun)
	return ok
}

// TakesSaltenv reports whether fun has a saltenv parameter in Salt: the
// runners listed for salt.runner and the master's saltutil.sync_*; none
// of brine's wheel functions has one.
func (masterClients) TakesSaltenv(client, fun string) bool {
	if client == catalog.Wheel {
		return false
	}
	return saltenvRunners[fun] || strings.HasPrefix(fun, "saltutil.sync_")
}

// Low runs the call with the master's options and returns the job data
// of Salt's low(): a TypeError is the usage as a return (success kept),
// any other failure "Exception occurred in <client> <fun>: ..." with
// success False.
func (masterClients) Low(ctx context.Context, call catalog.MasterCall) *value.Map {
	rc := NewContext(ctx, call.Opts)
	rc.User = call.User
	defer rc.Close()
	kw := call.Kwarg
	if kw == nil {
		kw = value.NewMap(0)
	}
	client := call.Client
	if client != catalog.Wheel {
		client = catalog.Runners
	}
	funArgs := value.NewList(call.Arg...)
	if kw.Len() > 0 {
		funArgs.Append(kw.Copy())
	}
	data := value.MapOf("fun", client+"."+call.Fun, "jid", proto.NewJID(time.Now()), "user", call.User, "fun_args", funArgs)
	var ret any
	var success bool
	if client == catalog.Wheel {
		ret, success = rc.wheelFull(call.Fun, call.Arg, kw)
	} else {
		ret, success = rc.callFull(call.Fun, call.Arg, kw)
	}
	data.Set("return", ret)
	data.Set("success", success)
	return data
}

// Cmd publishes the job with an administrative connection to the master
// of opts and waits for the returns.
func (masterClients) Cmd(ctx context.Context, opts *value.Map, job catalog.CmdCall) (*value.Map, error) {
	rc := NewContext(ctx, opts)
	rc.User = os.Getenv("USER")
	if rc.User == "" {
		rc.User = "root"
	}
	defer rc.Close()
	return rc.cmd(cmdSpec{tgt: job.Tgt, tgtType: job.TgtType, fun: job.Fun, arg: job.Arg, kwarg: job.Kwarg, timeout: job.Timeout})
}

// wheelFull runs a wheel function as WheelClient.cmd with full_return
// does: the return and whether it succeeded.
func (c *Context) wheelFull(name string, args []any, kwargs *value.Map) (any, bool) {
	ret, err := c.Wheel(name, args, kwargs)
	if err == nil {
		return ret, true
	}
	var inv *execmod.InvocationError
	if errors.As(err, &inv) {
		return fmt.Sprintf("\nPassed invalid arguments: %s\n\nUsage:\n%s", inv.Msg, wheelDocs[name]), true
	}
	return fmt.Sprintf("Exception occurred in wheel %s: %s", name, err), false
}

// wheelDocs are the usages of the wheel functions.
var wheelDocs = map[string]string{
	"key.list_all":   "List the keys of the master's key store under each status, with the master's own key files (local).",
	"key.list":       "List the keys of one status: acc(epted), pre/un(accepted), rej(ected), den(ied) or all.",
	"key.name_match": "List the keys matching a glob, a comma-separated list or a list of globs, by status.",
	"key.accept":     "Accept the pending keys matching match (include_rejected, include_denied: those too).",
	"key.reject":     "Reject the pending keys matching match (include_accepted, include_denied: those too).",
	"key.delete":     "Delete the keys matching match, whatever their status.",
}
