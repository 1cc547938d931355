package master

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"brine/internal/fleet/events"
	"brine/internal/fleet/proto"
	"brine/internal/match"
	"brine/internal/value"
)

// Resolve returns the accepted minions tgt of type tgtType (a matcher
// name: glob, pcre, list, grain, pillar, compound, nodegroup, ipcidr,
// ...) selects, matching against the grains and pillar cached from each
// minion's last report. Grain and pillar data are as trustworthy as the
// minions that sent them; only the id, bound to the key, is certain.
func (m *Master) Resolve(tgt, tgtType string) ([]string, error) {
	if tgtType == "" {
		tgtType = "glob"
	}
	if _, ok := match.Lookup(tgtType); !ok {
		return nil, fmt.Errorf("unknown target type %q", tgtType)
	}
	groups := value.NewMap(0)
	if g, ok := m.Opts.Get("nodegroups"); ok {
		if gm, ok := g.(*value.Map); ok {
			groups = gm
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.resolveLocked(tgt, tgtType, groups)
}

// resolveLocked is Resolve with m.mu held.
func (m *Master) resolveLocked(tgt, tgtType string, groups *value.Map) ([]string, error) {
	var out []string
	for id := range m.accepted {
		c := &match.Context{ID: id, Nodegroups: groups, Grains: value.NewMap(0), Pillar: value.NewMap(0)}
		if d := m.cache[id]; d != nil {
			if d.Grains != nil {
				c.Grains = d.Grains
			}
			if d.Pillar != nil {
				c.Pillar = d.Pillar
			}
		}
		ok, err := match.Match(c, tgtType, tgt)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Publish stores a job and sends it to every minion the target selects.
func (m *Master) Publish(req proto.PublishRequest) (proto.PublishReply, error) {
	if req.Fun == "" {
		return proto.PublishReply{}, errors.New("no function given")
	}
	minions, gen, err := m.resolve(req.Tgt, req.TgtType)
	if err != nil {
		return proto.PublishReply{}, err
	}
	if len(minions) == 0 || req.ResolveOnly {
		return proto.PublishReply{Minions: minions}, nil
	}
	now := time.Now()
	t0 := now
	job := proto.Job{
		JID: proto.NewJID(now), Fun: req.Fun, Arg: req.Arg, Kwarg: req.Kwarg,
		Tgt: req.Tgt, TgtType: req.TgtType, Minions: minions, User: req.User,
		TS: now.UnixNano(), Timeout: req.Timeout, ReturnSpec: req.ReturnSpec,
	}
	if job.Arg.V == nil {
		job.Arg.V = value.NewList()
	}
	if job.Kwarg.V == nil {
		job.Kwarg.V = value.NewMap(0)
	}
	// The record keeps the minion list; what each minion receives does not
	// (with thousands of minions the list would dwarf the job).
	record, err := proto.Sign(m.Key, job)
	if err != nil {
		return proto.PublishReply{}, err
	}
	signed, err := m.signForMinions(job)
	if err != nil {
		return proto.PublishReply{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := m.jobs.Put(ctx, job.JID, record); err != nil {
		return proto.PublishReply{}, fmt.Errorf("storing job: %w", err)
	}
	m.addRecent(job, signed)
	// Salt announces a job before publishing it, so its returns follow.
	m.Fire(job.JID, events.JobMinions(minions))
	m.Fire(events.JobNewTag(job.JID), events.JobNew(job, events.Missing(req.Tgt, req.TgtType, minions)))
	sent, err := m.broadcast(job.JID, signed, minions, gen)
	if err != nil {
		return proto.PublishReply{}, err
	}
	if !sent {
		for _, id := range minions {
			if err := m.nc.Publish(proto.JobSubject(id, job.JID), signed); err != nil {
				return proto.PublishReply{}, err
			}
		}
		if err := m.nc.Flush(); err != nil {
			return proto.PublishReply{}, err
		}
	}
	m.Log.Info("published job", "jid", job.JID, "fun", job.Fun, "minions", len(minions), "took", time.Since(t0).Round(time.Microsecond))
	return proto.PublishReply{JID: job.JID, Minions: minions}, nil
}

// resolve is Resolve, also giving the generation of the accepted keys
// the minions were chosen from (0 when the keys changed meanwhile).
func (m *Master) resolve(tgt, tgtType string) ([]string, uint64, error) {
	m.mu.Lock()
	gen := m.keysGen
	m.mu.Unlock()
	ids, err := m.Resolve(tgt, tgtType)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.keysGen != gen {
		return ids, 0, err // keys changed meanwhile: no broadcast
	}
	return ids, gen, err
}

// broadcast publishes a job once, on the subject every minion listens
// to, when it targets every accepted minion; it reports whether it did.
//
// A job for a subset of the minions always goes to each of them on its
// own subject: a broadcast filtered by the minions would hand the job's
// arguments (commands, pillar overrides, secrets) to minions it was not
// meant for, and a modified minion need not filter. A job for every
// minion reveals nothing to any of them, provided that "every" still
// holds when the server delivers it. Hence the conditions: an embedded
// server (whose users the master reloads itself, closing the
// connections of keys no longer accepted; an external server reloads
// its authorization file on its own schedule) and no key change since
// the target was resolved, checked and published under the lock
// ReloadKeys holds, with a flush so the server has routed the job
// before any new key can connect.
func (m *Master) broadcast(jid string, signed []byte, minions []string, gen uint64) (bool, error) {
	if m.ns == nil {
		return false, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.keysGen != gen || len(minions) != len(m.accepted) || len(minions) < 2 {
		return false, nil
	}
	if err := m.nc.Publish(proto.BroadcastSubject(jid), signed); err != nil {
		return false, err
	}
	return true, m.nc.Flush()
}

func (m *Master) adminPublish(body json.RawMessage) (any, error) {
	var req proto.PublishRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	return m.Publish(req)
}

func (m *Master) adminResolve(body json.RawMessage) (any, error) {
	var req proto.PublishRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	req.ResolveOnly = true
	return m.Publish(req)
}

// signForMinions signs the job as minions receive it: without the list of
// minions it went to.
func (m *Master) signForMinions(job proto.Job) ([]byte, error) {
	job.Minions = nil
	return proto.Sign(m.Key, job)
}

// recentJob is a job of the catch-up window, kept in memory.
type recentJob struct {
	jid     string
	ts      int64
	minions map[string]bool
	signed  []byte
}

func (m *Master) catchupWindow() time.Duration {
	return time.Duration(optInt(m.Opts, "job_catchup_window", 600)) * time.Second
}

// addRecent records a published job and forgets those past the window.
func (m *Master) addRecent(job proto.Job, signed []byte) {
	set := make(map[string]bool, len(job.Minions))
	for _, id := range job.Minions {
		set[id] = true
	}
	cut := time.Now().Add(-m.catchupWindow()).UnixNano()
	m.recentMu.Lock()
	defer m.recentMu.Unlock()
	i := 0
	for i < len(m.recent) && m.recent[i].ts < cut {
		delete(m.recentJID, m.recent[i].jid)
		m.recent[i] = nil
		i++
	}
	rj := &recentJob{jid: job.JID, ts: job.TS, minions: set, signed: signed}
	m.recent = append(m.recent[i:], rj)
	m.recentJID[job.JID] = rj
}

// loadRecent fills the catch-up window from the job bucket at start-up.
func (m *Master) loadRecent() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lister, err := m.jobs.ListKeys(ctx)
	if err != nil {
		return
	}
	cut := time.Now().Add(-m.catchupWindow())
	var jids []string
	for k := range lister.Keys() {
		if t, err := proto.JIDTime(k); err == nil && t.After(cut.Add(-time.Second)) {
			jids = append(jids, k)
		}
	}
	sort.Strings(jids)
	for _, jid := range jids {
		e, err := m.jobs.Get(ctx, jid)
		if err != nil {
			continue
		}
		var job proto.Job
		if _, err := proto.Open(e.Value(), "", &job); err != nil {
			continue
		}
		signed, err := m.signForMinions(job)
		if err != nil {
			continue
		}
		m.addRecent(job, signed)
	}
}

// handleCatchup returns the jobs of the catch-up window addressed to id
// that id has not returned, oldest first.
func (m *Master) handleCatchup(id string, body json.RawMessage) (any, error) {
	var req proto.CatchupRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	since := time.Now().Add(-m.catchupWindow()).UnixNano()
	if req.Since > since {
		since = req.Since
	}
	var cand []*recentJob
	m.recentMu.Lock()
	for _, j := range m.recent {
		if j.ts >= since && j.minions[id] {
			cand = append(cand, j)
		}
	}
	m.recentMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rep := proto.CatchupReply{}
	for _, j := range cand {
		if _, err := m.rets.Get(ctx, proto.ReturnKey(j.jid, id)); err == nil {
			continue
		}
		rep.Jobs = append(rep.Jobs, json.RawMessage(j.signed))
	}
	return rep, nil
}

// targeted reports whether job jid exists and was sent to minion id: from
// the catch-up window in memory, else from the job's signed record.
func (m *Master) targeted(ctx context.Context, jid, id string) (bool, error) {
	m.recentMu.Lock()
	rj := m.recentJID[jid]
	m.recentMu.Unlock()
	if rj != nil {
		return rj.minions[id], nil
	}
	e, err := m.jobs.Get(ctx, jid)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	pub, _ := m.Key.PublicKey()
	var job proto.Job
	if _, err := proto.Open(e.Value(), pub, &job); err != nil {
		return false, err
	}
	return slices.Contains(job.Minions, id), nil
}

// errReturnRefused is the master's answer to a return it will not store.
var errReturnRefused = errors.New("return refused")

// handleReturn stores minion id's return of a job, once, when the return
// names id and answers a job that exists and was sent to id. The request
// is authenticated like every minion request: its subject carries id,
// and only the connection holding id's accepted key may publish there.
// (A signature of the minion's over each return would add nothing to
// that but an ed25519 verification per return on the master.)
func (m *Master) handleReturn(id string, body json.RawMessage) (any, error) {
	var ret proto.Return
	if err := json.Unmarshal(body, &ret); err != nil {
		return nil, fmt.Errorf("%w: %v", errReturnRefused, err)
	}
	if ret.ID != id || !proto.ValidJID(ret.JID) {
		m.refused(id, "refused return", "claims", ret.ID, "jid", ret.JID)
		return nil, fmt.Errorf("%w: a return from %s must name %s and a job id", errReturnRefused, id, id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ok, err := m.targeted(ctx, ret.JID, id)
	if err != nil {
		return nil, err
	}
	if !ok {
		m.refused(id, "refused return: job not sent to this minion", "jid", ret.JID)
		return nil, fmt.Errorf("%w: job %s was not sent to %s", errReturnRefused, ret.JID, id)
	}
	data, err := json.Marshal(ret)
	if err != nil {
		return nil, err
	}
	key := proto.ReturnKey(ret.JID, id)
	_, err = m.rets.Create(ctx, key, data)
	if errors.Is(err, jetstream.ErrKeyExists) {
		if err := m.storeOverForeign(ctx, key, id, ret.JID, data); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, fmt.Errorf("storing the return: %w", err)
	}
	m.Fire(events.JobRetTag(ret.JID, id), events.JobRet(ret))
	return nil, nil
}

// storeOverForeign decides what to do with a return whose slot is taken.
// The same return again (a retry whose first reply was lost) is a
// duplicate, which the minion takes as delivered. A different, valid
// return of the same minion is refused: a job runs once. Anything else
// in the slot (not a return of this minion for this job) was not written
// through handleReturn and is replaced, so a real return is never lost to
// whatever got there first.
func (m *Master) storeOverForeign(ctx context.Context, key, id, jid string, data []byte) error {
	e, err := m.rets.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		if _, err := m.rets.Create(ctx, key, data); err != nil {
			return fmt.Errorf("storing the return: %w", err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("storing the return: %w", err)
	}
	if bytes.Equal(e.Value(), data) {
		return proto.ErrDuplicateReturn
	}
	var old proto.Return
	if json.Unmarshal(e.Value(), &old) == nil && old.ID == id && old.JID == jid && old.V == proto.Version {
		m.refused(id, "refused a second, different return", "jid", jid)
		return fmt.Errorf("%w: a different return of job %s from %s is stored already", errReturnRefused, jid, id)
	}
	m.Log.Warn("replacing a return slot written outside the master's checks", "minion", id, "jid", jid)
	if _, err := m.rets.Update(ctx, key, data, e.Revision()); err != nil {
		return fmt.Errorf("storing the return: %w", err)
	}
	return nil
}
