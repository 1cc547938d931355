package grains

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"brine/internal/value"
)

// Iface is one network interface as Salt's salt.utils.network.interfaces
// describes it (from `ip addr show`).
type Iface struct {
	Name   string
	Up     bool
	HWAddr string // "" when the link has no address
	Parent string
	Inet   []Addr
	Inet6  []Addr
	// Secondary holds secondary addresses (Type "inet" or "inet6").
	Secondary []Addr
}

// Addr is one address of an interface.
type Addr struct {
	Type      string // "inet" or "inet6"
	Address   string
	Netmask   string // dotted netmask (inet)
	Broadcast string // "" when none (inet)
	Label     string // interface label (inet)
	PrefixLen string // prefix length (inet6), a string as Salt has it
	Scope     string // host, link, global, site (inet6)
	Prefix    int    // prefix length as a number (both families)
}

// Interfaces lists the machine's network interfaces in index order, read
// through netlink.
func Interfaces() ([]Iface, error) {
	links, err := syscall.NetlinkRIB(syscall.RTM_GETLINK, syscall.AF_UNSPEC)
	if err != nil {
		return nil, fmt.Errorf("netlink links: %w", err)
	}
	msgs, err := syscall.ParseNetlinkMessage(links)
	if err != nil {
		return nil, fmt.Errorf("netlink links: %w", err)
	}
	var out []Iface
	byIndex := map[int32]int{}
	names := map[int32]string{}
	parents := map[int32]int32{}
	for _, m := range msgs {
		if m.Header.Type != syscall.RTM_NEWLINK || len(m.Data) < syscall.SizeofIfInfomsg {
			continue
		}
		info := syscall.IfInfomsg{
			Index: int32(binary.NativeEndian.Uint32(m.Data[4:8])),
			Flags: binary.NativeEndian.Uint32(m.Data[8:12]),
		}
		attrs, err := syscall.ParseNetlinkRouteAttr(&m)
		if err != nil {
			continue
		}
		it := Iface{Up: info.Flags&syscall.IFF_UP != 0}
		for _, a := range attrs {
			switch a.Attr.Type {
			case syscall.IFLA_IFNAME:
				it.Name = strings.TrimRight(string(a.Value), "\x00")
			case syscall.IFLA_ADDRESS:
				if len(a.Value) > 0 {
					it.HWAddr = hwString(a.Value)
				}
			case syscall.IFLA_LINK:
				if len(a.Value) >= 4 {
					parents[info.Index] = int32(binary.NativeEndian.Uint32(a.Value))
				}
			}
		}
		names[info.Index] = it.Name
		byIndex[info.Index] = len(out)
		out = append(out, it)
	}
	for idx, p := range parents {
		if name, ok := names[p]; ok && p != idx {
			out[byIndex[idx]].Parent = name
		}
	}
	addrs, err := syscall.NetlinkRIB(syscall.RTM_GETADDR, syscall.AF_UNSPEC)
	if err != nil {
		return out, fmt.Errorf("netlink addresses: %w", err)
	}
	msgs, err = syscall.ParseNetlinkMessage(addrs)
	if err != nil {
		return out, fmt.Errorf("netlink addresses: %w", err)
	}
	for _, m := range msgs {
		if m.Header.Type != syscall.RTM_NEWADDR || len(m.Data) < syscall.SizeofIfAddrmsg {
			continue
		}
		am := syscall.IfAddrmsg{
			Family: m.Data[0], Prefixlen: m.Data[1], Flags: m.Data[2], Scope: m.Data[3],
			Index: binary.NativeEndian.Uint32(m.Data[4:8]),
		}
		i, ok := byIndex[int32(am.Index)]
		if !ok {
			continue
		}
		attrs, err := syscall.ParseNetlinkRouteAttr(&m)
		if err != nil {
			continue
		}
		var local, address, brd []byte
		label := ""
		flags := uint32(am.Flags)
		for _, a := range attrs {
			switch a.Attr.Type {
			case syscall.IFA_LOCAL:
				local = a.Value
			case syscall.IFA_ADDRESS:
				address = a.Value
			case syscall.IFA_BROADCAST:
				brd = a.Value
			case syscall.IFA_LABEL:
				label = strings.TrimRight(string(a.Value), "\x00")
			case 8: // IFA_FLAGS
				if len(a.Value) >= 4 {
					flags = binary.NativeEndian.Uint32(a.Value)
				}
			}
		}
		ip := local
		if ip == nil {
			ip = address
		}
		ad, ok := netip.AddrFromSlice(ip)
		if !ok {
			continue
		}
		it := &out[i]
		a := Addr{Address: ad.Unmap().String(), Prefix: int(am.Prefixlen)}
		if am.Family == syscall.AF_INET {
			a.Type = "inet"
			a.Netmask = net.IP(net.CIDRMask(int(am.Prefixlen), 32)).String()
			if b, ok := netip.AddrFromSlice(brd); ok {
				a.Broadcast = b.Unmap().String()
			}
			if label == "" {
				label = it.Name
			}
			a.Label = label
		} else {
			a.Type = "inet6"
			a.PrefixLen = strconv.Itoa(int(am.Prefixlen))
			a.Scope = scopeName(am.Scope)
		}
		switch {
		case flags&0x01 != 0: // IFA_F_SECONDARY
			it.Secondary = append(it.Secondary, a)
		case a.Type == "inet":
			it.Inet = append(it.Inet, a)
		default:
			it.Inet6 = append(it.Inet6, a)
		}
	}
	return out, nil
}

