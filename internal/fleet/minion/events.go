package minion

import (
	"fmt"
	"time"

	"brine/internal/fleet/events"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// eventService is the "event" service of a run (modules.EventService):
// event.send, event.fire_master and event.fire reach the master through
// it.
type eventService struct{ s *Session }

// FireMaster sends an event to the master. A minion daemon sends Salt's
// _minion_event load (with pretag); `brine call`, or any call with a
// preload, sends salt-call's load.
func (e eventService) FireMaster(tag string, data any, preload *value.Map) bool {
	c, err := e.s.conn()
	if err != nil || c == nil {
		return false
	}
	ev := events.MinionEvent{Data: proto.ValueJSON{V: data}, Direct: !e.s.daemon || preload != nil}
	if preload != nil {
		ev.Preload = &proto.ValueJSON{V: preload}
	}
	return events.FireMaster(c.NC, e.s.minionID(), tag, ev) == nil
}

// FireLocal fires on the minion's own bus (localbus.go), which the
// minion daemon serves: its job processes and `brine call` beside it
// reach it, and state.event watches it. The daemon also acts on
// fire_master, which forwards the event in data to the master.
func (e eventService) FireLocal(tag string, data *value.Map) bool {
	sent := publishLocal(LocalBusPath(e.s.Opts), tag, data) == nil
	if !e.s.daemon {
		return sent
	}
	if len(tag) >= len("fire_master") && tag[:len("fire_master")] == "fire_master" {
		t, _ := data.Get("tag")
		d, _ := data.Get("data")
		if ts, ok := t.(string); ok && ts != "" {
			go e.FireMaster(ts, d, nil)
		}
	}
	return true
}

// fireStart fires the minion's start events (Salt's
// _fire_master_minion_start): minion_start too while
// enable_legacy_startup_events is on (the default), with the
// start_event_grains when some are set.
func (m *Minion) fireStart(sess *Session) {
	c, err := sess.conn()
	if err != nil || c == nil {
		return
	}
	msg := fmt.Sprintf("Minion %s started at %s", m.id, time.Now().Format("Mon Jan _2 15:04:05 2006"))
	ev := events.MinionEvent{Data: proto.ValueJSON{V: msg}}
	if l, ok := mustGet(m.o.Opts, "start_event_grains").(*value.List); ok && len(l.Items) > 0 {
		want := map[string]bool{}
		for _, e := range l.Items {
			want[value.Str(e)] = true
		}
		g := value.NewMap(0)
		sess.CurrentGrains().Range(func(k, v any) bool {
			if want[value.Str(k)] {
				g.Set(k, v)
			}
			return true
		})
		ev.Grains = &proto.ValueJSON{V: g}
	}
	tags := []string{events.MinionStartTag(m.id)}
	if v, ok := m.o.Opts.Get("enable_legacy_startup_events"); !ok || value.Truthy(v) {
		tags = []string{events.TagMinionStartLegacy, events.MinionStartTag(m.id)}
	}
	for _, tag := range tags {
		if err := events.FireMaster(c.NC, m.id, tag, ev); err != nil {
			m.log.Info("fire_master failed", "tag", tag, "err", err)
		}
	}
}
