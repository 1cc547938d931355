package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// Publish fires an event on the bus over nc, adding _stamp to data (as
// Salt's fire_event does, to the caller's mapping). Events one connection
// publishes reach every listener in the order published.
func Publish(nc *nats.Conn, tag string, data *value.Map) error {
	subj, err := Subject(tag)
	if err != nil {
		return err
	}
	if data == nil {
		data = value.NewMap(1)
	}
	data.Set("_stamp", Stamp(time.Now()))
	return nc.Publish(subj, Encode(data))
}

// FireMaster sends an event from minion id to its master over nc (a
// connection holding the minion's key) and flushes, so an error means the
// master was not reached.
func FireMaster(nc *nats.Conn, id, tag string, ev MinionEvent) error {
	subj, err := MinionSubject(id, tag)
	if err != nil {
		return err
	}
	ev.V = proto.Version
	if ev.Data.V == nil {
		ev.Data.V = value.NewMap(0)
	}
	body, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	if len(body) > MaxEventSize {
		return fmt.Errorf("event %s is %d bytes, more than max_event_size (%d)", tag, len(body), MaxEventSize)
	}
	if err := nc.Publish(subj, body); err != nil {
		return err
	}
	return nc.FlushTimeout(10 * time.Second)
}

// Filter decides which tags a Listener receives; nil receives all.
type Filter func(tag string) bool

// Glob is a Filter matching tags as the reactor does (fnmatch).
func Glob(pattern string) Filter { return func(tag string) bool { return Match(pattern, tag) } }

// Listener receives the bus's events, in order, through Next.
type Listener struct {
	sub    *nats.Subscription
	stop   func() // a JetStream consumer's stop (ListenSince)
	ch     chan Event
	done   chan struct{}
	once   sync.Once
	filter Filter
}

// ErrClosed is returned by Next after Close.
var ErrClosed = errors.New("event listener closed")

// Listen subscribes to the bus over nc (a master or admin connection).
// Events the listener has not taken yet are buffered (up to buf, then
// NATS's own pending limits); a malformed message is skipped.
func Listen(nc *nats.Conn, filter Filter, buf int) (*Listener, error) {
	if buf <= 0 {
		buf = 1024
	}
	l := &Listener{ch: make(chan Event, buf), done: make(chan struct{}), filter: filter}
	sub, err := nc.Subscribe(BusWildcard, func(msg *nats.Msg) {
		ev, err := Decode(msg.Subject, msg.Data)
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
	_ = sub.SetPendingLimits(1<<16, 64<<20)
	l.sub = sub
	if err := nc.Flush(); err != nil {
		_ = sub.Unsubscribe()
		return nil, err
	}
	return l, nil
}

// Next returns the next event, waiting until ctx ends.
func (l *Listener) Next(ctx context.Context) (Event, error) {
	select {
	case ev := <-l.ch:
		return ev, nil
	case <-l.done:
		return Event{}, ErrClosed
	case <-ctx.Done():
		return Event{}, ctx.Err()
	}
}

// Wait returns the first event whose tag matches the glob, skipping
// others, waiting until ctx ends.
func (l *Listener) Wait(ctx context.Context, glob string) (Event, error) {
	for {
		ev, err := l.Next(ctx)
		if err != nil || Match(glob, ev.Tag) {
			return ev, err
		}
	}
}

// Close unsubscribes.
func (l *Listener) Close() {
	l.once.Do(func() {
		close(l.done)
		if l.sub != nil {
			_ = l.sub.Unsubscribe()
		}
		if l.stop != nil {
			l.stop()
		}
	})
}