func scopeName(s uint8) string {
	switch s {
	case 0:
		return "global"
	case 200:
		return "site"
	case 253:
		return "link"
	case 254:
		return "host"
	case 255:
		return "nowhere"
	}
	return strconv.Itoa(int(s))
}

func hwString(b []byte) string {
	parts := make([]string, len(b))
	for i, c := range b {
		parts[i] = fmt.Sprintf("%02x", c)
	}
	return strings.Join(parts, ":")
}

// InterfacesValue returns ifaces in the shape of Salt's network.interfaces.
func InterfacesValue(ifaces []Iface) *value.Map {
	out := value.NewMap(len(ifaces))
	for _, it := range ifaces {
		d := value.NewMap(5)
		d.Set("up", it.Up)
		if it.Parent != "" {
			d.Set("parent", it.Parent)
		}
		if it.HWAddr != "" {
			d.Set("hwaddr", it.HWAddr)
		}
		if len(it.Inet) > 0 {
			d.Set("inet", addrList(it.Inet, false))
		}
		if len(it.Inet6) > 0 {
			d.Set("inet6", addrList(it.Inet6, false))
		}
		if len(it.Secondary) > 0 {
			d.Set("secondary", addrList(it.Secondary, true))
		}
		out.Set(it.Name, d)
	}
	return out
}

func addrList(as []Addr, withType bool) *value.List {
	l := value.NewList()
	for _, a := range as {
		m := value.NewMap(5)
		if withType {
			m.Set("type", a.Type)
		}
		m.Set("address", a.Address)
		if a.Type == "inet" {
			m.Set("netmask", a.Netmask)
			if a.Broadcast != "" {
				m.Set("broadcast", a.Broadcast)
			} else {
				m.Set("broadcast", nil)
			}
			m.Set("label", a.Label)
		} else {
			m.Set("prefixlen", a.PrefixLen)
			m.Set("scope", a.Scope)
		}
		l.Append(m)
	}
	return l
}

