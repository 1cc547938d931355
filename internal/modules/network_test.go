package modules

import (
	"net"
	"strconv"
	"strings"
	"testing"

	"brine/internal/value"
)

func TestNetworkPure(t *testing.T) {
	ctx := testContext()
	for _, tc := range []struct {
		fun  string
		args []any
		kw   []any
		want string
	}{
		{"network.iphexval", []any{"10.0.0.1"}, nil, "'0A000001'"},
		{"network.iphexval", []any{"255.1.16.3"}, nil, "'FF011003'"},
		{"network.ip_in_subnet", []any{"10.1.2.3", "bogus"}, nil, "False"},
		{"network.ip_in_subnet", []any{"10.1.2.3", "10.1.2.3"}, nil, "True"},
		{"network.in_subnet", []any{"127.0.0.0/8"}, nil, "False"},
		{"network.ip_addrs", nil, []any{"interface", "l?", "include_loopback", true}, "['127.0.0.1']"},
		{"network.ip_addrs", nil, []any{"cidr", "127.0.0.1/8", "include_loopback", true}, "[]"},
		{"network.in_subnet", []any{"198.51.100.0/24"}, nil, "False"},
		{"network.ifacestartswith", []any{"127."}, nil, "['lo']"},
		{"network.ifacestartswith", []any{"198.51.100."}, nil, "[]"},
		{"network.ip_networks", nil, []any{"interface", "lo", "include_loopback", true}, "['127.0.0.0/8']"},
		{"network.ip_networks", nil, []any{"interface", "l*"}, "[]"},
		{"network.ip_networks", nil, []any{"interface", "lo", "include_loopback", true, "verbose", true},
			"{'127.0.0.0/8': {'address': '127.0.0.0', 'netmask': '255.0.0.0', 'num_addresses': 16777216, 'prefixlen': 8}}"},
		{"network.get_bufsize", []any{"lo"}, nil, "{}"},
		{"network.mod_bufsize", []any{"lo"}, []any{"rx", int64(4096)}, "False"},
		{"network.connect", []any{"", int64(80)}, nil, "{'result': False, 'comment': 'Required argument, host, is missing.'}"},
		{"network.connect", []any{"localhost"}, nil, "{'result': False, 'comment': 'Required argument, port, is missing.'}"},
		{"network.connect", []any{"bad..invalid", int64(80)}, nil, "{'result': False, 'comment': 'Unable to resolve host bad..invalid on tcp port 80'}"},
		{"network.get_route", []any{"127.0.0.1"}, nil, "{'destination': '127.0.0.1', 'gateway': None, 'interface': 'lo', 'source': '127.0.0.1'}"},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, tc.args, tc.kw...)); got != tc.want {
			t.Errorf("%s%v%v = %s, want %s", tc.fun, tc.args, tc.kw, got, tc.want)
		}
	}
	for _, tc := range []struct {
		fun  string
		args []any
		err  string
	}{
		{"network.is_private", []any{"nope"}, "'nope' does not appear to be an IPv4 or IPv6 address"},
		{"network.dig", []any{"example.com"}, "The 'dig' binary was not found in $PATH."},
		{"network.traceroute", []any{"example.com"}, "The 'traceroute' binary was not found in $PATH."},
		{"network.wol", []any{"01:02:03"}, "Invalid MAC address"},
		{"network.routes", []any{"ipx"}, "Invalid address family ipx"},
	} {
		if _, err := ctx.Call(tc.fun, tc.args, value.NewMap(0)); err == nil || err.Error() != tc.err {
			t.Errorf("%s%v: err %v, want %q", tc.fun, tc.args, err, tc.err)
		}
	}
}

