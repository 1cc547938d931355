package returners_test

import (
	"sort"
	"strconv"
	"strings"
	"testing"

	"brine/internal/fleet/returners"
	"brine/internal/fleet/returners/pgtest"
	"brine/internal/value"
)

// TestPgjsonb runs the returner against a real PostgreSQL server, in
// Salt's tables: returns, events, loads and the job cache queries.
func TestPgjsonb(t *testing.T) {
	srv := pgtest.Start(t)
	srv.CreateDB(t, "salt")
	srv.CreateDB(t, "other")
	opts := value.MapOf(
		"id", "master1",
		"returner.pgjsonb.host", srv.Host,
		"returner.pgjsonb.port", int64(srv.Port),
		"returner.pgjsonb.user", srv.User,
		"returner.pgjsonb.sslmode", "disable",
		"alt.returner.pgjsonb.db", "other",
	)
	cfg := returners.Config{Opts: opts}
	pg := returners.Pgjsonb

	ret := sampleRet()
	if err := returners.Run("pgjsonb", ret, cfg); err != nil {
		t.Fatal(err)
	}
	failed := sampleRet()
	failed.Set("id", "web2")
	failed.Set("success", false)
	failed.Set("return", value.MapOf("a", value.NewList(int64(1), 2.5, nil)))
	if err := returners.Run("pgjsonb", failed, cfg); err != nil {
		t.Fatal(err)
	}
	rows := srv.Query(t, "salt", `SELECT fun, jid, return::text, id, success, full_ret->>'user' FROM salt_returns ORDER BY id`)
	want := [][]string{
		{"test.echo", "20261125203000123456", `"héllo"`, "web1", "true", "root"},
		{"test.echo", "20261125203000123456", `{"a": [1, 2.5, null]}`, "web2", "false", "root"},
	}
	if !equalRows(rows, want) {
		t.Errorf("salt_returns:\n%q\nwant\n%q", rows, want)
	}

	// --return_config alt sends to the other database; ret_kwargs
	// override even that.
	alt := sampleRet()
	alt.Set("ret_config", "alt")
	if err := returners.Run("pgjsonb", alt, cfg); err != nil {
		t.Fatal(err)
	}
	if n := srv.Query(t, "other", `SELECT count(*) FROM salt_returns`); n[0][0] != "1" {
		t.Errorf("ret_config alt: %v rows in other", n)
	}
	kw := sampleRet()
	kw.Set("ret_kwargs", value.MapOf("db", "other"))
	if err := returners.Run("pgjsonb", kw, cfg); err != nil {
		t.Fatal(err)
	}
	if n := srv.Query(t, "other", `SELECT count(*) FROM salt_returns`); n[0][0] != "2" {
		t.Errorf("ret_kwargs db: %v rows in other", n)
	}

	r, _ := returners.Lookup("pgjsonb")
	evs := []*value.Map{
		value.MapOf("data", value.MapOf("jid", "20261125203000123456", "minions", value.NewList("web1")), "tag", "salt/job/20261125203000123456/new"),
		value.MapOf("data", value.MapOf("x", true), "tag", "my/event"),
	}
	if err := r.EventReturn(cfg, evs); err != nil {
		t.Fatal(err)
	}
	rows = srv.Query(t, "salt", `SELECT tag, data::text, master_id FROM salt_events ORDER BY id`)
	want = [][]string{
		{"salt/job/20261125203000123456/new", `{"jid": "20261125203000123456", "minions": ["web1"]}`, "master1"},
		{"my/event", `{"x": true}`, "master1"},
	}
	if !equalRows(rows, want) {
		t.Errorf("salt_events:\n%q\nwant\n%q", rows, want)
	}

	load := value.MapOf("fun", "test.echo", "arg", value.NewList("héllo"), "tgt", "web*", "tgt_type", "glob", "user", "root")
	if err := pg.SaveLoad(cfg, "20261125203000123456", load); err != nil {
		t.Fatal(err)
	}
	load.Set("user", "admin")
	if err := pg.SaveLoad(cfg, "20261125203000123456", load); err != nil { // replaces
		t.Fatal(err)
	}
	got, err := pg.GetLoad(cfg, "20261125203000123456")
	if err != nil {
		t.Fatal(err)
	}
	if s := value.ToJSON(got, value.JSONOptions{Indent: -1, SortKeys: true}); s != `{"arg": ["héllo"], "fun": "test.echo", "tgt": "web*", "tgt_type": "glob", "user": "admin"}` {
		t.Errorf("get_load: %s", s)
	}
	if got, _ := pg.GetLoad(cfg, "nosuch"); value.ToJSON(got, value.JSONOptions{}) != "{}" {
		t.Errorf("get_load of an unknown job: %v", got)
	}
	jid, err := pg.GetJID(cfg, "20261125203000123456")
	if err != nil {
		t.Fatal(err)
	}
	if ks := strings.Join(keys(jid), ","); ks != "web1,web2" {
		t.Errorf("get_jid minions: %s", ks)
	}
	fun, err := pg.GetFun(cfg, "test.echo")
	if err != nil {
		t.Fatal(err)
	}
	if ks := strings.Join(keys(fun), ","); ks != "web1,web2" {
		t.Errorf("get_fun minions: %s", ks)
	}
	jids, err := pg.GetJIDs(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s := value.ToJSON(jids, value.JSONOptions{Indent: -1}); s != `{"20261125203000123456": {"Function": "test.echo", "Arguments": ["héllo"], "Target": "web*", "Target-type": "glob", "User": "admin", "StartTime": "2026, Nov 25 20:30:00.123456"}}` {
		t.Errorf("get_jids: %s", s)
	}
	minions, err := pg.GetMinions(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(sorted(minions), ",") != "web1,web2" {
		t.Errorf("get_minions: %v", minions)
	}
	if pg.PrepJID(cfg, false, "20200101000000000000") != "20200101000000000000" || len(pg.PrepJID(cfg, false, "")) != 20 {
		t.Error("prep_jid")
	}

	// A server that is not there is an error naming the connection.
	down := returners.Config{Opts: value.MapOf("returner.pgjsonb.host", "127.0.0.1", "returner.pgjsonb.port", strconv.Itoa(freePort(t)))}
	if err := returners.Run("pgjsonb", ret, down); err == nil || !strings.Contains(err.Error(), "pgjsonb returner could not connect to database") {
		t.Errorf("server down: %v", err)
	}
}

func equalRows(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "\x00") != strings.Join(b[i], "\x00") {
			return false
		}
	}
	return true
}

func keys(m *value.Map) []string {
	var out []string
	m.Range(func(k, _ any) bool { out = append(out, value.Str(k)); return true })
	return sorted(out)
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
