package states_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

type mountStep struct {
	fun     string
	args    *value.Map
	test    bool
	result  any
	comment string
	changes string // repr
	fstab   string // the file after the step ("" to skip)
}

func runMountSteps(t *testing.T, ctx *execmod.Context, steps []mountStep, dir string) {
	t.Helper()
	for i, s := range steps {
		ret := sysRun(t, ctx, s.fun, s.args, s.test)
		got := strings.ReplaceAll(value.Str(getv(ret, "comment")), dir, "@DIR@")
		if r := getv(ret, "result"); r != s.result || got != s.comment {
			t.Errorf("step %d %s: result %v comment %q, want %v %q", i, s.fun, r, got, s.result, s.comment)
		}
		if ch := value.Repr(getv(ret, "changes")); ch != s.changes {
			t.Errorf("step %d %s: changes %s, want %s", i, s.fun, ch, s.changes)
		}
		if s.fstab != "" {
			if b, _ := os.ReadFile(filepath.Join(dir, "fstab")); string(b) != s.fstab {
				t.Errorf("step %d %s: fstab %q, want %q", i, s.fun, b, s.fstab)
			}
		}
	}
}

// TestMountFstabStates checks mount.fstab_present and mount.fstab_absent
// on a temporary fstab; the comments are the ones Salt 3006 gives for the
// same steps.
func TestMountFstabStates(t *testing.T) {
	dir := t.TempDir()
	fstab := filepath.Join(dir, "fstab")
	os.WriteFile(fstab, []byte("# static\nproc /proc proc defaults 0 0\n"), 0o644)
	present := func(kv ...any) *value.Map {
		m := value.MapOf("name", "/dev/sdz1", "fs_file", "/mnt/x/", "fs_vfstype", "ext4", "config", fstab, "mount", false)
		for i := 0; i < len(kv); i += 2 {
			m.Set(kv[i], kv[i+1])
		}
		return m
	}
	absent := value.MapOf("name", "/dev/sdz1", "fs_file", "/mnt/x", "config", fstab)
	base := "# static\nproc /proc proc defaults 0 0\n"
	runMountSteps(t, execmod.NewContext(), []mountStep{
		{"mount.fstab_present", present(), true, nil, "/mnt/x entry will be written in @DIR@/fstab.", "{}", base},
		{"mount.fstab_present", present("mount", true), true, nil, "/mnt/x entry will be written in @DIR@/fstab.\nWill mount /dev/sdz1 on /mnt/x", "{}", base},
		{"mount.fstab_present", present(), false, true, "/mnt/x entry added in @DIR@/fstab.", "{'persist': 'new'}", base + "/dev/sdz1\t\t/mnt/x\text4\tdefaults\t0 0\n"},
		{"mount.fstab_present", present(), true, true, "/mnt/x entry is already in @DIR@/fstab.", "{}", ""},
		{"mount.fstab_present", present(), false, true, "/mnt/x entry was already in @DIR@/fstab.", "{}", ""},
		{"mount.fstab_present", present("fs_mntops", "noatime", "not_change", true), false, true, "/mnt/x entry was already in @DIR@/fstab.", "{}", ""},
		{"mount.fstab_present", present("fs_mntops", "noatime"), true, nil, "/mnt/x entry will be updated in @DIR@/fstab.", "{}", ""},
		{"mount.fstab_present", present("fs_mntops", "noatime", "fs_passno", int64(2)), false, true, "/mnt/x entry updated in @DIR@/fstab.", "{'persist': 'change'}",
			base + "/dev/sdz1\t\t/mnt/x\text4\tnoatime\t0 2\n"},
		{"mount.fstab_present", present("mount_by", "device"), true, nil, "/mnt/x entry will be updated in @DIR@/fstab.", "{}", ""},
		{"mount.fstab_present", present("name", "/dev/brine-none", "mount_by", "uuid"), false, false, "Device /dev/brine-none cannot be converted to uuid", "{}", ""},
		{"mount.fstab_present", present("config", filepath.Join(dir, "nofstab")), false, false,
			`An exception occurred in this state: Bad config file "@DIR@/nofstab"`, "{}", ""},
		{"mount.fstab_absent", absent, true, nil, "/mnt/x entry will be removed from @DIR@/fstab.", "{}", ""},
		{"mount.fstab_absent", absent, false, true, "/mnt/x entry removed from @DIR@/fstab.", "{'persist': 'removed'}", base},
		{"mount.fstab_absent", absent, true, nil, "/mnt/x entry is already missing in @DIR@/fstab.", "{}", ""},
		{"mount.fstab_absent", absent, false, true, "/mnt/x entry is already missing in @DIR@/fstab.", "{}", base},
	}, dir)
}