func TestNetworkSockets(t *testing.T) {
	ctx := testContext()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	conn, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	srv := <-accepted
	defer srv.Close()
	localPort := int64(conn.LocalAddr().(*net.TCPAddr).Port)

	// active_tcp sees both ends of the connection.
	got := call(t, ctx, "network.active_tcp", nil).(*value.Map)
	found := 0
	got.Range(func(_, v any) bool {
		m := v.(*value.Map)
		lp, _ := m.Get("local_port")
		rp, _ := m.Get("remote_port")
		la, _ := m.Get("local_addr")
		if la == "127.0.0.1" && (lp == localPort && rp == int64(port) || lp == int64(port) && rp == localPort) {
			found++
		}
		return true
	})
	if found != 2 {
		t.Errorf("active_tcp found %d ends of 127.0.0.1:%d<->%d in %s", found, localPort, port, value.Repr(got))
	}

	// netstat lists the listener.
	ns := call(t, ctx, "network.netstat", nil).(*value.List)
	listening := false
	for _, e := range ns.Items {
		m := e.(*value.Map)
		if la, _ := m.Get("local-address"); la == "127.0.0.1:"+strconv.Itoa(port) {
			st, _ := m.Get("state")
			listening = listening || st == "LISTEN"
		}
	}
	if !listening {
		t.Errorf("netstat lacks the listener on port %d", port)
	}

	// in_subnet with the machine's first non-loopback address.
	if addrs := call(t, ctx, "network.ip_addrs", nil).(*value.List); addrs.Len() > 0 {
		a := value.Str(addrs.Items[0])
		if got := call(t, ctx, "network.in_subnet", []any{a + "/32"}); got != true {
			t.Errorf("in_subnet(%s/32) = %v", a, got)
		}
		if got := call(t, ctx, "network.ip_addrs", nil, "cidr", a); value.Repr(got) != "['"+a+"']" {
			t.Errorf("ip_addrs cidr=%s = %s", a, value.Repr(got))
		}
	}

	c := call(t, ctx, "network.connect", []any{"127.0.0.1", int64(port)})
	want := "{'result': True, 'comment': 'Successfully connected to 127.0.0.1 (127.0.0.1) on tcp port " + strconv.Itoa(port) + "'}"
	if value.Repr(c) != want {
		t.Errorf("connect = %s, want %s", value.Repr(c), want)
	}
	closed, _ := net.Listen("tcp4", "127.0.0.1:0")
	cport := closed.Addr().(*net.TCPAddr).Port
	closed.Close()
	c = call(t, ctx, "network.connect", []any{"localhost", int64(cport)}, "family", "ipv4", "timeout", int64(2))
	want = "{'result': False, 'comment': 'Unable to connect to localhost (127.0.0.1) on tcp port " + strconv.Itoa(cport) + "'}"
	if value.Repr(c) != want {
		t.Errorf("connect (refused) = %s, want %s", value.Repr(c), want)
	}

	// wol sends a magic packet: 6 x 0xff, then the MAC 16 times.
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	uport := int64(pc.LocalAddr().(*net.UDPAddr).Port)
	if got := call(t, ctx, "network.wol", []any{"52-54-00-12-35-02", "127.0.0.1", uport}); got != true {
		t.Fatalf("wol = %v", got)
	}
	buf := make([]byte, 200)
	n, _, err := pc.ReadFrom(buf)
	if err != nil || n != 102 || buf[0] != 0xff || buf[6] != 0x52 || buf[101] != 0x02 {
		t.Errorf("magic packet: %d bytes %x, %v", n, buf[:n], err)
	}
}

func TestNetworkParsers(t *testing.T) {
	if got := value.Repr(netParseARP("? (10.0.2.2) at 52:54:00:12:35:02 [ether] on eth0\nshort line\n? (10.0.2.3) at <incomplete> on eth0\n")); got !=
		"{'52:54:00:12:35:02': '10.0.2.2', '<incomplete>': '10.0.2.3'}" {
		t.Errorf("arp = %s", got)
	}
	for _, tc := range []struct{ hex, want string }{
		{"0100007F", "127.0.0.1"},
		{"0000000000000000FFFF00000100007F", "127.0.0.1"},
		{"00000000000000000000000001000000", "::1"},
		{"B80D0120000000000000000001000000", "2001:db8::1"},
	} {
		if got := netHex2IP(tc.hex); got != tc.want {
			t.Errorf("hex2ip(%s) = %s, want %s", tc.hex, got, tc.want)
		}
	}
	trace := "traceroute to example.com (93.184.216.34), 30 hops max, 60 byte packets\n" +
		" 1  gateway (10.0.0.1)  0.512 ms  0.401 ms  0.389 ms\n" +
		" 2  * * *\n"
	if got := value.Repr(netParseTraceroute(trace, "Modern traceroute for Linux, version 2.1.2")); got !=
		"[{'count': 1, 'hostname': 'gateway', 'ip': '10.0.0.1', 'ms1': 0.512, 'ms2': 0.401, 'ms3': 0.389}, {'count': 2, 'hostname': '*'}]" {
		t.Errorf("traceroute = %s", got)
	}
	ring := "Ring parameters for eth0:\nPre-set maximums:\nRX:\t\t4096\nTX:\t\t4096\nCurrent hardware settings:\nRX:\t\t256\nTX:\t\t256\n"
	if got := value.Repr(netParseBufsize(ring)); got != "{'result': True, 'rx-max': 4096, 'tx-max': 4096, 'rx': 256, 'tx': 256}" {
		t.Errorf("bufsize = %s", got)
	}
	if got := value.Repr(netParseBufsize("sh: 1: ethtool: not found")); got != "{'result': False, 'comment': '1: ethtool: not found'}" {
		t.Errorf("bufsize error = %s", got)
	}
	if _, err := netParseRouteGet("1.2.3.4", "RTNETLINK answers: Network is unreachable"); err == nil || !strings.Contains(err.Error(), "NoneType") {
		t.Errorf("route get error = %v", err)
	}
	r, err := netParseRouteGet("8.8.8.8", "8.8.8.8 via 172.17.0.1 dev eth0 src 172.17.0.2 uid 0\n    cache")
	if err != nil || value.Repr(r) != "{'destination': '8.8.8.8', 'gateway': '172.17.0.1', 'interface': 'eth0', 'source': '172.17.0.2'}" {
		t.Errorf("route get = %s, %v", value.Repr(r), err)
	}
}

