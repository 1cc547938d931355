package modules

// network.go is salt/modules/network.py (the reading half): addresses,
// interfaces and routes, read natively (netlink, /proc/net).

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"brine/internal/execmod"
	"brine/internal/grains"
	"brine/internal/match"
	"brine/internal/value"
)

func init() {
	execmod.Register("network.ip_addrs", netIPAddrs, "Return the IPv4 addresses of the host (interface=None include_loopback=False cidr=None type=None|public|private).")
	execmod.Register("network.ip_addrs6", netIPAddrs6, "Return the IPv6 addresses of the host (interface=None include_loopback=False cidr=None).")
	execmod.Register("network.interfaces", netInterfaces, "Return the network interfaces with their addresses, hwaddr and up state.")
	execmod.Register("network.interface", netInterface, "Return the IPv4 address entries of interface iface.")
	execmod.Register("network.interface_ip", netInterfaceIP, "Return the first IPv4 address of interface iface.")
	execmod.Register("network.hw_addr", netHWAddr, "Return the hardware address of interface iface.")
	execmod.Register("network.subnets", netSubnets, "Return the IPv4 networks the host is on (interfaces=None).")
	execmod.Register("network.subnets6", netSubnets6, "Return the IPv6 networks the host is on.")
	execmod.Register("network.routes", netRoutes, "Return the routing table (family=None|inet|inet6).")
	execmod.Register("network.default_route", netDefaultRoute, "Return the default routes (family=None|inet|inet6).")
	execmod.Register("network.in_subnet", netInSubnet, "True when the host has an address in cidr.")
	execmod.Register("network.get_hostname", netGetHostname, "Return the host name.")
	execmod.Register("network.get_fqdn", netGetFQDN, "Return the fully qualified host name.")
	registerNetworkMore()
}

func netIfaces() ([]grains.Iface, error) {
	l, err := grains.Interfaces()
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return l, nil
}

func netFilterAddrs(addrs []string, cidr any, typ any) *value.List {
	out := value.NewList()
	for _, a := range addrs {
		if cidr != nil && value.Truthy(cidr) {
			if ok, _ := netInSubnetOf(execmod.String(cidr), a); ok {
				out.Append(a)
			}
			continue
		}
		ip, _ := netip.ParseAddr(a)
		switch typ {
		case "public":
			if !netIsPrivate(ip) {
				out.Append(a)
			}
		case "private":
			if netIsPrivate(ip) {
				out.Append(a)
			}
		default:
			out.Append(a)
		}
	}
	return out
}

// netIsPrivate is Python's ipaddress is_private (its private network lists).
func netIsPrivate(ip netip.Addr) bool {
	ip = ip.WithZone("")
	nets := netPrivate6
	if ip.Is4() {
		nets = netPrivate4
	}
	for _, n := range nets {
		if netip.MustParsePrefix(n).Contains(ip) {
			return true
		}
	}
	return false
}

func netIPAddrs(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("ip_addrs", args, kwargs, execmod.Opt("interface", nil), execmod.Opt("include_loopback", false),
		execmod.Opt("cidr", nil), execmod.Opt("type", nil))
	if err != nil {
		return nil, err
	}
	l, err := netIfaces()
	if err != nil {
		return nil, err
	}
	return netFilterAddrs(grains.IPAddrs(netFilterIfaces(l, v[0]), "", value.Truthy(v[1]), "inet"), v[2], v[3]), nil
}

func netIPAddrs6(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("ip_addrs6", args, kwargs, execmod.Opt("interface", nil), execmod.Opt("include_loopback", false),
		execmod.Opt("cidr", nil))
	if err != nil {
		return nil, err
	}
	l, err := netIfaces()
	if err != nil {
		return nil, err
	}
	return netFilterAddrs(grains.IPAddrs(netFilterIfaces(l, v[0]), "", value.Truthy(v[1]), "inet6"), v[2], nil), nil
}

func netInterfaces(*execmod.Context, []any, *value.Map) (any, error) {
	l, err := netIfaces()
	if err != nil {
		return nil, err
	}
	return grains.InterfacesValue(l), nil
}

func netNotAvailable(iface string, l []grains.Iface) string {
	names := make([]string, len(l))
	for i, it := range l {
		names[i] = it.Name
	}
	return fmt.Sprintf("Interface \"%s\" not in available interfaces: \"%s\"", iface, strings.Join(names, "\", \""))
}

func netFindIface(args []any, kwargs *value.Map, fun string) (*grains.Iface, []grains.Iface, string, error) {
	v, _, err := execmod.Bind(fun, args, kwargs, execmod.Req("iface"))
	if err != nil {
		return nil, nil, "", err
	}
	name := execmod.String(v[0])
	l, err := netIfaces()
	if err != nil {
		return nil, nil, "", err
	}
	for i := range l {
		if l[i].Name == name {
			return &l[i], l, name, nil
		}
	}
	return nil, l, name, nil
}

func netInterface(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	it, l, name, err := netFindIface(args, kwargs, "interface")
	if err != nil {
		return nil, err
	}
	if it == nil {
		return netNotAvailable(name, l), nil
	}
	m := grains.InterfacesValue([]grains.Iface{*it})
	d, _ := m.Get(name)
	if inet, ok := d.(*value.Map).Get("inet"); ok {
		return inet, nil
	}
	return "", nil
}

func netInterfaceIP(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	it, l, name, err := netFindIface(args, kwargs, "interface_ip")
	if err != nil {
		return nil, err
	}
	if it == nil {
		return netNotAvailable(name, l), nil
	}
	if len(it.Inet) == 0 {
		return "", nil
	}
	return it.Inet[0].Address, nil
}

func netHWAddr(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	it, l, name, err := netFindIface(args, kwargs, "hw_addr")
	if err != nil {
		return nil, err
	}
	if it == nil || it.HWAddr == "" {
		return netNotAvailable(name, l), nil
	}
	return it.HWAddr, nil
}

