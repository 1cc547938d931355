package modules

// status_master_ping.go is status.ping_master of salt/modules/status.py:
// whether a master answers at an address. Salt sends a clear "ping" to
// the master's request port; a brine master's port is its NATS server,
// which greets every connection with its INFO line, so the ping is that
// greeting read within auth_timeout.

import (
	"bufio"
	"net"
	"strconv"
	"strings"
	"time"

	"brine/internal/execmod"
	"brine/internal/pyops"
	"brine/internal/value"
)

func init() {
	execmod.Register("status.ping_master", statusPingMaster,
		"Whether a master answers at address master (on master_port, within auth_timeout); on success fires "+
			"__master_failback on the minion's bus.")
}

func statusPingMaster(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("ping_master", args, kwargsOf(kwargs), execmod.Req("master"))
	if err != nil {
		return nil, err
	}
	if v[0] == nil || v[0] == "" {
		return false, nil
	}
	master := execmod.String(v[0])
	port := int64(4506)
	if p, ok := optGet(ctx, "master_port").(int64); ok {
		port = p
	} else if s, ok := optGet(ctx, "master_port").(string); ok {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			port = n
		}
	}
	// Salt's prep_ip_port: "host:port" names the port too
	if h, p, err := net.SplitHostPort(master); err == nil {
		if n, err := strconv.ParseInt(p, 10, 64); err == nil {
			master, port = h, n
		}
	}
	// Salt's resolve_dns: an IPv4 address unless ipv6 is on
	addr := ""
	for _, ip := range hostToIPs(master) {
		if v4 := net.ParseIP(ip).To4() != nil; v4 || value.Truthy(optGet(ctx, "ipv6")) {
			addr = ip
			break
		}
	}
	if addr == "" {
		return false, nil
	}
	// auth_timeout: 5 is the minion's default
	timeout := 5 * time.Second
	if t, err := pyops.Float(optGet(ctx, "auth_timeout")); err == nil && optGet(ctx, "auth_timeout") != nil {
		timeout = time.Duration(t * float64(time.Second))
	}
	if !natsGreets(net.JoinHostPort(addr, strconv.FormatInt(port, 10)), timeout) {
		return false, nil
	}
	if s := eventService(ctx); s != nil {
		s.FireLocal("__master_failback", value.MapOf("master", execmod.String(v[0])))
	}
	return true, nil
}

// natsGreets reports whether the server at addr sends a NATS INFO line
// within timeout.
func natsGreets(addr string, timeout time.Duration) bool {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(timeout))
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "INFO ")
}
