package states_test

import (
	"os"
	"path/filepath"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

// TestSaltutilSyncPillarState runs saltutil.sync_pillar as Salt 3006 ran
// it (testdata/saltutil_sync_pillar_salt.json): a first sync changes, a
// second finds nothing, test mode runs nothing; with a master the state
// fails with the execution function's error.
func TestSaltutilSyncPillarState(t *testing.T) {
	b, err := os.ReadFile("testdata/saltutil_sync_pillar_salt.json")
	if err != nil {
		t.Fatal(err)
	}
	goldens, err := value.FromJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	want := func(k string) string {
		v, ok := goldens.(*value.Map).Get("saltutil.sync_pillar_" + k)
		if !ok {
			t.Fatalf("no golden %s", k)
		}
		return value.ToJSON(v, value.JSONOptions{Indent: -1})
	}
	roots := t.TempDir()
	if err := os.MkdirAll(filepath.Join(roots, "_pillar"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(roots, "_pillar", "h2ext.py"), []byte("def ext_pillar(minion_id, pillar, *args):\n    return {'x': 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := execmod.NewContext()
	ctx.Opts.Set("file_client", "local")
	ctx.Opts.Set("cachedir", t.TempDir())
	ctx.Opts.Set("file_roots", value.MapOf("base", value.NewList(roots)))
	for _, step := range []struct {
		golden string
		test   bool
	}{{"test", true}, {"changed", false}, {"again", false}} {
		if got := stateJSON(sysRun(t, ctx, "saltutil.sync_pillar", value.MapOf("name", "s"), step.test)); got != want(step.golden) {
			t.Errorf("%s\n got %s\nwant %s", step.golden, got, want(step.golden))
		}
	}
	ctx.Opts.Set("file_client", "remote")
	got := stateJSON(sysRun(t, ctx, "saltutil.sync_pillar", value.MapOf("name", "s"), false))
	if w := `{"name": "s", "changes": {}, "result": false, "comment": "Failed to run sync_pillar: Pillar modules can only be synced to masterless minions"}`; got != w {
		t.Errorf("with a master\n got %s\nwant %s", got, w)
	}
}
