package states_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/states"
	"brine/internal/value"
)

// fakeRoot makes a system root with two zoneinfo files, /etc/localtime
// pointing at UTC, and /etc/debian_version.
func fakeRoot(t *testing.T) (string, *execmod.Context) {
	root := t.TempDir()
	for _, z := range []string{"Etc/UTC", "Europe/Paris"} {
		p := filepath.Join(root, "usr/share/zoneinfo", z)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("TZif "+z), 0o644)
	}
	os.MkdirAll(filepath.Join(root, "etc/default"), 0o755)
	os.Symlink("/usr/share/zoneinfo/Etc/UTC", filepath.Join(root, "etc/localtime"))
	os.WriteFile(filepath.Join(root, "etc/debian_version"), []byte("12.0\n"), 0o644)
	ctx := execmod.NewContext()
	ctx.SetService(states.SysRootService, root)
	return root, ctx
}

func TestTimezoneSystem(t *testing.T) {
	root, ctx := fakeRoot(t)
	ctx.Grains.Set("os_family", "Debian") // set_zone writes /etc/timezone on Debian
	ret := sysCase{"timezone.system", value.MapOf("name", "Europe/Paris"), true, "Set timezone Europe/Paris"}.check(t, ctx)
	if value.Repr(getMap(ret, "changes")) != "{'timezone': 'Europe/Paris'}" {
		t.Errorf("changes %s", value.Repr(getMap(ret, "changes")))
	}
	if tz, _ := os.ReadFile(filepath.Join(root, "etc/timezone")); string(tz) != "Europe/Paris\n" {
		t.Errorf("/etc/timezone %q", tz)
	}
	again := sysRun(t, ctx, "timezone.system", value.MapOf("name", "Europe/Paris"), false)
	if str(again, "comment") != "Timezone Europe/Paris already set, UTC already set to Europe/Paris" {
		t.Errorf("again: %s", value.Repr(again))
	}
	sysCase{"timezone.system", value.MapOf("name", "Europe/Paris", "utc", false), false, "Timezone Europe/Paris already set"}.check(t, ctx)
	ret = sysRun(t, ctx, "timezone.system", value.MapOf("name", "Nowhere/City"), false)
	if str(ret, "result") != "False" {
		t.Errorf("unknown zone: %s", value.Repr(ret))
	}
}

func TestLocale(t *testing.T) {
	root, ctx := fakeRoot(t)
	sysCase{"locale.system", value.MapOf("name", "en_US.UTF-8"), true, "Set system locale en_US.UTF-8"}.check(t, ctx)
	if b, _ := os.ReadFile(filepath.Join(root, "etc/default/locale")); string(b) != "LANG=\"en_US.UTF-8\"\n" {
		t.Errorf("/etc/default/locale %q", b)
	}
	if _, err := exec.LookPath("locale"); err != nil {
		t.Skip("locale(1) is not installed")
	}
	sysCase{"locale.present", value.MapOf("name", "C.UTF-8"), false, "Locale C.UTF-8 is already present"}.check(t, ctx)
	// Generation edits locale.gen under the root (locale-gen itself is
	// not run under a test root).
	os.WriteFile(filepath.Join(root, "etc/locale.gen"), []byte("# de_DE.UTF-8 UTF-8\n"), 0o644)
	ret := sysRun(t, ctx, "locale.present", value.MapOf("name", "de_DE.UTF-8"), true)
	if str(ret, "comment") != "Locale de_DE.UTF-8 needs to be generated" {
		t.Errorf("test mode: %s", value.Repr(ret))
	}
	ret = sysRun(t, ctx, "locale.present", value.MapOf("name", "de_DE.UTF-8"), false)
	if str(ret, "comment") != "Generated locale de_DE.UTF-8" {
		t.Errorf("generate: %s", value.Repr(ret))
	}
	if b, _ := os.ReadFile(filepath.Join(root, "etc/locale.gen")); string(b) != "de_DE.UTF-8 UTF-8\n" {
		t.Errorf("locale.gen %q", b)
	}
}

