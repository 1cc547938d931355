package master

// schedret.go stores the returns of the jobs minions' schedulers run
// (Salt's _return with jid "req"): the master gives each a job id, and
// stores a job record naming the minion alone and the return, so that the
// job cache (brine jobs, jobs.list_jobs, jobs.lookup_jid) shows scheduled
// runs beside published jobs.

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"brine/internal/fleet/events"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// handleSchedReturn serves a ReqSchedReturn request of minion id.
func (m *Master) handleSchedReturn(id string, body json.RawMessage) (any, error) {
	var sr proto.SchedReturn
	if err := json.Unmarshal(body, &sr); err != nil {
		return nil, fmt.Errorf("%w: %v", errReturnRefused, err)
	}
	ret := sr.Return
	if ret.ID != id || ret.Fun == "" {
		m.refused(id, "refused scheduled return", "claims", ret.ID)
		return nil, fmt.Errorf("%w: a return from %s must name %s and a function", errReturnRefused, id, id)
	}
	now := time.Now()
	ret.V = proto.Version
	ret.JID = proto.NewJID(now)
	args, kwargs := value.NewList(), value.NewMap(0)
	for _, a := range ret.FunArgs.List() {
		if km, ok := a.(*value.Map); ok {
			kwargs.Update(km)
			continue
		}
		args.Append(a)
	}
	ev := events.JobRet(ret)
	ev.Set("schedule", sr.Schedule)
	if sr.NoCache {
		m.Fire(events.JobRetTag(ret.JID, id), ev)
		return proto.SchedReturnReply{JID: ret.JID}, nil
	}
	job := proto.Job{
		JID: ret.JID, Fun: ret.Fun, Arg: proto.ValueJSON{V: args}, Kwarg: proto.ValueJSON{V: kwargs},
		Tgt: id, TgtType: "glob", Minions: []string{id}, User: "root", TS: now.UnixNano(),
	}
	record, err := proto.Sign(m.Key, job)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(ret)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := m.jobs.Put(ctx, job.JID, record); err != nil {
		return nil, fmt.Errorf("storing job: %w", err)
	}
	if _, err := m.rets.Create(ctx, proto.ReturnKey(ret.JID, id), data); err != nil {
		return nil, fmt.Errorf("storing the return: %w", err)
	}
	m.Fire(events.JobRetTag(ret.JID, id), ev)
	return proto.SchedReturnReply{JID: ret.JID}, nil
}
