package master

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// mineMaster starts a master knowing three minions (grains and pillar as
// they reported them).
func mineMaster(t *testing.T, extra ...any) *Master {
	t.Helper()
	m := startTestMaster(t, nil, extra...)
	m.mu.Lock()
	for _, id := range []string{"web1", "web2", "db1"} {
		m.accepted[id] = "U" + id
	}
	m.mu.Unlock()
	m.remember("web1", value.MapOf("id", "web1", "role", "web"), value.MapOf("tier", "front*"))
	m.remember("web2", value.MapOf("id", "web2", "role", "web"), value.MapOf("tier", "frontend"))
	m.remember("db1", value.MapOf("id", "db1", "role", "db"), value.MapOf("tier", "back"))
	return m
}

func mineOp(t *testing.T, m *Master, id string, req proto.MineRequest) string {
	t.Helper()
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.handleMine(id, body)
	if err != nil {
		t.Fatalf("%s %s: %v", id, req.Op, err)
	}
	return value.ToJSON(res.(proto.MineReply).Result.V, value.JSONOptions{Indent: -1})
}

func store(id string, kv ...any) (string, proto.MineRequest) {
	return id, proto.MineRequest{Op: proto.MineStore, Data: proto.ValueJSON{V: value.MapOf(kv...)}}
}

func acl(data any, kv ...any) *value.Map {
	return value.MapOf(append([]any{"__data__", data, "__saltmine_acl__", int64(1)}, kv...)...)
}

