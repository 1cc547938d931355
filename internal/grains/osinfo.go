package grains

import (
	"bufio"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"brine/internal/value"
)

// osNameMap maps the first ten characters (no spaces, lowercased) of a
// distribution name to the os grain Salt uses.
var osNameMap = map[string]string{
	"redhatente": "RedHat", "gentoobase": "Gentoo", "archarm": "Arch ARM", "arch": "Arch",
	"debian": "Debian", "Junos": "Junos", "raspbian": "Raspbian", "fedoraremi": "Fedora",
	"chapeau": "Chapeau", "korora": "Korora", "amazonami": "Amazon", "alt": "ALT",
	"enterprise": "OEL", "oracleserv": "OEL", "cloudserve": "CloudLinux", "cloudlinux": "CloudLinux",
	"almalinux": "AlmaLinux", "pidora": "Fedora", "scientific": "ScientificLinux",
	"synology": "Synology", "nilrt": "NILinuxRT", "poky": "Poky", "manjaro": "Manjaro",
	"manjarolin": "Manjaro", "univention": "Univention", "antergos": "Antergos", "sles": "SUSE",
	"void": "Void", "slesexpand": "RES", "linuxmint": "Mint", "neon": "KDE neon", "pop": "Pop",
	"rocky": "Rocky", "alibabaclo": "Alinux", "mendel": "Mendel",
}

// idAndNameToOS maps an os-release (ID, NAME) pair to the os grain.
var idAndNameToOS = map[[2]string]string{
	{"astra", "Astra Linux (Orel)"}:     "AstraLinuxCE",
	{"astra", "Astra Linux (Smolensk)"}: "AstraLinuxSE",
	{"pop", "Pop!_OS"}:                  "Pop",
}

// osReleaseOnly are the os-release IDs for which Salt derives the OS grains
// from os-release alone; the others also get lsb_distrib_* from it.
var osReleaseOnly = map[string]bool{
	"almalinux": true, "astra": true, "debian": true, "linuxmint": true,
	"mendel": true, "pop": true, "rocky": true, "ubuntu": true,
}

var replaceLinuxRE = regexp.MustCompile(`(?i)\W(?:gnu/)?linux`)

// deriveOS is Salt's _derive_os_grain.
func deriveOS(fullname, id string) string {
	if os, ok := idAndNameToOS[[2]string{id, fullname}]; ok {
		return os
	}
	distro := strings.TrimSpace(replaceLinuxRE.ReplaceAllString(fullname, ""))
	short := strings.ToLower(strings.ReplaceAll(distro, " ", ""))
	if r := []rune(short); len(r) > 10 {
		short = string(r[:10])
	}
	if os, ok := osNameMap[short]; ok {
		return os
	}
	return distro
}

// familyID is Salt's _family_id: the oldest ancestor among ID and ID_LIKE.
func familyID(id, idLike string) string {
	if idLike == "" {
		return id
	}
	ids := append([]string{id}, strings.Fields(idLike)...)
	for _, x := range ids {
		if x == "debian" || x == "ubuntu" {
			return "debian"
		}
	}
	return ids[len(ids)-1]
}

// prettifyFamily is Salt's _prettify_os_family.
func prettifyFamily(fid string) string {
	if fid == "fedora" {
		return "RedHat"
	}
	return pyCapitalize(fid)
}

// pyCapitalize is Python's str.capitalize.
func pyCapitalize(s string) string {
	if s == "" {
		return s
	}
	r := []rune(strings.ToLower(s))
	r[0] = []rune(strings.ToUpper(string(r[0])))[0]
	return string(r)
}

var versionCodenameRE = regexp.MustCompile(`^[^(]*\((?P<codename>[^)]+)\)`)

// ParseOSRelease parses os-release data as Python's
// platform.freedesktop_os_release does, with its defaults for NAME, ID and
// PRETTY_NAME.
func ParseOSRelease(data []byte) map[string]string {
	out := map[string]string{"NAME": "Linux", "ID": "linux", "PRETTY_NAME": "Linux"}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || !isWord(k) {
			continue
		}
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		// Shell special characters are escaped with backslashes.
		var b strings.Builder
		for i := 0; i < len(v); i++ {
			if v[i] == '\\' && i+1 < len(v) && strings.IndexByte("$\"'\\`", v[i+1]) >= 0 {
				i++
			}
			b.WriteByte(v[i])
		}
		out[k] = b.String()
	}
	return out
}

func isWord(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func readOSRelease() (map[string]string, bool) {
	for _, p := range []string{"/etc/os-release", "/usr/lib/os-release"} {
		if data, err := os.ReadFile(p); err == nil {
			return ParseOSRelease(data), true
		}
	}
	return nil, false
}

var lsbRE = regexp.MustCompile(`^(DISTRIB_(?:ID|RELEASE|CODENAME|DESCRIPTION))=(?:'|")?([\w\s.\-_]+)(?:'|")?`)

// lsbRelease parses /etc/lsb-release into lsb_distrib_* grains.
func lsbRelease(g *value.Map) bool {
	data, err := os.ReadFile("/etc/lsb-release")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if m := lsbRE.FindStringSubmatch(line); m != nil {
			g.Set("lsb_"+strings.ToLower(m[1]), strings.TrimRightFunc(m[2], isSpace))
		}
	}
	return true
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
}