func netSubnetsOf(args []any, kwargs *value.Map, fun, family string) (any, error) {
	v, _, err := execmod.Bind(fun, args, kwargs, execmod.Opt("interfaces", nil))
	if err != nil {
		return nil, err
	}
	l, err := netIfaces()
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	switch x := v[0].(type) {
	case nil:
	case *value.List:
		for _, n := range x.Items {
			want[execmod.String(n)] = true
		}
	default:
		want[execmod.String(x)] = true
	}
	seen := map[netip.Prefix]bool{}
	var nets []netip.Prefix
	for _, it := range l {
		if v[0] != nil && !want[it.Name] {
			continue
		}
		all := append(append(append([]grains.Addr(nil), it.Inet...), it.Inet6...), it.Secondary...)
		for _, a := range all {
			if a.Type != family {
				continue
			}
			ip, err := netip.ParseAddr(a.Address)
			if err != nil || ip.IsLoopback() {
				continue
			}
			p := netip.PrefixFrom(ip, a.Prefix).Masked()
			if !seen[p] {
				seen[p] = true
				nets = append(nets, p)
			}
		}
	}
	sort.Slice(nets, func(i, j int) bool {
		if c := nets[i].Addr().Compare(nets[j].Addr()); c != 0 {
			return c < 0
		}
		return nets[i].Bits() < nets[j].Bits()
	})
	out := value.NewList()
	for _, p := range nets {
		out.Append(p.String())
	}
	return out, nil
}

func netSubnets(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return netSubnetsOf(args, kwargs, "subnets", "inet")
}

func netSubnets6(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return netSubnetsOf(args, kwargs, "subnets6", "inet6")
}

// route is one routing table entry in Salt's shape.
func netRouteMap(fam, dest, gw, mask, flags, iface string) *value.Map {
	return value.MapOf("addr_family", fam, "destination", dest, "gateway", gw, "netmask", mask, "flags", flags, "interface", iface)
}

// netRoutesOf is Salt's route listing on Linux: netstat -rn when netstat
// is installed, else ip route.
func netRoutesOf(ctx *execmod.Context) ([]*value.Map, error) {
	if _, err := exec.LookPath("netstat"); err == nil {
		v4, err := netRun(ctx, "netstat -A inet -rn | tail -n+3", "python_shell", true)
		if err != nil {
			return nil, err
		}
		v6, err := netRun(ctx, "netstat -A inet6 -rn | tail -n+3", "python_shell", true)
		if err != nil {
			return nil, err
		}
		return netParseNetstatRoutes(v4, v6), nil
	}
	v4, err := netRun(ctx, "ip -4 route show table main", "python_shell", true)
	if err != nil {
		return nil, err
	}
	v6, err := netRun(ctx, "ip -6 route show table all", "python_shell", true)
	if err != nil {
		return nil, err
	}
	return netParseIPRoutes(v4, v6)
}

func netLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if len(strings.Fields(l)) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// netParseNetstatRoutes reads `netstat -rn` tables (headers removed).
func netParseNetstatRoutes(v4, v6 string) []*value.Map {
	var out []*value.Map
	for _, line := range netLines(v4) {
		c := strings.Fields(line)
		if len(c) < 8 {
			continue
		}
		out = append(out, netRouteMap("inet", c[0], c[1], c[2], c[3], c[7]))
	}
	for _, line := range netLines(v6) {
		c := strings.Fields(line)
		switch len(c) {
		case 6:
			out = append(out, netRouteMap("inet6", c[0], c[1], "", c[2], c[5]))
		case 7:
			out = append(out, netRouteMap("inet6", c[0], c[1], "", c[2], c[6]))
		}
	}
	return out
}

// netParseIPRoutes reads `ip -4 route show table main` and `ip -6 route
// show table all`.
func netParseIPRoutes(v4, v6 string) ([]*value.Map, error) {
	var out []*value.Map
	at := func(c []string, i int) string {
		if i < len(c) {
			return c[i]
		}
		return ""
	}
	for _, line := range netLines(v4) {
		c := strings.Fields(line)
		switch c[0] {
		case "unreachable":
			continue
		case "default":
			iface := ""
			if at(c, 3) == "dev" {
				iface = at(c, 4)
			}
			out = append(out, netRouteMap("inet", "0.0.0.0", at(c, 2), "0.0.0.0", "UG", iface))
			continue
		}
		s, err := netCalcNetStr(c[0], nil)
		if err != nil {
			return nil, err
		}
		p := netip.MustParsePrefix(s)
		iface := ""
		if at(c, 1) == "dev" {
			iface = at(c, 2)
		}
		out = append(out, netRouteMap("inet", p.Addr().String(), "0.0.0.0", netMaskAddr(p.Bits(), 32).String(), "U", iface))
	}
	for _, line := range netLines(v6) {
		c := strings.Fields(line)
		switch c[0] {
		case "unicast", "broadcast", "throw", "unreachable", "prohibit", "blackhole", "nat", "anycast", "multicast":
			continue
		case "default":
			iface := ""
			if at(c, 3) == "dev" {
				iface = at(c, 4)
			}
			out = append(out, netRouteMap("inet6", "::/0", at(c, 2), "", "UG", iface))
		case "local":
			iface := ""
			if at(c, 2) == "dev" {
				iface = at(c, 3)
			}
			out = append(out, netRouteMap("inet6", at(c, 1)+"/128", "::", "", "U", iface))
		default:
			if _, err := netCalcNetStr(c[0], nil); err != nil {
				return nil, err
			}
			iface := ""
			if at(c, 1) == "dev" {
				iface = at(c, 2)
			}
			out = append(out, netRouteMap("inet6", c[0], "::", "", "U", iface))
		}
	}
	return out, nil
}

func netRoutes(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("routes", args, kwargs, execmod.Opt("family", nil))
	if err != nil {
		return nil, err
	}
	fam := execmod.String(v[0])
	if fam != "" && fam != "inet" && fam != "inet6" {
		return nil, execmod.Errorf("Invalid address family %s", fam)
	}
	routes, err := netRoutesOf(ctx)
	if err != nil {
		return nil, err
	}
	out := value.NewList()
	for _, r := range routes {
		if f, _ := r.Get("addr_family"); fam == "" || f == fam {
			out.Append(r)
		}
	}
	return out, nil
}

