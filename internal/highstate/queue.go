package highstate

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"brine/internal/execmod"
	"brine/internal/value"
)

// queuePoll is how often a queued state run looks for the runs before it
// to have finished (Salt checks every second).
var queuePoll = time.Second

// checkQueue is Salt's _check_queue, run first by every state function that
// runs or compiles states: with queue (or the state_queue option) true, it
// waits for the state runs started before this one to finish; with queue a
// number, it waits only when fewer runs than that are ahead; otherwise (or
// when the queue is full) a state run already going on is a conflict,
// returned as Salt's list of messages with the compiler-error retcode. A
// nil return means the run may go on.
func checkQueue(ctx *execmod.Context, queue any, kwargs *value.Map) *value.List {
	if queue == nil {
		queue = stateQueueOption(ctx)
	}
	jid := ownJID(kwargs)
	waited := false
	switch q := queue.(type) {
	case bool:
		if q {
			waitPriorStates(ctx, jid, 0)
			return nil
		}
	case int64:
		waited = waitPriorStates(ctx, jid, q)
	}
	if waited {
		return nil
	}
	if v, _ := kwargs.Get("concurrent"); value.Truthy(v) {
		return nil
	}
	conflict := runningStateMessages(ctx, jid)
	if conflict.Len() == 0 {
		return nil
	}
	ctx.SetRetcode(exStateCompilerError)
	return conflict
}

// stateQueueOption is config.option("state_queue", False): the minion
// option, else the pillar key.
func stateQueueOption(ctx *execmod.Context) any {
	for _, m := range []*value.Map{ctx.Opts, ctx.Pillar} {
		if m == nil {
			continue
		}
		if v, ok := m.Get("state_queue"); ok {
			return v
		}
	}
	return false
}

// ownJID is the jid of the calling job (__pub_jid), or a new one.
func ownJID(kwargs *value.Map) string {
	if kwargs != nil {
		if v, ok := kwargs.Get("__pub_jid"); ok && v != nil {
			return value.Str(v)
		}
	}
	return newJID(time.Now())
}

// newJID is salt.utils.jid.gen_jid: the time to the microsecond.
func newJID(t time.Time) string {
	return t.Format("20060102150405") + fmt.Sprintf("%06d", t.Nanosecond()/1000)
}

// runningStates is saltutil.is_running("state.*") without the calling
// job: the proc-directory data of the state runs going on (the proc files
// of dead processes are dropped on the way).
func runningStates(ctx *execmod.Context, self string) []*value.Map {
	if _, ok := ctx.Lookup("saltutil.is_running"); !ok {
		return nil
	}
	v, err := ctx.Call("saltutil.is_running", []any{"state.*"}, nil)
	l, ok := v.(*value.List)
	if err != nil || !ok {
		return nil
	}
	var out []*value.Map
	for _, e := range l.Items {
		m, ok := e.(*value.Map)
		if !ok {
			continue
		}
		if j, _ := m.Get("jid"); self != "" && value.Str(j) == self {
			continue
		}
		if p, _ := m.Get("pid"); p == int64(os.Getpid()) && isCallJob(m) {
			continue // this brine call
		}
		out = append(out, m)
	}
	return out
}

// isCallJob reports whether a proc entry was written by brine call (whose
// pid is the whole process), not by a minion running jobs in itself.
func isCallJob(m *value.Map) bool {
	t, _ := m.Get("tgt")
	return t == "salt-call"
}

// runningStateMessages is Salt's state.running: one message per state run
// going on.
func runningStateMessages(ctx *execmod.Context, self string) *value.List {
	out := value.NewList()
	for _, m := range runningStates(ctx, self) {
		fun, _ := m.Get("fun")
		pid, _ := m.Get("pid")
		jid, _ := m.Get("jid")
		out.Append(fmt.Sprintf("The function \"%s\" is running as PID %s and was started at %s with jid %s",
			value.Str(fun), value.Str(pid), jidToTime(value.Str(jid)), value.Str(jid)))
	}
	return out
}

// priorStates are the running state jobs with a smaller jid than jid
// (started before it): Salt's _prior_running_states.
func priorStates(ctx *execmod.Context, jid string) []*value.Map {
	if !isDigits(jid) {
		return nil
	}
	var out []*value.Map
	for _, m := range runningStates(ctx, jid) {
		j, _ := m.Get("jid")
		if js := value.Str(j); isDigits(js) && numLess(js, jid) {
			out = append(out, m)
		}
	}
	return out
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// numLess compares two decimal numbers of any size (jids overflow 64
// bits), as Python's int comparison does.
func numLess(a, b string) bool {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// waitPriorStates is Salt's _wait: unless max is set and at least max
// state runs are ahead, it waits until none is left and reports true.
func waitPriorStates(ctx *execmod.Context, jid string, max int64) bool {
	states := priorStates(ctx, jid)
	if max != 0 && int64(len(states)) >= max {
		return false
	}
	for len(states) > 0 {
		time.Sleep(queuePoll)
		states = priorStates(ctx, jid)
	}
	return true
}

var jidMonths = [...]string{"", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// jidToTime is salt.utils.jid.jid_to_time: "2026, Nov 25 20:00:00.123456",
// or "" for a jid that is not one of Salt's.
func jidToTime(jid string) string {
	if len(jid) != 20 && (len(jid) <= 21 || jid[20] != '_') {
		return ""
	}
	month, err := strconv.Atoi(jid[4:6])
	if err != nil || month < 1 || month > 12 {
		return ""
	}
	return fmt.Sprintf("%s, %s %s %s:%s:%s.%s", jid[:4], jidMonths[month], jid[6:8], jid[8:10], jid[10:12], jid[12:14], jid[14:20])
}

// queueConflict carries checkQueue's messages through helpers that return
// an error; conflictOr turns it back into the function's return.
type queueConflict struct{ msgs *value.List }

func (q *queueConflict) Error() string { return "a state run is already going on" }

func conflictOr(err error) (any, error) {
	var q *queueConflict
	if errors.As(err, &q) {
		return q.msgs, nil
	}
	return nil, err
}