func cstr(b []int8) string {
	buf := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		buf = append(buf, byte(c))
	}
	return string(buf)
}

// osGrains sets the kernel, distribution and release grains.
func osGrains(g *value.Map) {
	var u syscall.Utsname
	if err := syscall.Uname(&u); err == nil {
		g.Set("kernel", cstr(u.Sysname[:]))
		g.Set("nodename", cstr(u.Nodename[:]))
		g.Set("kernelrelease", cstr(u.Release[:]))
		g.Set("kernelversion", cstr(u.Version[:]))
		g.Set("cpuarch", cstr(u.Machine[:]))
	} else {
		host, _ := os.Hostname()
		g.Set("kernel", "Linux")
		g.Set("nodename", host)
		g.Set("kernelrelease", "")
		g.Set("kernelversion", "")
		g.Set("cpuarch", goarchToUname(runtime.GOARCH))
	}
	g.Set("init", initSystem())
	g.Set("num_gpus", int64(0))
	g.Set("gpus", value.NewList())
	linuxDistribution(g)
	family, _ := g.Get("os_family")
	fs, _ := family.(string)
	g.Set("osarch", osArch(fs, g))
	if rel, ok := g.Get("osrelease"); ok {
		if s, ok := rel.(string); ok && s != "" {
			osName, _ := g.Get("os")
			full, _ := g.Get("osfullname")
			osreleaseData(g, value.Str(osName), value.Str(full), s)
		}
	}
}

func linuxDistribution(g *value.Map) {
	hasLSB := lsbRelease(g)
	rel, ok := readOSRelease()
	if !ok {
		g.Set("os", "Linux")
		g.Set("os_family", "Unknown")
		return
	}
	id := rel["ID"]
	g.Set("os", deriveOS(rel["NAME"], id))
	g.Set("os_family", prettifyFamily(familyID(id, rel["ID_LIKE"])))
	code := rel["VERSION_CODENAME"]
	if code == "" && (id == "almalinux" || id == "rocky") {
		if m := versionCodenameRE.FindStringSubmatch(rel["VERSION"]); m != nil {
			code = m[1]
		}
	}
	if code == "" && id == "astra" {
		code = rel["VARIANT_ID"]
	}
	if code != "" {
		g.Set("oscodename", code)
	}
	g.Set("osfullname", strings.TrimSpace(rel["NAME"]))
	if v := rel["VERSION_ID"]; v != "" {
		g.Set("osrelease", v)
	}
	if osReleaseOnly[id] || hasLSB {
		return
	}
	// Salt's legacy path fills lsb_distrib_* from os-release.
	g.Set("lsb_distrib_id", strings.TrimSpace(rel["NAME"]))
	if v, ok := rel["VERSION_ID"]; ok {
		g.Set("lsb_distrib_release", v)
	}
	if v, ok := rel["VERSION_CODENAME"]; ok {
		g.Set("lsb_distrib_codename", v)
	} else if v, ok := rel["PRETTY_NAME"]; ok {
		g.Set("lsb_distrib_codename", v)
	}
}

// osreleaseData is Salt's _osrelease_data.
func osreleaseData(g *value.Map, osName, fullname, osrelease string) {
	parts := strings.Split(osrelease, ".")
	info := make(value.Tuple, len(parts))
	for i, p := range parts {
		if n, err := strconv.ParseInt(p, 10, 64); err == nil && isDigits(p) {
			info[i] = n
		} else {
			info[i] = p
		}
	}
	g.Set("osrelease_info", info)
	if n, ok := info[0].(int64); ok {
		g.Set("osmajorrelease", n)
	} else if n, err := strconv.ParseInt(parts[0], 10, 64); err == nil {
		g.Set("osmajorrelease", n)
	}
	name := fullname
	switch osName {
	case "Debian", "FreeBSD", "OpenBSD", "NetBSD", "Mac", "Raspbian":
		name = osName
	}
	ver := value.Str(info[0])
	if osName == "Ubuntu" || osName == "Pop" {
		ver = osrelease
	}
	g.Set("osfinger", name+"-"+ver)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func goarchToUname(a string) string {
	switch a {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	case "386":
		return "i686"
	case "arm":
		return "armv7l"
	}
	return a
}

// osArch is Salt's _osarch: the package architecture (dpkg's for Debian,
// rpm's for RedHat and Suse), else the CPU architecture.
func osArch(family string, g *value.Map) string {
	cpu, _ := g.Get("cpuarch")
	cpuarch := value.Str(cpu)
	switch family {
	case "Debian":
		switch runtime.GOARCH {
		case "amd64", "arm64", "ppc64le", "s390x", "riscv64", "mips64le":
			return runtime.GOARCH
		case "386":
			return "i386"
		case "arm":
			return "armhf"
		}
	case "RedHat", "Suse":
		switch {
		case cpuarch == "i686" || cpuarch == "i586" || cpuarch == "i486":
			return "i686"
		case strings.HasPrefix(cpuarch, "armv7"):
			return "armv7hl"
		}
	}
	return cpuarch
}

// readLines returns the lines of a small file, nil when it cannot be read.
func readLines(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}