func netDefaultRoute(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("default_route", args, kwargs, execmod.Opt("family", nil))
	if err != nil {
		return nil, err
	}
	fam := execmod.String(v[0])
	if fam != "" && fam != "inet" && fam != "inet6" {
		return nil, execmod.Errorf("Invalid address family %s", fam)
	}
	routes, err := netRoutesOf(ctx)
	if err != nil {
		return nil, err
	}
	out := value.NewList()
	for _, r := range routes {
		f, _ := r.Get("addr_family")
		d, _ := r.Get("destination")
		if fam != "" && f != fam {
			continue
		}
		v4 := d == "0.0.0.0" || d == "default"
		v6 := d == "::/0" || d == "default"
		if (fam == "inet" && v4) || (fam == "inet6" && v6) || (fam == "" && (v4 || v6)) {
			out.Append(r)
		}
	}
	return out, nil
}

// netInSubnet is network.in_subnet: whether one of the host's addresses
// (loopback ones excepted, as salt.utils.network.ip_addrs) is in cidr.
func netInSubnet(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("in_subnet", args, kwargs, execmod.Req("cidr"))
	if err != nil {
		return nil, err
	}
	l, err := netIfaces()
	if err != nil {
		return nil, err
	}
	addrs := append(grains.IPAddrs(l, "", false, "inet"), grains.IPAddrs(l, "", false, "inet6")...)
	return netInSubnetOf(execmod.String(v[0]), addrs...)
}

func netGetHostname(*execmod.Context, []any, *value.Map) (any, error) {
	h, _ := os.Hostname()
	return h, nil
}

func netGetFQDN(*execmod.Context, []any, *value.Map) (any, error) {
	h, _ := os.Hostname()
	return pyGetFQDN(h, "/etc/hosts"), nil
}

// Python's ipaddress private networks (is_private).
var (
	netPrivate4 = []string{"0.0.0.0/8", "10.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/29",
		"192.0.0.170/31", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
		"240.0.0.0/4", "255.255.255.255/32"}
	netPrivate6 = []string{"::1/128", "::/128", "::ffff:0:0/96", "100::/64", "2001::/23", "2001:2::/48",
		"2001:db8::/32", "2001:10::/28", "fc00::/7", "fe80::/10"}
)

func registerNetworkMore() {
	execmod.Register("network.wol", netWOL, "Send a Wake-on-LAN magic packet for mac to bcast (default 255.255.255.255) on UDP port destport (default 9).")
	execmod.Register("network.ping", netPing, "Ping host 4 times (timeout=seconds); the output, or True/False with return_boolean=True.")
	execmod.Register("network.netstat", netNetstat, "Return the TCP and UDP sockets with their state, user, inode and program (netstat -tulpnea, else ss).")
	execmod.Register("network.active_tcp", netActiveTCP, "Return the established TCP connections (from /proc/net/tcp and tcp6).")
	execmod.Register("network.traceroute", netTraceroute, "Trace the route to host; a list of hops (needs traceroute).")
	execmod.Register("network.dig", netDig, "Return the output of dig for host (needs dig).")
	execmod.Register("network.arp", netARP, "Return the ARP table as {mac: ip} (needs arp).")
	execmod.Register("network.hwaddr", netHWAddr, "Alias of network.hw_addr.")
	execmod.Register("network.ip_in_subnet", netIPInSubnet, "True when ip_addr is in the network cidr.")
	execmod.Register("network.convert_cidr", netConvertCIDR, "Return the network, netmask and broadcast address of cidr.")
	execmod.Register("network.calc_net", netCalcNet, "Return the network of ip_addr (with netmask, or a prefix in ip_addr) in CIDR form.")
	execmod.Register("network.ipaddrs", netIPAddrs, "Alias of network.ip_addrs.")
	execmod.Register("network.ipaddrs6", netIPAddrs6, "Alias of network.ip_addrs6.")
	execmod.Register("network.connect", netConnect, "Try to connect to host on port (proto=tcp|udp timeout=5 family=ipv4|ipv6); a result and comment.")
	execmod.Register("network.is_private", netIsPrivateFn, "True when ip_addr is a private address (Python's ipaddress rules).")
	execmod.Register("network.is_loopback", netIsLoopbackFn, "True when ip_addr is a loopback address.")
	execmod.Register("network.reverse_ip", netReverseIP, "Return the reverse DNS name of ip_addr (in-addr.arpa or ip6.arpa).")
	execmod.Register("network.get_bufsize", netGetBufsize, "Return the ring buffer sizes of iface (ethtool -g); {} without /sbin/ethtool.")
	execmod.Register("network.mod_bufsize", netModBufsize, "Set the ring buffer sizes of iface (rx, tx, rx-mini, rx-jumbo; ethtool -G); False without /sbin/ethtool.")
	execmod.Register("network.get_route", netGetRoute, "Return the route to ip: destination, gateway, interface and source (ip route get).")
	execmod.Register("network.ifacestartswith", netIfaceStartsWith, "List the interfaces (or labels) with an IPv4 address starting with cidr.")
	execmod.Register("network.iphexval", netIPHexVal, "Return the IPv4 address ip as 8 uppercase hex digits.")
	execmod.Register("network.ip_networks", netIPNetworks, "Return the IPv4 networks of the interfaces (interface=None include_loopback=False verbose=False).")
	execmod.Register("network.ip_networks6", netIPNetworks6, "Return the IPv6 networks of the interfaces (interface=None include_loopback=False verbose=False).")
	execmod.Register("network.mod_hostname", netModHostname, "Set the host name to hostname: the running name, /etc/hosts and the hostname file.")
	execmod.Register("network.fqdns", netFQDNs, "Return {'fqdns': [...]}: the names the host's addresses resolve back to.")
}

// pyErrorf is a Python exception of class cls raised by a module.
func netPyErrorf(cls, format string, a ...any) error {
	return &testError{msg: fmt.Sprintf(format, a...), class: cls}
}

// netParseAddr is ipaddress.ip_address.
func netParseAddr(v any) (netip.Addr, error) {
	s := execmod.String(v)
	a, err := netip.ParseAddr(s)
	if err != nil {
		return a, netPyErrorf("ValueError", "%s does not appear to be an IPv4 or IPv6 address", value.Repr(v))
	}
	return a, nil
}

