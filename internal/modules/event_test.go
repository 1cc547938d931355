package modules

import (
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// eventSink records what the event functions hand to the minion.
type eventSink struct {
	fired []string
	local bool
}

func (s *eventSink) FireMaster(tag string, data any, preload *value.Map) bool {
	pre := "null"
	if preload != nil {
		pre = value.ToJSON(preload, value.JSONOptions{Indent: -1})
	}
	s.fired = append(s.fired, "master "+tag+" "+value.ToJSON(data, value.JSONOptions{Indent: -1})+" "+pre)
	return true
}

func (s *eventSink) FireLocal(tag string, data *value.Map) bool {
	s.fired = append(s.fired, "local "+tag+" "+value.ToJSON(data, value.JSONOptions{Indent: -1}))
	return s.local
}

func TestEventFunctions(t *testing.T) {
	t.Setenv("BRINE_EVENT_TEST", "yes")
	for _, tc := range []struct {
		name   string
		opts   string // a flow mapping
		sink   bool
		fun    string
		args   []any
		kwargs *value.Map
		want   any
		fired  string
	}{
		{"send", "{}", true, "event.send", []any{"myco/x", value.MapOf("a", int64(1), "k", "data wins")},
			value.MapOf("with_grains", value.NewList("os"), "with_pillar", true, "with_env", value.NewList("BRINE_EVENT_TEST"), "with_env_opts", true, "k", "v", "__pub_jid", "1"),
			true, `master myco/x {"environ": {"BRINE_EVENT_TEST": "yes"}, "grains": {"os": "Debian"}, "pillar": {"p": 1}, "saltenv": "base", "pillarenv": null, "k": "data wins", "__pub_jid": "1", "a": 1} null`},
		{"send preload", "{}", true, "event.send", []any{"myco/x"}, value.MapOf("preload", value.MapOf("x", int64(1))),
			true, `master myco/x {} {"x": 1}`},
		{"send local", "{local: true}", true, "event.send", []any{"myco/x"}, nil, false, `local myco/x {}`},
		{"send file_client local", "{file_client: local}", false, "event.send", []any{"myco/x"}, nil, false, ``},
		{"send master_type disable", "{master_type: disable}", true, "event.send", []any{"myco/x"}, nil, false, `local myco/x {}`},
		{"send use_master_when_local", "{local: true, use_master_when_local: true}", true, "event.send", []any{"myco/x"}, nil, true, `master myco/x {} null`},
		{"send without a master", "{}", false, "event.send", []any{"myco/x"}, nil, false, ``},
		{"fire_master", "{}", true, "event.fire_master", []any{"just a string", "myco/y"}, nil, true, `master myco/y "just a string" null`},
		{"fire_master local", "{local: true}", true, "event.fire_master", []any{value.NewMap(0), "myco/y"}, nil, false, ``},
		{"fire_master master_type disable", "{master_type: disable}", true, "event.fire_master", []any{value.NewMap(0), "myco/y"}, nil, true, `master myco/y {} null`},
		{"fire", "{}", true, "event.fire", []any{value.MapOf("a", int64(1)), "mytag"}, nil, false, `local mytag {"a": 1}`},
		{"fire not a mapping", "{}", true, "event.fire", []any{"x", "mytag"}, nil, false, ``},
		{"fire without a bus", "{}", false, "event.fire", []any{value.NewMap(0), "mytag"}, nil, false, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := execmod.NewContext()
			o, err := loadFlow(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			ctx.Opts = o
			ctx.Grains = value.MapOf("os", "Debian", "id", "m1")
			ctx.Pillar = value.MapOf("p", int64(1))
			sink := &eventSink{}
			if tc.sink {
				ctx.SetService("event", sink)
			}
			got, err := ctx.Call(tc.fun, tc.args, tc.kwargs)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("returned %v, want %v", got, tc.want)
			}
			fired := ""
			if len(sink.fired) > 0 {
				fired = sink.fired[0]
			}
			if fired != tc.fired || len(sink.fired) > 1 {
				t.Errorf("fired %q\nwant  %q", sink.fired, tc.fired)
			}
		})
	}
	if _, err := execmod.NewContext().Call("event.send", nil, nil); err == nil {
		t.Error("event.send without a tag succeeded")
	}
}

func loadFlow(s string) (*value.Map, error) {
	v, err := yamlload.SafeLoad([]byte(s), "opts")
	if err != nil {
		return nil, err
	}
	m, _ := v.(*value.Map)
	return m, nil
}
