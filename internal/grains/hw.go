package grains

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"brine/internal/value"
)

// hwGrains sets the CPU, memory, firmware and virtualization grains.
func hwGrains(g *value.Map) {
	cpuData(g)
	memData(g)
	dmi := dmiData(g)
	virtual(g, dmi)
	if _, err := exec.LookPath("selinuxenabled"); err == nil {
		g.Set("selinux", selinux())
	}
}

// cpuData parses /proc/cpuinfo as Salt's _linux_cpudata.
func cpuData(g *value.Map) {
	num := int64(0)
	model := ""
	var flags []string
	for _, line := range readLines("/proc/cpuinfo") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		// Salt splits on every ':' and keeps the second field.
		v, _, _ = strings.Cut(v, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "processor":
			num++
		case "# processors":
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				num = n
			}
		case "vendor_id", "model name", "cpu":
			model = v
		case "flags", "Features":
			flags = strings.Fields(v)
		case "Processor":
			model, _, _ = strings.Cut(v, "-")
			num = 1
		}
	}
	if model == "" {
		model = "Unknown"
	}
	g.Set("num_cpus", num)
	g.Set("cpu_model", model)
	g.Set("cpu_flags", strList(flags))
}

// memData reads MemTotal and SwapTotal from /proc/meminfo, in MiB.
func memData(g *value.Map) {
	mem, swap := int64(0), int64(0)
	for _, line := range readLines("/proc/meminfo") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue
		}
		switch strings.TrimSpace(k) {
		case "MemTotal":
			mem = n / 1024
		case "SwapTotal":
			swap = n / 1024
		}
	}
	g.Set("mem_total", mem)
	g.Set("swap_total", swap)
}

// dmiFiles maps grain names to files of /sys/class/dmi/id.
var dmiFiles = [][2]string{
	{"biosversion", "bios_version"}, {"biosvendor", "bios_vendor"}, {"boardname", "board_name"},
	{"productname", "product_name"}, {"manufacturer", "sys_vendor"}, {"biosreleasedate", "bios_date"},
	{"uuid", "product_uuid"}, {"serialnumber", "product_serial"},
}

// dmiData sets the firmware grains from sysfs and returns what it read.
func dmiData(g *value.Map) map[string]string {
	out := map[string]string{}
	if _, err := os.Stat("/sys/class/dmi/id"); err != nil {
		return out
	}
	for _, kv := range dmiFiles {
		data, err := os.ReadFile(filepath.Join("/sys/class/dmi/id", kv[1]))
		if err != nil {
			continue
		}
		s := strings.ToValidUTF8(strings.TrimSpace(string(data)), "\uFFFD")
		if kv[0] == "uuid" {
			s = strings.ToLower(s)
		}
		out[kv[0]] = s
		g.Set(kv[0], s)
	}
	return out
}

