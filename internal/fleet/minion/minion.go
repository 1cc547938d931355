// Package minion is the brine minion: it connects to its master with its
// own key (asking for acceptance until the master accepts it), listens on
// its own job subjects only, runs each job through the same execution
// functions and state system as `brine call`, with salt:// files and
// pillar from the master, and sends each return to the master, which
// checks it and stores it in JetStream. After a disconnection it
// picks up the jobs it missed within the catch-up window
// (job_catchup_window, seconds, 600 by default); older jobs are refused.
// A small journal under cachedir remembers the jobs taken, so that no
// job runs twice, even across a restart mid-job.
//
// As Salt's multiprocessing: True, each job runs in a process of its own
// (Options.JobProcess, RunJob), recorded while it runs in Salt's proc
// directory, cachedir/proc, where saltutil.running, find_job and
// kill_job find it; a job killed that way returns a failure naming the
// signal. Job-control jobs (saltutil.find_job and friends) skip the
// Parallel cap and run in the minion process.
package minion

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
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
	// CollectGrains, when set, collects the grains again: after a job that
	// synced or refreshed grains (saltutil.sync_grains, sync_all,
	// refresh_grains, refresh_modules, a highstate's sync), as Salt's
	// minion reloads them on its module refresh; the master hears of the
	// new grains at once.
	CollectGrains func() *value.Map
	// Key is the minion key; nil loads or creates pki_dir/minion.nk.
	Key nkeys.KeyPair
	// Log receives the minion's log; nil means slog.Default().
	Log *slog.Logger
	// Ready, when set, is called once the minion is connected and has its
	// pillar.
	Ready func()
	// LocalBus serves the minion's own event bus (localbus.go) in
	// sock_dir while the minion runs: the brine minion daemon does;
	// minions run inside a test binary need not.
	LocalBus bool
	// Parallel bounds the jobs run at once (default 8). Job-control jobs
	// (saltutil.find_job, running, kill_job...) do not count: they run at
	// once, in the minion process.
	Parallel int
	// JobProcess is the command that runs one job in a process of its own
	// (Salt's multiprocessing: True): `brine minion --run-job`, which
	// calls RunJobProcess. Empty runs jobs in the minion process, as
	// does the minion option multiprocessing: False; minions run inside
	// a test binary leave it empty.
	JobProcess []string
}

// Minion is a running minion.
type Minion struct {
	o   Options
	id  string
	log *slog.Logger

	sem       chan struct{}
	window    time.Duration // jobs older than this are refused
	jobs      *journal      // jids taken, for duplicate and replay refusal
	recovered sync.Once
	mu        sync.Mutex
	last      int64 // newest job time seen (Unix ns)
	wg        sync.WaitGroup
	closed    chan struct{}
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
	if v, ok := o.Opts.Get("multiprocessing"); ok && !value.Truthy(v) {
		o.JobProcess = nil
	}
	window := time.Duration(optFloat(o.Opts, "job_catchup_window", 600) * float64(time.Second))
	if window <= 0 {
		window = 600 * time.Second
	}
	jobs, err := openJournal(optString(o.Opts, "cachedir"), window)
	if err != nil {
		return nil, fmt.Errorf("job journal: %w", err)
	}
	cleanProcs(optString(o.Opts, "cachedir"))
	return &Minion{o: o, id: id, log: o.Log.With("minion", id), sem: make(chan struct{}, o.Parallel), window: window, jobs: jobs, closed: make(chan struct{})}, nil
}

// ID returns the minion id.
func (m *Minion) ID() string { return m.id }

