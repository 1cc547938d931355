package pyext

import (
	"os"
	"path/filepath"
	"testing"

	"brine/internal/grains"
	"brine/internal/value"
)

// TestGrainModuleDunders checks what Salt's grain loader (salt.loader
// grain_funcs and grains) gives a grain module: __opts__, __context__,
// __utils__, __grains__ holding the config's static grains, and no
// __salt__ (a module may define its own); a function that raises is
// skipped and the others still count.
func TestGrainModuleDunders(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	ext := filepath.Join(dir, "extmods")
	if err := os.MkdirAll(filepath.Join(ext, "grains"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"a_own.py": "__salt__ = {'x.y': lambda: 'own'}\n\ndef own():\n    return {'own': __salt__['x.y']()}\n",
		// uyuni's grains/cpuinfo.py pattern
		"a_uyuni.py": "import salt.modules.cmdmod\n\n__salt__ = {'cmd.run_all': salt.modules.cmdmod.run_all}\n\n" +
			"def cpu():\n    return {'echoed': __salt__['cmd.run_all']('echo hi')['stdout']}\n",
		"b_none.py": "def uses_salt():\n    return {'via_salt': __salt__['cmd.run']('id')}\n\n" +
			"def after():\n    return {'after': 1}\n",
		// openQA's default_interface.py imports its sibling network_backend:
		// Salt's loader puts the module's directory on sys.path while it
		// imports it
		"d_sibling.py": "import e_helper\n\ndef sibling():\n    return {'sibling': e_helper.VALUE}\n",
		"e_helper.py":  "VALUE = 'from helper'\n",
		"c_dunders.py": "def dunders():\n    return {'static_seen': __grains__.get('static'), 'core_seen': 'os' in __grains__, " +
			"'opts_id': __opts__['id'], 'has_salt': '__salt__' in globals()}\n",
	}
	for n, c := range files {
		if err := os.WriteFile(filepath.Join(ext, "grains", n), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := Start(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	opts := value.MapOf("id", "m", "cachedir", dir, "extension_modules", ext,
		"grains", value.MapOf("static", "yes"))
	got, err := runGrains(w, opts, value.MapOf("os", "Debian"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"own": "own", "echoed": "hi", "after": 1, "static_seen": "yes", "core_seen": false, "opts_id": "m", "has_salt": false, "sibling": "from helper"}`
	if js := value.ToJSON(got, value.JSONOptions{Indent: -1}); js != want {
		t.Errorf("grains = %s\nwant %s", js, want)
	}
}

// TestReleaseEarlyWorker checks that grains.Release ends the worker that
// ran the custom grains, which a run in the same process would adopt.
func TestReleaseEarlyWorker(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	ext := filepath.Join(dir, "extmods", "grains")
	if err := os.MkdirAll(ext, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ext, "g.py"), []byte("def g():\n    return {'custom': 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := value.MapOf("id", "m", "cachedir", dir)
	if g := customGrains(opts, value.MapOf("os", "Debian")); g == nil || !g.Has("custom") {
		t.Fatalf("custom grains = %v", g)
	}
	earlyMu.Lock()
	w := early
	earlyMu.Unlock()
	if w == nil {
		t.Fatal("no worker kept after collecting the custom grains")
	}
	grains.Release()
	if takeEarly() != nil {
		t.Error("a worker is still kept after grains.Release")
	}
	if _, err := w.Request(value.MapOf("op", "ping")); err == nil {
		t.Error("the released worker still answers")
	}
}
