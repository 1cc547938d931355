package states_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/states"
	"brine/internal/value"
)

func TestHostStates(t *testing.T) {
	dir := t.TempDir()
	hosts := filepath.Join(dir, "hosts")
	os.WriteFile(hosts, []byte("127.0.0.1\tlocalhost\n# keep me\n10.0.0.9\told.example  # legacy\n"), 0o644)
	ctx := execmod.NewContext()
	ctx.Opts.Set("hosts.file", hosts)
	read := func() string { data, _ := os.ReadFile(hosts); return string(data) }

	ret := sysCase{"host.present", value.MapOf("name", "web.example", "ip", value.NewList("10.0.0.5", "10.0.0.6")), true,
		"Added host web.example (10.0.0.5)\nAdded host web.example (10.0.0.6)"}.check(t, ctx)
	if value.Repr(getMap(ret, "changes")) != "{'added': {'10.0.0.5': ['web.example'], '10.0.0.6': ['web.example']}}" {
		t.Errorf("changes %s", value.Repr(getMap(ret, "changes")))
	}
	sysCase{"host.present", value.MapOf("name", "web.example", "ip", "10.0.0.5", "comment", "frontend", "clean", true), true,
		"Set comment for host 10.0.0.5 (frontend)\nRemoved host web.example (10.0.0.6)"}.check(t, ctx)
	want := "127.0.0.1\t\tlocalhost\n# keep me\n10.0.0.9\t\told.example\t\t# legacy\n10.0.0.5\t\tweb.example\t\t# frontend\n"
	if got := read(); got != want {
		t.Errorf("hosts\n got %q\nwant %q", got, want)
	}
	sysCase{"host.only", value.MapOf("name", "10.0.0.9", "hostnames", value.NewList("new.example", "alias")), true,
		`successfully changed 10.0.0.9 from "old.example" to "new.example alias"`}.check(t, ctx)
	sysCase{"host.absent", value.MapOf("name", "web.example", "ip", "10.0.0.5"), true, "Removed host web.example (10.0.0.5)"}.check(t, ctx)
	if got := read(); strings.Contains(got, "web.example") || !strings.Contains(got, "10.0.0.9\t\tnew.example alias\n") {
		t.Errorf("hosts at the end %q", got)
	}
}

// memSysctl keeps kernel parameters in memory, standing for /proc/sys.
type memSysctl map[string]string

func (m memSysctl) Get(n string) (string, bool) { v, ok := m[n]; return v, ok }
func (m memSysctl) Set(n, v string) error       { m[n] = v; return nil }

func TestSysctlPresent(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "sysctl.d", "99-salt.conf")
	ctx := execmod.NewContext()
	kernel := memSysctl{"vm.swappiness": "60"}
	ctx.SetService(states.SysctlService, kernel)
	sysCase{"sysctl.present", value.MapOf("name", "vm.swappiness", "value", int64(10), "config", conf), true,
		"Updated sysctl value vm.swappiness = 10"}.check(t, ctx)
	sysCase{"sysctl.present", value.MapOf("name", "net.ipv4.ip_forward", "value", "1", "config", conf), true,
		"Updated sysctl value net.ipv4.ip_forward = 1"}.check(t, ctx)
	sysCase{"sysctl.present", value.MapOf("name", "vm.swappiness", "value", int64(20), "config", conf), true,
		"Updated sysctl value vm.swappiness = 20"}.check(t, ctx)
	data, _ := os.ReadFile(conf)
	if want := "#\n# Kernel sysctl configuration\n#\nvm.swappiness = 20\nnet.ipv4.ip_forward = 1\n"; string(data) != want {
		t.Errorf("config\n got %q\nwant %q", data, want)
	}
	if kernel["vm.swappiness"] != "20" {
		t.Errorf("running value %q", kernel["vm.swappiness"])
	}
	// The file has the value but the kernel does not: applied again.
	kernel["vm.swappiness"] = "60"
	ret := sysRun(t, ctx, "sysctl.present", value.MapOf("name", "vm.swappiness", "value", int64(20), "config", conf), false)
	if str(ret, "comment") != "Updated sysctl value vm.swappiness = 20" || kernel["vm.swappiness"] != "20" {
		t.Errorf("reapply: %s", value.Repr(ret))
	}
	// A real /proc/sys tree under a temporary root.
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "proc/sys/kernel"), 0o755)
	os.WriteFile(filepath.Join(root, "proc/sys/kernel/brine_test"), []byte("0\n"), 0o644)
	ctx.SetService(states.SysctlService, states.ProcSysctl{Root: root})
	sysCase{"sysctl.present", value.MapOf("name", "kernel.brine_test", "value", "1", "config", conf), true,
		"Updated sysctl value kernel.brine_test = 1"}.check(t, ctx)
}
