// Package grains collects the facts Salt calls grains about the machine a
// minion runs on. For now it computes a small core set (id, kernel, os,
// host names, architecture, cpu count); static grains from the minion
// config are merged over it by the caller.
package grains

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"

	"brine/internal/value"
)

// Core returns the computed grains for minion id.
func Core(id string) *value.Map {
	g := value.NewMap(24)
	host, _ := os.Hostname()
	short, domain, _ := strings.Cut(host, ".")
	kernel := map[string]string{"linux": "Linux", "darwin": "Darwin", "windows": "Windows", "freebsd": "FreeBSD"}[runtime.GOOS]
	if kernel == "" {
		kernel = runtime.GOOS
	}
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686"}[runtime.GOARCH]
	if arch == "" {
		arch = runtime.GOARCH
	}
	g.Set("cpuarch", arch)
	g.Set("kernel", kernel)
	g.Set("num_cpus", int64(runtime.NumCPU()))
	g.Set("nodename", host)
	g.Set("host", short)
	g.Set("localhost", host)
	g.Set("domain", domain)
	g.Set("fqdn", host)
	osr := osRelease()
	name := osr["NAME"]
	osName := osr["ID"]
	switch osName {
	case "debian":
		osName = "Debian"
	case "ubuntu":
		osName = "Ubuntu"
	case "centos":
		osName = "CentOS"
	case "fedora":
		osName = "Fedora"
	case "rhel":
		osName = "RedHat"
	case "rocky":
		osName = "Rocky"
	case "almalinux":
		osName = "AlmaLinux"
	case "arch":
		osName = "Arch"
	case "alpine":
		osName = "Alpine"
	case "":
		osName = kernel
	default:
		osName = strings.ToUpper(osName[:1]) + osName[1:]
	}
	family := map[string]string{"Debian": "Debian", "Ubuntu": "Debian", "CentOS": "RedHat", "Fedora": "RedHat",
		"RedHat": "RedHat", "Rocky": "RedHat", "AlmaLinux": "RedHat", "Arch": "Arch", "Alpine": "Alpine"}[osName]
	if family == "" {
		family = osName
	}
	g.Set("os", osName)
	g.Set("os_family", family)
	if name != "" {
		g.Set("osfullname", name)
	}
	if v := osr["VERSION_ID"]; v != "" {
		g.Set("osrelease", v)
		major, _, _ := strings.Cut(v, ".")
		if n, err := strconv.ParseInt(major, 10, 64); err == nil {
			g.Set("osmajorrelease", n)
		}
		var info []any
		for _, p := range strings.Split(v, ".") {
			if n, err := strconv.ParseInt(p, 10, 64); err == nil {
				info = append(info, n)
			}
		}
		g.Set("osrelease_info", value.Tuple(info))
		g.Set("osfinger", name+"-"+major)
		if osName == "Debian" || osName == "Ubuntu" {
			g.Set("osfinger", osName+"-"+major)
		}
	}
	if c := osr["VERSION_CODENAME"]; c != "" {
		g.Set("oscodename", c)
	}
	g.Set("osarch", runtime.GOARCH)
	g.Set("id", id)
	return g
}

func osRelease() map[string]string {
	out := map[string]string{}
	f, err := os.Open("/etc/os-release")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		out[k] = strings.Trim(v, `"'`)
	}
	return out
}

// Merge returns core with static grains set over it (Salt's
// grains.update(opts["grains"])).
func Merge(core, static *value.Map) *value.Map {
	g := core.Copy()
	g.Update(static)
	return g
}
