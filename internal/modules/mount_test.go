package modules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

func TestMountFstabAndCache(t *testing.T) {
	ctx := testContext()
	dir := t.TempDir()
	ctx.Opts.Set("cachedir", dir)
	fstab := filepath.Join(dir, "fstab")
	os.WriteFile(fstab, []byte("# static\nUUID=1 / ext4 errors=remount-ro 0 1\n/dev/sdb1 /data xfs defaults\nbad line\n"), 0o644)
	for _, tc := range []struct {
		fun  string
		args []any
		kw   []any
		want string
	}{
		{"mount.fstab", []any{fstab}, nil, "{'/': {'device': 'UUID=1', 'fstype': 'ext4', 'opts': ['errors=remount-ro'], 'dump': '0', 'pass': '1'}, " +
			"'/data': {'device': '/dev/sdb1', 'fstype': 'xfs', 'opts': ['defaults'], 'dump': '0', 'pass': '0'}}"},
		{"mount.set_fstab", []any{"/data", "/dev/sdb1", "xfs"}, []any{"config", fstab}, "'present'"},
		{"mount.set_fstab", []any{"/data", "/dev/sdb1", "xfs"}, []any{"config", fstab, "opts", value.NewList("noatime", "ro")}, "'change'"},
		{"mount.set_fstab", []any{"/data", "/dev/sdb1", "xfs"}, []any{"config", fstab, "opts", "ro,noatime"}, "'present'"},
		{"mount.set_fstab", []any{"/tmp/x", "none", "tmpfs"}, []any{"config", fstab, "test", true}, "'new'"},
		{"mount.set_fstab", []any{"/tmp/x", "none", "tmpfs"}, []any{"config", fstab}, "'new'"},
		{"mount.set_fstab", []any{"/tmp/x", "tmpfs", "tmpfs"}, []any{"config", fstab, "not_change", true}, "'present'"},
		{"mount.rm_fstab", []any{"/data", "/dev/sdb1"}, []any{"config", fstab}, "True"},
		{"mount.read_mount_cache", []any{"/mnt/a"}, nil, "{}"},
		{"mount.write_mount_cache", []any{"/mnt/a", "/dev/sdc", true, "ext4", "defaults"}, nil, "True"},
		{"mount.read_mount_cache", []any{"/mnt/a"}, nil, "{'device': '/dev/sdc', 'fstype': 'ext4', 'mkmnt': True, 'opts': 'defaults'}"},
		{"mount.delete_mount_cache", []any{"/mnt/a"}, nil, "True"},
		{"mount.read_mount_cache", []any{"/mnt/a"}, nil, "{}"},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, tc.args, tc.kw...)); got != tc.want {
			t.Errorf("%s%v%v = %s, want %s", tc.fun, tc.args, tc.kw, got, tc.want)
		}
	}
	data, _ := os.ReadFile(fstab)
	if want := "# static\nUUID=1 / ext4 errors=remount-ro 0 1\nbad line\nnone\t\t/tmp/x\ttmpfs\tdefaults\t0 0\n"; string(data) != want {
		t.Errorf("fstab %q, want %q", data, want)
	}
	_, err := ctx.Call("mount.set_fstab", []any{"/a", "/dev/a", "ext4"}, value.MapOf("config", filepath.Join(dir, "none")))
	if err == nil || err.Error() != `Bad config file "`+filepath.Join(dir, "none")+`"` {
		t.Errorf("missing fstab: %v", err)
	}
}

// TestMountReal reads the real mount table and mounts a small tmpfs on a
// temp dir (unmounted again by the test).
func TestMountReal(t *testing.T) {
	ctx := testContext()
	active := call(t, ctx, "mount.active", nil).(*value.Map)
	if _, ok := active.GetString("/"); !ok {
		t.Fatalf("mount.active has no /: %s", value.Repr(active))
	}
	ext := call(t, ctx, "mount.active", []any{true}).(*value.Map)
	if r, ok := ext.GetString("/"); !ok || !strings.Contains(value.Repr(r), "'mountid'") {
		t.Errorf("extended / = %s", value.Repr(r))
	}
	for _, tc := range []struct {
		fun  string
		args []any
		want string
	}{
		{"mount.is_mounted", []any{"/"}, "True"},
		{"mount.get_mount_from_path", []any{"/"}, "'/'"},
		{"mount.is_mounted", []any{"/nonexistent-brine"}, "False"},
		{"mount.umount", []any{"/nonexistent-brine"}, "'/nonexistent-brine does not have anything mounted'"},
		{"mount.swapoff", []any{"/nonexistent-brine"}, "None"},
		{"mount.is_fuse_exec", []any{"no-such-command-brine"}, "False"},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, tc.args)); got != tc.want {
			t.Errorf("%s%v = %s, want %s", tc.fun, tc.args, got, tc.want)
		}
	}
	if os.Geteuid() != 0 {
		return
	}
	mnt := filepath.Join(t.TempDir(), "m")
	t.Cleanup(func() { call(t, ctx, "mount.umount", []any{mnt}) })
	if r := call(t, ctx, "mount.mount", []any{mnt, "tmpfs"}, "fstype", "tmpfs", "opts", "size=1m", "mkmnt", true); r != true {
		t.Skipf("cannot mount a tmpfs here: %v", value.Repr(r))
	}
	if !value.Truthy(call(t, ctx, "mount.is_mounted", []any{mnt})) {
		t.Fatal("tmpfs not mounted")
	}
	if got := value.Repr(call(t, ctx, "mount.get_device_from_path", []any{filepath.Join(mnt, "sub")})); got != "'tmpfs'" {
		t.Errorf("get_device_from_path = %s", got)
	}
	if r := call(t, ctx, "mount.remount", []any{mnt, "tmpfs"}, "fstype", "tmpfs", "opts", "ro"); r != true {
		t.Errorf("remount: %v", value.Repr(r))
	}
	a, _ := call(t, ctx, "mount.active", nil).(*value.Map).GetString(mnt)
	if !strings.Contains(value.Repr(a), "'ro'") {
		t.Errorf("after remount ro: %s", value.Repr(a))
	}
	if r := call(t, ctx, "mount.umount", []any{mnt}); r != true {
		t.Errorf("umount: %v", value.Repr(r))
	}
}
