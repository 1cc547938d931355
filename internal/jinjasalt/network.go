package jinjasalt

import (
	"context"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"brine/internal/value"
)

// Filters of salt/utils/network.py, on Python's ipaddress semantics.

// ipObj is an ipaddress address or interface.
type ipObj struct {
	addr  netip.Addr
	bits  int  // prefix length; -1 for a plain address
	iface bool // parsed as an interface (addr/prefix)
}

func (o ipObj) version() int {
	if o.addr.Is4() {
		return 4
	}
	return 6
}

// String prints as str(ip_address(...)) or str(ip_interface(...)).
func (o ipObj) String() string {
	s := pyAddrString(o.addr)
	if o.iface {
		return s + "/" + strconv.Itoa(o.bits)
	}
	return s
}

// pyAddrString prints an address as Python's ipaddress does: IPv4-mapped
// IPv6 addresses keep hex groups.
func pyAddrString(a netip.Addr) string {
	if a.Is4In6() {
		b := a.As16()
		s := fmt.Sprintf("::ffff:%x:%x", uint16(b[12])<<8|uint16(b[13]), uint16(b[14])<<8|uint16(b[15]))
		if z := a.Zone(); z != "" {
			s += "%" + z
		}
		return s
	}
	return a.String()
}

// parseIPAddress is ipaddress.ip_address.
func parseIPAddress(v any) (netip.Addr, bool) {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return netip.Addr{}, false
		}
		if x < 1<<32 {
			return netip.AddrFrom4([4]byte{byte(x >> 24), byte(x >> 16), byte(x >> 8), byte(x)}), true
		}
		var b [16]byte
		for i := 0; i < 8; i++ {
			b[15-i] = byte(x >> (8 * i))
		}
		return netip.AddrFrom16(b), true
	case *big.Int:
		if x.Sign() < 0 || x.BitLen() > 128 {
			return netip.Addr{}, false
		}
		var b [16]byte
		x.FillBytes(b[:])
		return netip.AddrFrom16(b), true
	}
	s, ok := asString(v)
	if !ok {
		return netip.Addr{}, false
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return a, true
}

// parseIPInterface is ipaddress.ip_interface: addr, addr/len, or for IPv4
// addr/netmask and addr/hostmask.
func parseIPInterface(v any) (ipObj, bool) {
	if a, ok := parseIPAddress(v); ok {
		return ipObj{addr: a, bits: a.BitLen(), iface: true}, true
	}
	s, ok := asString(v)
	if !ok {
		return ipObj{}, false
	}
	addrS, maskS, found := strings.Cut(s, "/")
	if !found {
		return ipObj{}, false
	}
	a, err := netip.ParseAddr(addrS)
	if err != nil {
		return ipObj{}, false
	}
	if n, err := strconv.Atoi(maskS); err == nil && isAllDigits(maskS) {
		if n < 0 || n > a.BitLen() {
			return ipObj{}, false
		}
		return ipObj{addr: a, bits: n, iface: true}, true
	}
	if !a.Is4() {
		return ipObj{}, false
	}
	m, err := netip.ParseAddr(maskS)
	if err != nil || !m.Is4() {
		return ipObj{}, false
	}
	mb := m.As4()
	u := uint32(mb[0])<<24 | uint32(mb[1])<<16 | uint32(mb[2])<<8 | uint32(mb[3])
	for _, cand := range []uint32{u, ^u} { // netmask, then hostmask
		ones := 0
		for ones < 32 && cand&(1<<(31-ones)) != 0 {
			ones++
		}
		if ones == 32 || cand<<ones == 0 {
			return ipObj{addr: a, bits: ones, iface: true}, true
		}
	}
	return ipObj{}, false
}

func isAllDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// parseIP is what Salt's _is_ipv tries: an address, else an interface.
func parseIP(v any) (ipObj, bool) {
	if a, ok := parseIPAddress(v); ok {
		return ipObj{addr: a, bits: -1}, true
	}
	return parseIPInterface(v)
}

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// Python 3.11's ipaddress tables.
var (
	private4 = mustPrefixes("0.0.0.0/8", "10.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.0.0.0/29", "192.0.0.170/31", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15",
		"198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4", "255.255.255.255/32")
	private6 = mustPrefixes("::1/128", "::/128", "::ffff:0:0/96", "100::/64", "2001::/23", "2001:2::/48",
		"2001:db8::/32", "2001:10::/28", "fc00::/7", "fe80::/10")
	reserved6 = mustPrefixes("::/8", "100::/8", "200::/7", "400::/6", "800::/5", "1000::/4", "4000::/3",
		"6000::/3", "8000::/3", "A000::/3", "C000::/3", "E000::/4", "F000::/5", "F800::/6", "FE00::/9")
)

