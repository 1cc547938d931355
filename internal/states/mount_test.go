package states_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

// TestMountReal mounts a small tmpfs on a temporary directory with an
// fstab in a temporary file, and unmounts it at the end.
func TestMountReal(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount")
	}
	dir := t.TempDir()
	mnt := filepath.Join(dir, "mnt")
	probe := filepath.Join(dir, "probe")
	os.MkdirAll(probe, 0o755)
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", probe).Run(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): mount.mounted needs mount privileges", err)
	}
	exec.Command("umount", probe).Run()
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	fstab := filepath.Join(dir, "fstab")
	os.WriteFile(fstab, []byte("# static\nproc /proc proc defaults 0 0\n"), 0o644)
	ctx := execmod.NewContext()
	args := value.MapOf("name", mnt, "device", "tmpfs", "fstype", "tmpfs", "opts", "size=1m", "mkmnt", true, "config", fstab)
	ret := sysCase{"mount.mounted", args, true, "Target was successfully mounted. Added new entry to the fstab."}.check(t, ctx)
	if value.Repr(getMap(ret, "changes")) != "{'mount': True, 'persist': 'new'}" {
		t.Errorf("changes %s", value.Repr(getMap(ret, "changes")))
	}
	if b, _ := os.ReadFile(fstab); string(b) != "# static\nproc /proc proc defaults 0 0\ntmpfs\t\t"+mnt+"\ttmpfs\tsize=1m\t0 0\n" {
		t.Errorf("fstab %q", b)
	}
	args.Set("opts", "size=2m")
	sysCase{"mount.mounted", args, true, "Target was already mounted. Updated the entry in the fstab."}.check(t, ctx)
	sysCase{"mount.unmounted", value.MapOf("name", mnt, "config", fstab, "persist", true), true, "Target was successfully unmounted. Removed target from fstab"}.check(t, ctx)
	if b, _ := os.ReadFile(fstab); string(b) != "# static\nproc /proc proc defaults 0 0\n" {
		t.Errorf("fstab after unmounted %q", b)
	}
}
