package modules

// network_fqdn.go holds network.get_fqdn's lookup: Python's
// socket.getfqdn(), which Salt calls.

import (
	"net"
	"net/netip"
	"os"
	"strings"
)

// pyGetFQDN is Python's socket.getfqdn(name): the host name the address of
// name resolves back to (its first alias holding a dot, else its canonical
// name), or name itself when either lookup fails. The hosts file answers
// first, one line at a time as the C library does; DNS after it.
func pyGetFQDN(name, hostsFile string) string {
	addrs, err := net.LookupHost(name)
	if err != nil || len(addrs) == 0 {
		return name
	}
	names := hostsReverse(hostsFile, addrs[0])
	if names == nil {
		ptr, err := net.LookupAddr(addrs[0])
		if err != nil || len(ptr) == 0 {
			return name
		}
		for _, p := range ptr {
			names = append(names, strings.TrimSuffix(p, "."))
		}
	}
	for _, n := range names {
		if strings.Contains(n, ".") {
			return n
		}
	}
	return names[0]
}

// hostsReverse returns the names of the first line of the hosts file for
// addr, canonical name first; nil when no line has it.
func hostsReverse(hostsFile, addr string) []string {
	want, err := netip.ParseAddr(addr)
	if err != nil {
		return nil
	}
	data, err := os.ReadFile(hostsFile)
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		if a, err := netip.ParseAddr(f[0]); err == nil && a.Unmap() == want.Unmap() {
			return f[1:]
		}
	}
	return nil
}