func inAny(a netip.Addr, ps []netip.Prefix) bool {
	a = a.WithZone("")
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

func (o ipObj) isPrivate() bool {
	if o.addr.Is4() {
		return inAny(o.addr, private4)
	}
	return inAny(o.addr, private6)
}

// ipOption reports whether o passes one of Salt's _ip_options tests.
func (o ipObj) ipOption(name string) bool {
	a := o.addr
	switch name {
	case "global", "public":
		return !o.isPrivate()
	case "multicast":
		return a.IsMulticast()
	case "loopback", "lo":
		return a.IsLoopback()
	case "link-local", "linklocal", "ll", "link_local":
		return a.IsLinkLocalUnicast()
	case "private":
		return o.isPrivate()
	case "reserved":
		if a.Is4() {
			return netip.MustParsePrefix("240.0.0.0/4").Contains(a)
		}
		return inAny(a, reserved6)
	case "site-local", "sl", "site_local":
		return a.Is6() && netip.MustParsePrefix("fec0::/10").Contains(a.WithZone(""))
	case "unspecified":
		return a.IsUnspecified()
	}
	return true
}

// optionOrder is the order Salt's options map tests in.
var optionOrder = []string{"global", "link-local", "linklocal", "ll", "link_local", "loopback", "lo",
	"multicast", "private", "public", "reserved", "site-local", "sl", "site_local", "unspecified"}

// isIPV is Salt's _is_ipv: str(ip) when v is an address or interface of
// the version passing the options, else None.
func isIPV(v any, version int, options any) (any, error) {
	o, ok := parseIP(v)
	if !ok || o.version() != version {
		return nil, nil
	}
	if truthy(options) {
		opts, ok := asString(options)
		if !ok {
			return nil, pyErr(excAttributeError, "'%s' object has no attribute 'split'", typeName(options))
		}
		var list []string
		for _, p := range strings.Split(opts, ",") {
			list = append(list, strings.TrimSpace(p))
		}
		for _, name := range optionOrder {
			for _, want := range list {
				if want == name && !o.ipOption(name) {
					return nil, nil
				}
			}
		}
	}
	return o.String(), nil
}

// ipvFilter is Salt's _ipv_filter.
func ipvFilter(v any, version int, options any) (any, error) {
	switch v.(type) {
	case string, []byte:
		return isIPV(v, version, options)
	case *value.List, value.Tuple:
		items, _ := iterate(v)
		out := []any{}
		for _, it := range items {
			r, err := isIPV(it, version, options)
			if err != nil {
				return nil, err
			}
			if r != nil {
				out = append(out, r)
			}
		}
		return newList(out), nil
	}
	if s, ok := asString(v); ok {
		return isIPV(s, version, options)
	}
	return nil, nil
}

func ipaddrFilter(v, options any) (any, error) {
	v4, err := ipvFilter(v, 4, options)
	if err != nil {
		return nil, err
	}
	v6, err := ipvFilter(v, 6, options)
	if err != nil {
		return nil, err
	}
	if v4 == nil || v6 == nil {
		if truthy(v4) {
			return v4, nil
		}
		return v6, nil
	}
	return concat(v4, v6)
}

// filterIPAddr is Salt's _filter_ipaddr: a list of matching entries or nil.
func filterIPAddr(v, options, version any) ([]any, error) {
	var out any
	var err error
	switch pyStr(version) {
	case "4":
		out, err = ipvFilter(v, 4, options)
	case "6":
		out, err = ipvFilter(v, 6, options)
	case "None", "0", "False", "":
		out, err = ipaddrFilter(v, options)
	default:
		return nil, nil
	}
	if err != nil || !truthy(out) {
		return nil, err
	}
	if l, ok := out.(*value.List); ok {
		return l.Items, nil
	}
	return []any{out}, nil
}

func isSeq(v any) bool {
	switch v.(type) {
	case *value.List, value.Tuple:
		return true
	}
	return false
}

func ipNetwork(v any) (netip.Prefix, error) {
	o, ok := parseIPInterface(v)
	if !ok {
		return netip.Prefix{}, pyErr(excValueError, "%s does not appear to be an IPv4 or IPv6 network", value.Repr(v))
	}
	return netip.PrefixFrom(o.addr.WithZone(""), o.bits).Masked(), nil
}

// maxHostBits bounds network_hosts to 2**20 addresses so a /8 or an IPv6
// network cannot make a template allocate gigabytes.
const maxHostBits = 20

func networkHosts(entry any) (any, error) {
	p, err := ipNetwork(entry)
	if err != nil {
		return nil, err
	}
	bits := p.Addr().BitLen()
	hostBits := bits - p.Bits()
	if hostBits > maxHostBits {
		return nil, pyErr("MemoryError", "network %s has too many hosts for brine to list", p)
	}
	n := 1 << hostBits
	first, last := 0, n-1
	switch {
	case hostBits == 0:
	case hostBits == 1:
	case bits == 32:
		first, last = 1, n-2
	default:
		first = 1
	}
	out := make([]any, 0, last-first+1)
	a := p.Addr()
	for i := 0; i < first; i++ {
		a = a.Next()
	}
	for i := first; i <= last; i++ {
		out = append(out, pyAddrString(a))
		a = a.Next()
	}
	return newList(out), nil
}

func networkSize(entry any) (any, error) {
	p, err := ipNetwork(entry)
	if err != nil {
		return nil, err
	}
	n := new(big.Int).Lsh(big.NewInt(1), uint(p.Addr().BitLen()-p.Bits()))
	return value.NormInt(n), nil
}

// perEntry applies fn to the filtered entries as Salt's ip_host,
// network_hosts and network_size do.
func perEntry(v, options, version any, fn func(any) (any, error)) (any, error) {
	entries, err := filterIPAddr(v, options, version)
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	if !isSeq(v) {
		return fn(entries[0])
	}
	out := make([]any, 0, len(entries))
	for _, e := range entries {
		r, err := fn(e)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return newList(out), nil
}

func ipHost(entry any) (any, error) {
	o, ok := parseIPInterface(entry)
	if !ok {
		return nil, pyErr(excValueError, "%s does not appear to be an IPv4 or IPv6 interface", value.Repr(entry))
	}
	return o.String(), nil
}

func ipBracket(v any) (any, error) {
	s := strings.TrimRight(strings.TrimLeft(pyStr(v), "["), "]")
	a, err := netip.ParseAddr(s)
	if err != nil {
		return nil, pyErr(excValueError, "%s does not appear to be an IPv4 or IPv6 address", value.Repr(s))
	}
	if a.Is6() {
		return "[" + pyAddrString(a) + "]", nil
	}
	return pyAddrString(a), nil
}

func ipwrap(v any) (any, error) {
	wrap := func(e any) (any, error) {
		r, err := isIPV(e, 6, nil)
		if err != nil || r == nil {
			return e, err
		}
		return ipBracket(e)
	}
	if isSeq(v) {
		items, _ := iterate(v)
		out := make([]any, 0, len(items))
		for _, it := range items {
			r, err := wrap(it)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return newList(out), nil
	}
	return wrap(v)
}

func genMac(prefix any) any {
	return fmt.Sprintf("%s:%02X:%02X:%02X", pyStr(prefix), mrand.IntN(256), mrand.IntN(256), mrand.IntN(256))
}

func macStrToBytes(v any) (any, error) {
	s, ok := asString(v)
	if !ok {
		return nil, pyErr(excTypeError, "object of type '%s' has no len()", typeName(v))
	}
	switch len(s) {
	case 12:
	case 17:
		s = strings.ReplaceAll(s, s[2:3], "")
	default:
		return nil, pyErr(excValueError, "Invalid MAC address")
	}
	if len(s) != 12 {
		return nil, pyErr(excValueError, "non-hexadecimal number found in fromhex() arg")
	}
	out := make([]byte, 6)
	for i := 0; i < 6; i++ {
		n, err := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		if err != nil {
			return nil, pyErr(excValueError, "invalid literal for int() with base 16: %s", value.Repr(s[2*i:2*i+2]))
		}
		out[i] = byte(n)
	}
	return out, nil
}

func filterByNetworks(values, networks any) (any, error) {
	if networks == nil {
		return values, nil
	}
	netItems, err := iterate(networks)
	if err != nil {
		return nil, err
	}
	nets := make([]netip.Prefix, 0, len(netItems))
	for _, n := range netItems {
		o, ok := parseIPInterface(n)
		if !ok {
			return nil, pyErr(excValueError, "%s does not appear to be an IPv4 or IPv6 network", value.Repr(n))
		}
		p := netip.PrefixFrom(o.addr.WithZone(""), o.bits)
		if p.Masked() != p {
			return nil, pyErr(excValueError, "%s has host bits set", pyStr(n))
		}
		nets = append(nets, p)
	}
	filterList := func(ips any) (any, error) {
		items, err := iterate(ips)
		if err != nil {
			return nil, err
		}
		out := []any{}
		for _, ip := range items {
			a, ok := parseIPAddress(ip)
			if !ok {
				return nil, pyErr(excValueError, "%s does not appear to be an IPv4 or IPv6 address", value.Repr(ip))
			}
			for _, n := range nets {
				if n.Contains(a.WithZone("")) {
					out = append(out, ip)
				}
			}
		}
		return newList(out), nil
	}
	switch x := values.(type) {
	case *value.Map:
		m := value.NewMap(x.Len())
		var err error
		x.Range(func(k, v any) bool {
			var r any
			r, err = filterList(v)
			m.Set(k, r)
			return err == nil
		})
		return m, err
	case *value.List, value.Tuple, string:
		return filterList(values)
	}
	return nil, pyErr(excValueError, "Do not know how to filter a %s", pyClass(values))
}

// dnsCheck is salt.utils.network.dns_check without the connection test:
// the first address the resolver gives, IPv6 in brackets.
func dnsCheck(addr, port, safe, ipv6 any) (any, error) {
	host := pyStr(addr)
	network := "ip"
	switch ipv6 {
	case true:
		network = "ip6"
	case false:
		network = "ip4"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupIP(ctx, network, host)
	if (err != nil || len(ips) == 0) && ipv6 == true {
		ips, err = net.DefaultResolver.LookupIP(ctx, "ip4", host)
	}
	if err != nil || len(ips) == 0 {
		if truthy(safe) {
			return nil, pyErr("salt.exceptions.SaltClientError", "")
		}
		return nil, pyErr("salt.exceptions.SaltSystemExit", "DNS lookup or connection check of '%s' failed.", host)
	}
	return ipBracket(ips[0].String())
}

func init() {
	const src = "salt/utils/network.py"
	optSig := func(py string) *sig { return newSig(py, "ip_addr", required, "options", nil) }
	filter("is_ip", src, optSig("is_ip_filter"), func(b *bound) (any, error) {
		r4, err := isIPV(b.vals[0], 4, b.vals[1])
		if err != nil {
			return nil, err
		}
		if r4 != nil {
			return true, nil
		}
		r6, err := isIPV(b.vals[0], 6, b.vals[1])
		return r6 != nil, err
	})
	for _, v := range []int{4, 6} {
		version := v
		name := "is_ipv" + strconv.Itoa(v)
		filter(name, src, optSig(name+"_filter"), func(b *bound) (any, error) {
			r, err := isIPV(b.vals[0], version, b.vals[1])
			return r != nil, err
		})
		fname := "ipv" + strconv.Itoa(v)
		filter(fname, src, newSig(fname, "value", required, "options", nil), func(b *bound) (any, error) {
			return ipvFilter(b.vals[0], version, b.vals[1])
		})
	}
	filter("ipaddr", src, newSig("ipaddr", "value", required, "options", nil), func(b *bound) (any, error) {
		return ipaddrFilter(b.vals[0], b.vals[1])
	})
	for _, f := range []struct {
		name string
		fn   func(any) (any, error)
	}{{"ip_host", ipHost}, {"network_hosts", networkHosts}, {"network_size", networkSize}} {
		fn := f.fn
		filter(f.name, src, newSig(f.name, "value", required, "options", nil, "version", nil), func(b *bound) (any, error) {
			return perEntry(b.vals[0], b.vals[1], b.vals[2], fn)
		})
	}
	filter("gen_mac", src, newSig("gen_mac", "prefix", "AC:DE:48"), func(b *bound) (any, error) {
		return genMac(b.vals[0]), nil
	})
	filter("mac_str_to_bytes", src, newSig("mac_str_to_bytes", "mac_str", required), func(b *bound) (any, error) {
		return macStrToBytes(b.vals[0])
	})
	filter("dns_check", src, newSig("dns_check", "addr", required, "port", required, "safe", false, "ipv6", nil), func(b *bound) (any, error) {
		return dnsCheck(b.vals[0], b.vals[1], b.vals[2], b.vals[3])
	})
	filter("filter_by_networks", src, newSig("filter_by_networks", "values", required, "networks", required), func(b *bound) (any, error) {
		return filterByNetworks(b.vals[0], b.vals[1])
	})
	filter("ipwrap", src, newSig("ipwrap", "data", required), func(b *bound) (any, error) {
		return ipwrap(b.vals[0])
	})
}
