package client

import (
	"sort"
	"time"
)

// Failure says why a minion is reported without a return.
type Failure int

const (
	// NoResponse: the minion did not return, and did not say it was
	// still running the job when asked (Salt's "[No response]").
	NoResponse Failure = iota + 1
	// NotConnected: the minion is not connected to the master (Salt's
	// "[Not connected]").
	NotConnected
)

// Failed is a minion given up on.
type Failed struct {
	ID  string
	Why Failure
}

// waiter is the logic of LocalClient.get_iter_returns, apart from the
// transport and the clock: which minions to ask whether they still run
// the job, when, and which to give up on.
//
// Salt's rule: wait timeout for the returns; then ask the minions that
// have not returned (saltutil.find_job) and wait up to gather_job_timeout
// for their answers; those running the job are waited for another
// timeout, after which they are asked again; when a round finds none
// running, the minions still without a return are reported (as "[Not
// connected]" when the master knows they are not connected, else "[No
// response]"). Two changes, which only shorten the waits: a round ends
// as soon as every minion asked has answered (and returns in flight had
// a moment to arrive), and the master's presence data lets a minion whose
// connection drops during the job be reported at once, and one that was
// not connected when the job was published be reported at the timeout
// without being asked (it could not answer). A minion not connected at
// publish time is waited for until the timeout all the same: it may
// connect and pick the job up (job_catchup_window).
type waiter struct {
	timeout time.Duration
	gather  time.Duration
	settle  time.Duration // grace after the last answer of a round

	pending map[string]*minionState
	asking  bool      // a find_job round is under way
	next    time.Time // asking: the round's end; else: when to ask
	asked   map[string]bool
	running bool // someone said it runs the job, this round
	last    time.Time
}

type minionState struct {
	seen   bool // connected at some point since publication
	absent bool // the last presence answer said not connected
	gone   int  // presence answers in a row saying not connected
}

// goneAfter is how many presence answers in a row (about one a second)
// must find a minion seen before not connected for it to be given up on:
// a minion reconnecting after a blip (it retries within about a second
// and a half) is not reported.
const goneAfter = 3

// defaultSettle is how long a round goes on after its last answer, so
// that a return sent just before a "not running" answer is not missed.
const defaultSettle = time.Second

func newWaiter(ids []string, now time.Time, timeout, gather time.Duration) *waiter {
	w := &waiter{timeout: timeout, gather: gather, settle: defaultSettle, pending: map[string]*minionState{}, next: now.Add(timeout)}
	for _, id := range ids {
		w.pending[id] = &minionState{}
	}
	return w
}

// done reports whether no minion is left to wait for.
func (w *waiter) done() bool { return len(w.pending) == 0 }

// ids returns the minions still waited for, sorted.
func (w *waiter) ids() []string {
	out := make([]string, 0, len(w.pending))
	for id := range w.pending {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// returned records a return; it reports whether the minion was waited
// for (a return of a minion already given up on is not shown).
func (w *waiter) returned(id string) bool {
	if _, ok := w.pending[id]; !ok {
		return false
	}
	delete(w.pending, id)
	delete(w.asked, id)
	return true
}

// presence takes the master's answer for the pending minions (absent:
// those not connected). A minion seen connected earlier and absent from
// goneAfter answers in a row is given up on.
func (w *waiter) presence(absent map[string]bool) []Failed {
	var out []Failed
	for _, id := range w.ids() {
		st := w.pending[id]
		if !absent[id] {
			st.seen, st.absent, st.gone = true, false, 0
			continue
		}
		st.absent = true
		st.gone++
		if st.seen && st.gone >= goneAfter {
			out = append(out, w.fail(id, NotConnected))
		}
	}
	return out
}

// answered records a minion's answer to find_job: whether it runs the job.
func (w *waiter) answered(id string, running bool, now time.Time) {
	if !w.asking || !w.asked[id] {
		return
	}
	delete(w.asked, id)
	w.last = now
	if running {
		w.running = true
	}
}

func (w *waiter) fail(id string, why Failure) Failed {
	delete(w.pending, id)
	delete(w.asked, id)
	return Failed{ID: id, Why: why}
}

// tick advances to now: it returns the minions to ask (a new round) and
// those given up on.
func (w *waiter) tick(now time.Time) (ask []string, failed []Failed) {
	if w.done() {
		return nil, nil
	}
	if !w.asking {
		if now.Before(w.next) {
			return nil, nil
		}
		for _, id := range w.ids() {
			if st := w.pending[id]; st.absent && !st.seen {
				failed = append(failed, w.fail(id, NotConnected))
				continue
			}
			ask = append(ask, id)
		}
		if len(ask) == 0 {
			return nil, failed
		}
		w.asking, w.running, w.last = true, false, now
		w.next = now.Add(w.gather)
		w.asked = make(map[string]bool, len(ask))
		for _, id := range ask {
			w.asked[id] = true
		}
		return ask, failed
	}
	over := !now.Before(w.next) || (len(w.asked) == 0 && !now.Before(w.last.Add(w.settle)))
	if !over {
		return nil, nil
	}
	w.asking, w.asked = false, nil
	if w.running {
		w.next = now.Add(w.timeout)
		return nil, nil
	}
	for _, id := range w.ids() {
		why := NoResponse
		if w.pending[id].absent {
			why = NotConnected
		}
		failed = append(failed, w.fail(id, why))
	}
	return nil, failed
}

// wake is when tick next has something to do (the zero time when done).
func (w *waiter) wake() time.Time {
	if w.done() {
		return time.Time{}
	}
	if w.asking && len(w.asked) == 0 {
		if t := w.last.Add(w.settle); t.Before(w.next) {
			return t
		}
	}
	return w.next
}
