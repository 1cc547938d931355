package modules

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/fleet/minion"
	"brine/internal/value"
)

// subscribed is an event service whose Subscribe hands out a
// subscription to a real minion bus made beforehand, so the test knows
// it listens before it publishes.
type subscribed struct{ sub *minion.LocalSubscription }

func (s subscribed) Subscribe(node, _ string) (func() (string, any, error), func(), error) {
	return s.sub.Next, func() { s.sub.Close() }, nil
}

// TestStateEvent watches a minion's bus: the lines printed are Salt's
// (tag, tab, JSON on one line or pretty), only matching tags count, the
// call returns None after count matches.
func TestStateEvent(t *testing.T) {
	tests := []struct {
		name string
		kw   []any
		want string
	}{
		{"glob", []any{"tagmatch", "app/*", "count", int64(2)},
			"app/1\t{\"n\": 1, \"é\": \"x\"}\napp/2\t{\"b\": [1, 2], \"a\": true}\n"},
		{"regex pretty", []any{"tagmatch", `app/\d`, "count", int64(1), "pretty", true},
			"app/1\t{\n    \"n\": 1,\n    \"é\": \"x\"\n}\n"},
		{"quiet", []any{"tagmatch", "*", "count", int64(3), "quiet", true}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := value.MapOf("id", "m1", "sock_dir", filepath.Join(t.TempDir(), "s"))
			bus, err := minion.ServeLocalBus(opts, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer bus.Close()
			sub, err := minion.SubscribeLocal(minion.LocalBusPath(opts))
			if err != nil {
				t.Fatal(err)
			}
			conn, err := net.Dial("unix", minion.LocalBusPath(opts))
			if err != nil {
				t.Fatal(err)
			}
			// one publisher: the bus keeps its order
			_, err = conn.Write([]byte("pub\n" +
				`{"tag": "other", "data": {}}` + "\n" +
				`{"tag": "app/1", "data": {"n": 1, "é": "x"}}` + "\n" +
				`{"tag": "app/2", "data": {"b": [1, 2], "a": true}}` + "\n"))
			conn.Close()
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			eventOut = &out
			defer func() { eventOut = os.Stdout }()
			ctx := testContext()
			ctx.SetService("event", subscribed{sub})
			got, err := ctx.Call("state.event", nil, value.MapOf(tt.kw...))
			if err != nil || got != nil {
				t.Fatalf("state.event = %v, %v", got, err)
			}
			// _stamp is the moment's: compare without it
			text := stampRe(out.String())
			if text != tt.want {
				t.Errorf("printed %q, want %q", text, tt.want)
			}
		})
	}
}

// stampRe drops the _stamp entries from printed events.
func stampRe(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if strings.Contains(line, `"_stamp"`) {
			if i := strings.Index(line, `, "_stamp": "`); i >= 0 {
				j := strings.Index(line[i+len(`, "_stamp": "`):], `"`)
				line = line[:i] + line[i+len(`, "_stamp": "`)+j+1:]
			} else {
				continue // a pretty line of its own
			}
		}
		b.WriteString(line)
	}
	return b.String()
}

// TestStateEventNoBus: without a daemon there is no bus to watch (Salt
// waits for one forever, brine says so); the master's bus is refused.
func TestStateEventNoBus(t *testing.T) {
	ctx := testContext()
	_, err := ctx.Call("state.event", nil, value.NewMap(0))
	var ce *execmod.CommandExecutionError
	if err == nil || err.Error() != "no minion event bus: sock_dir is not set" {
		t.Errorf("masterless without sock_dir: %v", err)
	}
	opts := value.MapOf("id", "m1", "sock_dir", filepath.Join(t.TempDir(), "s"))
	sess := minion.NewSession(nil, opts, value.NewMap(0))
	ctx = testContext()
	ctx.Opts = opts
	if err := sess.Attach(ctx, false, false); err != nil {
		t.Fatal(err)
	}
	if _, err := ctx.Call("state.event", nil, value.MapOf("node", "master")); err == nil || !strings.Contains(err.Error(), "may not watch its master's event bus") {
		t.Errorf("node=master: %v", err)
	}
	_, err = ctx.Call("state.event", nil, value.NewMap(0))
	if err == nil || !strings.Contains(err.Error(), "no minion event bus at") || !errors.As(err, &ce) {
		t.Errorf("no daemon: %v", err)
	}
	if _, err := ctx.Call("state.event", []any{"*", "x"}, value.NewMap(0)); err == nil {
		t.Error("count=x accepted")
	}
}

// TestStateEventLocal: a run without a session (brine call --local)
// watches the bus of the daemon with its options, as salt-call --local.
func TestStateEventLocal(t *testing.T) {
	opts := value.MapOf("id", "m1", "sock_dir", filepath.Join(t.TempDir(), "s"))
	bus, err := minion.ServeLocalBus(opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bus.Close()
	var out bytes.Buffer
	eventOut = &out
	defer func() { eventOut = os.Stdout }()
	ctx := testContext()
	ctx.Opts = opts
	done := make(chan error, 1)
	go func() {
		_, err := ctx.Call("state.event", nil, value.MapOf("count", int64(1), "tagmatch", "app/*"))
		done <- err
	}()
	// the watcher may subscribe after a publication: publish until it
	// has seen one (one match ends it)
	sess := minion.NewSession(nil, opts, value.NewMap(0))
	fctx := testContext()
	fctx.Opts = opts
	if err := sess.Attach(fctx, false, false); err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := fctx.Call("event.fire", []any{value.MapOf("k", "v"), "app/x"}, value.NewMap(0)); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			if got := stampRe(out.String()); got != "app/x\t{\"k\": \"v\"}\n" {
				t.Errorf("printed %q", got)
			}
			return
		default:
		}
	}
}
