// Package events is the vocabulary of brine's event bus, Salt's master
// event bus on NATS: tags, the subjects that carry them, Salt's payloads
// (with _stamp), tag matching as Salt does it, and a small API to fire and
// listen.
//
// Subjects carry the tag, one NATS token per "/"-separated part (each
// part encoded as proto.Token encodes a minion id), so that the server's
// permissions can confine who fires what:
//
//	brine.ev.<tag>          the bus: the master publishes, the master and
//	                        admin clients (holding the master key) read
//	brine.mev.<tok>.<tag>   events minion <tok> fires to the master; the
//	                        master checks the tag (MinionMayFire), stamps
//	                        the minion's id into the payload as Salt's
//	                        _minion_event does, and fires it on the bus
//
// A minion may publish only under its own brine.mev.<tok> and subscribe
// to nothing here.
package events

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// Subject prefixes and wildcards.
const (
	BusPrefix      = proto.Prefix + ".ev"
	BusWildcard    = BusPrefix + ".>"
	MinionPrefix   = proto.Prefix + ".mev"
	MinionWildcard = MinionPrefix + ".*.>"
)

// MaxTagLen bounds a tag, so its subject stays well inside the server's
// control line limit.
const MaxTagLen = 1024

// MaxEventSize is Salt's max_event_size default: the largest minion event
// body the master relays.
const MaxEventSize = 1048576

// Salt's tags.
const (
	TagAuth            = "salt/auth"
	TagKey             = "salt/key"
	TagPresencePresent = "salt/presence/present"
	TagPresenceChange  = "salt/presence/change"
	// TagMinionStartLegacy is the start event's pre-3001 tag, fired
	// beside the namespaced one while enable_legacy_startup_events is on.
	TagMinionStartLegacy = "minion_start"
)

// Tagify joins the non-empty parts with "/" as Salt's tagify does.
func Tagify(parts ...string) string {
	kept := parts[:0:0]
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "/")
}

// JobNewTag is salt/job/<jid>/new.
func JobNewTag(jid string) string { return Tagify("salt", "job", jid, "new") }

// JobRetTag is salt/job/<jid>/ret/<id>.
func JobRetTag(jid, id string) string { return Tagify("salt", "job", jid, "ret", id) }

// MinionStartTag is salt/minion/<id>/start.
func MinionStartTag(id string) string { return Tagify("salt", "minion", id, "start") }

// ErrBadTag is returned for a tag that cannot travel on the bus.
var ErrBadTag = errors.New("bad event tag")

func tagTokens(tag string) (string, error) {
	if tag == "" {
		return "", fmt.Errorf("%w: empty tag", ErrBadTag)
	}
	if len(tag) > MaxTagLen {
		return "", fmt.Errorf("%w: longer than %d bytes", ErrBadTag, MaxTagLen)
	}
	parts := strings.Split(tag, "/")
	for i, p := range parts {
		parts[i] = proto.Token(p)
	}
	return strings.Join(parts, "."), nil
}

func tagOf(tokens []string) (string, error) {
	if len(tokens) == 0 {
		return "", fmt.Errorf("%w: no tag", ErrBadTag)
	}
	parts := make([]string, len(tokens))
	for i, t := range tokens {
		p, err := proto.IDFromToken(t)
		if err != nil {
			return "", err
		}
		parts[i] = p
	}
	return strings.Join(parts, "/"), nil
}

// Subject is the bus subject of tag.
func Subject(tag string) (string, error) {
	t, err := tagTokens(tag)
	if err != nil {
		return "", err
	}
	return BusPrefix + "." + t, nil
}

// TagFromSubject is the tag a bus subject carries.
func TagFromSubject(subj string) (string, error) {
	rest, ok := strings.CutPrefix(subj, BusPrefix+".")
	if !ok {
		return "", fmt.Errorf("%w: %q is not a bus subject", ErrBadTag, subj)
	}
	return tagOf(strings.Split(rest, "."))
}