func fileContains(path, sub string) bool {
	data, err := os.ReadFile(path)
	return err == nil && bytes.Contains(data, []byte(sub))
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// virtual sets virtual and virtual_subtype from files (the facts
// systemd-detect-virt and Salt's _virtual look at) instead of commands.
func virtual(g *value.Map, dmi map[string]string) {
	virt, sub := "physical", ""
	vendor, product := dmi["manufacturer"], dmi["productname"]
	bios := dmi["biosvendor"]
	switch {
	case strings.Contains(vendor, "QEMU") || strings.Contains(bios, "QEMU") ||
		strings.Contains(vendor, "Bochs") || strings.Contains(bios, "Bochs") ||
		strings.Contains(product, "KVM") || strings.Contains(bios, "SeaBIOS") ||
		strings.Contains(vendor, "OpenStack"):
		virt = "kvm"
	case strings.Contains(product, "VMware") || strings.Contains(vendor, "VMware"):
		virt = "VMware"
	case strings.Contains(product, "VirtualBox") || strings.Contains(vendor, "innotek"):
		virt = "VirtualBox"
	case strings.Contains(vendor, "Microsoft") && strings.Contains(product, "Virtual Machine"):
		virt = "VirtualPC"
	case strings.Contains(vendor, "Parallels"):
		virt = "Parallels"
	case strings.Contains(vendor, "Amazon EC2"):
		virt, sub = "Nitro", "Amazon EC2"
		if product != "" {
			sub = "Amazon EC2 (" + product + ")"
		}
	case strings.Contains(vendor, "Xen"):
		virt = "xen"
	}
	container := isFile("/.dockerenv") || isFile("/run/.containerenv")
	if virt == "physical" && !container && fileContains("/sys/devices/system/clocksource/clocksource0/available_clocksource", "kvm-clock") {
		virt = "kvm"
	}
	if self, err := os.Stat("/"); err == nil {
		if init, err := os.Stat("/proc/1/root/."); err == nil && !os.SameFile(self, init) {
			sub = "chroot"
		}
	}
	if isDir("/proc/vz") {
		if isFile("/proc/vz/version") {
			virt = "openvzhn"
		} else if isFile("/proc/vz/veinfo") {
			virt = "openvzve"
		}
	}
	if isDir("/proc/sys/xen") || isDir("/sys/bus/xen") || isDir("/proc/xen") {
		switch {
		case isFile("/proc/xen/xsd_kva"):
			sub = "Xen Dom0"
		case product == "HVM domU":
			sub = "Xen HVM DomU"
		case isFile("/proc/xen/capabilities"):
			if fileContains("/proc/xen/capabilities", "control_d") {
				sub = "Xen Dom0"
			} else {
				sub = "Xen PV DomU"
			}
		case isDir("/sys/bus/xen/drivers/xenconsole"):
			sub = "Xen PV DomU"
		}
		if strings.Contains(strings.ToLower(sub), "dom") {
			virt = "xen"
		}
	}
	if fileContains("/proc/cpuinfo", "QEMU Virtual CPU") {
		virt = "kvm"
	}
	switch {
	case strings.Contains(product, "VirtualBox"):
		virt = "VirtualBox"
	case strings.Contains(product, "RHEV Hypervisor"):
		virt, sub = "kvm", "rhev"
	case strings.Contains(product, "oVirt Node"):
		virt, sub = "kvm", "ovirt"
	case strings.Contains(product, "Google"):
		virt = "gce"
	case strings.Contains(product, "BHYVE"):
		virt = "bhyve"
	}
	if data, err := os.ReadFile("/proc/1/cgroup"); err == nil {
		s := string(data)
		switch {
		case strings.Contains(s, ":/lxc/"):
			virt, sub = "container", "LXC"
		case strings.Contains(s, ":/kubepods/"):
			sub = "kubernetes"
		case strings.Contains(s, ":/libpod_parent/"):
			sub = "libpod"
		case strings.Contains(s, ":/system.slice/docker") || strings.Contains(s, ":/docker/") || strings.Contains(s, ":/docker-ce/"):
			virt, sub = "container", "Docker"
		}
	}
	if sub != "LXC" {
		if data, err := os.ReadFile("/proc/1/environ"); err == nil {
			if bytes.Contains(data, []byte("container=lxc")) {
				virt, sub = "container", "LXC"
			} else if bytes.Contains(data, []byte("container=podman")) {
				virt, sub = "container", "Podman"
			}
		}
	}
	if sub != "" && virt == "physical" {
		virt = "virtual"
	}
	g.Set("virtual", virt)
	if sub != "" {
		g.Set("virtual_subtype", sub)
	}
}

// initSystem is Salt's _linux_init_system.
func initSystem() string {
	if _, err := os.Stat("/run/systemd/system"); err == nil {
		return "systemd"
	}
	data, err := os.ReadFile("/proc/1/cmdline")
	if err != nil {
		return "unknown"
	}
	args := strings.Fields(strings.ReplaceAll(string(data), "\x00", " "))
	if len(args) == 0 {
		return "unknown"
	}
	bin, _ := exec.LookPath(args[0])
	has := func(name string) bool {
		p, err := exec.LookPath(name)
		if err != nil {
			p = ""
		}
		for _, a := range args {
			if a == p {
				return true
			}
		}
		return false
	}
	switch {
	case bin != "" && strings.HasSuffix(bin, "bin/init"):
		return scanInit(bin)
	case has("supervisord"):
		return "supervisord"
	case has("dumb-init"):
		return "dumb-init"
	case has("tini"):
		return "tini"
	case len(args) == 1 && args[0] == "runit":
		return "runit"
	}
	for _, a := range args {
		if a == "/sbin/my_init" {
			return "runit"
		}
	}
	return "unknown"
}

// scanInit looks for the name of a known init system inside the init
// binary, as Salt does.
func scanInit(bin string) string {
	data, err := os.ReadFile(bin)
	if err != nil {
		return "unknown"
	}
	data = bytes.ToLower(data)
	best, at := "unknown", -1
	for _, name := range []string{"upstart", "sysvinit", "systemd"} {
		if i := bytes.Index(data, []byte(name)); i >= 0 && (at < 0 || i < at) {
			best, at = name, i
		}
	}
	return best
}

// selinux returns the selinux grain from /sys/fs/selinux.
func selinux() *value.Map {
	m := value.NewMap(2)
	data, rerr := os.ReadFile("/sys/fs/selinux/enforce")
	m.Set("enabled", rerr == nil)
	if _, err := exec.LookPath("getenforce"); err == nil {
		switch {
		case rerr != nil:
			m.Set("enforced", "Disabled")
		case strings.TrimSpace(string(data)) == "1":
			m.Set("enforced", "Enforcing")
		default:
			m.Set("enforced", "Permissive")
		}
	}
	return m
}

// startSystemd starts `systemctl --version` in the background when Salt
// would add the systemd grain (systemctl and localectl installed) and
// returns a function waiting for the grain (nil when there is none). The
// features line is only available from systemctl. The answer is cached
// (systemdCache) for as long as the systemctl binary stays the same file,
// so most runs start no process.
func startSystemd() func() *value.Map {
	sc, err := exec.LookPath("systemctl")
	if err != nil {
		return func() *value.Map { return nil }
	}
	if _, err := exec.LookPath("localectl"); err != nil {
		return func() *value.Map { return nil }
	}
	key := fileIdentity(sc)
	if m := readSystemdCache(key); m != nil {
		return func() *value.Map { return m }
	}
	ch := make(chan *value.Map, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, sc, "--version")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		out, err := cmd.Output()
		ver, feat := "UNDEFINED", ""
		if err == nil {
			lines := strings.Split(string(out), "\n")
			if f := strings.Fields(lines[0]); len(lines) > 1 && len(f) > 1 && f[0] == "systemd" {
				ver = f[1]
				feat = lines[1]
				writeSystemdCache(key, ver, feat)
			}
		}
		ch <- value.MapOf("version", ver, "features", feat)
	}()
	return func() *value.Map { return <-ch }
}