func TestAlternatives(t *testing.T) {
	if _, err := exec.LookPath("update-alternatives"); err != nil {
		t.Skip("update-alternatives is not installed")
	}
	root, ctx := fakeRoot(t)
	os.MkdirAll(filepath.Join(root, "etc/alternatives"), 0o755)
	os.MkdirAll(filepath.Join(root, "var/lib/dpkg/alternatives"), 0o755)
	bin := filepath.Join(root, "bin")
	os.MkdirAll(bin, 0o755)
	for _, n := range []string{"ed1", "ed2"} {
		os.WriteFile(filepath.Join(bin, n), []byte("#!/bin/sh\n"), 0o755)
	}
	link := filepath.Join(root, "usr/bin/brine-editor")
	os.MkdirAll(filepath.Dir(link), 0o755)
	sysCase{"alternatives.install", value.MapOf("name", "brine-editor", "link", link, "path", filepath.Join(bin, "ed1"), "priority", int64(10)), true,
		"Alternative for brine-editor set to path " + filepath.Join(bin, "ed1") + " with priority 10"}.check(t, ctx)
	sysCase{"alternatives.install", value.MapOf("name", "brine-editor", "link", link, "path", filepath.Join(bin, "ed2"), "priority", int64(5)), true,
		"Alternative " + filepath.Join(bin, "ed2") + " for brine-editor registered with priority 5 and not set to default"}.check(t, ctx)
	sysCase{"alternatives.set", value.MapOf("name", "brine-editor", "path", filepath.Join(bin, "ed2")), true,
		"Alternative for brine-editor set to path " + filepath.Join(bin, "ed2")}.check(t, ctx)
	ret := sysRun(t, ctx, "alternatives.auto", value.MapOf("name", "brine-editor"), false)
	if str(ret, "result") != "True" {
		t.Errorf("auto: %s", value.Repr(ret))
	}
	sysRun(t, ctx, "alternatives.auto", value.MapOf("name", "brine-editor"), false)
	again := sysRun(t, ctx, "alternatives.auto", value.MapOf("name", "brine-editor"), false)
	if str(again, "comment") != "brine-editor already in auto mode" {
		t.Errorf("auto again: %s", value.Repr(again))
	}
	ret = sysRun(t, ctx, "alternatives.remove", value.MapOf("name", "brine-editor", "path", filepath.Join(bin, "ed1")), false)
	if !strings.HasPrefix(str(ret, "comment"), "Alternative for brine-editor removed. Falling back to path "+filepath.Join(bin, "ed2")) {
		t.Errorf("remove: %s", value.Repr(ret))
	}
	again = sysRun(t, ctx, "alternatives.remove", value.MapOf("name", "brine-editor", "path", filepath.Join(bin, "ed1")), false)
	if str(again, "comment") != "Alternative for brine-editor is set to it's default path "+filepath.Join(bin, "ed2") {
		t.Errorf("remove again: %s", value.Repr(again))
	}
}

// TestDebconfReal sets answers of a made-up package in the real debconf
// database and purges them at the end.
func TestDebconfReal(t *testing.T) {
	needDebconfUtils(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to write the debconf database")
	}
	purge := func() {
		cmd := exec.Command("debconf-communicate", "brinetest")
		cmd.Stdin = strings.NewReader("PURGE\n")
		cmd.Run()
	}
	purge()
	t.Cleanup(purge)
	ctx := execmod.NewContext()
	data := value.MapOf("brinetest/mode", value.MapOf("type", "string", "value", "fast"),
		"brinetest/enable", value.MapOf("type", "boolean", "value", true))
	ret := sysCase{"debconf.set", value.MapOf("name", "brinetest", "data", data), true, ""}.check(t, ctx)
	if value.Repr(getMap(ret, "changes")) != "{'brinetest/mode': 'fast', 'brinetest/enable': 'true'}" {
		t.Errorf("changes %s", value.Repr(getMap(ret, "changes")))
	}
}

// memKmod is a kernel with loadable modules in memory.
type memKmod struct{ loaded, avail map[string]bool }

func (m *memKmod) Loaded() []string {
	var out []string
	for k := range m.loaded {
		out = append(out, k)
	}
	return out
}
func (m *memKmod) Available() []string {
	var out []string
	for k := range m.avail {
		out = append(out, k)
	}
	return out
}
func (m *memKmod) Load(n string) error   { m.loaded[n] = true; return nil }
func (m *memKmod) Unload(n string) error { delete(m.loaded, n); return nil }

func TestKmod(t *testing.T) {
	root, ctx := fakeRoot(t)
	k := &memKmod{loaded: map[string]bool{"ext4": true}, avail: map[string]bool{"ext4": true, "br_netfilter": true, "overlay": true}}
	ctx.SetService(states.KmodService, k)
	sysCase{"kmod.present", value.MapOf("name", "br_netfilter", "persist", true), true, "Loaded kernel module br_netfilter"}.check(t, ctx)
	if b, _ := os.ReadFile(filepath.Join(root, "etc/modules")); string(b) != "br_netfilter\n" {
		t.Errorf("/etc/modules %q", b)
	}
	ret := sysRun(t, ctx, "kmod.present", value.MapOf("name", "nosuch"), false)
	if str(ret, "result") != "False" || str(ret, "comment") != "Kernel module nosuch is unavailable" {
		t.Errorf("unavailable: %s", value.Repr(ret))
	}
	sysCase{"kmod.absent", value.MapOf("name", "br_netfilter", "persist", true), true, "Removed kernel module br_netfilter"}.check(t, ctx)
	if b, _ := os.ReadFile(filepath.Join(root, "etc/modules")); string(b) != "#br_netfilter\n" {
		t.Errorf("/etc/modules after absent %q", b)
	}
}