// netMaskBits returns the prefix length of a dotted IPv4 netmask, or of
// a hostmask (inverted), as Python's _prefix_from_ip_string; -1 when it
// is neither.
func netMaskBits(s string) int {
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is4() {
		return -1
	}
	b := a.As4()
	n := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	for _, m := range []uint32{n, ^n} {
		ones := 0
		for ones < 32 && m&(1<<(31-ones)) != 0 {
			ones++
		}
		if ones == 32 || m<<ones == 0 {
			return ones
		}
	}
	return -1
}

// netParseNetwork is ipaddress.ip_network(s, strict=False).
func netParseNetwork(s string) (netip.Prefix, error) {
	bad := netPyErrorf("ValueError", "%s does not appear to be an IPv4 or IPv6 network", value.Repr(s))
	addr, mask, hasMask := strings.Cut(s, "/")
	a, err := netip.ParseAddr(addr)
	if err != nil || a.Zone() != "" {
		return netip.Prefix{}, bad
	}
	bits := a.BitLen()
	if hasMask {
		if mask != "" && strings.Trim(mask, "0123456789") == "" && len(mask) < 5 {
			bits, _ = strconv.Atoi(mask)
		} else if a.Is4() {
			bits = netMaskBits(mask)
		} else {
			bits = -1
		}
		if bits < 0 || bits > a.BitLen() {
			return netip.Prefix{}, bad
		}
	}
	return netip.PrefixFrom(a, bits).Masked(), nil
}

// netMaskAddr is the netmask address of a prefix length.
func netMaskAddr(bits, bitlen int) netip.Addr {
	var b [16]byte
	for i := 0; i < bits; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	if bitlen == 32 {
		return netip.AddrFrom4([4]byte(b[:4]))
	}
	return netip.AddrFrom16(b)
}

// netLastAddr is the broadcast (last) address of p.
func netLastAddr(p netip.Prefix) netip.Addr {
	b := p.Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

func netCalcNetStr(ip, mask any) (string, error) {
	s := execmod.String(ip)
	if mask != nil {
		s += "/" + execmod.String(mask)
	}
	p, err := netParseNetwork(s)
	if err != nil {
		return "", err
	}
	return p.String(), nil
}

func netCalcNet(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("calc_net", args, kwargs, execmod.Req("ip_addr"), execmod.Opt("netmask", nil))
	if err != nil {
		return nil, err
	}
	return netCalcNetStr(v[0], v[1])
}

func netConvertCIDR(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("convert_cidr", args, kwargs, execmod.Req("cidr"))
	if err != nil {
		return nil, err
	}
	s, err := netCalcNetStr(v[0], nil)
	if err != nil {
		return nil, err
	}
	p := netip.MustParsePrefix(s)
	return value.MapOf("network", p.Addr().String(), "netmask", netMaskAddr(p.Bits(), p.Addr().BitLen()).String(),
		"broadcast", netLastAddr(p).String()), nil
}

// netInSubnetOf is salt.utils.network.in_subnet for one address: an
// invalid cidr is False (Salt logs it), an invalid address an error.
func netInSubnetOf(cidr string, addrs ...string) (bool, error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil || p.Masked() != p {
		if _, e := netip.ParseAddr(cidr); e != nil {
			slog.Error("Invalid CIDR '" + cidr + "'")
			return false, nil
		}
		a, _ := netip.ParseAddr(cidr)
		p = netip.PrefixFrom(a, a.BitLen())
	}
	for _, s := range addrs {
		a, err := netParseAddr(s)
		if err != nil {
			return false, err
		}
		if p.Contains(a.WithZone("")) {
			return true, nil
		}
	}
	return false, nil
}

func netIPInSubnet(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("ip_in_subnet", args, kwargs, execmod.Req("ip_addr"), execmod.Req("cidr"))
	if err != nil {
		return nil, err
	}
	return netInSubnetOf(execmod.String(v[1]), execmod.String(v[0]))
}

func netAddrArg(fun string, args []any, kwargs *value.Map) (netip.Addr, error) {
	v, _, err := execmod.Bind(fun, args, kwargs, execmod.Req("ip_addr"))
	if err != nil {
		return netip.Addr{}, err
	}
	return netParseAddr(v[0])
}

func netIsPrivateFn(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, err := netAddrArg("is_private", args, kwargs)
	if err != nil {
		return nil, err
	}
	return netIsPrivate(a), nil
}

func netIsLoopbackFn(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, err := netAddrArg("is_loopback", args, kwargs)
	if err != nil {
		return nil, err
	}
	return a.IsLoopback(), nil
}

func netReverseIP(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, err := netAddrArg("reverse_ip", args, kwargs)
	if err != nil {
		return nil, err
	}
	a = a.WithZone("")
	if a.Is4() {
		b := a.As4()
		return fmt.Sprintf("%d.%d.%d.%d.in-addr.arpa", b[3], b[2], b[1], b[0]), nil
	}
	h := hex.EncodeToString(a.AsSlice())
	parts := make([]string, 0, len(h)+1)
	for i := len(h) - 1; i >= 0; i-- {
		parts = append(parts, h[i:i+1])
	}
	return strings.Join(append(parts, "ip6.arpa"), "."), nil
}

func netIPHexVal(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("iphexval", args, kwargs, execmod.Req("ip"))
	if err != nil {
		return nil, err
	}
	var sb strings.Builder
	for _, p := range strings.Split(execmod.String(v[0]), ".") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nil, netPyErrorf("ValueError", "invalid literal for int() with base 10: %s", value.Repr(p))
		}
		fmt.Fprintf(&sb, "%02X", n)
	}
	return sb.String(), nil
}

// netSanitizeHost is salt.utils.network.sanitize_host: the first 255
// characters, keeping letters, digits, '.', '-' and '_'.
func netSanitizeHost(h string) string {
	if len(h) > 255 {
		h = h[:255]
	}
	return strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".-_", r)) {
			return r
		}
		return -1
	}, h)
}

// netNeedBinary is Salt's path.which decorator: the function needs bin.
func netNeedBinary(bin string) error {
	if _, err := exec.LookPath(bin); err != nil {
		return execmod.Errorf("The '%s' binary was not found in $PATH.", bin)
	}
	return nil
}

// netRun runs cmd through cmd.run (so it is logged and typed as Salt's).
func netRun(ctx *execmod.Context, cmd any, kw ...any) (string, error) {
	out, err := ctx.Call("cmd.run", []any{cmd}, value.MapOf(kw...))
	if err != nil {
		return "", err
	}
	return execmod.String(out), nil
}

