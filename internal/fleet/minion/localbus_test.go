package minion

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

// TestLocalBus serves a minion's own bus on a real socket, subscribes
// twice and publishes: both subscribers get every event, stamped, in the
// order one publisher sent them; the socket is the owner's alone; after
// Close it is gone and subscribers see the end.
func TestLocalBus(t *testing.T) {
	opts := value.MapOf("id", "m1", "sock_dir", filepath.Join(t.TempDir(), "sock"))
	path := LocalBusPath(opts)
	if !strings.HasPrefix(filepath.Base(path), "minion_event_") || !strings.HasSuffix(path, "_pub.sock") {
		t.Fatalf("path %s", path)
	}
	bus, err := ServeLocalBus(opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %v, %v", fi, err)
	}
	var subs []*LocalSubscription
	for i := 0; i < 2; i++ {
		s, err := SubscribeLocal(path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		subs = append(subs, s)
	}
	conn, err := dialLocalBus(path, "pub")
	if err != nil {
		t.Fatal(err)
	}
	lines := `{"tag": "app/one", "data": {"n": 1}}
not json
{"tag": "", "data": {}}
{"tag": "app/two", "data": "bare"}
`
	if _, err := conn.Write([]byte(lines)); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	for i, s := range subs {
		for _, want := range []string{"app/one {'n': 1}", "app/two {'data': 'bare'}"} {
			tag, data, err := s.Next()
			if err != nil {
				t.Fatal(err)
			}
			m := data.(*value.Map)
			if stamp, _ := m.Delete("_stamp"); stamp == nil {
				t.Errorf("subscriber %d: %s has no _stamp", i, tag)
			}
			if got := tag + " " + value.Repr(m); got != want {
				t.Errorf("subscriber %d: got %s, want %s", i, got, want)
			}
		}
	}
	bus.Close()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
	if _, _, err := subs[0].Next(); err == nil {
		t.Error("Next after the bus closed: no error")
	}
	if _, err := SubscribeLocal(path); !errors.Is(err, ErrNoLocalBus) {
		t.Errorf("subscribe without a bus: %v", err)
	}
}

// TestEventServiceBus fires through a run's event service (event.fire's
// path) and watches through its Subscribe (state.event's), refusing the
// master's bus.
func TestEventServiceBus(t *testing.T) {
	opts := value.MapOf("id", "m1", "sock_dir", filepath.Join(t.TempDir(), "sock"))
	svc := eventService{s: NewSession(nil, opts, value.NewMap(0))}
	if svc.FireLocal("app/x", value.MapOf("a", int64(1))) {
		t.Error("FireLocal without a bus (not a daemon) = true")
	}
	if _, _, err := svc.Subscribe("minion", ""); !errors.Is(err, ErrNoLocalBus) {
		t.Errorf("Subscribe without a bus: %v", err)
	}
	bus, err := ServeLocalBus(opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bus.Close()
	if _, _, err := svc.Subscribe("master", ""); err == nil || !strings.Contains(err.Error(), "may not watch its master's event bus") {
		t.Errorf("node=master: %v", err)
	}
	next, stop, err := svc.Subscribe("minion", "")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if !svc.FireLocal("app/x", value.MapOf("a", int64(1))) {
		t.Fatal("FireLocal = false with a bus")
	}
	tag, data, err := next()
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := data.(*value.Map).Get("a"); tag != "app/x" || a != int64(1) {
		t.Errorf("got %s %s", tag, value.Repr(data))
	}
}
