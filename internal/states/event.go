package states

// event.go is salt/states/event.py: event.send (and its aliases
// event.fire_master and event.mod_watch) fires an event through the
// event.send execution function; event.wait does nothing by itself and
// fires through mod_watch when a watched state changes.

import (
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	sendParams := func() []statemod.Param {
		return []statemod.Param{statemod.Req("name"), statemod.Opt("data", nil), statemod.Opt("preload", nil),
			statemod.Opt("with_env", false), statemod.Opt("with_grains", false), statemod.Opt("with_pillar", false),
			statemod.Opt("show_changed", true)}
	}
	for _, f := range []struct{ name, doc string }{
		{"event.send", "Send an event to the master (through the event.send execution function)."},
		{"event.fire_master", "Send an event to the master; an alias of event.send."},
		{"event.mod_watch", "Send the event of an event.wait state whose watched states changed."},
	} {
		statemod.Register(&statemod.Function{Name: f.name, Params: sendParams(), Kwargs: true, Doc: f.doc, Run: eventSendState})
	}
	statemod.Register(&statemod.Function{Name: "event.wait",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("sfun", nil), statemod.Opt("data", nil)},
		Doc:    "Send an event only when a watched state changes (through mod_watch).",
		Run: func(c *statemod.Call) (*value.Map, error) {
			return statemod.Ret(c.Get("name"), true, ""), nil
		}})
}

// eventSendState is event.send: the changes show the tag and data unless
// show_changed is false, and the result is what event.send returned.
func eventSendState(c *statemod.Call) (*value.Map, error) {
	ret := statemod.Ret(c.Get("name"), false, "")
	data := c.Get("data")
	if c.Bool("show_changed") {
		ret.Set("changes", value.MapOf("tag", c.Get("name"), "data", data))
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "Event would have been fired")
		return ret, nil
	}
	kwargs := value.MapOf("data", data)
	c.Args.Range(func(k, v any) bool {
		switch k {
		case "name", "data", "show_changed":
		default:
			kwargs.Set(k, v)
		}
		return true
	})
	res, err := c.Salt("event.send", []any{c.Get("name")}, kwargs)
	if err != nil {
		return nil, err
	}
	ret.Set("result", res)
	ret.Set("comment", "Event fired")
	return ret, nil
}
