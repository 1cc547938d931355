package events

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// natsServer starts an in-process NATS server with JetStream.
func natsServer(t *testing.T) *nats.Conn {
	t.Helper()
	ns, err := server.NewServer(&server.Options{Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server not ready")
	}
	t.Cleanup(ns.Shutdown)
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func next(t *testing.T, l *Listener) Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ev, err := l.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// TestListen publishes from one connection and checks that a listener
// gets the matching events, stamped, in order.
func TestListen(t *testing.T) {
	nc := natsServer(t)
	l, err := Listen(nc, Glob("salt/job/*"), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range 200 {
		tag := fmt.Sprintf("salt/job/%d/new", i)
		if i%2 == 1 {
			tag = "other/" + tag
		}
		if err := Publish(nc, tag, value.MapOf("i", int64(i))); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 200; i += 2 {
		ev := next(t, l)
		if ev.Tag != fmt.Sprintf("salt/job/%d/new", i) || ev.Data.Len() != 2 {
			t.Fatalf("event %d: %s %s", i, ev.Tag, value.ToJSON(ev.Data, value.JSONOptions{Indent: -1}))
		}
		if s, _ := ev.Data.Get("_stamp"); !strings.HasPrefix(value.Str(s), time.Now().UTC().Format("2006-01-02T")) {
			t.Errorf("stamp %v", s)
		}
	}
	// A malformed message on the bus is skipped.
	_ = nc.Publish("brine.ev.salt.job.x", []byte("not json"))
	_ = Publish(nc, "salt/job/last", nil)
	if ev := next(t, l); ev.Tag != "salt/job/last" {
		t.Errorf("after a malformed message: %s", ev.Tag)
	}
	if err := Publish(nc, "", nil); err == nil {
		t.Error("an empty tag was published")
	}
	l.Close()
	if _, err := l.Next(context.Background()); err != ErrClosed {
		t.Errorf("Next after Close: %v", err)
	}
	ev, err := l.Wait(context.Background(), "*")
	if err != ErrClosed || ev.Tag != "" {
		t.Errorf("Wait after Close: %v %v", ev, err)
	}
}

// TestFireMaster checks what a minion sends: the subject carries its id
// and the tag, the body its event, and an event over max_event_size is
// refused before it is sent.
func TestFireMaster(t *testing.T) {
	nc := natsServer(t)
	got := make(chan *nats.Msg, 4)
	if _, err := nc.Subscribe(MinionWildcard, func(m *nats.Msg) { got <- m }); err != nil {
		t.Fatal(err)
	}
	if err := FireMaster(nc, "web1.example", "myco/x", MinionEvent{Data: proto.ValueJSON{V: value.MapOf("a", int64(1))}}); err != nil {
		t.Fatal(err)
	}
	msg := <-got
	id, tag, err := ParseMinionSubject(msg.Subject)
	if err != nil || id != "web1.example" || tag != "myco/x" {
		t.Errorf("subject %s: %s %s %v", msg.Subject, id, tag, err)
	}
	var ev MinionEvent
	if err := json.Unmarshal(msg.Data, &ev); err != nil || ev.V != proto.Version || value.ToJSON(ev.Data.V, value.JSONOptions{Indent: -1}) != `{"a": 1}` {
		t.Errorf("body %s: %v", msg.Data, err)
	}
	big := strings.Repeat("x", MaxEventSize)
	if err := FireMaster(nc, "web1", "myco/big", MinionEvent{Data: proto.ValueJSON{V: big}}); err == nil || !strings.Contains(err.Error(), "max_event_size") {
		t.Errorf("oversized event: %v", err)
	}
	if err := FireMaster(nc, "web1", "", MinionEvent{}); err == nil {
		t.Error("an empty tag was sent")
	}
}

// TestListenSince reads kept events, then new ones, from the stream.
func TestListenSince(t *testing.T) {
	nc := natsServer(t)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateOrUpdateStream(context.Background(), StreamConfig(time.Minute, 1<<20)); err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(-time.Second)
	for i := range 3 {
		if err := Publish(nc, fmt.Sprintf("kept/%d", i), nil); err != nil {
			t.Fatal(err)
		}
	}
	_ = nc.Flush()
	l, err := ListenSince(nc, start, func(tag string) bool { return tag != "kept/1" }, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := Publish(nc, "new/0", nil); err != nil {
		t.Fatal(err)
	}
	var tags []string
	for range 3 {
		tags = append(tags, next(t, l).Tag)
	}
	if strings.Join(tags, " ") != "kept/0 kept/2 new/0" {
		t.Errorf("got %v", tags)
	}
}