func netWOL(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("wol", args, kwargs, execmod.Req("mac"), execmod.Opt("bcast", "255.255.255.255"), execmod.Opt("destport", int64(9)))
	if err != nil {
		return nil, err
	}
	mac := execmod.String(v[0])
	switch len(mac) {
	case 12:
	case 17:
		mac = strings.ReplaceAll(mac, mac[2:3], "")
	default:
		return nil, netPyErrorf("ValueError", "Invalid MAC address")
	}
	hw, err := hex.DecodeString(mac)
	if err != nil || len(hw) != 6 {
		return nil, netPyErrorf("ValueError", "invalid literal for int() with base 16: %s", value.Repr(mac))
	}
	port, err := testPyInt(v[2])
	if err != nil {
		return nil, err
	}
	pkt := bytes.Repeat([]byte{0xff}, 6)
	for range 16 {
		pkt = append(pkt, hw...)
	}
	conn, err := net.ListenPacket("udp4", ":0")
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	defer conn.Close()
	if sc, ok := conn.(*net.UDPConn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			_ = raw.Control(func(fd uintptr) {
				_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_BROADCAST, 1)
			})
		}
	}
	addr, err := net.ResolveUDPAddr("udp4", net.JoinHostPort(execmod.String(v[1]), port.String()))
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	if _, err := conn.WriteTo(pkt, addr); err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return true, nil
}

func netPing(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("ping", args, kwargs, execmod.Req("host"), execmod.Opt("timeout", false), execmod.Opt("return_boolean", false))
	if err != nil {
		return nil, err
	}
	host := netSanitizeHost(execmod.String(v[0]))
	cmd := "ping -c 4 " + host
	if value.Truthy(v[1]) {
		cmd = fmt.Sprintf("ping -W %s -c 4 %s", value.Str(v[1]), host)
	}
	if value.Truthy(v[2]) {
		ret, err := ctx.Call("cmd.run_all", []any{cmd}, nil)
		if err != nil {
			return nil, err
		}
		rc, _ := ret.(*value.Map).Get("retcode")
		return value.Equal(rc, int64(0)), nil
	}
	return netRun(ctx, cmd)
}

func netNetstat(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	out := value.NewList()
	if _, err := exec.LookPath("netstat"); err == nil {
		text, err := netRun(ctx, "netstat -tulpnea")
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(text, "\n") {
			c := strings.Fields(line)
			switch {
			case strings.HasPrefix(line, "tcp") && len(c) >= 9:
				out.Append(value.MapOf("proto", c[0], "recv-q", c[1], "send-q", c[2], "local-address", c[3],
					"remote-address", c[4], "state", c[5], "user", c[6], "inode", c[7], "program", c[8]))
			case strings.HasPrefix(line, "udp") && len(c) >= 8:
				out.Append(value.MapOf("proto", c[0], "recv-q", c[1], "send-q", c[2], "local-address", c[3],
					"remote-address", c[4], "user", c[5], "inode", c[6], "program", c[7]))
			}
		}
		return out, nil
	}
	text, err := netRun(ctx, "ss -tulpnea")
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(text, "\n") {
		c := strings.Fields(line)
		if !(strings.HasPrefix(line, "tcp") || strings.HasPrefix(line, "udp")) || len(c) < 6 {
			continue
		}
		var user, inode any = int64(0), int64(0)
		prog := ""
		for i := 6; i < len(c)-1; i++ {
			k, val, _ := strings.Cut(c[i], ":")
			switch k {
			case "users":
				if parts := strings.Split(strings.Split(val, ",")[0], `"`); len(parts) > 1 {
					prog = parts[1]
				}
			case "uid":
				user = val
			case "ino":
				inode = val
			}
		}
		m := value.MapOf("proto", c[0], "recv-q", c[2], "send-q", c[3], "local-address", c[4], "remote-address", c[5])
		if strings.HasPrefix(line, "tcp") {
			st := c[1]
			if st == "ESTAB" {
				st = "ESTABLISHED"
			}
			m.Set("state", st)
		}
		m.Set("user", user)
		m.Set("inode", inode)
		m.Set("program", prog)
		out.Append(m)
	}
	return out, nil
}

// netHex2IP is salt.utils.network.hex2ip with invert: the addresses of
// /proc/net/tcp (little-endian words).
func netHex2IP(h string) string {
	if len(h) == 32 {
		b, err := hex.DecodeString(h)
		if err != nil {
			return h
		}
		var a [16]byte
		for w := 0; w < 4; w++ {
			for i := 0; i < 4; i++ {
				a[w*4+i] = b[w*4+3-i]
			}
		}
		ip := netip.AddrFrom16(a)
		if ip.Is4In6() {
			return ip.Unmap().String()
		}
		return ip.String()
	}
	n, err := strconv.ParseUint(h, 16, 32)
	if err != nil {
		return h
	}
	return fmt.Sprintf("%d.%d.%d.%d", n&255, n>>8&255, n>>16&255, n>>24&255)
}

// netActiveTCPFrom reads established connections from /proc/net/tcp-style
// files into Salt's {index: {...}} dict.
func netActiveTCPFrom(files ...string) *value.Map {
	out := value.NewMap(0)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			c := strings.Fields(line)
			if len(c) < 4 || c[0] == "sl" {
				continue
			}
			la, lp, _ := strings.Cut(c[1], ":")
			ra, rp, _ := strings.Cut(c[2], ":")
			if st, _ := strconv.ParseUint(c[3], 16, 8); st != 1 {
				continue
			}
			lpn, _ := strconv.ParseInt(lp, 16, 64)
			rpn, _ := strconv.ParseInt(rp, 16, 64)
			out.Set(int64(out.Len()), value.MapOf("local_addr", netHex2IP(la), "local_port", lpn,
				"remote_addr", netHex2IP(ra), "remote_port", rpn))
		}
	}
	return out
}

func netActiveTCP(*execmod.Context, []any, *value.Map) (any, error) {
	return netActiveTCPFrom("/proc/net/tcp", "/proc/net/tcp6"), nil
}

