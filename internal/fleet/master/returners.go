package master

import (
	"time"

	"github.com/nats-io/nats.go"

	"brine/internal/fleet/events"
	"brine/internal/fleet/returners"
)

// startEventReturn hands the bus's events to the returners of the
// event_return option (returners.EventReturner, Salt's EventReturn), in
// a subscription of its own so that a slow returner holds up nothing
// else; what is queued is flushed when the master stops.
func (m *Master) startEventReturn() error {
	er := returners.NewEventReturner(returners.Config{Opts: m.Opts}, m.Log.Warn)
	if er == nil {
		return nil
	}
	sub, err := m.nc.Subscribe(events.BusWildcard, func(msg *nats.Msg) {
		if ev, err := events.Decode(msg.Subject, msg.Data); err == nil {
			er.Add(ev.Tag, ev.Data, time.Now())
		}
	})
	if err != nil {
		return err
	}
	_ = sub.SetPendingLimits(1<<16, 256<<20)
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		<-m.stop
		_ = sub.Unsubscribe()
		er.Flush()
	}()
	m.Log.Info("event returners started", "event_return", er.Names)
	return nil
}
