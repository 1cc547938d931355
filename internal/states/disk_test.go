package states_test

import (
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

// TestDiskStatus checks disk.status's validation messages (as Salt 3006
// words them) and its checks of the root mount and of a directory.
func TestDiskStatus(t *testing.T) {
	ctx := execmod.NewContext()
	dir := t.TempDir()
	for _, tc := range []struct {
		args    *value.Map
		result  any
		comment string // a prefix when it ends with "…"
		dataKey string // a key the data must have
	}{
		{value.MapOf("name", "/", "minimum", int64(5), "maximum", int64(3)), false, "minimum must be less than maximum ", ""},
		{value.MapOf("name", "/", "maximum", int64(300)), false, "maximum must be in the range [0, 100] ", ""},
		{value.MapOf("name", "/", "minimum", "abc", "maximum", "x"), false, "maximum must be an integer minimum must be an integer ", ""},
		{value.MapOf("name", "/", "minimum", "5%", "maximum", " 99 "), true, "Disk used space in acceptable range", "capacity"},
		{value.MapOf("name", "/", "minimum", int64(0), "maximum", int64(100), "free", true), true, "Disk used space in acceptable range", "capacity"},
		{value.MapOf("name", "/", "minimum", int64(1), "absolute", true), true, "Disk used space in acceptable range", "1K-blocks"},
		{value.MapOf("name", "/", "maximum", "1KB", "absolute", true), false, "Disk used space is above maximum of 1 KB at …", "used"},
		{value.MapOf("name", "/", "minimum", int64(100), "free", true), false, "Disk available space is below minimum of 100 % at …", "available"},
		{value.MapOf("name", dir, "minimum", int64(0), "maximum", int64(100)), true, "Disk used space in acceptable range", dir},
		{value.MapOf("name", dir, "minimum", int64(100)), false, "Disk used space is below minimum of 100 % at …", dir},
		{value.MapOf("name", filepath.Join(dir, "none"), "minimum", int64(1)), false,
			"Disk mount " + dir + "/none not present. Directory " + dir + "/none does not exist or is not a directory", ""},
	} {
		ret := sysRun(t, ctx, "disk.status", tc.args, false)
		got := value.Str(getv(ret, "comment"))
		want, prefix := strings.CutSuffix(tc.comment, "…")
		if getv(ret, "result") != tc.result || (prefix && !strings.HasPrefix(got, want)) || (!prefix && got != want) {
			t.Errorf("%s: %v %q, want %v %q", value.Repr(tc.args), getv(ret, "result"), got, tc.result, tc.comment)
		}
		data, _ := getv(ret, "data").(*value.Map)
		if tc.dataKey == "" && (data == nil || data.Len() != 0) || tc.dataKey != "" && (data == nil || !data.Has(tc.dataKey)) {
			t.Errorf("%s: data %s, want key %q", value.Repr(tc.args), value.Repr(getv(ret, "data")), tc.dataKey)
		}
	}
}
