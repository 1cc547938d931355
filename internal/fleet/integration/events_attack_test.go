package integration

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"brine/internal/fleet/events"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// TestMaliciousEvents has a real NATS connection holding web1's accepted
// key (no brine minion code) try to read the event bus and to forge
// events: the master's own (a return of db1, salt/key, salt/auth), db1's
// start event, on the bus directly, through web1's own relay subject and
// through db1's. The server must refuse every subscription and direct
// publication (JetStream's API included: the master keeps recent events
// there), and the master relay nothing but web1's own marker, which comes
// last and carries web1's id.
func TestMaliciousEvents(t *testing.T) {
	c := newCluster(t, "")
	c.startMaster()
	c.startMinion("web1", "", true)
	c.startMinion("db1", "", true)
	c.acceptAll("web1", "db1")
	l := busListener(t, c)

	violations := make(chan string, 64)
	atk := dialAs(t, c, "web1", nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { violations <- err.Error() }))
	got := make(chan string, 64)
	expectViolation := func(what string) {
		t.Helper()
		select {
		case v := <-violations:
			if !strings.Contains(v, "Permissions Violation") {
				t.Errorf("%s: %q", what, v)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%s: no permissions violation", what)
		}
	}
	for _, subj := range []string{events.BusWildcard, "brine.ev.salt.>", "brine.ev.salt.job.*.ret.*", events.MinionWildcard, "brine.mev.db1.>", ">"} {
		if _, err := atk.Subscribe(subj, func(m *nats.Msg) { got <- m.Subject }); err != nil {
			t.Fatal(err)
		}
		_ = atk.Flush()
		expectViolation("subscribe " + subj)
	}

	// Nor read the recent events the master keeps in JetStream.
	for _, subj := range []string{"$JS.API.CONSUMER.CREATE." + events.StreamName, "$JS.API.STREAM.MSG.GET." + events.StreamName, "$JS.API.STREAM.INFO." + events.StreamName} {
		_ = atk.Publish(subj, []byte(`{}`))
		_ = atk.Flush()
		expectViolation("publish " + subj)
	}

	jid := proto.NewJID(time.Now())
	body := func(data any) []byte {
		b, _ := json.Marshal(events.MinionEvent{V: proto.Version, Data: proto.ValueJSON{V: data}})
		return b
	}
	forged := []string{"salt/job/" + jid + "/ret/db1", "salt/job/" + jid + "/new", "salt/key", "salt/auth", "salt/minion/db1/start", jid, "new_job"}
	for _, tag := range forged {
		data := value.MapOf("id", "db1", "act", "delete", "return", "pwned")
		// Straight onto the bus: refused by the server.
		subj, _ := events.Subject(tag)
		_ = atk.Publish(subj, events.Encode(data))
		_ = atk.Flush()
		expectViolation("publish " + subj)
		// Through db1's relay subject: refused by the server.
		subj, _ = events.MinionSubject("db1", tag)
		_ = atk.Publish(subj, body(data))
		_ = atk.Flush()
		expectViolation("publish " + subj)
		// Through web1's own relay subject: the master refuses the tag.
		subj, _ = events.MinionSubject("web1", tag)
		if err := atk.Publish(subj, body(data)); err != nil {
			t.Fatal(err)
		}
	}
	// Malformed bodies on its own subject: dropped.
	own, _ := events.MinionSubject("web1", "myco/bad")
	for _, b := range []string{"", "{", `{"v":99,"data":{}}`, `[]`} {
		_ = atk.Publish(own, []byte(b))
	}
	marker, _ := events.MinionSubject("web1", "myco/marker")
	if err := atk.Publish(marker, body(value.MapOf("id", "db1"))); err != nil {
		t.Fatal(err)
	}
	if err := atk.Flush(); err != nil {
		t.Fatal(err)
	}
	for {
		ev := waitEvent(t, l, "*")
		if ev.Tag == "myco/marker" {
			if get(ev.Data, "id") != "web1" || get(ev.Data, "data:id") != "db1" {
				t.Errorf("marker relayed as %s", asJSON(ev.Data))
			}
			break
		}
		t.Errorf("relayed %s %s", ev.Tag, asJSON(ev.Data))
	}
	select {
	case s := <-got:
		t.Errorf("the attacker's subscription received %s", s)
	case v := <-violations:
		t.Errorf("unexpected violation: %s", v)
	default:
	}
	if !strings.Contains(c.log("master"), "refused event") {
		t.Error("the master logged no refused event")
	}
}