// TestMountFstabPresentMounts checks that a new entry is mounted with
// mount(8), which looks the mount point up in /etc/fstab: the entry is
// written to another file, so mount fails and the state says why.
func TestMountFstabPresentMounts(t *testing.T) {
	if _, err := exec.LookPath("mount"); err != nil {
		t.Skip("no mount(8)")
	}
	dir := t.TempDir()
	fstab := filepath.Join(dir, "fstab")
	os.WriteFile(fstab, nil, 0o644)
	mnt := filepath.Join(dir, "m")
	ret := sysRun(t, execmod.NewContext(), "mount.fstab_present",
		value.MapOf("name", "tmpfs", "fs_file", mnt, "fs_vfstype", "tmpfs", "config", fstab), false)
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	lines := strings.Split(value.Str(getv(ret, "comment")), "\n")
	if getv(ret, "result") != false || len(lines) != 2 || lines[0] != mnt+" entry added in "+fstab+"." ||
		!strings.HasPrefix(lines[1], "Error while mounting  "+mnt) {
		t.Errorf("got %s", value.Repr(ret))
	}
}

// TestMountSwapState activates a small swap file (root only) and records
// it in a temporary fstab, as Salt 3006 does for the same steps.
func TestMountSwapState(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for swapon")
	}
	dir := t.TempDir()
	sw := filepath.Join(dir, "swapfile")
	if err := os.WriteFile(sw, make([]byte, 2<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mkswap", sw).CombinedOutput(); err != nil {
		t.Skipf("mkswap: %v %s", err, out)
	}
	if err := exec.Command("swapon", sw).Run(); err != nil {
		t.Skipf("swapon does not work here: %v", err)
	}
	exec.Command("swapoff", sw).Run()
	t.Cleanup(func() { exec.Command("swapoff", sw).Run() })
	fstab := filepath.Join(dir, "fstab")
	os.WriteFile(fstab, []byte("# x\n"), 0o644)
	args := value.MapOf("name", sw, "config", fstab)
	ctx := execmod.NewContext()
	runMountSteps(t, ctx, []mountStep{
		{"mount.swap", args, true, nil, "Swap @DIR@/swapfile is set to be activated", "{}", "# x\n"},
	}, dir)
	ret := sysRun(t, ctx, "mount.swap", args, false)
	ch, _ := getv(ret, "changes").(*value.Map)
	if getv(ret, "comment") != "Swap "+sw+" activated. Added new entry to the fstab." || ch == nil ||
		getv(ch, "type") != "file" || getv(ch, "persist") != "new" {
		t.Errorf("activate: %s", value.Repr(ret))
	}
	runMountSteps(t, ctx, []mountStep{
		{"mount.swap", args, true, true, "Swap @DIR@/swapfile already active", "{}", ""},
		{"mount.swap", args, false, true, "Swap @DIR@/swapfile already active", "{}", "# x\n" + sw + "\t\tnone\tswap\tdefaults\t0 0\n"},
	}, dir)
	exec.Command("swapoff", sw).Run()
	bad := filepath.Join(dir, "notswap")
	os.WriteFile(bad, nil, 0o600)
	runMountSteps(t, ctx, []mountStep{
		{"mount.swap", value.MapOf("name", bad, "persist", false), false, false, "Swap @DIR@/notswap failed to activate", "{}", ""},
	}, dir)
}

// TestMountModWatch remounts a tmpfs with new options through the watch
// handler and checks the kernel's view of it.
func TestMountModWatch(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount")
	}
	mnt := filepath.Join(t.TempDir(), "m")
	os.MkdirAll(mnt, 0o755)
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt).Run(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	ctx := execmod.NewContext()
	ret := sysRun(t, ctx, "mount.mod_watch", value.MapOf("name", mnt, "sfun", "mounted", "device", "tmpfs", "fstype", "tmpfs", "opts", "size=2m"), false)
	if getv(ret, "result") != true || getv(ret, "comment") != mnt+" remounted" {
		t.Errorf("mod_watch: %s", value.Repr(ret))
	}
	if b, _ := os.ReadFile("/proc/self/mounts"); !strings.Contains(string(b), mnt+" tmpfs rw,relatime,size=2048k") {
		t.Errorf("not remounted with size=2m: %s", b)
	}
	ret = sysRun(t, ctx, "mount.mod_watch", value.MapOf("name", mnt, "sfun", "unmounted"), false)
	if getv(ret, "result") != true || getv(ret, "comment") != "Watch not supported in unmounted at this time" {
		t.Errorf("mod_watch unmounted: %s", value.Repr(ret))
	}
}
