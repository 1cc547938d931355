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

// TestTimezoneGetZone reads the zone the way Salt does per OS family
// (timedatectl is not used under a test root).
func TestTimezoneGetZone(t *testing.T) {
	for _, tc := range []struct {
		name, os, family string
		files            map[string]string
		link             string // /etc/localtime's target, if a link
		want, err        string
	}{
		{name: "debian", os: "Debian", family: "Debian", files: map[string]string{"etc/timezone": "Europe/Paris\n"},
			link: "/usr/share/zoneinfo/Etc/UTC", want: "Europe/Paris"},
		{name: "debian without /etc/timezone", os: "Debian", family: "Debian", link: "/usr/share/zoneinfo/Etc/UTC",
			err: "Problem reading timezone file /etc/timezone: No such file or directory"},
		{name: "redhat", os: "Fedora", family: "RedHat", files: map[string]string{"etc/sysconfig/clock": "# c\nZONE=\"America/Denver\"\n"},
			want: "America/Denver"},
		{name: "centos link", os: "CentOS", family: "RedHat", link: "../usr/share/zoneinfo/Asia/Tokyo", want: "Asia/Tokyo"},
		{name: "slackware copy", os: "Slackware", family: "Slackware",
			files: map[string]string{"etc/localtime": "TZif Paris", "usr/share/zoneinfo/posixrules": "TZif Paris"}, want: "Europe/Paris"},
		{name: "unknown family", os: "Plan9", family: "Plan9", err: "Unable to get timezone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{"usr/share/zoneinfo/Etc/UTC": "TZif UTC", "usr/share/zoneinfo/Europe/Paris": "TZif Paris"}
			for k, v := range tc.files {
				files[k] = v
			}
			writeTree(t, root, files)
			if tc.link != "" {
				os.MkdirAll(filepath.Join(root, "etc"), 0o755)
				if err := os.Symlink(tc.link, filepath.Join(root, "etc/localtime")); err != nil {
					t.Fatal(err)
				}
			}
			ctx := testContext()
			ctx.Grains = value.MapOf("os", tc.os, "os_family", tc.family)
			ctx.SetService(SysRootService, root)
			got, err := ctx.Call("timezone.get_zone", nil, nil)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("got %v, %v; want error %q", got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %v, %v; want %q", got, err, tc.want)
			}
		})
	}
}
