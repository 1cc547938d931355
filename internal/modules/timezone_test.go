package modules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

// TestTimezoneRoot sets and compares zones of a machine root in a temp dir.
func TestTimezoneRoot(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"usr/share/zoneinfo/Etc/UTC":      "TZif UTC",
		"usr/share/zoneinfo/Europe/Paris": "TZif Paris",
		"etc/adjtime":                     "0.0 0 0.0\n0\nLOCAL\n",
		"etc/default/rcS":                 "# defaults\nUTC=no\n",
	})
	os.Symlink("/usr/share/zoneinfo/Etc/UTC", filepath.Join(root, "etc/localtime"))
	ctx := testContext()
	ctx.SetService(SysRootService, root)
	for _, tc := range []struct {
		fun  string
		args []any
		want string
	}{
		{"timezone.zone_compare", []any{"Etc/UTC"}, "True"},
		{"timezone.zone_compare", []any{"Europe/Paris"}, "False"},
		{"timezone.set_zone", []any{"Nowhere/City"}, "'Zone does not exist: /usr/share/zoneinfo/Nowhere/City'"},
		{"timezone.set_zone", []any{"Europe/Paris"}, "True"},
		{"timezone.zone_compare", []any{"Europe/Paris"}, "True"},
		{"timezone.get_hwclock", nil, "'localtime'"},
		{"timezone.set_hwclock", []any{"UTC"}, "True"},
		{"timezone.get_hwclock", nil, "'UTC'"},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, tc.args)); got != tc.want {
			t.Errorf("%s%v = %s, want %s", tc.fun, tc.args, got, tc.want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, "etc/timezone")); string(b) != "Europe/Paris\n" {
		t.Errorf("/etc/timezone %q", b)
	}
	os.Remove(filepath.Join(root, "etc/default/rcS"))
	if got := value.Repr(call(t, ctx, "timezone.get_hwclock", nil)); got != "'LOCAL'" {
		t.Errorf("get_hwclock from adjtime = %s", got)
	}
	if _, err := ctx.Call("timezone.zone_compare", []any{"Nowhere/City"}, nil); err == nil || err.Error() != `Can't find a local timezone "Nowhere/City"` {
		t.Errorf("zone_compare of an unknown zone: %v", err)
	}
	os.Remove(filepath.Join(root, "etc/localtime"))
	if _, err := ctx.Call("timezone.zone_compare", []any{"Etc/UTC"}, nil); err == nil || !strings.HasPrefix(err.Error(), "Failed to read /etc/localtime to determine current timezone: No such file") {
		t.Errorf("zone_compare without localtime: %v", err)
	}
}
