package match

import (
	"net/netip"
	"strings"

	"brine/internal/value"
)

// ipcidrMatch matches an address (exact membership in the ipv4/ipv6 grain)
// or a network (any grain address inside it). An invalid target never
// matches.
func ipcidrMatch(c *Context, tgt any, _ string) bool {
	s, ok := tgt.(string)
	if !ok {
		return false
	}
	var grain any
	var isAddr bool
	var addr netip.Addr
	var pfx netip.Prefix
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		addr, isAddr = a, true
	} else {
		p, err := parseNetwork(s)
		if err != nil {
			return false
		}
		pfx = p
	}
	proto := "ipv4"
	if (isAddr && addr.Is6()) || (!isAddr && pfx.Addr().Is6()) {
		proto = "ipv6"
	}
	if c.Grains == nil {
		return false
	}
	grain, ok = c.Grains.Get(proto)
	if !ok {
		return false
	}
	if isAddr {
		want := addr.String()
		switch g := grain.(type) {
		case *value.List:
			for _, e := range g.Items {
				if value.Equal(e, want) {
					return true
				}
			}
			return false
		case string:
			return strings.Contains(g, want)
		}
		return false
	}
	var addrs []any
	switch g := grain.(type) {
	case *value.List:
		addrs = g.Items
	case value.Tuple:
		addrs = g
	default:
		addrs = []any{g}
	}
	for _, e := range addrs {
		es, ok := e.(string)
		if !ok {
			continue
		}
		a, err := netip.ParseAddr(es)
		if err != nil {
			continue
		}
		if pfx.Contains(a) {
			return true
		}
	}
	return false
}

// parseNetwork is Python's ipaddress.ip_network with strict=True: host bits
// must be zero; a bare address is a /32 (or /128).
func parseNetwork(s string) (netip.Prefix, error) {
	if !strings.Contains(s, "/") {
		a, err := netip.ParseAddr(s)
		if err != nil {
			return netip.Prefix{}, err
		}
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		var ok bool
		if p, ok = parseMaskedNetwork(s); !ok {
			return p, err
		}
	}
	if p.Masked() != p {
		return p, errHostBits
	}
	return p, nil
}

type hostBitsError struct{}

func (hostBitsError) Error() string { return "has host bits set" }

var errHostBits error = hostBitsError{}

// parseMaskedNetwork reads the IPv4 forms ip_network also accepts:
// "10.0.0.0/255.0.0.0" (a netmask) and "10.0.0.0/0.255.255.255" (a
// hostmask).
func parseMaskedNetwork(s string) (netip.Prefix, bool) {
	host, mask, _ := strings.Cut(s, "/")
	a, err := netip.ParseAddr(host)
	if err != nil || !a.Is4() {
		return netip.Prefix{}, false
	}
	m, err := netip.ParseAddr(mask)
	if err != nil || !m.Is4() {
		return netip.Prefix{}, false
	}
	b := m.As4()
	bits := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	if n, ok := maskLen(bits); ok {
		return netip.PrefixFrom(a, n), true
	}
	if n, ok := maskLen(^bits); ok {
		return netip.PrefixFrom(a, n), true
	}
	return netip.Prefix{}, false
}

// maskLen is the prefix length of a netmask made of leading ones.
func maskLen(bits uint32) (int, bool) {
	n := 0
	for n < 32 && bits&(1<<(31-n)) != 0 {
		n++
	}
	if bits<<n != 0 {
		return 0, false
	}
	return n, true
}
