package modules

// event.go is salt/modules/event.py: events fired from a minion to its
// master's event bus (send, fire_master) or on the minion's own bus
// (fire).

import (
	"fmt"
	"log/slog"
	"os"
	"strings"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("event.send", eventSend, "Send an event to the master: event.send TAG [DATA] [with_grains=...] [with_pillar=...] [with_env=...] [with_env_opts=True] [KEY=VALUE ...]. False in local mode.")
	execmod.Register("event.fire_master", eventFireMaster, "Fire an event with DATA and TAG on the master's event bus (event.fire_master DATA TAG). False in local mode.")
	execmod.Register("event.fire", eventFire, "Fire an event with DATA (a mapping) and TAG on the minion's local event bus; False when there is none.")
}

// EventService is the "event" service a minion connected to its master
// attaches to a run (see internal/fleet/minion).
type EventService interface {
	// FireMaster sends an event to the master; preload adds keys to the
	// load (salt-call's way). It reports whether the master was reached.
	FireMaster(tag string, data any, preload *value.Map) bool
	// FireLocal fires an event on the minion's own bus; false when the
	// run has none.
	FireLocal(tag string, data *value.Map) bool
}

func eventService(ctx *execmod.Context) EventService {
	s, _ := ctx.Service("event").(EventService)
	return s
}

// localMode is Salt's test for a minion without a master: --local,
// file_client local or master_type disable, unless use_master_when_local.
func localMode(ctx *execmod.Context, withMasterType bool) bool {
	get := func(k string) any { v, _ := ctx.Opts.Get(k); return v }
	if value.Truthy(get("use_master_when_local")) {
		return false
	}
	return value.Truthy(get("local")) || get("file_client") == "local" || (withMasterType && get("master_type") == "disable")
}

func eventFireMaster(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("fire_master", args, kwargs, execmod.Req("data"), execmod.Req("tag"), execmod.Opt("preload", nil))
	if err != nil {
		return nil, err
	}
	return fireMaster(ctx, v[0], execmod.String(v[1]), v[2]), nil
}

func fireMaster(ctx *execmod.Context, data any, tag string, preload any) bool {
	if localMode(ctx, false) {
		slog.Warn(fmt.Sprintf("Local mode detected. Event with tag %s will NOT be sent.", tag))
		return false
	}
	s := eventService(ctx)
	if s == nil {
		return false
	}
	pre, _ := preload.(*value.Map)
	return s.FireMaster(tag, data, pre)
}

func eventFire(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("fire", args, kwargs, execmod.Req("data"), execmod.Req("tag"))
	if err != nil {
		return nil, err
	}
	data, ok := v[0].(*value.Map)
	tag := execmod.String(v[1])
	s := eventService(ctx)
	if !ok || tag == "" || s == nil {
		return false, nil
	}
	return s.FireLocal(tag, data), nil
}

func eventSend(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	params := []execmod.Param{
		execmod.Req("tag"), execmod.Opt("data", nil), execmod.Opt("preload", nil),
		execmod.Opt("with_env", false), execmod.Opt("with_grains", false),
		execmod.Opt("with_pillar", false), execmod.Opt("with_env_opts", false),
	}
	v, _, err := execmod.Bind("send", args, kwargs, params...)
	if err != nil {
		return nil, err
	}
	tag := execmod.String(v[0])
	data := value.NewMap(0)
	if w := v[3]; value.Truthy(w) {
		env := value.NewMap(0)
		for _, kv := range os.Environ() {
			k, val, _ := strings.Cut(kv, "=")
			env.Set(k, val)
		}
		data.Set("environ", subset(w, env))
	}
	if w := v[4]; value.Truthy(w) {
		data.Set("grains", subset(w, ctx.Grains))
	}
	if w := v[5]; value.Truthy(w) {
		data.Set("pillar", subset(w, ctx.Pillar))
	}
	if value.Truthy(v[6]) {
		saltenv, ok := ctx.Opts.Get("saltenv")
		if !ok {
			saltenv = "base"
		}
		pillarenv, _ := ctx.Opts.Get("pillarenv")
		data.Set("saltenv", saltenv)
		data.Set("pillarenv", pillarenv)
	}
	// The keyword arguments Salt passes on: the caller's, and the job's
	// __pub_* data when run from a job, as the function takes **kwargs.
	named := map[string]bool{}
	for _, p := range params {
		named[p.Name] = true
	}
	kwargs.Range(func(k, val any) bool {
		if ks := value.Str(k); !named[ks] {
			data.Set(ks, val)
		}
		return true
	})
	if m, ok := v[1].(*value.Map); ok {
		m.Range(func(k, val any) bool { data.Set(k, val); return true })
	}
	if localMode(ctx, true) {
		s := eventService(ctx)
		if s == nil {
			return false, nil
		}
		return s.FireLocal(tag, data), nil
	}
	return fireMaster(ctx, data, tag, v[2]), nil
}

// subset is with_env/with_grains/with_pillar: all of m for True, the
// named keys of m for a list.
func subset(w any, m *value.Map) *value.Map {
	if m == nil {
		return value.NewMap(0)
	}
	l, ok := w.(*value.List)
	if !ok {
		return m.Copy()
	}
	want := map[string]bool{}
	for _, e := range l.Items {
		want[value.Str(e)] = true
	}
	out := value.NewMap(0)
	m.Range(func(k, val any) bool {
		if want[value.Str(k)] {
			out.Set(k, val)
		}
		return true
	})
	return out
}