// TestMineGet follows salt/daemons/masterapi.py's _mine_get: targeting
// over the minions' reported data (pillar matched exactly), one function
// or several, the master's mine_get option and each entry's allow_tgt.
func TestMineGet(t *testing.T) {
	m := mineMaster(t, "mine_get", value.MapOf("web.*", value.NewList("ip.*", "role"), "db1", value.NewList(".*")))
	web1, req := store("web1", "ip_addrs", value.NewList("10.0.0.1"), "role", "web", "secret", acl("w1", "allow_tgt", "db1"))
	if got := mineOp(t, m, web1, req); got != "true" {
		t.Fatalf("store: %s", got)
	}
	mineOp(t, m, "web2", proto.MineRequest{Op: proto.MineStore, Data: proto.ValueJSON{V: value.MapOf("ip_addrs", value.NewList("10.0.0.2"), "role", acl("web", "allow_tgt", "G@role:web", "allow_tgt_type", "compound"))}})
	mineOp(t, m, "db1", proto.MineRequest{Op: proto.MineStore, Data: proto.ValueJSON{V: value.MapOf("ip_addrs", value.NewList("10.0.0.3"), "secret", acl("d1", "allow_tgt", "nosuchminion"))}})

	for _, tc := range []struct {
		name, requester, tgt, tgtType string
		fun                           any
		want                          string
	}{
		{"one function", "db1", "*", "glob", "ip_addrs", `{"db1": ["10.0.0.3"], "web1": ["10.0.0.1"], "web2": ["10.0.0.2"]}`},
		{"several as a string", "db1", "web*", "", "ip_addrs,role", `{"ip_addrs": {"web1": ["10.0.0.1"], "web2": ["10.0.0.2"]}, "role": {"web1": "web"}}`},
		{"a list is always several", "db1", "web1", "glob", value.NewList("role"), `{"role": {"web1": "web"}}`},
		{"allow_tgt compound admits the webs", "web1", "web*", "glob", "role", `{"web1": "web", "web2": "web"}`},
		{"allow_tgt names db1 only", "db1", "*", "glob", "secret", `{"web1": "w1"}`},
		{"allow_tgt naming no minion admits none", "db1", "db1", "glob", "secret", `{}`},
		{"mine_get limits web1 to ip.* and role", "web1", "*", "glob", "ip_addrs,secret", `{"ip_addrs": {"db1": ["10.0.0.3"], "web1": ["10.0.0.1"], "web2": ["10.0.0.2"]}}`},
		{"grain target", "db1", "role:web", "grain", "ip_addrs", `{"web1": ["10.0.0.1"], "web2": ["10.0.0.2"]}`},
		{"pillar targets match exactly", "db1", "tier:front*", "pillar", "ip_addrs", `{"web1": ["10.0.0.1"]}`},
		{"compound", "db1", "G@role:db or web2", "compound", "ip_addrs", `{"db1": ["10.0.0.3"], "web2": ["10.0.0.2"]}`},
		{"unknown function", "db1", "*", "glob", "nope", `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := m.MineGet(context.Background(), tc.requester, tc.tgt, tc.fun, tc.tgtType)
			if err != nil {
				t.Fatal(err)
			}
			if s := value.ToJSON(got, value.JSONOptions{Indent: -1, SortKeys: true}); s != tc.want {
				t.Errorf("got %s, want %s", s, tc.want)
			}
		})
	}

	// A minion without a mine_get entry gets nothing.
	m.mu.Lock()
	m.accepted["other"] = "Uother"
	m.mu.Unlock()
	if got := mineOp(t, m, "other", proto.MineRequest{Op: proto.MineGet, Tgt: "*", Fun: proto.ValueJSON{V: "ip_addrs"}}); got != `{}` {
		t.Errorf("other reads %s", got)
	}
}

// TestMineStoreDeleteFlush: _mine updates (or with clear replaces) the
// caller's data; _mine_delete and _mine_flush touch the caller's only.
func TestMineStoreDeleteFlush(t *testing.T) {
	m := mineMaster(t)
	get := func(id string) string {
		t.Helper()
		kv, err := m.mineKV(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		d, err := mineData(context.Background(), kv, id)
		if err != nil {
			t.Fatal(err)
		}
		return value.ToJSON(d, value.JSONOptions{Indent: -1})
	}
	mineOp(t, m, "web1", proto.MineRequest{Op: proto.MineStore, Data: proto.ValueJSON{V: value.MapOf("a", int64(1), "b", int64(2))}})
	mineOp(t, m, "db1", proto.MineRequest{Op: proto.MineStore, Data: proto.ValueJSON{V: value.MapOf("a", "db")}})
	mineOp(t, m, "web1", proto.MineRequest{Op: proto.MineStore, Data: proto.ValueJSON{V: value.MapOf("b", int64(3), "c", int64(4))}})
	if got := get("web1"); got != `{"a": 1, "b": 3, "c": 4}` {
		t.Errorf("after update: %s", got)
	}
	mineOp(t, m, "web1", proto.MineRequest{Op: proto.MineStore, Clear: true, Data: proto.ValueJSON{V: value.MapOf("z", true)}})
	if got := get("web1"); got != `{"z": true}` {
		t.Errorf("after clear: %s", got)
	}
	for _, tc := range []struct {
		req  proto.MineRequest
		want string
	}{
		{proto.MineRequest{Op: proto.MineDelete, Fun: proto.ValueJSON{V: "a"}}, "true"},
		{proto.MineRequest{Op: proto.MineDelete, Fun: proto.ValueJSON{V: "z"}}, "true"},
		{proto.MineRequest{Op: proto.MineDelete, Fun: proto.ValueJSON{V: value.NewList("x")}}, "false"},
		{proto.MineRequest{Op: proto.MineStore, Data: proto.ValueJSON{V: "not a mapping"}}, "false"},
		{proto.MineRequest{Op: proto.MineFlush}, "true"},
	} {
		if got := mineOp(t, m, "web1", tc.req); got != tc.want {
			t.Errorf("%+v = %s, want %s", tc.req, got, tc.want)
		}
	}
	if got := get("web1"); got != `{}` {
		t.Errorf("web1 after flush: %s", got)
	}
	if got := get("db1"); got != `{"a": "db"}` {
		t.Errorf("db1: %s", got)
	}
	if _, err := m.handleMine("web1", []byte(`{"op":"drop"}`)); err == nil {
		t.Error("unknown operation accepted")
	}

	// Without minion_data_cache (nor enforce_mine_cache) nothing is kept.
	off := mineMaster(t, "minion_data_cache", false)
	if got := mineOp(t, off, "web1", proto.MineRequest{Op: proto.MineStore, Data: proto.ValueJSON{V: value.MapOf("a", int64(1))}}); got != "true" {
		t.Errorf("store: %s", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kv, err := off.mineKV(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Get(ctx, "web1"); err == nil {
		t.Error("data kept without minion_data_cache")
	}
}
