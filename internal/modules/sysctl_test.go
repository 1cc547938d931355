package modules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

// TestSysctlReal reads the real kernel and assigns vm.swappiness its own
// current value (no change to the machine), persisting it in a temp file.
func TestSysctlReal(t *testing.T) {
	ctx := testContext()
	cur, err := os.ReadFile("/proc/sys/vm/swappiness")
	if err != nil {
		t.Skip("no /proc/sys/vm/swappiness")
	}
	swap := strings.TrimSpace(string(cur))
	conf := filepath.Join(t.TempDir(), "sysctl.d", "99-test.conf")
	other := filepath.Join(t.TempDir(), "other.conf")
	os.WriteFile(other, []byte("# c\nkernel.a = 1\n  vm.b=2 3\nnot a setting\n"), 0o644)
	for _, tc := range []struct {
		fun  string
		args []any
		want string
	}{
		{"sysctl.get", []any{"kernel.ostype"}, "'Linux'"},
		{"sysctl.get", []any{"vm.swappiness"}, "'" + swap + "'"},
		{"sysctl.show", []any{other}, "{'kernel.a': '1', 'vm.b': '2 3'}"},
		{"sysctl.show", []any{filepath.Join(t.TempDir(), "none")}, "[]"},
		{"sysctl.assign", []any{"vm.swappiness", swap}, "{'vm.swappiness': '" + swap + "'}"},
		{"sysctl.persist", []any{"vm.swappiness", swap, conf}, "'Updated'"},
		{"sysctl.persist", []any{"vm.swappiness", swap, conf}, "'Already set'"},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, tc.args)); got != tc.want {
			t.Errorf("%s%v = %s, want %s", tc.fun, tc.args, got, tc.want)
		}
	}
	data, _ := os.ReadFile(conf)
	if want := "#\n# Kernel sysctl configuration\n#\nvm.swappiness = " + swap + "\n"; string(data) != want {
		t.Errorf("persisted file %q, want %q", data, want)
	}
	all := call(t, ctx, "sysctl.show", nil).(*value.Map)
	if v, _ := all.GetString("kernel.ostype"); v != "Linux" {
		t.Errorf("sysctl.show kernel.ostype = %v (of %d keys)", v, all.Len())
	}
	for _, tc := range []struct {
		fun  string
		args []any
		want string
	}{
		{"sysctl.assign", []any{"kernel.brine_nope", "1"}, "sysctl kernel.brine_nope does not exist"},
		{"sysctl.assign", []any{"vm.swappiness", "not-a-number"}, "sysctl -w failed: "},
	} {
		_, err := ctx.Call(tc.fun, tc.args, nil)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s%v error %v, want %q", tc.fun, tc.args, err, tc.want)
		}
	}
	if got := value.Repr(call(t, ctx, "sysctl.default_config", nil)); !strings.Contains(got, "/etc/sysctl") {
		t.Errorf("default_config %s", got)
	}
}