func netDig(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("dig", args, kwargs, execmod.Req("host"))
	if err != nil {
		return nil, err
	}
	if err := netNeedBinary("dig"); err != nil {
		return nil, err
	}
	return netRun(ctx, "dig "+netSanitizeHost(execmod.String(v[0])))
}

func netARP(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	if err := netNeedBinary("arp"); err != nil {
		return nil, err
	}
	text, err := netRun(ctx, "arp -an")
	if err != nil {
		return nil, err
	}
	return netParseARP(text), nil
}

// netParseARP reads `arp -an` lines: "? (10.0.0.1) at 52:54:00:12:35:02
// [ether] on eth0" gives {mac: ip}.
func netParseARP(text string) *value.Map {
	out := value.NewMap(0)
	for _, line := range strings.Split(text, "\n") {
		c := strings.Fields(line)
		if len(c) < 4 {
			continue
		}
		out.Set(c[3], strings.Trim(c[1], "()"))
	}
	return out
}

func netTraceroute(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("traceroute", args, kwargs, execmod.Req("host"))
	if err != nil {
		return nil, err
	}
	if err := netNeedBinary("traceroute"); err != nil {
		return nil, err
	}
	out, err := netRun(ctx, "traceroute "+netSanitizeHost(execmod.String(v[0])))
	if err != nil {
		return nil, err
	}
	verOut, err := netRun(ctx, "traceroute --version")
	if err != nil {
		return nil, err
	}
	return netParseTraceroute(out, verOut), nil
}

var netTraceVersionRe = regexp.MustCompile(`.*[Vv]ersion (\d+)\.([\w+]+)\.*(\w*)`)

// netParseTraceroute parses traceroute's output as Salt does on Linux:
// "modern" (2.0.14+ or 2.1+) output split on double spaces, else fields.
func netParseTraceroute(out, verOut string) *value.List {
	major, minor, patch := 0, 0, 0
	if m := netTraceVersionRe.FindStringSubmatch(verOut); m != nil {
		major, _ = strconv.Atoi(m[1])
		minor, _ = strconv.Atoi(m[2])
		patch, _ = strconv.Atoi(m[3])
	}
	modern := major >= 2 && patch >= 14 || major >= 2 && minor > 0
	ret := value.NewList()
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, " ") || strings.HasPrefix(line, "traceroute") {
			continue
		}
		result := value.NewMap(0)
		if modern {
			c := strings.Split(line, "  ")
			count, cerr := strconv.ParseInt(strings.TrimSpace(c[0]), 10, 64)
			switch {
			case cerr != nil:
			case len(c) >= 2 && c[1] == "* * *":
				result = value.MapOf("count", count, "hostname", "*")
			case len(c) >= 5:
				h := strings.Fields(c[1])
				ms := func(s string) any {
					f, err := strconv.ParseFloat(strings.Fields(s + " x")[0], 64)
					if err != nil {
						return nil
					}
					return f
				}
				if len(h) >= 2 {
					result = value.MapOf("count", count, "hostname", h[0], "ip", strings.Trim(h[1], "()"),
						"ms1", ms(c[2]), "ms2", ms(c[3]), "ms3", ms(c[4]))
				}
			}
		} else if c := strings.Fields(line); len(c) >= 8 && len(c) > 8 {
			result = value.MapOf("count", c[0], "hostname", c[1], "ip", c[2], "ms1", c[4], "ms2", c[6], "ms3", c[8],
				"ping1", c[3], "ping2", c[5], "ping3", c[7])
		}
		if result.Len() == 0 {
			slog.Warn("Cannot parse traceroute output line: " + line)
		}
		ret.Append(result)
	}
	return ret
}

func netConnect(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("connect", args, kwargs, execmod.Req("host"), execmod.Opt("port", nil))
	if err != nil {
		return nil, err
	}
	host := execmod.String(v[0])
	ret := value.MapOf("result", nil, "comment", "")
	if !value.Truthy(v[0]) {
		ret.Set("result", false)
		ret.Set("comment", "Required argument, host, is missing.")
		return ret, nil
	}
	if !value.Truthy(v[1]) {
		ret.Set("result", false)
		ret.Set("comment", "Required argument, port, is missing.")
		return ret, nil
	}
	port := value.Str(v[1])
	proto := "tcp"
	if p, ok := rest.Get("proto"); ok && p == "udp" {
		proto = "udp"
	}
	timeout := 5.0
	if t, ok := rest.Get("timeout"); ok {
		switch x := t.(type) {
		case int64:
			timeout = float64(x)
		case float64:
			timeout = x
		}
	}
	network := proto
	if f, ok := rest.Get("family"); ok {
		switch f {
		case "ipv4":
			network += "4"
		case "ipv6":
			network += "6"
		}
	}
	address := host
	if _, err := netip.ParseAddr(host); err != nil {
		address = netSanitizeHost(host)
	}
	ipnet := map[string]string{"tcp": "ip", "udp": "ip", "tcp4": "ip4", "udp4": "ip4", "tcp6": "ip6", "udp6": "ip6"}[network]
	d := time.Duration(timeout * float64(time.Second))
	rctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(rctx, ipnet, address)
	pn, perr := net.DefaultResolver.LookupPort(rctx, proto, port)
	if err != nil || perr != nil || len(ips) == 0 {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Unable to resolve host %s on %s port %s", host, proto, port))
		return ret, nil
	}
	ip := ips[0].Unmap()
	target := net.JoinHostPort(ip.String(), strconv.Itoa(pn))
	fail := func() (any, error) {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Unable to connect to %s (%s) on %s port %s", host, ip, proto, port))
		return ret, nil
	}
	conn, err := net.DialTimeout(network, target, d)
	if err != nil {
		return fail()
	}
	if proto == "udp" {
		_ = conn.SetDeadline(time.Now().Add(d))
		sum := md5.Sum([]byte(strconv.FormatInt(time.Now().Unix(), 10)))
		buf := make([]byte, 255)
		_, werr := conn.Write([]byte(hex.EncodeToString(sum[:])))
		_, rerr := conn.Read(buf)
		conn.Close()
		if werr != nil || rerr != nil {
			return fail()
		}
	} else {
		conn.Close()
	}
	ret.Set("result", true)
	ret.Set("comment", fmt.Sprintf("Successfully connected to %s (%s) on %s port %s", host, ip, proto, port))
	return ret, nil
}

