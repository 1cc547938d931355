package highstate

import (
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

// TestReloadGrains runs a state that writes the grains file with and
// without reload_grains: only with it does the next state see the grain.
func TestReloadGrains(t *testing.T) {
	for _, reload := range []bool{true, false} {
		ctx := entryContext(t)
		grainsFile := filepath.Join(filepath.Dir(optString(ctx.Opts, "conf_file", "")), "grains")
		args := value.NewList("managed", value.MapOf("contents", "color: blue\n"), value.MapOf("order", int64(1)))
		if reload {
			args.Append(value.MapOf("reload_grains", true))
		}
		high := value.MapOf(
			grainsFile, value.MapOf("file", args),
			"second", value.MapOf("test", value.NewList("configurable_test_state",
				value.MapOf("comment", "__slot__:salt:grains.get(color)"), value.MapOf("order", int64(2)))),
		)
		ret, err := ctx.Call("state.high", []any{high}, kw())
		if err != nil {
			t.Fatal(err)
		}
		got := get(get(ret, "test_|-second_|-second_|-configurable_test_state"), "comment")
		want := ""
		if reload {
			want = "blue"
		}
		if got != want {
			t.Errorf("reload_grains=%v: second saw %s, want %q (%s)", reload, value.Repr(got), want, summary(ret))
		}
	}
}

// recordingBus is an event service as a minion connected to its master
// attaches: it records what is sent.
type recordingBus struct{ tags, jids []string }

func (b *recordingBus) FireMaster(tag string, data any, preload *value.Map) bool {
	b.tags = append(b.tags, tag)
	j, _ := preload.Get("jid")
	b.jids = append(b.jids, value.Str(j))
	return true
}

func (b *recordingBus) FireLocal(tag string, data *value.Map) bool { return false }

// TestFireEventBus checks that fire_event sends Salt's tags to the fleet
// bus when the run has one, and nothing in local mode.
func TestFireEventBus(t *testing.T) {
	for _, local := range []bool{false, true} {
		ctx := entryContext(t)
		ctx.Opts.Set("local", local)
		bus := &recordingBus{}
		ctx.SetService("event", bus)
		high := value.MapOf(
			"first", value.MapOf("test", value.NewList("succeed_without_changes", value.MapOf("fire_event", true), value.MapOf("order", int64(1)))),
			"second", value.MapOf("test", value.NewList("succeed_with_changes", value.MapOf("fire_event", "my/tag"), value.MapOf("order", int64(2)))),
			"third", value.MapOf("test", value.NewList("succeed_with_changes", value.MapOf("order", int64(3)))),
		)
		if _, err := ctx.Call("state.high", []any{high}, kw("__pub_jid", "20260101000000000001")); err != nil {
			t.Fatal(err)
		}
		want := "salt/state_result/20260101000000000001/minion/first salt/state_result/20260101000000000001/minion/my/tag"
		if local {
			want = ""
		}
		if got := strings.Join(bus.tags, " "); got != want {
			t.Errorf("local=%v: sent %q, want %q", local, got, want)
		}
		for _, j := range bus.jids {
			if j != "20260101000000000001" {
				t.Errorf("preload jid %q", j)
			}
		}
	}
}
