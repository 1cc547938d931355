package master

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"brine/internal/value"
)

func TestLimiter(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	type call struct {
		key  string
		ms   int
		want bool
	}
	for _, tc := range []struct {
		name        string
		rate, burst float64
		calls       []call
	}{
		{"burst then refused", 1, 3, []call{{"a", 0, true}, {"a", 0, true}, {"a", 0, true}, {"a", 0, false}}},
		{"refills at the rate", 2, 1, []call{{"a", 0, true}, {"a", 100, false}, {"a", 500, true}, {"a", 600, false}, {"a", 1100, true}}},
		{"keys are separate", 1, 1, []call{{"a", 0, true}, {"a", 0, false}, {"b", 0, true}, {"b", 0, false}}},
		{"refill caps at the burst", 10, 2, []call{{"a", 0, true}, {"a", 10_000, true}, {"a", 10_000, true}, {"a", 10_000, false}}},
		{"rate 0 is no limit", 0, 1, []call{{"a", 0, true}, {"a", 0, true}, {"a", 0, true}}},
		{"burst below one is one", 1, 0, []call{{"a", 0, true}, {"a", 0, false}}},
	} {
		l := newLimiter(tc.rate, tc.burst)
		for i, c := range tc.calls {
			if got := l.allow(c.key, at(c.ms)); got != c.want {
				t.Errorf("%s: call %d (%s at %dms) = %v", tc.name, i, c.key, c.ms, got)
			}
		}
	}
}

func TestLimiterBoundsItsMemory(t *testing.T) {
	l := newLimiter(1, 1)
	l.maxKeys = 3
	now := time.Unix(1_000_000, 0)
	for _, k := range []string{"a", "b", "c"} {
		if !l.allow(k, now) {
			t.Fatalf("%s refused", k)
		}
	}
	// All three are busy: a fourth source waits.
	if l.allow("d", now) {
		t.Error("fourth source admitted while three are busy")
	}
	// Once they are full again they are forgotten to make room.
	later := now.Add(2 * time.Second)
	if !l.allow("d", later) {
		t.Error("fourth source refused after the others refilled")
	}
	if len(l.buckets) > 3 {
		t.Errorf("%d buckets", len(l.buckets))
	}
}

func TestSourceKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"192.0.2.7", "192.0.2.7"},
		{"::ffff:192.0.2.7", "192.0.2.7"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"},
		{"not-an-ip", "not-an-ip"},
	} {
		if got := sourceKey(tc.in); got != tc.want {
			t.Errorf("sourceKey(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestKeyReqSource(t *testing.T) {
	for _, tc := range []struct {
		hdr  string
		want string
	}{
		{"", ""},
		{`{"host":"192.0.2.7","acc":"BRINE_KEYREQ"}`, "192.0.2.7"},
		{`{"host":"192.0.2.7"}`, ""},            // not through the import
		{`{"host":"192.0.2.7","acc":"$G"}`, ""}, // published in the master's account

		{`not json`, ""},
	} {
		msg := &nats.Msg{Header: nats.Header{}}
		if tc.hdr != "" {
			msg.Header.Set("Nats-Request-Info", tc.hdr)
		}
		if got := keyReqSource(msg); got != tc.want {
			t.Errorf("%q: %q", tc.hdr, got)
		}
	}
	if got := keyReqSource(&nats.Msg{}); got != "" {
		t.Errorf("no header: %q", got)
	}
}

func TestKeyReqGate(t *testing.T) {
	g := newKeyReqGate(value.MapOf("key_request_rate", int64(3), "key_request_source_rate", 0.1, "max_pending_keys", int64(7)))
	if g.maxPending != 7 {
		t.Errorf("maxPending %d", g.maxPending)
	}
	now := time.Unix(1_000_000, 0)
	admitted := 0
	// One source: its burst (ten times 0.1, so one) then nothing.
	for range 5 {
		if g.admit("192.0.2.1", now) {
			admitted++
		}
	}
	// Other sources share the global rate (3).
	for _, s := range []string{"192.0.2.2", "192.0.2.3", "192.0.2.4", ""} {
		if g.admit(s, now) {
			admitted++
		}
	}
	if admitted != 3 {
		t.Errorf("admitted %d, want 3", admitted)
	}
	g.drop(dropInvalid, "")
	args, ok := g.summary()
	if !ok {
		t.Fatal("no summary")
	}
	var b strings.Builder
	for i := 0; i+1 < len(args); i += 2 {
		fmt.Fprintf(&b, "%v=%v ", args[i], args[i+1])
	}
	if want := "dropped=7 invalid=1 rate=2 source_rate=4 sources=2 top_source=192.0.2.1 top_source_dropped=4 "; b.String() != want {
		t.Errorf("summary %q, want %q", b.String(), want)
	}
	if _, ok := g.summary(); ok {
		t.Error("summary not reset")
	}
}