// IPAddrs is Salt's salt.utils.network.ip_addrs/ip_addrs6: the sorted,
// unique addresses of family ("inet" or "inet6") on the interface named
// iface ("" for all), without loopback addresses unless includeLoopback.
func IPAddrs(ifaces []Iface, iface string, includeLoopback bool, family string) []string {
	seen := map[netip.Addr]bool{}
	var addrs []netip.Addr
	for _, it := range ifaces {
		if iface != "" && it.Name != iface {
			continue
		}
		all := append(append([]Addr(nil), it.Inet...), it.Inet6...)
		all = append(all, it.Secondary...)
		for _, a := range all {
			if a.Type != family {
				continue
			}
			ad, err := netip.ParseAddr(a.Address)
			if err != nil || (ad.IsLoopback() && !includeLoopback) || seen[ad] {
				continue
			}
			seen[ad] = true
			addrs = append(addrs, ad)
		}
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i].Less(addrs[j]) })
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = a.String()
	}
	return out
}

// netGrains sets the host name, interface, address and resolver grains.
func netGrains(g *value.Map) {
	host, _ := os.Hostname()
	g.Set("localhost", host)
	fqdn := FQDN(host)
	g.Set("fqdn", fqdn)
	short, domain, _ := strings.Cut(fqdn, ".")
	g.Set("host", short)
	g.Set("domain", domain)

	ifaces, _ := Interfaces()
	ip4 := value.NewMap(len(ifaces))
	ip6 := value.NewMap(len(ifaces))
	ipAll := value.NewMap(len(ifaces))
	hw := value.NewMap(len(ifaces))
	for _, it := range ifaces {
		l4, l6, la := value.NewList(), value.NewList(), value.NewList()
		for _, a := range it.Inet {
			l4.Append(a.Address)
			la.Append(a.Address)
		}
		for _, a := range it.Inet6 {
			l6.Append(a.Address)
			la.Append(a.Address)
		}
		for _, a := range it.Secondary {
			la.Append(a.Address)
			if a.Type == "inet" {
				l4.Append(a.Address)
			} else {
				l6.Append(a.Address)
			}
		}
		ip4.Set(it.Name, l4)
		ip6.Set(it.Name, l6)
		ipAll.Set(it.Name, la)
		if it.HWAddr != "" {
			hw.Set(it.Name, it.HWAddr)
		}
	}
	g.Set("ip4_interfaces", ip4)
	g.Set("ip6_interfaces", ip6)
	g.Set("ip_interfaces", ipAll)
	g.Set("hwaddr_interfaces", hw)
	v4 := IPAddrs(ifaces, "", true, "inet")
	v6 := IPAddrs(ifaces, "", true, "inet6")
	g.Set("ipv4", strList(v4))
	g.Set("ipv6", strList(v6))
	hosts := readHosts()
	f4, f6 := value.NewList(), value.NewList()
	if len(v4) > 0 {
		f4 = strList(hosts.addrsOf(fqdn, false))
	}
	if len(v6) > 0 {
		f6 = strList(hosts.addrsOf(fqdn, true))
	}
	g.Set("fqdn_ip4", f4)
	g.Set("fqdn_ip6", f6)
	var fq []string
	for _, a := range append(IPAddrs(ifaces, "", false, "inet"), IPAddrs(ifaces, "", false, "inet6")...) {
		if n := hosts.nameOf(a); n != "" && !contains(fq, n) {
			fq = append(fq, n)
		}
	}
	sort.Strings(fq)
	g.Set("fqdns", strList(fq))
	if d := DNS(); d != nil {
		g.Set("dns", d)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

type hostsEntry struct {
	addr  netip.Addr
	names []string
}

type hostsFile []hostsEntry

func readHosts() hostsFile {
	var out hostsFile
	for _, line := range readLines("/etc/hosts") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		a, err := netip.ParseAddr(f[0])
		if err != nil {
			continue
		}
		out = append(out, hostsEntry{addr: a.Unmap(), names: f[1:]})
	}
	return out
}

// canonical returns the first name of the first line listing name.
func (h hostsFile) canonical(name string) string {
	for _, e := range h {
		for _, n := range e.names {
			if strings.EqualFold(n, name) {
				return e.names[0]
			}
		}
	}
	return ""
}

func (h hostsFile) addrsOf(name string, v6 bool) []string {
	var out []string
	for _, e := range h {
		if e.addr.Is6() != v6 {
			continue
		}
		for _, n := range e.names {
			if strings.EqualFold(n, name) && !contains(out, e.addr.String()) {
				out = append(out, e.addr.String())
			}
		}
	}
	return out
}

func (h hostsFile) nameOf(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return ""
	}
	for _, e := range h {
		if e.addr == a {
			return e.names[0]
		}
	}
	return ""
}

