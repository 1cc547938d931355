package roster

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"brine/internal/value"
)

// Scan is the scan roster (salt/roster/scan.py): tgt is an address or a
// network (a comma-separated list of them), each address a target; an
// address answering on one of ssh_scan_ports (within ssh_scan_timeout
// seconds) gets that port, the others are kept with the defaults.
func Scan(tgt string, opts *value.Map) (*value.Map, error) {
	var ports []int
	for _, p := range strings.Split(str(opts, "ssh_scan_ports", "22"), ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nil, fmt.Errorf("ssh_scan_ports: %q is not a port", p)
		}
		ports = append(ports, n)
	}
	timeout, ok := toFloat(get(opts, "ssh_scan_timeout"))
	if !ok {
		timeout = 0.01
	}
	var addrs []netip.Addr
	for _, t := range strings.Split(tgt, ",") {
		t = strings.TrimSpace(t)
		if a, err := netip.ParseAddr(t); err == nil {
			addrs = append(addrs, a)
			continue
		}
		if p, err := netip.ParsePrefix(t); err == nil {
			addrs = append(addrs, hosts(p.Masked())...)
		}
	}
	out := value.NewMap(len(addrs))
	for _, a := range addrs {
		e := value.NewMap(0)
		if rd, ok := get(opts, "roster_defaults").(*value.Map); ok {
			e = rd.Copy()
		}
		for _, port := range ports {
			c, err := net.DialTimeout("tcp", net.JoinHostPort(a.String(), strconv.Itoa(port)), time.Duration(timeout*float64(time.Second)))
			if err == nil {
				c.Close()
				e.Set("host", a.String())
				e.Set("port", int64(port))
			}
		}
		out.Set(a.String(), e)
	}
	return out, nil
}

// hosts lists the usable addresses of a network as Python's
// ip_network().hosts() does: without the network and broadcast addresses
// of an IPv4 network larger than /31.
func hosts(p netip.Prefix) []netip.Addr {
	var out []netip.Addr
	bits := p.Addr().BitLen() - p.Bits()
	if bits > 16 {
		bits = 16 // at most 65536 addresses
	}
	first := p.Addr()
	n := 1 << bits
	a := first
	for i := 0; i < n && p.Contains(a); i++ {
		out = append(out, a)
		a = a.Next()
	}
	if p.Addr().Is4() && p.Bits() < 31 && len(out) > 2 {
		out = out[1 : len(out)-1]
	}
	return out
}
