package states_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/engine"
	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

// needDebconfUtils skips a test when Salt would not load the debconf
// modules here (debconf-get-selections comes with debconf-utils).
func needDebconfUtils(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("debconf-get-selections"); err != nil {
		t.Skip("debconf-utils is not installed")
	}
}

// TestDebconfUnavailable hides debconf-get-selections (an empty PATH) and
// compares the states' and debconf.show's missing-function texts with
// what Salt 3006 returned without debconf-utils.
func TestDebconfUnavailable(t *testing.T) {
	data, err := os.ReadFile("testdata/debconf/unavailable_salt.json")
	if err != nil {
		t.Fatal(err)
	}
	var salt struct {
		States     map[string]map[string]any `json:"state.sls"`
		ShowStderr string                    `json:"debconf.show stderr"`
	}
	if err := json.Unmarshal(data, &salt); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	ctx := execmod.NewContext()
	chunks := []*value.Map{
		value.MapOf("state", "debconf", "__id__", "brth7pkg", "name", "brth7pkg", "__sls__", "w1dc", "__env__", "base", "fun", "set",
			"data", value.MapOf("brth7pkg/q", value.MapOf("type", "string", "value", "x")), "order", int64(10000)),
		value.MapOf("state", "debconf", "__id__", "brth7file", "name", "brth7file", "__sls__", "w1dc", "__env__", "base", "fun", "set_file",
			"source", "salt://nothing", "order", int64(10001)),
	}
	ret, err := engine.Run(chunks, engine.RunOptions{Env: &statemod.Env{Exec: ctx, Shared: statemod.NewShared()}})
	if err != nil {
		t.Fatal(err)
	}
	if ret.Len() != len(salt.States) {
		t.Fatalf("%d results, Salt %d", ret.Len(), len(salt.States))
	}
	for tag, want := range salt.States {
		got, ok := ret.GetString(tag)
		if !ok {
			t.Errorf("no result %s", tag)
			continue
		}
		for _, k := range []string{"result", "comment", "name"} {
			if g, w := value.Repr(getv(got.(*value.Map), k)), value.Repr(want[k]); g != w {
				t.Errorf("%s %s = %s, Salt %s", tag, k, g, w)
			}
		}
	}
	_, err = ctx.Call("debconf.show", []any{"foo"}, nil)
	var un *execmod.UnavailableError
	if !errors.As(err, &un) || un.Error()+"\n" != salt.ShowStderr {
		t.Errorf("debconf.show: %v, Salt %q", err, salt.ShowStderr)
	}
}

func TestDebconfSetFileState(t *testing.T) {
	needDebconfUtils(t)
	ctx := execmod.NewContext()
	for _, step := range []struct {
		args *value.Map
		test bool
		want string
	}{
		{value.MapOf("name", "p", "source", "/x", "context", "no"), false, `{"name": "p", "changes": {}, "result": false, "comment": "Context must be formed as a dict"}`},
		{value.MapOf("name", "p", "source", "/x", "defaults", value.NewList()), false, `{"name": "p", "changes": {}, "result": false, "comment": "Defaults must be formed as a dict"}`},
		{value.MapOf("name", "p", "source", "/x"), true, `{"name": "p", "changes": {}, "result": null, "comment": "Debconf selections would have been set."}`},
		{value.MapOf("name", "p", "source", "salt://nonexistent/selections"), false, `{"name": "p", "changes": {}, "result": false, "comment": "Unable to set debconf selections from file."}`},
	} {
		if got := stateJSON(sysRun(t, ctx, "debconf.set_file", step.args, step.test)); got != step.want {
			t.Errorf("debconf.set_file %s\n got %s\nwant %s", value.Repr(step.args), got, step.want)
		}
	}
}

// TestDebconfSetFileReal sets the answers of a made-up package from a
// file in the real debconf database and purges them at the end.
func TestDebconfSetFileReal(t *testing.T) {
	needDebconfUtils(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to write the debconf database")
	}
	const pkg = "brinestatetest"
	purge := func() {
		cmd := exec.Command("debconf-communicate", pkg)
		cmd.Stdin = strings.NewReader("PURGE\n")
		cmd.Run()
	}
	purge()
	t.Cleanup(purge)
	file := filepath.Join(t.TempDir(), "answers")
	os.WriteFile(file, []byte(pkg+" "+pkg+"/size string large\n"), 0o644)
	ctx := execmod.NewContext()
	ret := sysRun(t, ctx, "debconf.set_file", value.MapOf("name", pkg, "source", file), false)
	if got := stateJSON(ret); got != `{"name": "`+pkg+`", "changes": {}, "result": true, "comment": "Debconf selections were set."}` {
		t.Errorf("debconf.set_file: %s", got)
	}
	out, _ := exec.Command("debconf-show", pkg).Output()
	if !strings.Contains(string(out), pkg+"/size: large") {
		t.Errorf("debconf-show %s: %q", pkg, out)
	}
}
