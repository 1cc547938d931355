package grains

import (
	"encoding/binary"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"brine/internal/value"
)

// extraGrains sets the grains of Salt's smaller grain modules: UEFI,
// disks, mdadm, default gateways, transactional and package.
func extraGrains(g *value.Map) {
	efivars := ""
	for _, d := range []string{"/sys/firmware/efi/efivars", "/sys/firmware/efi/vars"} {
		if _, err := os.Stat(d); err == nil {
			efivars = d
			break
		}
	}
	g.Set("efi", efivars != "")
	secure := false
	if efivars != "" {
		if m, _ := filepath.Glob(filepath.Join(efivars, "SecureBoot-*/data")); len(m) == 1 {
			if data, err := os.ReadFile(m[0]); err == nil && len(data) > 0 {
				secure = data[len(data)-1] == 1
			}
		}
	}
	g.Set("efi-secure-boot", secure)
	_, err := exec.LookPath("transactional-update")
	g.Set("transactional", err == nil)
	g.Set("package", "onedir")

	var disks, ssds []string
	entries, _ := filepath.Glob("/sys/block/*")
	for _, e := range entries {
		link, err := os.Readlink(e)
		if err != nil || strings.HasPrefix(link, "../devices/virtual/") {
			continue
		}
		data, err := os.ReadFile(e + "/queue/rotational")
		if err != nil || len(data) == 0 {
			continue
		}
		switch data[0] {
		case '0':
			ssds = append(ssds, filepath.Base(e))
		case '1':
			disks = append(disks, filepath.Base(e))
		}
	}
	g.Set("disks", strList(disks))
	g.Set("ssds", strList(ssds))

	if lines := readLines("/proc/mdstat"); lines != nil {
		seen := map[string]bool{}
		for _, l := range lines {
			if strings.HasPrefix(l, "Personalities : ") || strings.HasPrefix(l, "unused devices:") {
				continue
			}
			if dev, _, ok := strings.Cut(l, " : "); ok {
				seen[dev] = true
			}
		}
		devs := make([]string, 0, len(seen))
		for d := range seen {
			devs = append(devs, d)
		}
		sort.Strings(devs)
		g.Set("mdadm", strList(devs))
	}

	// Salt's default_gateway grain exists only where the ip command does.
	if _, err := exec.LookPath("ip"); err == nil {
		gw4, gw6 := defaultGateways()
		g.Set("ip4_gw", gw4)
		g.Set("ip6_gw", gw6)
		g.Set("ip_gw", gw4 != false || gw6 != false)
	}
}

// defaultGateways reads the first default route of each family from
// /proc/net: the gateway address, true for a default route without one,
// false for none.
func defaultGateways() (any, any) {
	var gw4, gw6 any = false, false
	for i, line := range readLines("/proc/net/route") {
		f := strings.Fields(line)
		if i == 0 || len(f) < 8 || f[1] != "00000000" || f[7] != "00000000" {
			continue
		}
		gw4 = true
		if b, ok := hexLE32(f[2]); ok && b != "0.0.0.0" {
			gw4 = b
		}
		break
	}
	for _, line := range readLines("/proc/net/ipv6_route") {
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != strings.Repeat("0", 32) || f[1] != "00" || f[9] == "lo" {
			continue
		}
		gw6 = true
		if a, ok := hex16(f[4]); ok && a != "::" {
			gw6 = a
		}
		break
	}
	return gw4, gw6
}

// ServerID is Salt's server_id grain for minion id: the hash Python 3.10
// gives the string with PYTHONHASHSEED=0 (SipHash-2-4 with a zero key over
// the string's compact representation), modulo 2**31.
func ServerID(id string) int64 {
	h := pyStrHash(id)
	const m = int64(1) << 31
	r := h % m
	if r < 0 {
		r += m
	}
	return r
}

func pyStrHash(s string) int64 {
	if s == "" {
		return 0
	}
	maxr := rune(0)
	for _, r := range s {
		maxr = max(maxr, r)
	}
	var buf []byte
	switch {
	case maxr < 0x100:
		for _, r := range s {
			buf = append(buf, byte(r))
		}
	case maxr < 0x10000:
		for _, r := range s {
			buf = binary.LittleEndian.AppendUint16(buf, uint16(r))
		}
	default:
		for _, r := range s {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(r))
		}
	}
	h := int64(siphash24(buf))
	if h == -1 {
		h = -2
	}
	return h
}

// siphash24 is SipHash-2-4 with a zero key.
func siphash24(b []byte) uint64 {
	v0 := uint64(0x736f6d6570736575)
	v1 := uint64(0x646f72616e646f6d)
	v2 := uint64(0x6c7967656e657261)
	v3 := uint64(0x7465646279746573)
	round := func() {
		v0 += v1
		v1 = bits.RotateLeft64(v1, 13)
		v1 ^= v0
		v0 = bits.RotateLeft64(v0, 32)
		v2 += v3
		v3 = bits.RotateLeft64(v3, 16)
		v3 ^= v2
		v0 += v3
		v3 = bits.RotateLeft64(v3, 21)
		v3 ^= v0
		v2 += v1
		v1 = bits.RotateLeft64(v1, 17)
		v1 ^= v2
		v2 = bits.RotateLeft64(v2, 32)
	}
	n := len(b)
	for len(b) >= 8 {
		m := binary.LittleEndian.Uint64(b)
		v3 ^= m
		round()
		round()
		v0 ^= m
		b = b[8:]
	}
	last := uint64(n) << 56
	for i, c := range b {
		last |= uint64(c) << (8 * i)
	}
	v3 ^= last
	round()
	round()
	v0 ^= last
	v2 ^= 0xff
	round()
	round()
	round()
	round()
	return v0 ^ v1 ^ v2 ^ v3
}
