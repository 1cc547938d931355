package grains

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"brine/internal/value"
)

func TestDeriveOS(t *testing.T) {
	tests := []struct{ name, id, os, idLike, family string }{
		{"Debian GNU/Linux", "debian", "Debian", "", "Debian"},
		{"Ubuntu", "ubuntu", "Ubuntu", "debian", "Debian"},
		{"Rocky Linux", "rocky", "Rocky", "rhel centos fedora", "RedHat"},
		{"AlmaLinux", "almalinux", "AlmaLinux", "rhel centos fedora", "RedHat"},
		{"CentOS Stream", "centos", "CentOS Stream", "rhel fedora", "RedHat"},
		{"Fedora Linux", "fedora", "Fedora", "", "RedHat"},
		{"Alpine Linux", "alpine", "Alpine", "", "Alpine"},
		{"Linux Mint", "linuxmint", "Mint", "ubuntu", "Debian"},
		{"Pop!_OS", "pop", "Pop", "ubuntu debian", "Debian"},
		{"Arch Linux", "arch", "Arch", "", "Arch"},
		{"openSUSE Leap", "opensuse-leap", "openSUSE Leap", "suse opensuse", "Opensuse"},
	}
	for _, tc := range tests {
		if got := deriveOS(tc.name, tc.id); got != tc.os {
			t.Errorf("deriveOS(%q, %q) = %q, want %q", tc.name, tc.id, got, tc.os)
		}
		if got := prettifyFamily(familyID(tc.id, tc.idLike)); got != tc.family {
			t.Errorf("family(%q, %q) = %q, want %q", tc.id, tc.idLike, got, tc.family)
		}
	}
}

func TestOSReleaseData(t *testing.T) {
	tests := []struct {
		os, full, rel string
		info          value.Tuple
		major         int64
		finger        string
	}{
		{"Debian", "Debian GNU/Linux", "12", value.Tuple{int64(12)}, 12, "Debian-12"},
		{"Ubuntu", "Ubuntu", "22.04", value.Tuple{int64(22), int64(4)}, 22, "Ubuntu-22.04"},
		{"Rocky", "Rocky Linux", "9.3", value.Tuple{int64(9), int64(3)}, 9, "Rocky Linux-9"},
		{"Alpine", "Alpine Linux", "3.19.1", value.Tuple{int64(3), int64(19), int64(1)}, 3, "Alpine Linux-3"},
	}
	for _, tc := range tests {
		g := value.NewMap(0)
		osreleaseData(g, tc.os, tc.full, tc.rel)
		if v, _ := g.Get("osrelease_info"); !value.Equal(v, tc.info) {
			t.Errorf("%s osrelease_info = %s", tc.rel, value.Repr(v))
		}
		if v, _ := g.Get("osmajorrelease"); v != tc.major {
			t.Errorf("%s osmajorrelease = %v", tc.rel, v)
		}
		if v, _ := g.Get("osfinger"); v != tc.finger {
			t.Errorf("%s osfinger = %v, want %s", tc.rel, v, tc.finger)
		}
	}
}

func TestParseOSRelease(t *testing.T) {
	m := ParseOSRelease([]byte("# c\nNAME=\"Debian GNU/Linux\"\nID=debian\nVERSION='12 (bookworm)'\nX=\"a\\$b\"\n"))
	want := map[string]string{"NAME": "Debian GNU/Linux", "ID": "debian", "VERSION": "12 (bookworm)", "X": "a$b", "PRETTY_NAME": "Linux"}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %q, want %q", k, m[k], v)
		}
	}
}