// Run connects (requesting key acceptance as long as needed), serves jobs
// and returns when ctx ends. When the master closes the connection for
// good (its key was deleted, say), the minion starts over and asks for
// acceptance again.
func (m *Minion) Run(ctx context.Context) error {
	defer close(m.closed)
	if bus := m.startLocalBus(); bus != nil {
		defer bus.Close()
	}
	wait := time.Duration(optFloat(m.o.Opts, "acceptance_wait_time", 10) * float64(time.Second))
	readyOnce := false
	for {
		closed := make(chan struct{})
		sess := m.connect(ctx, wait, closed)
		if sess == nil {
			return nil
		}
		err := m.serve(ctx, sess, closed, func() {
			if !readyOnce && m.o.Ready != nil {
				readyOnce = true
				m.o.Ready()
			}
		})
		sess.Conn.Close()
		if err != nil || ctx.Err() != nil {
			m.wg.Wait()
			return err
		}
		m.log.Warn("connection to the master closed; starting over")
		select {
		case <-ctx.Done():
			m.wg.Wait()
			return nil
		case <-time.After(wait):
		}
	}
}

// connect dials until the key is accepted and the master answers; it
// returns nil when ctx ends.
func (m *Minion) connect(ctx context.Context, wait time.Duration, closed chan struct{}) *Session {
	// The reconnect callback runs on NATS's goroutine and may fire before
	// Dial has returned the session: share it atomically.
	var sess atomic.Pointer[Session]
	var once sync.Once
	for {
		c, err := Dial(m.o.Opts, m.id, m.o.Key, DialOptions{
			Name:        "brine-minion " + m.id,
			Reconnected: func() { go m.resync(sess.Load()) },
			Disconnect: func(err error) {
				if err != nil {
					m.log.Warn("disconnected from the master", "err", err)
				}
			},
			Closed: func() { once.Do(func() { close(closed) }) },
		})
		if err == nil {
			m.mu.Lock()
			g := m.o.Grains
			m.mu.Unlock()
			s := NewSession(c, m.o.Opts, g)
			s.daemon = true
			sess.Store(s)
			return s
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
}

// serve subscribes to the minion's jobs, announces it, catches up and
// waits until ctx ends or the connection closes.
func (m *Minion) serve(ctx context.Context, sess *Session, closed chan struct{}, ready func()) error {
	// The jobs sent to this minion, and those sent to every minion at
	// once (handle is safe for concurrent use and runs a job once).
	onJob := func(msg *nats.Msg) { m.handle(sess, msg.Data) }
	sub, err := sess.Conn.NC.Subscribe(proto.JobWildcard(m.id), onJob)
	if err != nil {
		return err
	}
	_ = sub.SetPendingLimits(-1, -1)
	all, err := sess.Conn.NC.Subscribe(proto.BroadcastWildcard, onJob)
	if err != nil {
		return err
	}
	_ = all.SetPendingLimits(-1, -1)
	if err := sess.Conn.NC.Flush(); err != nil {
		return nil // closed meanwhile: start over
	}
	for {
		err := sess.Hello()
		if err == nil {
			break
		}
		m.log.Warn("hello to the master failed", "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-closed:
			return nil
		case <-time.After(time.Second):
		}
	}
	m.recovered.Do(func() { m.recover(sess) })
	m.fireStart(sess)
	m.catchup(sess)
	m.log.Info("minion ready")
	ready()
	m.startSchedule(ctx, sess) // schedule.go
	m.startBeacons(ctx, sess)  // beacons.go
	select {
	case <-ctx.Done():
		_ = sub.Unsubscribe()
		_ = all.Unsubscribe()
	case <-closed:
	}
	return nil
}

// resync runs after a reconnection: announce again, then catch up.
func (m *Minion) resync(sess *Session) {
	if sess == nil {
		return
	}
	m.log.Info("reconnected to the master")
	if err := sess.Hello(); err != nil {
		m.log.Warn("hello after reconnect failed", "err", err)
	}
	m.catchup(sess)
}

// catchup asks for the jobs missed since the last one seen.
func (m *Minion) catchup(sess *Session) {
	m.mu.Lock()
	since := m.last
	m.mu.Unlock()
	if since > 0 {
		since -= int64(5 * time.Second) // jobs published around the disconnection
	}
	var rep proto.CatchupReply
	if err := sess.Conn.Request(proto.ReqCatchup, proto.CatchupRequest{Since: since}, &rep, 30*time.Second); err != nil {
		m.log.Warn("catch-up failed", "err", err)
		return
	}
	for _, raw := range rep.Jobs {
		m.handle(sess, raw)
	}
}

// handle verifies a signed job and runs it once.
func (m *Minion) handle(sess *Session, data []byte) {
	mk := sess.Conn.MasterKey()
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
	// A job older than the catch-up window (or as far in the future) is a
	// replay or too late to matter.
	if age := time.Since(time.Unix(0, job.TS)); age > m.window || age < -m.window {
		m.log.Warn("refused job outside the catch-up window", "jid", job.JID, "age", age.Round(time.Second))
		return
	}
	first, err := m.jobs.take(job.JID)
	if err != nil {
		// Without a record the job could run twice after a restart.
		m.log.Error("recording job; not running it", "jid", job.JID, "err", err)
		return
	}
	if !first {
		return
	}
	m.mu.Lock()
	if job.TS > m.last {
		m.last = job.TS
	}
	m.mu.Unlock()
	m.wg.Add(1)
	if jobControl(job.Fun) {
		// Cheap and needed most when the minion is busy: no slot, no
		// process.
		go func() {
			defer m.wg.Done()
			m.finish(sess.Conn, m.runInMinion(sess, job))
		}()
		return
	}
	go func() {
		defer m.wg.Done()
		// A job waiting for a slot is running as far as find_job
		// tells: the master must not give up on it.
		if err := writeProc(m.cachedir(), job, os.Getpid(), true); err != nil {
			m.log.Warn("recording a running job", "jid", job.JID, "err", err)
		}
		m.sem <- struct{}{}
		defer func() { <-m.sem }()
		m.log.Debug("running job", "jid", job.JID, "fun", job.Fun)
		var ret proto.Return
		if len(m.o.JobProcess) == 0 {
			ret = sess.Execute(job) // recorded as in the minion already
		} else {
			ret = m.runProcess(sess, job)
		}
		// The grains a job changed are in place before the master hears
		// of its end: the next job (grains.get, a -G target) sees them.
		if m.o.CollectGrains != nil && refreshesGrains(job) {
			m.reloadGrains(sess)
		}
		removeProc(m.cachedir(), job.JID) // before the master hears of the end
		m.finish(sess.Conn, ret)
		m.runReturners(sess, job, ret) // returners.go
	}()
}

// refreshesGrains reports whether job may have changed the minion's
// grains: a sync of grain modules, a grains or modules refresh, or a
// highstate (which syncs first).
func refreshesGrains(job proto.Job) bool {
	switch job.Fun {
	case "saltutil.sync_grains", "saltutil.sync_all", "saltutil.refresh_grains", "saltutil.refresh_modules", "state.highstate":
		return true
	case "state.apply":
		return len(job.Arg.List()) == 0 && !job.Kwarg.Map().Has("mods")
	}
	return false
}

// reloadGrains collects the grains again and tells the master.
func (m *Minion) reloadGrains(sess *Session) {
	g := m.o.CollectGrains()
	if g == nil {
		return
	}
	m.mu.Lock()
	m.o.Grains = g
	m.mu.Unlock()
	sess.SetGrains(g)
	if err := sess.Hello(); err != nil {
		m.log.Warn("reporting the new grains to the master", "err", err)
	}
}

// jobControl reports whether fun controls other jobs: such jobs bypass
// the Parallel cap and run in the minion process.
func jobControl(fun string) bool {
	switch fun {
	case "saltutil.find_job", "saltutil.running", "saltutil.is_running",
		"saltutil.signal_job", "saltutil.term_job", "saltutil.kill_job",
		"saltutil.term_all_jobs", "saltutil.kill_all_jobs":
		return true
	}
	return false
}

func (m *Minion) cachedir() string { return optString(m.o.Opts, "cachedir") }

// runInMinion runs job in the minion process, recorded in the proc
// directory while it runs.
func (m *Minion) runInMinion(sess *Session, job proto.Job) proto.Return {
	if err := writeProc(m.cachedir(), job, os.Getpid(), true); err != nil {
		m.log.Warn("recording a running job", "jid", job.JID, "err", err)
	}
	defer removeProc(m.cachedir(), job.JID)
	return sess.Execute(job)
}

// finish encodes a return and sends it.
func (m *Minion) finish(c *Conn, ret proto.Return) {
	data, err := json.Marshal(ret)
	if err != nil {
		m.log.Error("encoding return", "jid", ret.JID, "err", err)
		return
	}
	m.sendReturn(c, ret.JID, data, false)
}

// recover runs once after the first connection: it sends the returns a
// previous run of the minion could not deliver, and for each job that
// run took but did not finish (it stopped mid-job), a failed return
// saying so: such a job is not run again.
func (m *Minion) recover(sess *Session) {
	for _, jid := range m.jobs.interrupted() {
		m.log.Warn("job interrupted by a restart; not running it again", "jid", jid)
		ret := proto.Return{
			V: proto.Version, JID: jid, ID: m.id,
			Return:  proto.ValueJSON{V: "ERROR: the minion stopped while running this job; it was not run again"},
			Retcode: 1, TS: time.Now().UnixNano(),
		}
		m.wg.Add(1)
		go func() { defer m.wg.Done(); m.finish(sess.Conn, ret) }()
	}
	for _, jid := range m.jobs.pendingJIDs() {
		data, err := m.jobs.pending(jid)
		if err != nil {
			continue
		}
		m.wg.Add(1)
		go func() { defer m.wg.Done(); m.sendReturn(sess.Conn, jid, data, true) }()
	}
}

// sendReturn hands an encoded return to the master, retrying until the
// master answers (across a master restart) or a day has passed. A return
// the master refuses is not retried; the master calls it a duplicate only
// when it holds this very return (a retry whose reply was lost), and only
// that counts as sent.
// Unless kept (it comes from the journal), the return is written to the
// journal only when the first attempt fails: the common case costs no
// file write, and a minion killed during that first attempt reports the
// job as interrupted after its restart rather than running it again.
func (m *Minion) sendReturn(c *Conn, jid string, data []byte, kept bool) {
	deadline := time.Now().Add(24 * time.Hour)
	backoff := 200 * time.Millisecond
	data = fitReturn(data, c.NC.MaxPayload())
	for time.Now().Before(deadline) {
		err := c.Request(proto.ReqReturn, json.RawMessage(data), nil, 10*time.Second)
		var me *MasterError
		switch {
		case err == nil, errors.As(err, &me) && me.Msg == proto.ErrDuplicateReturn.Error():
			m.markDone(jid, kept)
			return
		case errors.As(err, &me):
			m.log.Error("the master refused the return", "jid", jid, "err", err)
			m.markDone(jid, kept)
			return
		}
		if !kept {
			kept = true
			if perr := m.jobs.setPending(jid, data); perr != nil {
				m.log.Warn("keeping a return on disk", "jid", jid, "err", perr)
			}
		}
		if errors.Is(err, nats.ErrConnectionClosed) {
			return // kept in the journal: sent after the next start
		}
		m.log.Warn("sending return failed; retrying", "jid", jid, "err", err)
		select {
		case <-time.After(backoff):
		case <-m.closed:
			return
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

// fitReturn replaces an encoded return too large for the server's
// max_payload (maxPayload, 0 when unknown) by a failed return saying so:
// retrying it could never succeed.
func fitReturn(data []byte, maxPayload int64) []byte {
	const envelope = 4096 // the request around the return, escaped
	if maxPayload <= 0 || int64(len(data))+envelope <= maxPayload {
		return data
	}
	var ret proto.Return
	if err := json.Unmarshal(data, &ret); err != nil {
		return data
	}
	ret.Return = proto.ValueJSON{V: fmt.Sprintf("ERROR: the return of job %s is %d bytes, more than the master accepts (max_payload %d bytes)", ret.JID, len(data), maxPayload)}
	ret.Retcode, ret.Success = 1, false
	small, err := json.Marshal(ret)
	if err != nil {
		return data
	}
	return small
}

func (m *Minion) markDone(jid string, kept bool) {
	if err := m.jobs.done(jid, kept); err != nil {
		m.log.Warn("recording a sent return", "jid", jid, "err", err)
	}
}