// MinionSubject is the subject on which minion id fires tag to the master.
func MinionSubject(id, tag string) (string, error) {
	t, err := tagTokens(tag)
	if err != nil {
		return "", err
	}
	return MinionPrefix + "." + proto.Token(id) + "." + t, nil
}

// ParseMinionSubject returns the minion and the tag of a minion event
// subject.
func ParseMinionSubject(subj string) (id, tag string, err error) {
	rest, ok := strings.CutPrefix(subj, MinionPrefix+".")
	if !ok {
		return "", "", fmt.Errorf("%w: %q is not a minion event subject", ErrBadTag, subj)
	}
	toks := strings.Split(rest, ".")
	if len(toks) < 2 {
		return "", "", fmt.Errorf("%w: %q has no tag", ErrBadTag, subj)
	}
	if id, err = proto.IDFromToken(toks[0]); err != nil {
		return "", "", err
	}
	tag, err = tagOf(toks[1:])
	return id, tag, err
}

// MinionPublishAllow is the one subject pattern minion id may publish
// events on (see master.MinionPermissions).
func MinionPublishAllow(id string) string { return MinionPrefix + "." + proto.Token(id) + ".>" }

// MinionMayFire reports whether the master relays tag fired by minion id.
// A minion fires its own salt/minion/<id>/... and salt/beacon/<id>/...
// events, the legacy minion_start, and custom tags; it may not forge the
// master's events (any other salt/... tag: jobs, returns, auth, keys,
// presence, wheel and runner jobs) nor Salt's legacy bare-jid and new_job
// duplicates.
func MinionMayFire(id, tag string) bool {
	switch {
	case tag == "" || len(tag) > MaxTagLen:
		return false
	case tag == TagMinionStartLegacy:
		return true
	case tag == "new_job" || proto.ValidJID(tag):
		return false
	case strings.HasPrefix(tag, "salt/"):
		return strings.HasPrefix(tag, "salt/minion/"+id+"/") || strings.HasPrefix(tag, "salt/beacon/"+id+"/") ||
			ownStateEvent(id, tag)
	}
	return true
}

// ownStateEvent reports a state event of the minion's own run:
// salt/job/<jid>/prog/<id>/<run_num> (state_events) or
// salt/state_result/<jid>/<id>/<name> (fire_event).
func ownStateEvent(id, tag string) bool {
	parts := strings.SplitN(tag, "/", 5)
	if len(parts) < 5 || !proto.ValidJID(parts[2]) {
		return false
	}
	switch parts[1] {
	case "job":
		return strings.HasPrefix(parts[3]+"/"+parts[4], "prog/"+id+"/")
	case "state_result":
		return parts[3] == id
	}
	return false
}

// Stamp is Salt's _stamp: datetime.utcnow().isoformat(), which leaves
// the fraction out when the microseconds are zero.
func Stamp(t time.Time) string {
	t = t.UTC()
	if us := t.Nanosecond() / 1000; us != 0 {
		return t.Format("2006-01-02T15:04:05") + fmt.Sprintf(".%06d", us)
	}
	return t.Format("2006-01-02T15:04:05")
}

// Event is one event: its tag and its data (a mapping, _stamp included).
type Event struct {
	Tag  string
	Data *value.Map
}

// Encode is the body of an event on the bus: its data as JSON.
func Encode(data *value.Map) []byte {
	return []byte(value.ToJSON(data, value.JSONOptions{Indent: -1, ItemSep: ",", KeySep: ":"}))
}

// Decode reads a bus message: the tag from its subject, the data from its
// body.
func Decode(subj string, body []byte) (Event, error) {
	tag, err := TagFromSubject(subj)
	if err != nil {
		return Event{}, err
	}
	v, err := value.FromJSON(body)
	if err != nil {
		return Event{}, fmt.Errorf("event %s: %w", tag, err)
	}
	m, ok := v.(*value.Map)
	if !ok {
		return Event{}, fmt.Errorf("event %s: data is not a mapping", tag)
	}
	return Event{Tag: tag, Data: m}, nil
}