func TestNetworkRouteParsers(t *testing.T) {
	v4 := "0.0.0.0         192.0.2.1       0.0.0.0         UG        0 0          0 eth0\n192.0.2.0       0.0.0.0         255.255.255.0   U         0 0          0 eth0\n"
	v6 := "fd00::/64                      ::                         U    256 1      0 eth0\n::/0                           fd00::1                    UG   1024 2      0 eth0\n" +
		"::/0                           ::                         !n   -1  1      0 lo\nshort line\n"
	got := value.NewList()
	for _, r := range netParseNetstatRoutes(v4, v6) {
		got.Append(r)
	}
	want := "[{'addr_family': 'inet', 'destination': '0.0.0.0', 'gateway': '192.0.2.1', 'netmask': '0.0.0.0', 'flags': 'UG', 'interface': 'eth0'}, " +
		"{'addr_family': 'inet', 'destination': '192.0.2.0', 'gateway': '0.0.0.0', 'netmask': '255.255.255.0', 'flags': 'U', 'interface': 'eth0'}, " +
		"{'addr_family': 'inet6', 'destination': 'fd00::/64', 'gateway': '::', 'netmask': '', 'flags': 'U', 'interface': 'eth0'}, " +
		"{'addr_family': 'inet6', 'destination': '::/0', 'gateway': 'fd00::1', 'netmask': '', 'flags': 'UG', 'interface': 'eth0'}, " +
		"{'addr_family': 'inet6', 'destination': '::/0', 'gateway': '::', 'netmask': '', 'flags': '!n', 'interface': 'lo'}]"
	if value.Repr(got) != want {
		t.Errorf("netstat routes =\n %s\nwant\n %s", value.Repr(got), want)
	}
	ip4 := "default via 192.0.2.1 dev eth0 \n192.0.2.0/24 dev eth0 proto kernel scope link src 192.0.2.2 \nunreachable 10.9.0.0/16\n"
	ip6 := "fd00::/64 dev eth0 proto kernel metric 256 pref medium\ndefault via fd00::1 dev eth0 metric 1024 pref medium\n" +
		"local ::1 dev lo table local proto kernel metric 0 pref medium\nmulticast ff00::/8 dev eth0 table local proto kernel metric 256 pref medium\n"
	routes, err := netParseIPRoutes(ip4, ip6)
	got = value.NewList()
	for _, r := range routes {
		got.Append(r)
	}
	want = "[{'addr_family': 'inet', 'destination': '0.0.0.0', 'gateway': '192.0.2.1', 'netmask': '0.0.0.0', 'flags': 'UG', 'interface': 'eth0'}, " +
		"{'addr_family': 'inet', 'destination': '192.0.2.0', 'gateway': '0.0.0.0', 'netmask': '255.255.255.0', 'flags': 'U', 'interface': 'eth0'}, " +
		"{'addr_family': 'inet6', 'destination': 'fd00::/64', 'gateway': '::', 'netmask': '', 'flags': 'U', 'interface': 'eth0'}, " +
		"{'addr_family': 'inet6', 'destination': '::/0', 'gateway': 'fd00::1', 'netmask': '', 'flags': 'UG', 'interface': 'eth0'}, " +
		"{'addr_family': 'inet6', 'destination': '::1/128', 'gateway': '::', 'netmask': '', 'flags': 'U', 'interface': 'lo'}]"
	if err != nil || value.Repr(got) != want {
		t.Errorf("ip routes =\n %s, %v\nwant\n %s", value.Repr(got), err, want)
	}
	if _, err := netParseIPRoutes("blackhole 10.0.0.0/8\n", ""); err == nil || err.Error() != "'blackhole' does not appear to be an IPv4 or IPv6 network" {
		t.Errorf("blackhole route: %v", err)
	}
	// The machine's own table: every default route is in routes too.
	ctx := testContext()
	all := call(t, ctx, "network.routes", nil).(*value.List)
	for _, r := range call(t, ctx, "network.default_route", nil, "family", "inet6").(*value.List).Items {
		if !hostsContains(all, r) {
			t.Errorf("default route %s not in routes", value.Repr(r))
		}
		if f, _ := r.(*value.Map).Get("addr_family"); f != "inet6" {
			t.Errorf("default_route inet6 gave %s", value.Repr(r))
		}
	}
}

func TestNetworkIsFQDN(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{{"host.example.com", true}, {"host.example.com.", true}, {"host", false}, {"-bad.example.com", false},
		{"under_score.example", true}, {"a..b", false}, {strings.Repeat("a", 64) + ".com", false}} {
		if netIsFQDN(tc.name) != tc.ok {
			t.Errorf("is_fqdn(%q) = %v", tc.name, !tc.ok)
		}
	}
}
