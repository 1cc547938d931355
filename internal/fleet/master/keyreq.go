package master

import (
	"encoding/json"
	"errors"
	"net"
	"sort"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"brine/internal/fleet/keys"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// Key requests come from anyone who can reach the master: the
// key-request user is anonymous. What an attacker can exhaust is bounded
// here:
//
//   - max_pending_keys (1000): a request for a new id is dropped while
//     that many keys are pending; repeated requests of a pending id and
//     key write nothing.
//   - key_request_source_rate (1 per second, bursts of ten times that):
//     requests per source address. With the embedded server the
//     key-request user lives in an account of its own that reaches the
//     master through a service import sharing the requester's client
//     info: the server sets the Nats-Request-Info header (a header the
//     client sends is replaced), so the address is the TCP peer's and
//     cannot be forged. With an external server the key-request user is
//     in the master's account (accounts would take JetStream from it), no
//     message carries an address and only the global limits apply.
//   - key_request_rate (100 per second, same burst): requests over all
//     sources, checked after the source's limit so one flooding source
//     does not use up the others' share.
//
// Dropped requests are counted and logged once per keyReqLogEvery.

// keyReqAccount is the account of the key-request user on the embedded
// server.
const keyReqAccount = "BRINE_KEYREQ"

// keyReqLogEvery is how often a summary of dropped key requests is logged.
var keyReqLogEvery = 10 * time.Second

// keyReqAuth returns the key-request account, which imports the master's
// key-request subject with the requester's client info shared, and its
// user. The master's account must export the subject (exportKeyReq).
func keyReqAuth() (*server.Account, *server.User, error) {
	g := server.NewAccount(server.DEFAULT_GLOBAL_ACCOUNT)
	if err := g.AddServiceExport(proto.KeyReqSubject, nil); err != nil {
		return nil, nil, err
	}
	acc := server.NewAccount(keyReqAccount)
	if err := acc.AddServiceImport(g, proto.KeyReqSubject, proto.KeyReqSubject); err != nil {
		return nil, nil, err
	}
	if err := acc.SetServiceImportSharing(g, proto.KeyReqSubject, true); err != nil {
		return nil, nil, err
	}
	u := &server.User{Username: proto.KeyReqUser, Password: proto.KeyReqUser, Account: acc, Permissions: KeyReqPermissions()}
	return acc, u, nil
}

// keyReqResponseTTL bounds how long the server keeps the route back of a
// key request sent with a reply subject: the master never answers, and a
// flood of requests with replies would otherwise hold a route each for the
// server's default two minutes.
const keyReqResponseTTL = time.Second

// exportKeyReq exports the key-request subject from the running server's
// global account. It is done on the live account, after start: an
// account configured beside the global one at start would leave the
// global account without JetStream.
func exportKeyReq(ns *server.Server) error {
	g := ns.GlobalAccount()
	if err := g.AddServiceExport(proto.KeyReqSubject, nil); err != nil {
		return err
	}
	return g.SetServiceExportResponseThreshold(proto.KeyReqSubject, keyReqResponseTTL)
}

// bucket is a token bucket.
type bucket struct {
	tokens float64
	last   time.Time
}

func (b *bucket) take(now time.Time, rate, burst float64) bool {
	if b.last.IsZero() {
		b.tokens = burst
	} else if d := now.Sub(b.last).Seconds(); d > 0 {
		b.tokens = min(burst, b.tokens+d*rate)
	}
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// full reports whether the bucket would be full at now (so forgetting it
// changes nothing).
func (b *bucket) full(now time.Time, rate, burst float64) bool {
	return b.tokens+now.Sub(b.last).Seconds()*rate >= burst
}

// limiter is a token bucket per key (rate per second, burst tokens);
// a rate <= 0 lets everything through.
type limiter struct {
	rate, burst float64
	maxKeys     int // forget full buckets beyond this many keys

	mu      sync.Mutex
	buckets map[string]*bucket
	pruned  time.Time // last sweep for full buckets (at most one a second)
}

func newLimiter(rate, burst float64) *limiter {
	return &limiter{rate: rate, burst: max(burst, 1), maxKeys: 10000, buckets: map[string]*bucket{}}
}

func (l *limiter) allow(key string, now time.Time) bool {
	if l.rate <= 0 {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) >= l.maxKeys && now.Sub(l.pruned) >= time.Second {
			l.pruned = now
			for k, ob := range l.buckets {
				if ob.full(now, l.rate, l.burst) {
					delete(l.buckets, k)
				}
			}
		}
		if len(l.buckets) >= l.maxKeys {
			// Every remembered source is busy: refuse newcomers rather
			// than grow without bound (the global limit still holds).
			return false
		}
		b = &bucket{}
		l.buckets[key] = b
	}
	return b.take(now, l.rate, l.burst)
}

// sourceKey reduces an address to the unit a limit applies to: the
// address itself for IPv4, its /64 for IPv6 (one host usually holds a
// whole /64).
func sourceKey(host string) string {
	ip := net.ParseIP(host)
	if ip == nil {
		return host
	}
	if ip.To4() != nil {
		return ip.String()
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

// keyReqSource returns the requester's address the embedded server put
// in the Nats-Request-Info header of a request that came through the
// key-request account's import ("" when there is none). Only the
// embedded server's header is trusted: with an external server the
// key-request user publishes in the master's account directly, headers
// included, so the caller passes no message there.
func keyReqSource(msg *nats.Msg) string {
	if msg.Header == nil {
		return ""
	}
	h := msg.Header.Get(server.ClientInfoHdr)
	if h == "" {
		return ""
	}
	var ci struct {
		Host    string `json:"host"`
		Account string `json:"acc"`
	}
	if json.Unmarshal([]byte(h), &ci) != nil || ci.Account != keyReqAccount {
		return ""
	}
	return ci.Host
}

// keyReqGate applies the key-request limits and keeps the counts of what
// it dropped.
type keyReqGate struct {
	maxPending int
	global     *limiter
	source     *limiter
	logs       *limiter // Info lines about new keys

	mu        sync.Mutex
	dropped   map[string]int // reason -> count since the last summary
	sources   map[string]int // source -> dropped since the last summary
	notLogged int            // new keys not logged one by one
}

func newKeyReqGate(opts *value.Map) *keyReqGate {
	rate := optFloat(opts, "key_request_rate", 100)
	srate := optFloat(opts, "key_request_source_rate", 1)
	return &keyReqGate{
		maxPending: int(optInt(opts, "max_pending_keys", 1000)),
		global:     newLimiter(rate, rate),
		source:     newLimiter(srate, 10*srate),
		logs:       newLimiter(1, 20),
		dropped:    map[string]int{},
		sources:    map[string]int{},
	}
}

// Reasons a key request is dropped.
const (
	dropSource   = "source_rate"
	dropGlobal   = "rate"
	dropInvalid  = "invalid"
	dropFull     = "pending_full"
	dropError    = "error"
	dropOverflow = "overflow"
)

func (g *keyReqGate) drop(reason, source string) {
	g.mu.Lock()
	g.dropped[reason]++
	if source != "" {
		g.sources[source]++
	}
	g.mu.Unlock()
}

// admit applies the rate limits to a request from source ("" unknown).
func (g *keyReqGate) admit(source string, now time.Time) bool {
	if source != "" && !g.source.allow(sourceKey(source), now) {
		g.drop(dropSource, source)
		return false
	}
	if !g.global.allow("", now) {
		g.drop(dropGlobal, source)
		return false
	}
	return true
}

// summary returns and resets the counts; ok is false when nothing was
// dropped.
func (g *keyReqGate) summary() (args []any, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.dropped) == 0 && g.notLogged == 0 {
		return nil, false
	}
	total := 0
	reasons := make([]string, 0, len(g.dropped))
	for r, n := range g.dropped {
		reasons = append(reasons, r)
		total += n
	}
	sort.Strings(reasons)
	args = append(args, "dropped", total)
	for _, r := range reasons {
		args = append(args, r, g.dropped[r])
	}
	if len(g.sources) > 0 {
		top, topN := "", 0
		for s, n := range g.sources {
			if n > topN || (n == topN && s < top) {
				top, topN = s, n
			}
		}
		args = append(args, "sources", len(g.sources), "top_source", top, "top_source_dropped", topN)
	}
	if g.notLogged > 0 {
		args = append(args, "new_keys_not_logged", g.notLogged)
	}
	g.dropped = map[string]int{}
	g.sources = map[string]int{}
	g.notLogged = 0
	return args, true
}

// subscribeKeyRequests serves key requests through the gate and logs a
// summary of the dropped ones every keyReqLogEvery.
func (m *Master) subscribeKeyRequests() error {
	g := newKeyReqGate(m.Opts)
	sub, err := m.nc.Subscribe(proto.KeyReqSubject, func(msg *nats.Msg) { m.handleKeyRequest(g, msg) })
	if err != nil {
		return err
	}
	// A flood beyond this is dropped by the client library before it
	// costs a signature check (counted as "overflow").
	if err := sub.SetPendingLimits(10000, 16<<20); err != nil {
		return err
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(keyReqLogEvery)
		defer t.Stop()
		var overflow int
		for {
			select {
			case <-m.stop:
				return
			case <-t.C:
				if n, err := sub.Dropped(); err == nil && n > overflow {
					g.mu.Lock()
					g.dropped[dropOverflow] += n - overflow
					g.mu.Unlock()
					overflow = n
				}
				if args, ok := g.summary(); ok {
					m.Log.Warn("key request limits", append(args, "interval", keyReqLogEvery.String())...)
				}
			}
		}
	}()
	return nil
}

// handleKeyRequest records a key request the gate admits.
func (m *Master) handleKeyRequest(g *keyReqGate, msg *nats.Msg) {
	source := ""
	if m.ns != nil {
		source = keyReqSource(msg)
	}
	if !g.admit(source, time.Now()) {
		return
	}
	kr, err := proto.ParseKeyRequest(msg.Data)
	if err != nil {
		g.drop(dropInvalid, source)
		return
	}
	st, changed, err := m.Store.SubmitLimit(kr.ID, kr.Key, value.Truthy(mustGet(m.Opts, "auto_accept")), g.maxPending)
	if errors.Is(err, keys.ErrTooManyPending) {
		g.drop(dropFull, source)
		return
	}
	if err != nil {
		g.drop(dropError, source)
		m.Log.Debug("storing key request", "minion", kr.ID, "err", err)
		return
	}
	m.fireAuth(kr.ID, kr.Key, st)
	if !changed {
		m.Log.Debug("key request repeated", "minion", kr.ID, "state", string(st), "source", source)
		return
	}
	if g.logs.allow("", time.Now()) {
		m.Log.Info("key request", "minion", kr.ID, "state", string(st), "source", source)
	} else {
		g.mu.Lock()
		g.notLogged++
		g.mu.Unlock()
	}
	if st == keys.Accepted {
		if err := m.ReloadKeys(); err != nil {
			m.Log.Error("reloading keys", "err", err)
		}
	}
}

// enableKeyRequests lets the key-request user in, in its own account:
// the master's (global) account exports the key-request subject and the
// server reloads its users with the key-request account.
func (m *Master) enableKeyRequests(masterPub string, accepted map[string]string) error {
	if err := exportKeyReq(m.ns); err != nil {
		return err
	}
	// Twice: nats-server (2.15) creates an account added by a reload
	// without the subscriptions of its service imports; the next reload,
	// finding the account, subscribes them (as every later one does).
	for range 2 {
		so := m.baseOpts.Clone()
		if err := applyAuth(so, masterPub, accepted); err != nil {
			return err
		}
		if err := m.ns.ReloadOptions(so); err != nil {
			return err
		}
	}
	return nil
}