const netEthtool = "/sbin/ethtool"

var netBufRe = regexp.MustCompile(`^(.+):\s+(\d+)$`)

func netGetBufsize(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_bufsize", args, kwargs, execmod.Req("iface"))
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(netEthtool); err != nil {
		return value.NewMap(0), nil
	}
	out, err := netRun(ctx, netEthtool+" -g "+execmod.String(v[0]))
	if err != nil {
		return nil, err
	}
	return netParseBufsize(out), nil
}

// netParseBufsize reads `ethtool -g`: maximums as "rx-max", current
// settings as "rx".
func netParseBufsize(out string) *value.Map {
	ret := value.MapOf("result", false)
	suffix := "max-"
	for _, line := range strings.Split(out, "\n") {
		if m := netBufRe.FindStringSubmatch(line); m != nil {
			n, _ := strconv.ParseInt(m[2], 10, 64)
			ret.Set(strings.ReplaceAll(strings.ToLower(m[1]), " ", "-")+suffix, n)
			ret.Set("result", true)
		} else if strings.HasSuffix(line, "maximums:") {
			suffix = "-max"
		} else if strings.HasSuffix(line, "settings:") {
			suffix = ""
		}
	}
	if r, _ := ret.Get("result"); r == false {
		parts := strings.Fields(out)
		if len(parts) > 0 && strings.HasSuffix(parts[0], "sh:") {
			out = strings.Join(parts[1:], " ")
		}
		ret.Set("comment", out)
	}
	return ret
}

func netModBufsize(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if len(args) == 0 {
		if _, ok := kwargs.Get("iface"); !ok {
			return nil, execmod.MissingArguments("mod_bufsize", "iface")
		}
	}
	var iface any
	if len(args) > 0 {
		iface, args = args[0], args[1:]
	} else {
		iface, _ = kwargs.Get("iface")
	}
	kw := testCleanKwargs(kwargs)
	kw.Delete("iface")
	if _, err := os.Stat(netEthtool); err != nil {
		return false, nil
	}
	ret := value.MapOf("result", false, "comment", "Requires rx=<val> tx==<val> rx-mini=<val> and/or rx-jumbo=<val>")
	if kw.Len() == 0 {
		return ret, nil
	}
	if len(args) > 0 {
		var s []string
		for _, a := range args {
			s = append(s, value.Str(a))
		}
		ret.Set("comment", "Unknown arguments: "+strings.Join(s, " "))
		return ret, nil
	}
	eargs := ""
	for _, k := range []string{"rx", "tx", "rx-mini", "rx-jumbo"} {
		if x, ok := kw.Get(k); ok && x != nil {
			eargs += " " + k + " " + value.Str(x)
		}
	}
	if eargs == "" {
		return ret, nil
	}
	out, err := netRun(ctx, netEthtool+" -G "+execmod.String(iface)+eargs)
	if err != nil {
		return nil, err
	}
	if out != "" {
		ret.Set("comment", out)
	} else {
		ret.Set("comment", strings.TrimSpace(eargs))
		ret.Set("result", true)
	}
	return ret, nil
}

var netRouteGetRe = regexp.MustCompile(`(via\s+(?P<gateway>[\w.:]+))?\s+dev\s+(?P<interface>[\w.:\-]+)\s+.*src\s+(?P<source>[\w.:]+)`)

func netGetRoute(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_route", args, kwargs, execmod.Req("ip"))
	if err != nil {
		return nil, err
	}
	ip := execmod.String(v[0])
	out, err := netRun(ctx, "ip route get "+ip, "python_shell", true)
	if err != nil {
		return nil, err
	}
	return netParseRouteGet(ip, out)
}

func netParseRouteGet(ip, out string) (any, error) {
	first, _, _ := strings.Cut(out, "\n")
	m := netRouteGetRe.FindStringSubmatch(first)
	if m == nil {
		return nil, netPyErrorf("AttributeError", "'NoneType' object has no attribute 'group'")
	}
	var gw any
	if m[2] != "" {
		gw = m[2]
	}
	return value.MapOf("destination", ip, "gateway", gw, "interface", m[3], "source", m[4]), nil
}

func netIfaceStartsWith(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("ifacestartswith", args, kwargs, execmod.Req("cidr"))
	if err != nil {
		return nil, err
	}
	l, err := netIfaces()
	if err != nil {
		return nil, err
	}
	pat := value.Str(v[0])
	out := value.NewList()
	for _, it := range l {
		for _, a := range it.Inet {
			if strings.HasPrefix(a.Address, pat) {
				if a.Label != "" {
					out.Append(a.Label)
				} else {
					out.Append(it.Name)
				}
			}
		}
	}
	return out, nil
}

// netFilterIfaces is _filter_interfaces: interface names or globs (a
// list or a comma-separated string), all when nil.
func netFilterIfaces(l []grains.Iface, iface any) []grains.Iface {
	if iface == nil {
		return l
	}
	var pats []string
	for _, p := range splitInput(iface) {
		pats = append(pats, value.Str(p))
	}
	var out []grains.Iface
	for _, it := range l {
		for _, p := range pats {
			if match.Fnmatch(it.Name, p) {
				out = append(out, it)
				break
			}
		}
	}
	return out
}