// FQDN returns the canonical name of host: from /etc/hosts when listed
// there, else from DNS (a lookup of at most 50 ms), else host itself.
func FQDN(host string) string {
	if c := readHosts().canonical(host); c != "" {
		return c
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if c, err := net.DefaultResolver.LookupCNAME(ctx, host); err == nil && c != "" {
		return strings.TrimSuffix(c, ".")
	}
	if host == "" {
		return "localhost.localdomain"
	}
	return host
}

// DNS parses the resolver configuration as Salt's dns grain, nil when
// there is none.
func DNS() *value.Map {
	path := "/etc/resolv.conf"
	if _, err := os.Stat("/run/systemd/resolve/resolv.conf"); err == nil {
		path = "/run/systemd/resolve/resolv.conf"
	}
	lines := readLines(path)
	if lines == nil {
		if _, err := os.Stat(path); err != nil {
			return nil
		}
	}
	var ns, ns4, ns6, search, sortlist, options []string
	domain := ""
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		dir := strings.ToLower(f[0])
		var args []string
		for _, a := range f[1:] {
			if a[0] == '#' || a[0] == ';' {
				break
			}
			args = append(args, a)
		}
		switch dir {
		case "nameserver":
			if len(args) == 0 {
				continue
			}
			a, err := netip.ParseAddr(args[0])
			if err != nil {
				continue
			}
			s := a.String()
			if !contains(ns, s) {
				ns = append(ns, s)
			}
			if a.Is4() && !contains(ns4, s) {
				ns4 = append(ns4, s)
			} else if a.Is6() && !contains(ns6, s) {
				ns6 = append(ns6, s)
			}
		case "domain":
			if len(args) > 0 {
				domain = args[0]
			}
		case "search":
			search = args
		case "sortlist":
			for _, a := range args {
				if p, err := netip.ParsePrefix(a); err == nil {
					s := p.Masked().Addr().String() + "/" + net.IP(net.CIDRMask(p.Bits(), p.Addr().BitLen())).String()
					if !contains(sortlist, s) {
						sortlist = append(sortlist, s)
					}
				}
			}
		case "options":
			if len(args) > 0 && !contains(options, args[0]) {
				options = append(options, args[0])
			}
		}
	}
	return value.MapOf(
		"nameservers", strList(ns),
		"ip4_nameservers", strList(ns4),
		"ip6_nameservers", strList(ns6),
		"sortlist", strList(sortlist),
		"domain", domain,
		"search", strList(search),
		"options", strList(options),
	)
}

func hexLE32(h string) (string, bool) {
	if len(h) != 8 {
		return "", false
	}
	var b [4]byte
	for i := 0; i < 4; i++ {
		n, err := strconv.ParseUint(h[2*i:2*i+2], 16, 8)
		if err != nil {
			return "", false
		}
		b[3-i] = byte(n)
	}
	return netip.AddrFrom4(b).String(), true
}

func hex16(h string) (string, bool) {
	if len(h) != 32 {
		return "", false
	}
	var b [16]byte
	for i := 0; i < 16; i++ {
		n, err := strconv.ParseUint(h[2*i:2*i+2], 16, 8)
		if err != nil {
			return "", false
		}
		b[i] = byte(n)
	}
	return netip.AddrFrom16(b).String(), true
}