// TestCoreReal checks the collected grains against this machine.
func TestCoreReal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("grains are collected on Linux only")
	}
	// The time it takes is measured by BenchmarkCollect, not asserted here:
	// a loaded machine must not fail the test.
	g := Core("minion1")
	get := func(k string) any {
		v, ok := g.Get(k)
		if !ok {
			t.Errorf("grain %s missing", k)
		}
		return v
	}
	if get("id") != "minion1" {
		t.Errorf("id = %v", get("id"))
	}
	if data, err := os.ReadFile("/etc/os-release"); err == nil {
		rel := ParseOSRelease(data)
		if get("osrelease") != rel["VERSION_ID"] {
			t.Errorf("osrelease = %v, os-release has %q", get("osrelease"), rel["VERSION_ID"])
		}
		if rel["ID"] == "debian" {
			major, _, _ := strings.Cut(rel["VERSION_ID"], ".")
			if get("os") != "Debian" || get("os_family") != "Debian" || get("osfinger") != "Debian-"+major {
				t.Errorf("os/os_family/osfinger = %v/%v/%v", get("os"), get("os_family"), get("osfinger"))
			}
			if get("oscodename") != rel["VERSION_CODENAME"] {
				t.Errorf("oscodename = %v", get("oscodename"))
			}
			if out, err := exec.Command("dpkg", "--print-architecture").Output(); err == nil {
				if a := strings.TrimSpace(string(out)); get("osarch") != a {
					t.Errorf("osarch = %v, dpkg says %s", get("osarch"), a)
				}
			}
		}
	}
	if n, ok := get("num_cpus").(int64); !ok || n != int64(runtime.NumCPU()) && n < 1 {
		t.Errorf("num_cpus = %v", get("num_cpus"))
	}
	if out, err := exec.Command("uname", "-r").Output(); err == nil && get("kernelrelease") != strings.TrimSpace(string(out)) {
		t.Errorf("kernelrelease = %v, uname says %s", get("kernelrelease"), out)
	}
	for _, line := range readLines("/proc/meminfo") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			if get("mem_total") != kb/1024 {
				t.Errorf("mem_total = %v, want %d", get("mem_total"), kb/1024)
			}
		}
	}
	if get("uid") != int64(os.Geteuid()) || get("pid") != int64(os.Getpid()) {
		t.Errorf("uid/pid = %v/%v", get("uid"), get("pid"))
	}
	if v := get("saltversion"); v != SaltVersion {
		t.Errorf("saltversion = %v", v)
	}
	if v := get("pythonversion"); !value.Equal(v, value.NewList(int64(3), int64(10), int64(14), "final", int64(0))) {
		t.Errorf("pythonversion = %s", value.Repr(v))
	}
	ip4, _ := get("ip4_interfaces").(*value.Map)
	lo, _ := ip4.Get("lo")
	if !value.Equal(lo, value.NewList("127.0.0.1")) {
		t.Errorf("ip4_interfaces:lo = %s", value.Repr(lo))
	}
	if ipv4 := get("ipv4"); !value.Truthy(ipv4) {
		t.Errorf("ipv4 empty")
	}
	host, _ := os.Hostname()
	if get("localhost") != host || get("nodename") != host {
		t.Errorf("localhost/nodename = %v/%v, want %s", get("localhost"), get("nodename"), host)
	}
	if data, err := os.ReadFile("/etc/machine-id"); err == nil && get("machine_id") != strings.TrimSpace(string(data)) {
		t.Errorf("machine_id = %v", get("machine_id"))
	}
	init := get("init")
	if _, err := os.Stat("/run/systemd/system"); err == nil && init != "systemd" {
		t.Errorf("init = %v, want systemd", init)
	}
	// Core returns copies: changing one does not change the next.
	g.Set("os", "changed")
	if v, _ := Core("x").Get("os"); v == "changed" {
		t.Error("Core returned the cached map itself")
	}
}

func TestCollectLayers(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "minion")
	if err := os.WriteFile(conf, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "grains"), []byte("roles: [web]\nos: FromFile\nfile_only: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := value.MapOf("id", "m1", "conf_file", conf, "cachedir", filepath.Join(dir, "cache"),
		"grains", value.MapOf("os", "FromConfig"))
	g, err := Collect(opts)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"os": "FromConfig", "file_only": int64(1), "id": "m1"} {
		if v, _ := g.Get(k); !value.Equal(v, want) {
			t.Errorf("%s = %s, want %s", k, value.Repr(v), value.Repr(want))
		}
	}
	if err := SetVals(opts, g, value.MapOf("roles", value.NewList("web", "db"), "file_only", nil, "new", "x"), true); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "grains"))
	want := "new: x\nos: FromFile\nroles:\n- web\n- db\n"
	if string(data) != want {
		t.Errorf("grains file:\n%s\nwant:\n%s", data, want)
	}
	if _, ok := g.Get("file_only"); ok {
		t.Error("destructive None did not delete the live grain")
	}
	if _, err := os.Stat(filepath.Join(dir, "cache", "module_refresh")); err != nil {
		t.Errorf("module_refresh not touched: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "grains"), []byte("a: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Collect(opts); err == nil {
		t.Error("bad grains file: no error reported")
	}
}

func TestShlexSplit(t *testing.T) {
	got := shlexSplit(`a=1 b="x y" 'c d' e\ f`)
	want := []string{"a=1", "b=x y", "c d", "e f"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q", got)
	}
}

func BenchmarkCollect(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Refresh()
		Core("x")
	}
}

// TestServerID pins values computed by CPython 3.10 with PYTHONHASHSEED=0
// (abs(hash(id) % 2**31)).
func TestServerID(t *testing.T) {
	for id, want := range map[string]int64{
		"minion1": 660246709, "vm": 243963085, "": 0, "a": 1301520969,
		"web01.example.com": 1864083769, "héllo": 512847199, "日本": 1236233188,
	} {
		if got := ServerID(id); got != want {
			t.Errorf("ServerID(%q) = %d, want %d", id, got, want)
		}
	}
}
