package minion_test

import (
	"os"
	"path/filepath"
	"testing"

	"brine/internal/execmod"
	_ "brine/internal/fleet/runners" // the master clients of saltutil.cmd
	"brine/internal/value"
)

// TestSaltutilCmd publishes through the master beside a minion's config
// (saltutil.cmd reads the master file next to the minion file) to real
// minions and gets Salt's per-minion returns.
func TestSaltutilCmd(t *testing.T) {
	m, dir := startMaster(t, nil)
	startMinions(t, m, dir, []string{"web1", "web2", "db1"}, nil)
	conf := t.TempDir()
	master := "pki_dir: " + execmod.String(mustOpt(m.Opts, "pki_dir")) + "\ncachedir: " + execmod.String(mustOpt(m.Opts, "cachedir")) + "\n"
	for name, text := range map[string]string{"minion": "file_client: local\n", "master": master} {
		if err := os.WriteFile(filepath.Join(conf, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx := execmod.NewContext()
	ctx.Opts = value.MapOf("conf_file", filepath.Join(conf, "minion"), "__role", "minion")
	got, err := ctx.Call("saltutil.cmd", []any{"web*", "test.arg"}, value.MapOf("arg", value.NewList("a"), "kwarg", value.MapOf("k", int64(1))))
	if err != nil {
		t.Fatal(err)
	}
	ret := got.(*value.Map)
	if ret.Len() != 2 {
		t.Fatalf("returns %s", value.Repr(ret))
	}
	for _, id := range []string{"web1", "web2"} {
		r, _ := ret.Get(id)
		rm, _ := r.(*value.Map)
		if rm == nil {
			t.Fatalf("%s: no return in %s", id, value.Repr(ret))
		}
		out, _ := rm.Get("ret")
		args, _ := out.(*value.Map).Get("args")
		kw, _ := out.(*value.Map).Get("kwargs")
		k, _ := kw.(*value.Map).Get("k")
		rc, _ := rm.Get("retcode")
		jid, _ := rm.Get("jid")
		if value.Repr(args) != "['a']" || k != int64(1) || rc != int64(0) || len(execmod.String(jid)) != 20 {
			t.Errorf("%s: %s", id, value.Repr(rm))
		}
	}
	// a list target, and the refusals
	got, err = ctx.Call("saltutil.cmd", []any{value.NewList("db1"), "test.ping"}, value.MapOf("tgt_type", "list"))
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := got.(*value.Map).Get("db1"); value.Repr(mustOpt(r.(*value.Map), "ret")) != "True" {
		t.Errorf("list target: %s", value.Repr(got))
	}
	for _, kw := range []*value.Map{value.MapOf("ssh", true), value.MapOf("ret", "syslog"), value.MapOf("batch", "1")} {
		if _, err := ctx.Call("saltutil.cmd", []any{"*", "test.ping"}, kw); err == nil {
			t.Errorf("%s accepted", value.Repr(kw))
		}
	}
}

func mustOpt(m *value.Map, k string) any {
	v, _ := m.Get(k)
	return v
}
