package returners

import (
	"sync"
	"time"

	"brine/internal/fleet/events"
	"brine/internal/value"
)

// EventReturner is Salt's EventReturn on the master: the events of the
// bus that pass event_return_whitelist and event_return_blacklist
// (fnmatch globs) are queued and handed in batches to the event_return
// of each returner of event_return, once event_return_queue events are
// queued (0: each event at once) or the oldest waited
// event_return_queue_max_seconds (checked as events arrive, as Salt does).
type EventReturner struct {
	Names        []string
	Queue        int
	MaxAge       time.Duration
	White, Black []string
	Cfg          Config
	Reg          *Registry
	// Log reports a returner that failed or does not take events.
	Log func(msg string, args ...any)

	mu     sync.Mutex
	queue  []*value.Map
	oldest time.Time
}

func optStrings(opts *value.Map, k string) []string {
	v, _ := opts.Get(k)
	switch x := v.(type) {
	case string:
		if x != "" {
			return []string{x}
		}
	case *value.List:
		var out []string
		for _, it := range x.Items {
			out = append(out, value.Str(it))
		}
		return out
	}
	return nil
}

func optNumber(opts *value.Map, k string) float64 {
	v, _ := opts.Get(k)
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// NewEventReturner reads the master options of cfg; it returns nil when
// event_return names no returner.
func NewEventReturner(cfg Config, log func(msg string, args ...any)) *EventReturner {
	v, _ := cfg.Opts.Get("event_return")
	names := NamesOf(v)
	if len(names) == 0 {
		return nil
	}
	return &EventReturner{
		Names:  names,
		Queue:  int(optNumber(cfg.Opts, "event_return_queue")),
		MaxAge: time.Duration(optNumber(cfg.Opts, "event_return_queue_max_seconds") * float64(time.Second)),
		White:  optStrings(cfg.Opts, "event_return_whitelist"),
		Black:  optStrings(cfg.Opts, "event_return_blacklist"),
		Cfg:    cfg,
		Reg:    Default,
		Log:    log,
	}
}

// Wanted reports whether an event with tag passes the lists.
func (e *EventReturner) Wanted(tag string) bool {
	ok := len(e.White) == 0
	for _, w := range e.White {
		if events.Match(w, tag) {
			ok = true
			break
		}
	}
	for _, b := range e.Black {
		if events.Match(b, tag) {
			return false
		}
	}
	return ok
}

// Add queues an event (when wanted) and flushes the queue when it is
// full or its oldest event waited too long.
func (e *EventReturner) Add(tag string, data *value.Map, now time.Time) {
	e.mu.Lock()
	if e.Wanted(tag) {
		e.queue = append(e.queue, value.MapOf("data", data, "tag", tag))
	}
	old := false
	if e.MaxAge > 0 {
		if e.oldest.IsZero() {
			e.oldest = now
		}
		if now.Sub(e.oldest) >= e.MaxAge {
			old = true
		}
	}
	var batch []*value.Map
	if len(e.queue) >= e.Queue || old {
		batch, e.queue, e.oldest = e.queue, nil, time.Time{}
	}
	e.mu.Unlock()
	e.send(batch)
}

// Flush sends what is queued (the master does at shutdown).
func (e *EventReturner) Flush() {
	e.mu.Lock()
	batch := e.queue
	e.queue, e.oldest = nil, time.Time{}
	e.mu.Unlock()
	e.send(batch)
}

func (e *EventReturner) send(batch []*value.Map) {
	if len(batch) == 0 {
		return
	}
	for _, n := range e.Names {
		r, ok := e.Reg.Lookup(n)
		if !ok || r.EventReturn == nil {
			e.Log("could not store return for event(s) - returner not found", "returner", n+".event_return")
			continue
		}
		if err := r.EventReturn(e.Cfg, batch); err != nil {
			e.Log("could not store events - returner raised an error", "returner", n+".event_return", "err", err)
		}
	}
}
