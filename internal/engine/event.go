package engine

import (
	"strings"

	"brine/internal/value"
)

// event is Salt's State.event, called as a chunk's result is set: a
// fire_event of true tags the event with the state's name, a text with
// that text; otherwise, with state_events (or a fire_event that is true
// but neither), the progress event of the job is fired.
func (r *runner) event(low *value.Map, ret any) {
	if r.opts.FireEvent == nil {
		return
	}
	m, ok := ret.(*value.Map)
	if !ok {
		return
	}
	fe, _ := low.Get("fire_event")
	data := value.MapOf("ret", m)
	var tag string
	switch x := fe.(type) {
	case bool:
		if x {
			tag = tagify("state_result", r.opts.JID, r.opts.MinionID, pyStr(get(m, "name")))
		}
	case string:
		tag = tagify("state_result", r.opts.JID, r.opts.MinionID, x)
	}
	if tag == "" {
		if !r.opts.StateEvents && !value.Truthy(fe) {
			return
		}
		tag = tagify("job", r.opts.JID, "prog", r.opts.MinionID, pyStr(get(m, "__run_num__")))
		data.Set("len", int64(len(r.chunks)))
	}
	r.opts.FireEvent(tag, data)
}

// tagify is salt.utils.event.tagify with the base "salt": the parts
// joined by "/", empty ones left out.
func tagify(parts ...string) string {
	out := []string{"salt"}
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "/")
}
