package master

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/nats-io/nats.go"

	"brine/internal/fleet/events"
	"brine/internal/fleet/keys"
	"brine/internal/fleet/proto"
	"brine/internal/fleet/reactor"
	"brine/internal/value"
)

// Fire fires an event on the master's bus (see internal/fleet/events),
// adding _stamp to data.
func (m *Master) Fire(tag string, data *value.Map) {
	if m.nc == nil {
		return
	}
	if err := events.Publish(m.nc, tag, data); err != nil {
		m.Log.Warn("firing an event", "tag", tag, "err", err)
	}
}

// startEvents relays the minions' events to the bus, starts the reactor
// when the reactor option maps some tag, and fires presence events when
// presence_events is on.
func (m *Master) startEvents() error {
	sub, err := m.nc.Subscribe(events.MinionWildcard, m.relayMinionEvent)
	if err != nil {
		return err
	}
	_ = sub.SetPendingLimits(1<<16, 256<<20)
	if keep := optFloat(m.Opts, "event_retention", 300); keep > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := m.js.CreateOrUpdateStream(ctx, events.StreamConfig(time.Duration(keep*float64(time.Second)), 64<<20))
		cancel()
		if err != nil {
			return fmt.Errorf("jetstream stream %s: %w", events.StreamName, err)
		}
	}
	m.reactor = reactor.New(reactor.Config{
		Opts:        m.Opts,
		Files:       m.Files.Roots,
		Publisher:   reactorPublisher{m},
		Keys:        m.Store,
		KeysChanged: m.ReloadKeys,
		Fire:        m.Fire,
		Runner:      m.Runner,
		Log:         m.Log,
	})
	if m.reactor.Enabled() {
		m.reactor.Start()
		// The bus goroutine only queues: Handle never blocks.
		if _, err := m.nc.Subscribe(events.BusWildcard, func(msg *nats.Msg) {
			if ev, err := events.Decode(msg.Subject, msg.Data); err == nil {
				m.reactor.Handle(ev)
			}
		}); err != nil {
			return err
		}
	}
	if value.Truthy(mustGet(m.Opts, "presence_events")) {
		m.wg.Add(1)
		go m.presenceLoop()
	}
	return nil
}

// relayMinionEvent fires an event a minion sent, as Salt's _minion_event
// does: the minion's whole load, its id the one its key proves. Tags a
// minion may not fire (the master's own events) are refused.
func (m *Master) relayMinionEvent(msg *nats.Msg) {
	id, tag, err := events.ParseMinionSubject(msg.Subject)
	if err != nil {
		return
	}
	if len(msg.Data) > events.MaxEventSize {
		m.refused(id, "dropped event larger than max_event_size", "tag", tag, "bytes", len(msg.Data))
		return
	}
	if !events.MinionMayFire(id, tag) {
		m.refused(id, "refused event: a minion may not fire this tag", "tag", tag)
		return
	}
	m.mu.Lock()
	_, ok := m.accepted[id]
	m.mu.Unlock()
	if !ok {
		return
	}
	var ev events.MinionEvent
	if err := json.Unmarshal(msg.Data, &ev); err != nil || ev.V != proto.Version {
		m.refused(id, "refused malformed event", "tag", tag)
		return
	}
	m.Fire(tag, events.MinionLoad(id, tag, ev))
}

// fireAuth fires salt/auth for a key request or a connection: pend,
// accept, reject or denied, as the minion's key stands.
func (m *Master) fireAuth(id, pub string, st keys.State) {
	switch st {
	case keys.Pending:
		m.Fire(events.TagAuth, events.Auth("pend", id, pub, true))
	case keys.Accepted:
		m.Fire(events.TagAuth, events.Auth("accept", id, pub, true))
	case keys.Rejected:
		m.Fire(events.TagAuth, events.Auth("reject", id, pub, false))
	case keys.Denied:
		m.Fire(events.TagAuth, events.Auth("denied", id, pub, false))
	}
}

// fireKeyChanges fires salt/key for the keys that entered or left the
// accepted set (`brine key` or a wheel reaction moved them): accept,
// reject or delete, by where the key is now.
func (m *Master) fireKeyChanges(old, cur map[string]string) {
	var ids []string
	for id := range cur {
		if _, had := old[id]; !had {
			ids = append(ids, id)
		}
	}
	for id := range old {
		if _, has := cur[id]; !has {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		if _, has := cur[id]; has {
			m.Fire(events.TagKey, events.Key("accept", id, true))
			continue
		}
		switch st, _ := m.Store.Find(id); st {
		case keys.Rejected:
			m.Fire(events.TagKey, events.Key("reject", id, true))
		case "":
			m.Fire(events.TagKey, events.Key("delete", id, true))
		}
	}
}

// presenceLoop fires salt/presence/present every loop_interval seconds,
// and salt/presence/change first when minions came or went.
func (m *Master) presenceLoop() {
	defer m.wg.Done()
	iv := time.Duration(optFloat(m.Opts, "loop_interval", 60) * float64(time.Second))
	if iv <= 0 {
		iv = 60 * time.Second
	}
	t := time.NewTicker(iv)
	defer t.Stop()
	old := map[string]bool{}
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
		}
		present, ok := m.connectedIDs()
		if !ok {
			continue
		}
		var added, lost []string
		cur := map[string]bool{}
		for _, id := range present {
			cur[id] = true
			if !old[id] {
				added = append(added, id)
			}
		}
		for id := range old {
			if !cur[id] {
				lost = append(lost, id)
			}
		}
		sort.Strings(lost)
		if len(added) > 0 || len(lost) > 0 {
			m.Fire(events.TagPresenceChange, events.PresenceChange(added, lost))
		}
		m.Fire(events.TagPresencePresent, events.PresencePresent(present))
		old = cur
	}
}

// connectedIDs lists the accepted minions connected now (see
// adminPresence); false when the master cannot tell.
func (m *Master) connectedIDs() ([]string, bool) {
	m.mu.Lock()
	ids := make([]string, 0, len(m.accepted))
	for id := range m.accepted {
		ids = append(ids, id)
	}
	m.mu.Unlock()
	sort.Strings(ids)
	rep, err := m.adminPresence(mustJSON(proto.PresenceRequest{IDs: ids}))
	if err != nil {
		return nil, false
	}
	pr := rep.(proto.PresenceReply)
	if !pr.Known {
		return nil, false
	}
	absent := map[string]bool{}
	for _, id := range pr.Absent {
		absent[id] = true
	}
	var out []string
	for _, id := range ids {
		if !absent[id] {
			out = append(out, id)
		}
	}
	return out, true
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// reactorPublisher publishes the reactor's local.* jobs.
type reactorPublisher struct{ m *Master }

func (p reactorPublisher) PublishJob(tgt, tgtType, fun string, arg []any, kwarg *value.Map, user string) (string, []string, error) {
	rep, err := p.m.Publish(proto.PublishRequest{
		Tgt: tgt, TgtType: tgtType, Fun: fun,
		Arg: proto.ValueJSON{V: value.NewList(arg...)}, Kwarg: proto.ValueJSON{V: kwarg},
		User: user,
	})
	return rep.JID, rep.Minions, err
}
