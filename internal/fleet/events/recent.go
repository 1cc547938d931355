package events

import (
	"context"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// StreamName is the JetStream stream in which the master keeps the bus's
// recent events (event_retention seconds, in memory), so a listener
// started just after an event can still ask for it.
const StreamName = "BRINE_EVENTS"

// StreamConfig is the stream of the recent events: every bus subject,
// kept for retention and at most maxBytes, in memory, oldest dropped.
func StreamConfig(retention time.Duration, maxBytes int64) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        StreamName,
		Description: "brine: the event bus's recent events",
		Subjects:    []string{BusWildcard},
		Storage:     jetstream.MemoryStorage,
		Retention:   jetstream.LimitsPolicy,
		Discard:     jetstream.DiscardOld,
		MaxAge:      retention,
		MaxBytes:    maxBytes,
	}
}

// ListenSince is Listen starting with the events the master kept since
// the given time, then the new ones, in order, without a gap or a repeat
// between the two. It needs the master's event stream (event_retention
// above 0).
func ListenSince(nc *nats.Conn, since time.Time, filter Filter, buf int) (*Listener, error) {
	if buf <= 0 {
		buf = 1024
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cons, err := js.OrderedConsumer(ctx, StreamName, jetstream.OrderedConsumerConfig{
		DeliverPolicy: jetstream.DeliverByStartTimePolicy,
		OptStartTime:  &since,
	})
	if err != nil {
		return nil, err
	}
	l := &Listener{ch: make(chan Event, buf), done: make(chan struct{}), filter: filter}
	cc, err := cons.Consume(func(msg jetstream.Msg) {
		ev, err := Decode(msg.Subject(), msg.Data())
		if err != nil || (l.filter != nil && !l.filter(ev.Tag)) {
			return
		}
		select {
		case l.ch <- ev:
		case <-l.done:
		}
	})
	if err != nil {
		return nil, err
	}
	l.stop = cc.Stop
	return l, nil
}
