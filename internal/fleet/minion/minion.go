// Package minion is the brine minion: it connects to its master with its
// own key (asking for acceptance until the master accepts it), listens on
// its own job subjects only, runs each job through the same execution
// functions and state system as `brine call`, with salt:// files and
// pillar from the master, and stores its returns in JetStream. After a
// disconnection it picks up the jobs it missed within the master's
// catch-up window.
package minion

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// Options configure a Minion.
type Options struct {
	// Opts are the minion options (config.Load); id must be set.
	Opts *value.Map
	// Grains are the minion's grains (collected by the caller).
	Grains *value.Map
	// Key is the minion key; nil loads or creates pki_dir/minion.nk.
	Key nkeys.KeyPair
	// Log receives the minion's log; nil means slog.Default().
	Log *slog.Logger
	// Ready, when set, is called once the minion is connected and has its
	// pillar.
	Ready func()
	// Parallel bounds the jobs run at once (default 8).
	Parallel int
}

// Minion is a running minion.
type Minion struct {
	o    Options
	id   string
	log  *slog.Logger
	conn *Conn
	sess *Session

	sem    chan struct{}
	mu     sync.Mutex
	seen   map[string]time.Time // jids taken, for duplicate and replay refusal
	last   int64                // newest job time seen (Unix ns)
	wg     sync.WaitGroup
	closed chan struct{}
}

// New prepares a minion.
func New(o Options) (*Minion, error) {
	id := optString(o.Opts, "id")
	if !proto.ValidID(id) {
		return nil, fmt.Errorf("invalid minion id %q", id)
	}
	if o.Key == nil {
		kp, err := LoadKey(o.Opts)
		if err != nil {
			return nil, fmt.Errorf("minion key: %w", err)
		}
		o.Key = kp
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Parallel <= 0 {
		o.Parallel = 8
	}
	if o.Grains == nil {
		o.Grains = value.NewMap(0)
	}
	return &Minion{o: o, id: id, log: o.Log.With("minion", id), sem: make(chan struct{}, o.Parallel), seen: map[string]time.Time{}, closed: make(chan struct{})}, nil
}

// ID returns the minion id.
func (m *Minion) ID() string { return m.id }

// Run connects (requesting key acceptance as long as needed), serves jobs
// and returns when ctx ends.
func (m *Minion) Run(ctx context.Context) error {
	defer close(m.closed)
	wait := time.Duration(optFloat(m.o.Opts, "acceptance_wait_time", 10) * float64(time.Second))
	for {
		c, err := Dial(m.o.Opts, m.id, m.o.Key, DialOptions{
			Name:        "brine-minion " + m.id,
			Reconnected: func() { go m.resync() },
			Disconnect: func(err error) {
				if err != nil {
					m.log.Warn("disconnected from the master", "err", err)
				}
			},
		})
		if err == nil {
			m.conn = c
			break
		}
		if errors.Is(err, ErrNotAccepted) {
			m.log.Info("key not accepted; requesting acceptance")
			if kerr := RequestKey(m.o.Opts, m.id, m.o.Key); kerr != nil {
				m.log.Warn("key request failed", "err", kerr)
			}
		} else {
			m.log.Warn("cannot reach the master", "url", MasterURL(m.o.Opts), "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
	defer m.conn.Close()
	m.sess = NewSession(m.conn, m.o.Opts, m.o.Grains)
	sub, err := m.conn.NC.Subscribe(proto.JobWildcard(m.id), m.onJob)
	if err != nil {
		return err
	}
	_ = sub.SetPendingLimits(-1, -1)
	if err := m.conn.NC.Flush(); err != nil {
		return err
	}
	for {
		if err := m.sess.Hello(); err == nil {
			break
		} else {
			m.log.Warn("hello to the master failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
	}
	m.catchup()
	m.log.Info("minion ready")
	if m.o.Ready != nil {
		m.o.Ready()
	}
	<-ctx.Done()
	_ = sub.Unsubscribe()
	m.wg.Wait()
	return nil
}

// resync runs after a reconnection: announce again, then catch up.
func (m *Minion) resync() {
	m.log.Info("reconnected to the master")
	if err := m.sess.Hello(); err != nil {
		m.log.Warn("hello after reconnect failed", "err", err)
	}
	m.catchup()
}

// catchup asks for the jobs missed since the last one seen.
func (m *Minion) catchup() {
	m.mu.Lock()
	since := m.last
	m.mu.Unlock()
	if since > 0 {
		since -= int64(5 * time.Second) // jobs published around the disconnection
	}
	var rep proto.CatchupReply
	if err := m.conn.Request(proto.ReqCatchup, proto.CatchupRequest{Since: since}, &rep, 30*time.Second); err != nil {
		m.log.Warn("catch-up failed", "err", err)
		return
	}
	for _, raw := range rep.Jobs {
		m.handle(raw)
	}
}

func (m *Minion) onJob(msg *nats.Msg) { m.handle(msg.Data) }

// handle verifies a signed job and runs it once.
func (m *Minion) handle(data []byte) {
	mk := m.conn.MasterKey()
	if mk == "" {
		return // before the first signed reply: catch-up fetches it later
	}
	var job proto.Job
	if _, err := proto.Open(data, mk, &job); err != nil {
		m.log.Warn("refused job", "err", err)
		return
	}
	if !proto.ValidJID(job.JID) {
		return
	}
	m.mu.Lock()
	if _, dup := m.seen[job.JID]; dup {
		m.mu.Unlock()
		return
	}
	now := time.Now()
	m.seen[job.JID] = now
	if len(m.seen) > 4096 {
		for j, t := range m.seen {
			if now.Sub(t) > time.Hour {
				delete(m.seen, j)
			}
		}
	}
	if job.TS > m.last {
		m.last = job.TS
	}
	m.mu.Unlock()
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		m.sem <- struct{}{}
		defer func() { <-m.sem }()
		m.log.Debug("running job", "jid", job.JID, "fun", job.Fun)
		ret := m.sess.Execute(job)
		m.sendReturn(ret)
	}()
}

// sendReturn stores a return in JetStream, retrying until it is
// acknowledged (across a master restart) or a day has passed.
func (m *Minion) sendReturn(ret proto.Return) {
	data, err := json.Marshal(ret)
	if err != nil {
		m.log.Error("encoding return", "err", err)
		return
	}
	subj := proto.ReturnSubject(ret.JID, m.id)
	deadline := time.Now().Add(24 * time.Hour)
	backoff := 200 * time.Millisecond
	for time.Now().Before(deadline) {
		msg, err := m.conn.NC.Request(subj, data, 10*time.Second)
		if err == nil {
			var ack struct {
				Error *struct {
					Description string `json:"description"`
				} `json:"error"`
			}
			if json.Unmarshal(msg.Data, &ack) == nil && ack.Error == nil {
				return
			}
			err = fmt.Errorf("store refused the return: %s", msg.Data)
		}
		if errors.Is(err, nats.ErrConnectionClosed) {
			return
		}
		m.log.Warn("storing return failed; retrying", "jid", ret.JID, "err", err)
		time.Sleep(backoff)
		backoff = min(backoff*2, 5*time.Second)
	}
}
