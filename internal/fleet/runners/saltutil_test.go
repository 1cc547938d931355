package runners

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

// TestMasterSync checks the master's saltutil.sync_* runners: base by
// default, the kinds in sync_all's order, the master's extension_modules,
// and the whitelist argument.
func TestMasterSync(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"base/_runners/deploy.py": "def go():\n    return 1\n", "base/_modules/m.py": "", "base/_pillar/ext.py": "",
		"base/_proxy/p.py": "", "dev/_runners/devonly.py": "",
	})
	ext := filepath.Join(dir, "extmods")
	opts := "file_roots:\n  base: [" + dir + "/base]\n  dev: [" + dir + "/dev]\nextension_modules: " + ext + "\n"
	c, _ := testContext(t, opts)
	got := call(t, c, "saltutil.sync_all", nil, nil).(*value.Map)
	keys := strings.Join(func() []string {
		var k []string
		got.Range(func(key, _ any) bool { k = append(k, key.(string)); return true })
		return k
	}(), " ")
	if want := "clouds modules states grains renderers returners output proxymodules runners wheel engines thorium queues pillar utils sdb cache fileserver tops tokens serializers executors roster"; keys != want {
		t.Errorf("sync_all keys: %s", keys)
	}
	for k, want := range map[string]string{"runners": "['runners.deploy']", "modules": "['modules.m']", "pillar": "['pillar.ext']", "proxymodules": "['proxy.p']", "wheel": "[]"} {
		if v, _ := got.Get(k); value.Repr(v) != want {
			t.Errorf("sync_all %s = %s, want %s", k, value.Repr(v), want)
		}
	}
	if _, err := os.Stat(filepath.Join(ext, "runners", "deploy.py")); err != nil {
		t.Errorf("runner not in the master's extension_modules: %v", err)
	}
	// again: nothing new; another environment replaces what base synced
	if v := call(t, c, "saltutil.sync_runners", nil, nil); value.Repr(v) != "[]" {
		t.Errorf("second sync_runners = %s", value.Repr(v))
	}
	if v := call(t, c, "saltutil.sync_runners", []any{"dev"}, nil); value.Repr(v) != "['runners.devonly']" {
		t.Errorf("sync_runners dev = %s", value.Repr(v))
	}
	if v := call(t, c, "saltutil.sync_modules", nil, value.MapOf("extmod_whitelist", "nothere")); value.Repr(v) != "[]" {
		t.Errorf("sync_modules with a whitelist = %s", value.Repr(v))
	}
}
