package runners

import (
	"os"
	"path/filepath"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

// TestMinionOrchestrate runs state.orchestrate as an execution function of
// a masterless minion. The state results are those Salt 3006 gave for the
// same orchestration on this machine (salt-call --local
// state.orchestrate): salt.runner runs in-process, salt.state runs the
// SLS on the minion itself whatever the target, salt.function cannot
// reach a master.
func TestMinionOrchestrate(t *testing.T) {
	dir := t.TempDir()
	roots := filepath.Join(dir, "salt")
	for name, text := range map[string]string{
		"orch/main.sls": `one:
  test.succeed_with_changes: []
run_runner:
  salt.runner:
    - name: test.arg
    - arg: [a]
fun:
  salt.function:
    - name: test.ping
    - tgt: elsewhere
st:
  salt.state:
    - tgt: elsewhere
    - sls: local
`,
		"local.sls": "here:\n  test.succeed_without_changes: []\n",
	} {
		p := filepath.Join(roots, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := execmod.NewContext()
	ctx.Opts = yamlMap(t, "id: m1\n__role: minion\nfile_client: local\nrenderer: jinja|yaml\ncachedir: "+dir+"/cache\n"+
		"file_roots: {base: ["+roots+"]}\npillar_roots: {base: ["+dir+"/pillar]}\n")
	got, err := ctx.Call("state.orchestrate", []any{"orch.main"}, value.NewMap(0))
	if err != nil {
		t.Fatal(err)
	}
	ret := got.(*value.Map)
	if rc, _ := ret.Get("retcode"); rc != int64(1) {
		t.Errorf("retcode %v, want 1 (salt.function failed)", rc)
	}
	if out, _ := ret.Get("outputter"); out != "highstate" {
		t.Errorf("outputter %v", out)
	}
	data, _ := ret.Get("data")
	running, _ := data.(*value.Map).Get("m1")
	want := map[string]string{
		"test_|-one_|-one_|-succeed_with_changes": "True Success!",
		"salt_|-run_runner_|-test.arg_|-runner":   "True Runner function 'test.arg' executed.",
		"salt_|-fun_|-test.ping_|-function":       "False The salt master could not be contacted. Is master running?",
		"salt_|-st_|-st_|-state":                  "True States ran successfully. No changes made to m1.",
	}
	rm, ok := running.(*value.Map)
	if !ok || rm.Len() != len(want) {
		t.Fatalf("running: %s", value.Repr(running))
	}
	for tag, w := range want {
		st, _ := rm.Get(tag)
		m, _ := st.(*value.Map)
		if m == nil {
			t.Errorf("%s missing", tag)
			continue
		}
		r, _ := m.Get("result")
		c, _ := m.Get("comment")
		if g := value.Repr(r) + " " + value.Str(c); g != w {
			t.Errorf("%s: %s, want %s", tag, g, w)
		}
	}
	// Without a master the minion's own options drive it: a master's
	// (role master) publishes, which fails here.
	ctx.Opts.Set("__role", "master")
	got, err = ctx.Call("state.orchestrate", []any{"orch.main"}, value.NewMap(0))
	if err != nil {
		t.Fatal(err)
	}
	data, _ = got.(*value.Map).Get("data")
	running, _ = data.(*value.Map).Get("m1")
	st, _ := running.(*value.Map).Get("salt_|-st_|-st_|-state")
	if r, _ := st.(*value.Map).Get("result"); r != false {
		t.Errorf("salt.state with role master: %s", value.Repr(st))
	}
}
