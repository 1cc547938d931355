package client

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// FindJob is the function asked of minions that have not returned.
const FindJob = "saltutil.find_job"

// WaitOptions are the options of Wait.
type WaitOptions struct {
	// Timeout is Salt's timeout: how long to wait for returns before
	// asking the minions whether they still run the job, and again after
	// each minion said it does.
	Timeout time.Duration
	// GatherJobTimeout is how long the minions have to answer.
	GatherJobTimeout time.Duration
	// Poll is how often the master is asked which minions are connected
	// (1 s when zero).
	Poll time.Duration
	// User is the user the find_job jobs are published as.
	User string
	// OnReturn and OnFail, when set, are called as each minion returns
	// or is given up on.
	OnReturn func(proto.Return)
	OnFail   func(Failed)
}

// Wait waits for the returns of job jid from minions as the salt command
// does (see waiter): as long as the minions that have not returned say
// they still run the job. It returns the returns by minion id and the
// minions given up on; it stops early, with what it has, when ctx ends.
func (c *Client) Wait(ctx context.Context, jid string, minions []string, o WaitOptions) (map[string]proto.Return, []Failed, error) {
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	kv, err := c.bucket(ctx, proto.ReturnBucket)
	if err != nil {
		return nil, nil, err
	}
	rets, err := kv.Watch(ctx, jid+".*", jetstream.IgnoreDeletes())
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = rets.Stop() }()
	var answers jetstream.KeyWatcher // the current find_job round's returns
	defer func() {
		if answers != nil {
			_ = answers.Stop()
		}
	}()
	var fjid string

	got := map[string]proto.Return{}
	var failed []Failed
	fail := func(fs []Failed) {
		for _, f := range fs {
			failed = append(failed, f)
			if o.OnFail != nil {
				o.OnFail(f)
			}
		}
	}
	w := newWaiter(minions, time.Now(), o.Timeout, o.GatherJobTimeout)
	presence := true // until the master says it cannot tell
	var nextPoll time.Time
	for !w.done() {
		now := time.Now()
		if presence && !now.Before(nextPoll) {
			absent, known, err := c.presence(w.ids())
			switch {
			case known:
				fail(w.presence(absent))
			case err == nil || errors.Is(err, nats.ErrNoResponders):
				presence = false // the master cannot tell: find_job only
			}
			nextPoll = now.Add(o.Poll)
		}
		ask, gone := w.tick(now)
		fail(gone)
		if len(ask) > 0 {
			if answers != nil {
				_ = answers.Stop()
				answers = nil
			}
			fjid, answers = c.findJob(ctx, kv, jid, ask, o)
		}
		if w.done() {
			break
		}
		wake := w.wake()
		if presence && nextPoll.Before(wake) {
			wake = nextPoll
		}
		var answerCh <-chan jetstream.KeyValueEntry
		if answers != nil {
			answerCh = answers.Updates()
		}
		timer := time.NewTimer(time.Until(wake))
		select {
		case <-ctx.Done():
			timer.Stop()
			return got, failed, nil
		case e, ok := <-rets.Updates():
			if !ok {
				timer.Stop()
				if ctx.Err() != nil {
					return got, failed, nil
				}
				return got, failed, errors.New("the watch of the job's returns ended")
			}
			if r, ok := decodeReturn(jid, e); ok && w.returned(r.ID) {
				got[r.ID] = r
				if o.OnReturn != nil {
					o.OnReturn(r)
				}
			}
		case e, ok := <-answerCh:
			if !ok {
				answers = nil
				break
			}
			if r, ok := decodeReturn(fjid, e); ok {
				w.answered(r.ID, runsJob(r), time.Now())
			}
		case <-timer.C:
		}
		timer.Stop()
	}
	return got, failed, nil
}

// decodeReturn reads a return of job jid from the return bucket; it is
// false for the end-of-history marker and for anything stored under
// another minion's name.
func decodeReturn(jid string, e jetstream.KeyValueEntry) (proto.Return, bool) {
	var r proto.Return
	if e == nil || json.Unmarshal(e.Value(), &r) != nil {
		return r, false
	}
	id, err := proto.IDFromToken(strings.TrimPrefix(e.Key(), jid+"."))
	if err != nil || id != r.ID {
		return r, false
	}
	return r, true
}

// runsJob reads a find_job answer: a non-empty mapping means the minion
// still runs the job; {} (or an error) that it does not.
func runsJob(r proto.Return) bool {
	m, ok := r.Return.V.(*value.Map)
	return ok && r.Retcode == 0 && m.Len() > 0
}

// findJob publishes saltutil.find_job for jid to ids (a list target, as
// Salt's gather_job_info) and watches its returns. When it cannot, the
// minions simply do not answer.
func (c *Client) findJob(ctx context.Context, kv jetstream.KeyValue, jid string, ids []string, o WaitOptions) (string, jetstream.KeyWatcher) {
	rep, err := c.Publish(proto.PublishRequest{
		Tgt: strings.Join(ids, ","), TgtType: "list", Fun: FindJob,
		Arg: proto.ValueJSON{V: value.NewList(jid)}, Kwarg: proto.ValueJSON{V: value.NewMap(0)},
		User: o.User, Timeout: o.GatherJobTimeout.Seconds(),
	})
	if err != nil || rep.JID == "" {
		return "", nil
	}
	wt, err := kv.Watch(ctx, rep.JID+".*", jetstream.IgnoreDeletes())
	if err != nil {
		return "", nil
	}
	return rep.JID, wt
}

// presence asks the master which of ids are not connected; known is
// false when it cannot tell (an external server it may not query; a
// master without the request answers nats.ErrNoResponders).
func (c *Client) presence(ids []string) (absent map[string]bool, known bool, err error) {
	var rep proto.PresenceReply
	if err := c.request(proto.AdminPresence, proto.PresenceRequest{IDs: ids}, &rep, 5*time.Second); err != nil {
		return nil, false, err
	}
	if !rep.Known {
		return nil, false, nil
	}
	absent = make(map[string]bool, len(rep.Absent))
	for _, id := range rep.Absent {
		absent[id] = true
	}
	return absent, true, nil
}

// Presence asks the master which of ids are not connected: known is
// false when it cannot tell.
func (c *Client) Presence(ids []string) (absent map[string]bool, known bool, err error) {
	return c.presence(ids)
}
