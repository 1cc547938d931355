package master

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// Bounds on what one accepted minion's requests may cost the master. A
// minion holds only its own key, but nothing stops a modified one from
// sending requests as fast as its connection allows: each is checked here,
// in the subscription's callback, before it is queued, so that the queue,
// the master's memory and the other minions' service stay bounded.
const (
	// reqInflight is how many of one minion's requests (other than
	// returns) may be queued or running at once; minions send them one
	// at a time, so this only bites a minion flooding the master.
	reqInflight = 8
	// retInflight is the same for returns: one per job, a few jobs at once.
	retInflight = 32
	// reqMaxBody bounds a request other than a return (grains, a file
	// path, ...); returns may use the whole payload the server allows.
	reqMaxBody = 1 << 20
	// warnBurst warnings about refused requests are logged each
	// warnEvery; the others are counted in one summary line.
	warnBurst = 20
	warnEvery = 10 * time.Second
	// maxLogField bounds what a log line quotes of a field the minion
	// chose (a reply subject, a path, a claimed id).
	maxLogField = 120
)

// reqGuard counts each minion's requests in flight and what was dropped or
// refused, and rate-limits the warnings about them.
type reqGuard struct {
	mu       sync.Mutex
	inflight map[string]int
	dropped  map[string]int // reason + "\x00" + minion -> count since the last summary
	warned   int            // warnings logged in this interval
	start    time.Time      // of this interval
}

func newReqGuard() *reqGuard {
	return &reqGuard{inflight: map[string]int{}, dropped: map[string]int{}}
}

// enter admits one more request of minion id unless limit are in flight.
func (g *reqGuard) enter(id string, limit int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.inflight[id] >= limit {
		return false
	}
	g.inflight[id]++
	return true
}

// leave ends a request enter admitted.
func (g *reqGuard) leave(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.inflight[id] <= 1 {
		delete(g.inflight, id)
		return
	}
	g.inflight[id]--
}

// count records a dropped or refused request; it reports whether a
// warning may still be logged for it in this interval.
func (g *reqGuard) count(id, reason string, now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if now.Sub(g.start) >= warnEvery {
		g.start, g.warned = now, 0
	}
	if g.warned < warnBurst {
		g.warned++
		return true
	}
	g.dropped[reason+"\x00"+id]++
	return false
}

// summary returns the counts since the last call, most first, and resets
// them.
func (g *reqGuard) summary() (total int, top []string) {
	g.mu.Lock()
	counts := g.dropped
	g.dropped = map[string]int{}
	g.mu.Unlock()
	type kv struct {
		k string
		n int
	}
	var all []kv
	for k, n := range counts {
		total += n
		all = append(all, kv{k, n})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].n > all[j].n || all[i].n == all[j].n && all[i].k < all[j].k })
	for i, e := range all {
		if i == 5 {
			break
		}
		reason, id, _ := strings.Cut(e.k, "\x00")
		top = append(top, fmt.Sprintf("%s: %s x%d", logField(id), reason, e.n))
	}
	return total, top
}

// refused logs that a request of minion id was refused or dropped for
// reason, unless too many were logged already in this interval (those are
// summed up every warnEvery by logRefusals). Fields the minion chose are
// quoted and cut short.
func (m *Master) refused(id, reason string, args ...any) {
	if !m.reqs.count(id, reason, time.Now()) {
		return
	}
	for i := 1; i < len(args); i += 2 {
		if s, ok := args[i].(string); ok {
			args[i] = logField(s)
		}
	}
	m.Log.Warn(reason, append([]any{"minion", logField(id)}, args...)...)
}

// logRefusals logs, every warnEvery, how many refusals were not logged.
func (m *Master) logRefusals() {
	defer m.wg.Done()
	t := time.NewTicker(warnEvery)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			if n, top := m.reqs.summary(); n > 0 {
				m.Log.Warn(fmt.Sprintf("%d more minion requests refused or dropped in the last %s (not logged one by one)", n, warnEvery), "most", strings.Join(top, "; "))
			}
		}
	}
}

// logField makes s safe for a log line: cut to maxLogField bytes, and
// quoted when it holds anything but printable characters.
func logField(s string) string {
	suffix := ""
	if len(s) > maxLogField {
		suffix = fmt.Sprintf("...(%d bytes)", len(s))
		s = s[:maxLogField]
	}
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) || r == utf8.RuneError }) >= 0 {
		s = strconv.Quote(s)
	}
	return s + suffix
}