func netNetworks(args []any, kwargs *value.Map, fun, family string) (any, error) {
	v, _, err := execmod.Bind(fun, args, kwargs, execmod.Opt("interface", nil), execmod.Opt("include_loopback", false), execmod.Opt("verbose", false))
	if err != nil {
		return nil, err
	}
	l, err := netIfaces()
	if err != nil {
		return nil, err
	}
	seen := map[netip.Prefix]bool{}
	var nets []netip.Prefix
	for _, it := range netFilterIfaces(l, v[0]) {
		addrs := it.Inet
		if family == "inet6" {
			addrs = it.Inet6
		}
		for _, a := range append(append([]grains.Addr(nil), addrs...), it.Secondary...) {
			if a.Type != family {
				continue
			}
			ip, err := netip.ParseAddr(a.Address)
			if err != nil {
				continue
			}
			p := netip.PrefixFrom(ip.WithZone(""), a.Prefix).Masked()
			if (p.Addr().IsLoopback() && !value.Truthy(v[1])) || seen[p] {
				continue
			}
			seen[p] = true
			nets = append(nets, p)
		}
	}
	sort.Slice(nets, func(i, j int) bool {
		if c := nets[i].Addr().Compare(nets[j].Addr()); c != 0 {
			return c < 0
		}
		return nets[i].Bits() < nets[j].Bits()
	})
	if !value.Truthy(v[2]) {
		out := value.NewList()
		for _, p := range nets {
			out.Append(p.String())
		}
		return out, nil
	}
	out := value.NewMap(len(nets))
	for _, p := range nets {
		n := new(big.Int).Lsh(big.NewInt(1), uint(p.Addr().BitLen()-p.Bits()))
		out.Set(p.String(), value.MapOf("address", p.Addr().String(), "netmask", netMaskAddr(p.Bits(), p.Addr().BitLen()).String(),
			"num_addresses", value.NormInt(n), "prefixlen", int64(p.Bits())))
	}
	return out, nil
}

func netIPNetworks(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return netNetworks(args, kwargs, "ip_networks", "inet")
}

func netIPNetworks6(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return netNetworks(args, kwargs, "ip_networks6", "inet6")
}

// netIsFQDN is salt.utils.network.is_fqdn.
func netIsFQDN(h string) bool {
	if !strings.Contains(h, ".") || len(h) >= 255 {
		return false
	}
	for _, label := range strings.Split(strings.TrimRight(h, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return true
}

func netFQDNs(*execmod.Context, []any, *value.Map) (any, error) {
	l, err := netIfaces()
	if err != nil {
		return nil, err
	}
	addrs := append(grains.IPAddrs(l, "", false, "inet"), grains.IPAddrs(l, "", false, "inet6")...)
	set := map[string]bool{}
	for _, a := range addrs {
		names, err := net.LookupAddr(a)
		if err != nil {
			slog.Debug("Unable to resolve address " + a + ": " + err.Error())
			continue
		}
		for i, n := range names {
			n = strings.TrimSuffix(n, ".")
			if i == 0 {
				set[grains.FQDN(n)] = true
			} else if netIsFQDN(n) {
				set[n] = true
			}
		}
	}
	var out []string
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return value.MapOf("fqdns", strList(out)), nil
}

// The files network.mod_hostname rewrites.
var (
	netHostsFile       = "/etc/hosts"
	netHostnameFile    = "/etc/hostname"
	netSysconfigNetwrk = "/etc/sysconfig/network"
)

// netModHostname is network.mod_hostname: set the host name (hostnamectl,
// else hostname), put it in place of the old one in /etc/hosts (every line
// rewritten tab-separated, as Salt does) and in the OS's hostname file.
func netModHostname(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("mod_hostname", args, kwargs, execmod.Req("hostname"))
	if err != nil {
		return nil, err
	}
	if v[0] == nil {
		return false, nil
	}
	hostname := value.Str(v[0])
	cmd, err := exec.LookPath("hostnamectl")
	if err != nil {
		if cmd, err = exec.LookPath("hostname"); err != nil {
			return nil, execmod.Errorf("neither hostnamectl nor hostname was found in $PATH")
		}
	}
	runAll := func(c string) (*value.Map, error) {
		r, err := ctx.Call("cmd.run_all", []any{c}, nil)
		if err != nil {
			return nil, err
		}
		return r.(*value.Map), nil
	}
	var old string
	if strings.HasSuffix(cmd, "hostnamectl") {
		res, err := runAll(cmd + " status")
		if err != nil {
			return nil, err
		}
		if rc, _ := res.Get("retcode"); value.Equal(rc, int64(0)) {
			out, _ := res.Get("stdout")
			for _, line := range strings.Split(value.Str(out), "\n") {
				parts := strings.Split(line, ":")
				if strings.Contains(parts[0], "Static hostname") && len(parts) > 1 {
					old = strings.TrimSpace(parts[1])
				}
			}
		} else {
			old, _ = os.Hostname()
		}
		res, err = runAll(cmd + " set-hostname " + hostname)
		if err != nil {
			return nil, err
		}
		if rc, _ := res.Get("retcode"); !value.Equal(rc, int64(0)) {
			stderr, _ := res.Get("stderr")
			slog.Debug(cmd + " was unable to set hostname. Error: " + value.Str(stderr))
			return false, nil
		}
	} else {
		h, _ := os.Hostname()
		old = grains.FQDN(h)
		if _, err := netRun(ctx, cmd+" "+hostname); err != nil {
			return nil, err
		}
	}
	data, err := os.ReadFile(netHostsFile)
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	var sb strings.Builder
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		for i, x := range f {
			if x == old {
				f[i] = hostname
				break
			}
		}
		sb.WriteString(strings.Join(f, "\t") + "\n")
	}
	if err := os.WriteFile(netHostsFile, []byte(sb.String()), 0o644); err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	family, _ := ctx.Grains.Get("os_family")
	switch family {
	case "RedHat":
		data, err := os.ReadFile(netSysconfigNetwrk)
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		var sb strings.Builder
		for _, l := range strings.SplitAfter(string(data), "\n") {
			if !strings.HasPrefix(l, "HOSTNAME") {
				sb.WriteString(l)
				continue
			}
			_, oldName, _ := strings.Cut(l, "=")
			oldName = strings.TrimRight(oldName, " \t\r\n")
			q := ""
			if len(oldName) > 1 && oldName[0] == oldName[len(oldName)-1] && (oldName[0] == '"' || oldName[0] == '\'') {
				q = oldName[:1]
			}
			name := hostname
			if len(name) > 1 && name[0] == name[len(name)-1] && (name[0] == '"' || name[0] == '\'') {
				name = name[1 : len(name)-1]
			}
			sb.WriteString("HOSTNAME=" + q + name + q + "\n")
		}
		if err := os.WriteFile(netSysconfigNetwrk, []byte(sb.String()), 0o644); err != nil {
			return nil, execmod.Errorf("%s", err)
		}
	case "Debian", "NILinuxRT":
		if err := os.WriteFile(netHostnameFile, []byte(hostname+"\n"), 0o644); err != nil {
			return nil, execmod.Errorf("%s", err)
		}
	}
	return true, nil
}
