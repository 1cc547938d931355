package modules

// status_master.go is status.master of salt/modules/status.py (whether
// this minion holds an established connection to the master's publish
// port) and status.proxy_reconnect.

import (
	"context"
	"net"
	"os/exec"
	"strconv"
	"strings"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("status.master", statusMaster,
		"True when a TCP connection to master's publish port is established, False when not; None without a resolvable master.")
	execmod.Register("status.proxy_reconnect", statusProxyReconnect,
		"Reconnect the proxy module proxy_name when it is down; False where no such proxy module is loaded.")
}

// statusProxyReconnect is Salt's proxy_reconnect. It acts only in a proxy
// minion whose proxy module proxy_name has an alive function; brine runs
// no proxy modules, so the answer is Salt's for that case: False.
func statusProxyReconnect(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("proxy_reconnect", args, kwargs, execmod.Req("proxy_name"), execmod.Opt("opts", nil)); err != nil {
		return nil, err
	}
	return false, nil
}

// hostToIPs is salt.utils.network.host_to_ips: the addresses host
// resolves to, nil when none.
func hostToIPs(host string) []string {
	addrs, err := net.DefaultResolver.LookupIPAddr(context.Background(), host)
	if err != nil || len(addrs) == 0 {
		return nil
	}
	ips := make([]string, len(addrs))
	for i, a := range addrs {
		ips[i] = a.IP.String()
	}
	return ips
}

// remotePortTCP is salt.utils.network.remote_port_tcp: the remote
// addresses of established TCP connections to port, from ss when it is
// installed, else /proc/net/tcp and tcp6.
func remotePortTCP(port int64) map[string]bool {
	ret := map[string]bool{}
	if out, err := exec.Command("ss", "-ant", "dst", ":"+strconv.FormatInt(port, 10)).Output(); err == nil {
		valid := false
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "Address:Port") {
				valid = true
				continue
			}
			f := strings.Fields(line)
			if !strings.Contains(line, "ESTAB") || len(f) < 5 {
				continue
			}
			i := strings.LastIndexByte(f[4], ':')
			if i < 0 {
				continue
			}
			if p, err := strconv.ParseInt(f[4][i+1:], 10, 64); err != nil || p != port {
				continue
			}
			ret[strings.Trim(f[4][:i], "[]")] = true
		}
		if valid {
			return ret
		}
		ret = map[string]bool{}
	}
	netActiveTCPFrom("/proc/net/tcp", "/proc/net/tcp6").Range(func(_, v any) bool {
		m := v.(*value.Map)
		if rp, _ := m.GetString("remote_port"); rp == port {
			ra, _ := m.GetString("remote_addr")
			ret[value.Str(ra)] = true
		}
		return true
	})
	return ret
}

// statusMaster answers whether the connection to master is up. Salt also
// fires a master connected/disconnected event on the minion's event bus
// when the answer differs from connected; a masterless run has no such
// bus, so none is fired here.
func statusMaster(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("master", args, kwargs, execmod.Opt("master", nil), execmod.Opt("connected", true))
	if err != nil {
		return nil, err
	}
	if !value.Truthy(v[0]) {
		return nil, nil
	}
	ips := hostToIPs(value.Str(v[0]))
	if len(ips) == 0 {
		return nil, nil
	}
	port := int64(4505)
	if p, err := ctx.Call("config.get", []any{"publish_port"}, value.MapOf("default", int64(4505))); err == nil {
		if n, err := strconv.ParseInt(value.Str(p), 10, 64); err == nil {
			port = n
		}
	}
	connected := remotePortTCP(port)
	for _, ip := range ips {
		if connected[ip] {
			return true, nil
		}
	}
	return false, nil
}
