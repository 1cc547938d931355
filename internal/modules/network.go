package modules

// network.go is salt/modules/network.py (the reading half): addresses,
// interfaces and routes, read natively (netlink, /proc/net).

import (
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sort"
	"strconv"
	"strings"

	"brine/internal/execmod"
	"brine/internal/grains"
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
}

func netIfaces() ([]grains.Iface, error) {
	l, err := grains.Interfaces()
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return l, nil
}

func netInCIDR(cidr string, addr string) bool {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return false
	}
	a, err := netip.ParseAddr(addr)
	return err == nil && p.Contains(a)
}

func netFilterAddrs(addrs []string, cidr any, typ any) *value.List {
	out := value.NewList()
	for _, a := range addrs {
		if cidr != nil && value.Truthy(cidr) {
			if netInCIDR(execmod.String(cidr), a) {
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

// netIsPrivate is Python's ipaddress is_private (the common ranges).
func netIsPrivate(ip netip.Addr) bool {
	if ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsUnspecified() {
		return true
	}
	for _, c := range []string{"100.64.0.0/10", "192.0.0.0/29", "192.0.0.170/31", "192.0.2.0/24", "198.18.0.0/15",
		"198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4", "255.255.255.255/32", "0.0.0.0/8",
		"2001:db8::/32", "2001::/23", "100::/64", "::ffff:0:0/96"} {
		if netInCIDR(c, ip.String()) {
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
	return netFilterAddrs(grains.IPAddrs(l, execmod.String(v[0]), value.Truthy(v[1]), "inet"), v[2], v[3]), nil
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
	return netFilterAddrs(grains.IPAddrs(l, execmod.String(v[0]), value.Truthy(v[1]), "inet6"), v[2], nil), nil
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

func netLE32IP(h string) string {
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != 4 {
		return ""
	}
	return net.IPv4(b[3], b[2], b[1], b[0]).String()
}

// netReadRoutes reads /proc/net/route and /proc/net/ipv6_route.
func netReadRoutes() []*value.Map {
	var out []*value.Map
	if data, err := os.ReadFile("/proc/net/route"); err == nil {
		for i, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if i == 0 || len(f) < 8 {
				continue
			}
			flags, _ := strconv.ParseUint(f[3], 16, 32)
			if flags&0x0200 != 0 { // RTF_REJECT: unreachable
				continue
			}
			dest, gw, mask := netLE32IP(f[1]), netLE32IP(f[2]), netLE32IP(f[7])
			if dest == "0.0.0.0" && mask == "0.0.0.0" {
				out = append(out, netRouteMap("inet", "0.0.0.0", gw, "0.0.0.0", "UG", f[0]))
			} else {
				out = append(out, netRouteMap("inet", dest, "0.0.0.0", mask, "U", f[0]))
			}
		}
	}
	if data, err := os.ReadFile("/proc/net/ipv6_route"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if len(f) < 10 || f[9] == "lo" {
				continue
			}
			d, _ := hex.DecodeString(f[0])
			g, _ := hex.DecodeString(f[4])
			plen, _ := strconv.ParseUint(f[1], 16, 8)
			if len(d) != 16 || len(g) != 16 {
				continue
			}
			da := netip.AddrFrom16([16]byte(d))
			ga := netip.AddrFrom16([16]byte(g))
			if plen == 0 && da.IsUnspecified() {
				out = append(out, netRouteMap("inet6", "::/0", ga.String(), "", "UG", f[9]))
				continue
			}
			if da.IsMulticast() {
				continue
			}
			out = append(out, netRouteMap("inet6", da.String()+"/"+strconv.Itoa(int(plen)), ga.String(), "", "U", f[9]))
		}
	}
	return out
}

func netRoutes(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("routes", args, kwargs, execmod.Opt("family", nil))
	if err != nil {
		return nil, err
	}
	fam := execmod.String(v[0])
	if fam != "" && fam != "inet" && fam != "inet6" {
		return nil, execmod.Errorf("Invalid address family %s", fam)
	}
	out := value.NewList()
	for _, r := range netReadRoutes() {
		if f, _ := r.Get("addr_family"); fam == "" || f == fam {
			out.Append(r)
		}
	}
	return out, nil
}

func netDefaultRoute(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("default_route", args, kwargs, execmod.Opt("family", nil))
	if err != nil {
		return nil, err
	}
	fam := execmod.String(v[0])
	if fam != "" && fam != "inet" && fam != "inet6" {
		return nil, execmod.Errorf("Invalid address family %s", fam)
	}
	out := value.NewList()
	for _, r := range netReadRoutes() {
		f, _ := r.Get("addr_family")
		d, _ := r.Get("destination")
		if (fam == "" || f == fam) && (d == "0.0.0.0" || d == "::/0") {
			out.Append(r)
		}
	}
	return out, nil
}

func netInSubnet(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("in_subnet", args, kwargs, execmod.Req("cidr"))
	if err != nil {
		return nil, err
	}
	l, err := netIfaces()
	if err != nil {
		return nil, err
	}
	cidr := execmod.String(v[0])
	for _, fam := range []string{"inet", "inet6"} {
		for _, a := range grains.IPAddrs(l, "", true, fam) {
			if netInCIDR(cidr, a) {
				return true, nil
			}
		}
	}
	return false, nil
}

func netGetHostname(*execmod.Context, []any, *value.Map) (any, error) {
	h, _ := os.Hostname()
	return h, nil
}

func netGetFQDN(*execmod.Context, []any, *value.Map) (any, error) {
	h, _ := os.Hostname()
	return grains.FQDN(h), nil
}
