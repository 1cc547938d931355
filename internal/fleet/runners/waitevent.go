package runners

// waitevent.go is saltmod.wait_for_event: an orchestration step that
// waits on the master's event bus until each id of a list has been seen
// in an event whose tag matches a glob.

import (
	"context"
	"fmt"
	"time"

	"brine/internal/execmod"
	"brine/internal/fleet/events"
	"brine/internal/statemod"
	"brine/internal/value"
)

func waitForEventState() *statemod.Function {
	return &statemod.Function{
		Name: "salt.wait_for_event", Run: saltWaitForEvent,
		Doc: "Wait until each id of id_list has been seen (event_id of the event data) in an event whose tag matches name, or timeout seconds.",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("id_list"), statemod.Opt("event_id", "id"),
			statemod.Opt("timeout", int64(300)), statemod.Opt("node", "master")},
	}
}

func saltWaitForEvent(c *statemod.Call) (*value.Map, error) {
	rc, err := runnerOf(c)
	if err != nil {
		return nil, err
	}
	name := c.Str("name")
	ret := value.MapOf("name", c.Get("name"), "changes", value.NewMap(0), "comment", "", "result", false)
	if c.Test {
		ret.Set("comment", fmt.Sprintf("Orchestration would wait for event '%s'", name))
		ret.Set("result", nil)
		return ret, nil
	}
	if node := c.Str("node"); node != "master" {
		return nil, &execmod.InvocationError{Msg: fmt.Sprintf("node %q: brine has the master's event bus only", node)}
	}
	var pending []any
	switch x := c.Get("id_list").(type) {
	case *value.List:
		pending = append(pending, x.Items...)
	default:
		return nil, &execmod.InvocationError{Msg: "id_list must be a list"}
	}
	timeout, ok := number(c.Get("timeout"))
	if !ok {
		return nil, &execmod.InvocationError{Msg: "timeout must be a number of seconds"}
	}
	conn, err := rc.Client()
	if err != nil {
		return nil, err
	}
	l, err := events.Listen(conn.NC, events.Glob(name), 0)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	start := time.Now()
	ctx := c.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithDeadline(ctx, start.Add(time.Duration(timeout*float64(time.Second))))
	defer cancel()
	eventID := c.Str("event_id")
	var seen *value.List
	see := func(v any) {
		for i, p := range pending {
			if value.Equal(p, v) {
				pending = append(pending[:i], pending[i+1:]...)
				if seen == nil {
					seen = value.NewList()
					changes, _ := ret.Get("changes")
					changes.(*value.Map).Set("minions_seen", seen)
				}
				seen.Append(v)
				return
			}
		}
	}
	for len(pending) > 0 {
		ev, err := l.Next(ctx)
		if err != nil {
			ret.Set("comment", "Timeout value reached.")
			return ret, nil
		}
		val, ok := ev.Data.Get(eventID)
		if !ok || val == nil {
			if d, isMap := mapGet(ev.Data, "data").(*value.Map); isMap {
				val = mapGet(d, eventID)
			}
		}
		switch x := val.(type) {
		case nil:
		case *value.List:
			// The ids of id_list the event names, in id_list's order.
			for _, p := range append([]any(nil), pending...) {
				for _, e := range x.Items {
					if value.Equal(p, e) {
						see(p)
						break
					}
				}
			}
		default:
			see(x)
		}
	}
	ret.Set("result", true)
	ret.Set("comment", fmt.Sprintf("All events seen in %s seconds.", value.Str(time.Since(start).Seconds())))
	return ret, nil
}
