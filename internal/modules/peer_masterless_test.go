package modules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "brine/internal/fleet/returners" // their catalogs
	_ "brine/internal/fleet/runners"
	"brine/internal/value"
)

// saltGolden reads what `salt-call --local --out json` printed (the
// "local" value) from testdata/<dir>/<name>.json.
func saltGolden(t *testing.T, dir, name string) any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", dir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := value.FromJSON(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	local, _ := v.(*value.Map).Get("local")
	return local
}

func sortedJSON(v any) string {
	return value.ToJSON(v, value.JSONOptions{Indent: -1, SortKeys: true})
}

// dropRunKeys removes the per-run __pub_pid and __pub_jid of test.arg's
// kwargs.
func dropRunKeys(v any) any {
	if m, ok := v.(*value.Map); ok {
		if kw, ok := m.Get("kwargs"); ok {
			kw.(*value.Map).Delete("__pub_pid")
			kw.(*value.Map).Delete("__pub_jid")
		}
	}
	return v
}

// TestPeerMasterless compares the functions that need a master, run
// without one, and the masterless-only sync_pillar, with what Salt 3006
// returned on this kind of machine (salt-call --local).
func TestPeerMasterless(t *testing.T) {
	roots := t.TempDir()
	if err := os.MkdirAll(filepath.Join(roots, "_pillar"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(roots, "_pillar", "h2ext.py"), []byte("def ext_pillar(minion_id, pillar, *args):\n    return {'x': 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := testContext()
	cache := t.TempDir()
	ctx.Opts.Set("cachedir", cache)
	ctx.Opts.Set("file_client", "local")
	ctx.Opts.Set("file_roots", value.MapOf("base", value.NewList(roots)))
	pub := func() *value.Map {
		return value.MapOf("__pub_fun", "saltutil.mmodule", "__pub_pid", int64(1), "__pub_jid", "1", "__pub_tgt", "salt-call")
	}
	for _, tc := range []struct {
		golden string
		fun    string
		args   []any
		kwargs *value.Map
	}{
		{"saltutil.update", "saltutil.update", nil, nil},
		{"saltutil.sync_pillar.first", "saltutil.sync_pillar", nil, nil},
		{"saltutil.sync_pillar.again", "saltutil.sync_pillar", nil, nil},
		{"publish.publish", "publish.publish", []any{"*", "test.ping"}, nil},
		{"publish.full_data", "publish.full_data", []any{"*", "test.ping"}, nil},
		{"publish.runner", "publish.runner", []any{"manage.up"}, nil},
		{"schedule.copy.missing", "schedule.copy", []any{"nosuch", "web1"}, nil},
		{"schedule.move.missing", "schedule.move", []any{"nosuch", "web1"}, nil},
		{"schedule.copy.test", "schedule.copy", []any{"nosuch", "web1"}, value.MapOf("test", true)},
		{"schedule.move.test", "schedule.move", []any{"nosuch", "web1"}, value.MapOf("test", true)},
		{"status.ping_master.empty", "status.ping_master", []any{""}, nil},
		{"saltutil.mmodule", "saltutil.mmodule", []any{"base", "test.arg", "a"},
			value.MapOf("b", int64(1), "__pub_fun", "saltutil.mmodule", "__pub_pid", int64(1), "__pub_jid", "1", "__pub_tgt", "salt-call")},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			kw := tc.kwargs
			if kw == nil {
				kw = value.NewMap(0)
			}
			got, err := ctx.Call(tc.fun, tc.args, kw)
			if err != nil {
				t.Fatal(err)
			}
			want := saltGolden(t, "peer_masterless", tc.golden)
			if g, w := sortedJSON(dropRunKeys(got)), sortedJSON(dropRunKeys(want)); g != w {
				t.Errorf("%s = %s, Salt 3006 gave %s", tc.fun, g, w)
			}
		})
	}

	// Salt's exceptions without a master, and mmodule's direct call.
	for _, tc := range []struct {
		fun    string
		args   []any
		kwargs *value.Map
		want   string
	}{
		{"saltutil.revoke_auth", nil, nil, "KeyError: 'master_uri'"},
		{"saltutil.mmodule", []any{"nosuch", "test.echo", "hi"}, nil, "KeyError: 'nosuch'"},
		{"saltutil.mmodule", []any{"base", "no.such"}, nil, "KeyError: 'no.such'"},
		{"saltutil.mmodule", []any{"base", "test.ping"}, pub(), "ping() got an unexpected keyword argument '__pub_fun'"},
		{"saltutil.mmodule", []any{"base"}, nil, "mmodule() missing 1 required positional argument: 'fun'"},
		{"publish.publish", []any{"*", "test.ping"}, value.MapOf("via_master", "m2"), "{}"},
	} {
		kw := tc.kwargs
		if kw == nil {
			kw = value.NewMap(0)
		}
		got, err := ctx.Call(tc.fun, tc.args, kw)
		msg := ""
		if err != nil {
			msg = err.Error()
		} else {
			msg = sortedJSON(got)
		}
		if msg != tc.want {
			t.Errorf("%s %v: %q, want %q", tc.fun, tc.args, msg, tc.want)
		}
	}

	// saltutil.sync_pillar is for masterless minions only, as a state too.
	ctx.Opts.Set("file_client", "remote")
	if _, err := ctx.Call("saltutil.sync_pillar", nil, value.NewMap(0)); err == nil ||
		err.Error() != "Pillar modules can only be synced to masterless minions" {
		t.Errorf("sync_pillar with a master: %v", err)
	}

	// saltutil.regen_keys removes pki_dir's files (not its directories),
	// then, with no master to make a key for, fails as Salt's does.
	pki := filepath.Join(t.TempDir(), "pki")
	for _, p := range []string{"minion.nk", "minion_master.pub", "sub/keep"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(pki, p)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pki, p), []byte("k"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx.Opts.Set("pki_dir", pki)
	if _, err := ctx.Call("saltutil.regen_keys", nil, value.NewMap(0)); err == nil || err.Error() != "KeyError: 'master_uri'" {
		t.Errorf("regen_keys: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(pki, "*"))
	if len(left) != 1 || !strings.HasSuffix(left[0], "sub") {
		t.Errorf("pki_dir after regen_keys: %v", left)
	}
	ctx.Opts.Set("pki_dir", filepath.Join(pki, "missing"))
	if _, err := ctx.Call("saltutil.regen_keys", nil, value.NewMap(0)); err == nil || !strings.Contains(err.Error(), "FileNotFoundError: [Errno 2] No such file or directory") {
		t.Errorf("regen_keys without pki_dir: %v", err)
	}
}

// TestSysRunnerReturnerArgspec compares sys.runner_argspec and
// sys.returner_argspec with Salt 3006's answers, and checks that every
// runner and returner function brine has reports Salt's spec.
func TestSysRunnerReturnerArgspec(t *testing.T) {
	ctx := testContext()
	for _, tc := range []struct{ fun, module, golden string }{
		{"sys.runner_argspec", "manage", "runner_manage"},
		{"sys.runner_argspec", "jobs", "runner_jobs"},
		{"sys.runner_argspec", "salt", "runner_salt"},
		{"sys.runner_argspec", "state", "runner_state"},
		{"sys.runner_argspec", "test", "runner_test"},
		{"sys.runner_argspec", "saltutil.sync_all", "runner_saltutil.sync_all"},
		{"sys.returner_argspec", "syslog", "returner_syslog"},
		{"sys.returner_argspec", "rawfile_json", "returner_rawfile_json"},
	} {
		got, err := ctx.Call(tc.fun, []any{tc.module}, value.NewMap(0))
		if err != nil {
			t.Fatal(err)
		}
		// Salt reports every function of its module; brine those it has.
		want := saltGolden(t, "sys_argspec", tc.golden).(*value.Map)
		g := got.(*value.Map)
		if g.Len() == 0 {
			t.Errorf("%s %s: nothing", tc.fun, tc.module)
		}
		g.Range(func(k, v any) bool {
			w, ok := want.Get(k)
			if !ok {
				t.Errorf("%s %s: %s is not Salt's", tc.fun, tc.module, k)
			} else if sortedJSON(v) != sortedJSON(w) {
				t.Errorf("%s: %s, Salt 3006 gave %s", k, sortedJSON(v), sortedJSON(w))
			}
			return true
		})
	}
	// With no module, Salt selects nothing ("." prefixes no name).
	if got, _ := ctx.Call("sys.runner_argspec", nil, value.NewMap(0)); sortedJSON(got) != "{}" {
		t.Errorf("runner_argspec with no module: %s", sortedJSON(got))
	}
	// Every function but brine's own additions has Salt's spec.
	for kind, fun := range map[string]string{"runner": "sys.runner_argspec", "returner": "sys.returner_argspec"} {
		names, err := ctx.Call("sys.list_"+kind+"_functions", nil, value.NewMap(0))
		if err != nil {
			t.Fatal(err)
		}
		specs, err := ctx.Call(fun, []any{"*"}, value.NewMap(0))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names.(*value.List).Items {
			if !specs.(*value.Map).Has(n) && n != "local_cache.event_return" {
				t.Errorf("%s: no argspec for %s", fun, n)
			}
		}
	}
}
