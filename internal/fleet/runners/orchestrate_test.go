package runners

import (
	"os"
	"path/filepath"
	"testing"

	"brine/internal/fleet/keys"
	"brine/internal/value"
	"brine/internal/yamlload"
)

func yamlMap(t *testing.T, src string) *value.Map {
	t.Helper()
	v, err := yamlload.SafeLoad([]byte(src), "opts")
	if err != nil {
		t.Fatal(err)
	}
	return v.(*value.Map)
}

// dropTimings removes what varies from run to run from a running
// dictionary: start times and durations.
func dropTimings(running *value.Map) {
	running.Range(func(_, v any) bool {
		if m, ok := v.(*value.Map); ok {
			m.Delete("start_time")
			m.Delete("duration")
		}
		return true
	})
}

// orchContext is a runner context on the orchestration tree of
// testdata/orch, master id mm, with a key store holding one accepted key.
func orchContext(t *testing.T) *Context {
	t.Helper()
	root, _ := filepath.Abs("testdata/orch")
	pki := t.TempDir()
	store, _ := keys.OpenStore(pki)
	kp, _ := keys.LoadOrCreate(filepath.Join(t.TempDir(), "m.nk"))
	pub, _ := kp.PublicKey()
	if _, err := store.Submit("web1", pub, true); err != nil {
		t.Fatal(err)
	}
	c, _ := testContext(t, "id: mm\npki_dir: "+pki+"\ncachedir: "+t.TempDir()+
		"\nfile_roots: {base: ["+root+"/salt]}\npillar_roots: {base: ["+root+"/pillar]}\n")
	return c
}

// TestOrchestrateLocal runs an orchestration that needs no minion: test
// states with a failure and its onfail handler, salt.wheel on the key
// store and salt.runner, compared with the golden return.
func TestOrchestrateLocal(t *testing.T) {
	cases := []struct {
		name   string
		kw     *value.Map
		golden string
		rc     int64
	}{
		{"run", value.NewMap(0), "orchestrate_local.json", 1},
		{"test", value.MapOf("test", true), "orchestrate_local_test.json", 1},
		{"pillar", value.MapOf("pillar", value.MapOf("who", "cli")), "orchestrate_local_pillar.json", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := orchContext(t)
			ret := call(t, c, "state.orchestrate", []any{"orch.local"}, tc.kw).(*value.Map)
			if rc, _ := ret.Get("retcode"); rc != tc.rc {
				t.Errorf("retcode %v, want %d", rc, tc.rc)
			}
			if out, _ := ret.Get("outputter"); out != "highstate" {
				t.Errorf("outputter %v", out)
			}
			data, _ := ret.Get("data")
			running, _ := data.(*value.Map).Get("mm")
			rm, ok := running.(*value.Map)
			if !ok || data.(*value.Map).Len() != 1 {
				t.Fatalf("data: %s", value.Str(data))
			}
			dropTimings(rm)
			got := value.ToJSON(ret, value.JSONOptions{Indent: 2}) + "\n"
			path := filepath.Join("testdata", tc.golden)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("return differs from %s:\n%s", path, got)
			}
		})
	}
}

func TestOrchestrateArgs(t *testing.T) {
	c := orchContext(t)
	ret := call(t, c, "state.orch", []any{"orch.ok"}, value.NewMap(0)).(*value.Map)
	if rc, _ := ret.Get("retcode"); rc != int64(0) {
		t.Errorf("orch.ok: retcode %v", rc)
	}
	if _, err := c.Call("state.orchestrate", []any{"orch.ok"}, value.MapOf("pillar", "x")); err == nil || err.Error() != "Pillar data must be formatted as a dictionary" {
		t.Errorf("pillar=x: %v", err)
	}
	// A missing SLS: Salt's error list under the master minion, retcode 1.
	ret = call(t, c, "state.sls", []any{"orch.nosuch"}, value.NewMap(0)).(*value.Map)
	data, _ := ret.Get("data")
	if got := value.Str(data); got != "{'mm': [\"No matching sls found for 'orch.nosuch' in env 'base'\"]}" {
		t.Errorf("missing SLS: %s", got)
	}
	if rc, _ := ret.Get("retcode"); rc != int64(1) {
		t.Errorf("missing SLS: retcode %v", rc)
	}
}
