package events

import (
	"strings"

	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// Payloads, keyed and ordered as Salt 3006 builds them. Fire adds _stamp.

// JobArg is a job's arg as Salt publishes it (condition_input): the
// positional arguments, then, when there are keyword arguments, one
// mapping of them led by "__kwarg__": True.
func JobArg(arg []any, kwarg *value.Map) *value.List {
	out := value.NewList(append([]any(nil), arg...)...)
	if kwarg != nil && kwarg.Len() > 0 {
		kw := value.NewMap(kwarg.Len() + 1)
		kw.Set("__kwarg__", true)
		kwarg.Range(func(k, v any) bool { kw.Set(k, v); return true })
		out.Items = append(out.Items, kw)
	}
	return out
}

// JobNew is the data of salt/job/<jid>/new.
func JobNew(job proto.Job, missing []string) *value.Map {
	return value.MapOf(
		"jid", job.JID,
		"tgt_type", job.TgtType,
		"tgt", job.Tgt,
		"user", job.User,
		"fun", job.Fun,
		"arg", JobArg(job.Arg.List(), job.Kwarg.Map()),
		"minions", strList(job.Minions),
		"missing", strList(missing),
	)
}

// JobMinions is the data of Salt's legacy event tagged with the bare jid.
func JobMinions(minions []string) *value.Map { return value.MapOf("minions", strList(minions)) }

// Missing lists the ids a list target names that are not among minions,
// as Salt's list matcher reports them; other targets miss nothing.
func Missing(tgt, tgtType string, minions []string) []string {
	if tgtType != "list" {
		return nil
	}
	have := map[string]bool{}
	for _, id := range minions {
		have[id] = true
	}
	var out []string
	for _, id := range strings.Split(tgt, ",") {
		if id = strings.TrimSpace(id); id != "" && !have[id] {
			out = append(out, id)
		}
	}
	return out
}

// JobRet is the data of salt/job/<jid>/ret/<id>: the minion's return load.
func JobRet(r proto.Return) *value.Map {
	args := r.FunArgs.V
	if args == nil {
		args = value.NewList()
	}
	m := value.MapOf(
		"cmd", "_return",
		"id", r.ID,
		"success", r.Success,
		"return", r.Return.V,
		"retcode", int64(r.Retcode),
		"jid", r.JID,
		"fun", r.Fun,
		"fun_args", args,
	)
	if r.Out != "" {
		m.Set("out", r.Out)
	}
	return m
}

// Auth is the data of salt/auth: act is accept, pend, reject or denied.
func Auth(act, id, pub string, result bool) *value.Map {
	return value.MapOf("result", result, "act", act, "id", id, "pub", pub)
}

// Key is the data of salt/key: act is accept, reject or delete.
func Key(act, id string, result bool) *value.Map {
	return value.MapOf("result", result, "act", act, "id", id)
}

// PresencePresent is the data of salt/presence/present.
func PresencePresent(present []string) *value.Map {
	return value.MapOf("present", strList(present))
}

// PresenceChange is the data of salt/presence/change.
func PresenceChange(newIDs, lost []string) *value.Map {
	return value.MapOf("new", strList(newIDs), "lost", strList(lost))
}

// MinionEvent is the body a minion sends to fire an event on the master
// (Salt's _minion_event load, less what the master fills in).
type MinionEvent struct {
	V    int             `json:"v"`
	Data proto.ValueJSON `json:"data"`
	// Direct marks salt-call's way (event.fire_master from `brine call`
	// with a master): a load of id, tag, data and cmd, without pretag,
	// merged with Preload. Otherwise the load is the minion daemon's.
	Direct  bool             `json:"direct,omitempty"`
	Preload *proto.ValueJSON `json:"preload,omitempty"`
	// Grains are the start_event_grains of a start event.
	Grains *proto.ValueJSON `json:"grains,omitempty"`
	// Listed marks one of the events of Salt's "events" load (beacons):
	// the master fires its data as it is, not the load.
	Listed bool `json:"listed,omitempty"`
}

// MinionLoad is the data the master fires for an event minion id sent:
// Salt fires the whole _minion_event load (its token removed). The id is
// always the sender's, whatever the preload says.
func MinionLoad(id, tag string, ev MinionEvent) *value.Map {
	if d, ok := ev.Data.V.(*value.Map); ok && ev.Listed {
		return d
	}
	var m *value.Map
	if ev.Direct {
		m = value.MapOf("id", id, "tag", tag, "data", ev.Data.V, "cmd", "_minion_event")
		if ev.Preload != nil {
			ev.Preload.Map().Range(func(k, v any) bool {
				if value.Str(k) != "tok" {
					m.Set(k, v)
				}
				return true
			})
		}
		m.Set("id", id)
	} else {
		m = value.MapOf("id", id, "cmd", "_minion_event", "pretag", nil, "data", ev.Data.V, "tag", tag)
	}
	if ev.Grains != nil {
		m.Set("grains", ev.Grains.V)
	}
	return m
}

func strList(s []string) *value.List {
	l := value.NewList()
	for _, x := range s {
		l.Items = append(l.Items, x)
	}
	return l
}
