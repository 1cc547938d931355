package catalog

// master.go lets the execution modules run the master's functions
// in-process (saltutil.runner and saltutil.wheel on a minion beside its
// master): internal/fleet/runners plugs its runner and wheel clients in
// with SetMaster.

import (
	"context"
	"sync"

	"brine/internal/value"
)

// Wheel is the client kind of the wheel functions (Runners is the other).
const Wheel = "wheel"

// MasterCall is one call of a runner or wheel function.
type MasterCall struct {
	Client string     // Runners or Wheel
	Fun    string     // "mod.fun"
	Arg    []any      // positional arguments, already parsed
	Kwarg  *value.Map // keyword arguments
	User   string     // who runs it (Salt's __pub_user, "UNKNOWN" when unset)
	Opts   *value.Map // the master's options
}

// Master runs the master's runner and wheel functions.
type Master interface {
	// Has reports whether the client has the function fun.
	Has(client, fun string) bool
	// TakesSaltenv reports whether fun has a saltenv parameter.
	TakesSaltenv(client, fun string) bool
	// Low runs the call as Salt's client mixin low() does and returns the
	// job's data: fun ("runner.mod.fun"), jid, user, fun_args, return and
	// success. A failing function is a return, not an error.
	Low(ctx context.Context, call MasterCall) *value.Map
	// Cmd publishes a job through the master of opts and returns the
	// minions' returns by id ({ret, out, retcode, jid}), as Salt's
	// LocalClient.cmd_iter gives them to saltutil.cmd.
	Cmd(ctx context.Context, opts *value.Map, job CmdCall) (*value.Map, error)
}

// CmdCall is one job for Master.Cmd.
type CmdCall struct {
	Tgt, TgtType, Fun string
	Arg               []any
	Kwarg             *value.Map
	Timeout           float64 // seconds; 0 means the master's timeout option
}

var (
	masterMu sync.RWMutex
	master   Master
)

// SetMaster plugs in the master's clients (once, from an init()).
func SetMaster(m Master) {
	masterMu.Lock()
	defer masterMu.Unlock()
	if master != nil {
		panic("catalog: duplicate master clients")
	}
	master = m
}

// MasterClients returns the master's clients, nil when the program has
// none linked in.
func MasterClients() Master {
	masterMu.RLock()
	defer masterMu.RUnlock()
	return master
}
