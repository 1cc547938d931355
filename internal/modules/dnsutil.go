package modules

// dnsutil.go is salt/modules/dnsutil.py: hosts and zone file parsing,
// DNS lookups (with dig when it is installed, as Salt's dig module, else
// the system resolver), and zone serials kept in a grain.

import (
	"context"
	"math/big"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("dnsutil.parse_hosts", dnsParseHosts, "Parse a hosts file (hostsfile=/etc/hosts, or the text hosts) into {ip: [aliases]}.")
	execmod.Register("dnsutil.hosts_append", dnsHostsAppend, "Append a line of ip_addr with the comma-separated entries missing from hostsfile.")
	execmod.Register("dnsutil.hosts_remove", dnsHostsRemove, "Remove the comma-separated entries from the lines of hostsfile.")
	execmod.Register("dnsutil.parse_zone", dnsParseZone, "Parse a BIND zone file (zonefile, or the text zone) into a dict.")
	execmod.Register("dnsutil.check_ip", dnsCheckIP, "True when ip_addr is an address or network (needs dig, as Salt).")
	execmod.Register("dnsutil.A", dnsA, "Return the IPv4 addresses of host (dig, else the resolver when no nameserver is given).")
	execmod.Register("dnsutil.AAAA", dnsAAAA, "Return the IPv6 addresses of host (dig, else the resolver when no nameserver is given).")
	execmod.Register("dnsutil.NS", dnsNS, "Return the name servers of domain, resolved to addresses unless resolve=False (needs dig).")
	execmod.Register("dnsutil.SPF", dnsSPF, "Return the addresses allowed by the SPF record of domain (needs dig).")
	execmod.Register("dnsutil.MX", dnsMX, "Return the mail exchangers of domain as [priority, host], hosts resolved with resolve=True (needs dig).")
	execmod.Register("dnsutil.serial", dnsSerial, "Return the zone serial kept in the dnsserial[_zone] grain (a new YYYYMMDD01 serial); update=True stores the next one.")
}

const dnsNoDig = "This function requires dig, which is not currently available"

func dnsHasDig() bool {
	_, err := exec.LookPath("dig")
	return err == nil
}

// dnsParseHostsText is parse_hosts on text.
func dnsParseHostsText(text string) *value.Map {
	out := value.NewMap(0)
	for _, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := strings.Fields(line)
		if len(c) == 0 {
			continue
		}
		l, ok := out.Get(c[0])
		if !ok {
			l = value.NewList()
			out.Set(c[0], l)
		}
		for _, a := range c[1:] {
			l.(*value.List).Append(a)
		}
	}
	return out
}

func dnsParseHostsOf(hostsfile string, hosts any) any {
	text := execmod.String(hosts)
	if !value.Truthy(hosts) {
		b, err := os.ReadFile(hostsfile)
		if err != nil {
			return "Error: hosts data was not found"
		}
		text = string(b)
	}
	return dnsParseHostsText(text)
}

func dnsParseHosts(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("parse_hosts", args, kwargs, execmod.Opt("hostsfile", "/etc/hosts"), execmod.Opt("hosts", nil))
	if err != nil {
		return nil, err
	}
	return dnsParseHostsOf(execmod.String(v[0]), v[1]), nil
}

func dnsHostsAppend(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("hosts_append", args, kwargs, execmod.Opt("hostsfile", "/etc/hosts"), execmod.Opt("ip_addr", nil), execmod.Opt("entries", nil))
	if err != nil {
		return nil, err
	}
	if v[2] == nil {
		return nil, netPyErrorf("AttributeError", "'NoneType' object has no attribute 'split'")
	}
	hostsfile, ip := execmod.String(v[0]), value.Str(v[1])
	list := strings.Split(execmod.String(v[2]), ",")
	if hosts, ok := dnsParseHostsOf(hostsfile, nil).(*value.Map); ok {
		if have, ok := hosts.Get(ip); ok {
			// As Salt: entries are removed from the list while it is walked.
			for i := 0; i < len(list); i++ {
				if hostsContains(have.(*value.List), list[i]) {
					list = append(list[:i], list[i+1:]...)
				}
			}
		}
	}
	if len(list) == 0 {
		return "No additional hosts were added to " + hostsfile, nil
	}
	line := "\n" + ip + " " + strings.Join(list, " ")
	f, err := os.OpenFile(hostsfile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return "The following line was added to " + hostsfile + ":" + line, nil
}

func dnsHostsRemove(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("hosts_remove", args, kwargs, execmod.Opt("hostsfile", "/etc/hosts"), execmod.Opt("entries", nil))
	if err != nil {
		return nil, err
	}
	hostsfile := execmod.String(v[0])
	data, err := os.ReadFile(hostsfile)
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	if v[1] == nil {
		return nil, netPyErrorf("AttributeError", "'NoneType' object has no attribute 'split'")
	}
	list := strings.Split(execmod.String(v[1]), ",")
	var sb strings.Builder
	lines := strings.Split(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for _, line := range lines {
		if line == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			sb.WriteString(line + "\n")
			continue
		}
		c := strings.Fields(line)
		for _, h := range list {
			for i := 1; i < len(c); i++ {
				if c[i] == h {
					c = append(c[:i], c[i+1:]...)
					break
				}
			}
		}
		if len(c) > 1 {
			sb.WriteString(strings.Join(c, " ") + "\n")
		}
	}
	if err := os.WriteFile(hostsfile, []byte(sb.String()), 0o644); err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return nil, nil
}

// dnsToSeconds is dnsutil._to_seconds: H, D and W suffixes, at most a
// week.
func dnsToSeconds(s string) int64 {
	s = strings.ToUpper(s)
	var n int64
	var err error
	switch {
	case strings.Contains(s, "H"):
		n, err = strconv.ParseInt(strings.ReplaceAll(s, "H", ""), 10, 64)
		n *= 3600
	case strings.Contains(s, "D"):
		n, err = strconv.ParseInt(strings.ReplaceAll(s, "D", ""), 10, 64)
		n *= 86400
	case strings.Contains(s, "W"):
		n = 604800
	default:
		if n, err = strconv.ParseInt(s, 10, 64); err != nil {
			n, err = 604800, nil
		}
	}
	if err != nil {
		return 0
	}
	return min(n, 604800)
}

// dnsParseZoneText is parse_zone on the text of a zone.
func dnsParseZoneText(zone string) (*value.Map, error) {
	z := value.NewMap(0)
	get := func(k string) string {
		x, _ := z.Get(k)
		return value.Str(x)
	}
	multi, mode := "", "single"
	for _, raw := range strings.Split(zone, "\n") {
		line, _, _ := strings.Cut(raw, ";")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		c := strings.Fields(line)
		if strings.HasPrefix(line, "$") {
			if len(c) < 2 {
				return nil, netPyErrorf("IndexError", "list index out of range")
			}
			z.Set(strings.ReplaceAll(c[0], "$", ""), c[1])
			continue
		}
		if strings.Contains(line, "(") && !strings.Contains(line, ")") {
			mode, multi = "multi", ""
		}
		if mode == "multi" {
			multi += " " + line
			if !strings.Contains(line, ")") {
				continue
			}
			mode = "single"
			line = strings.NewReplacer("(", "", ")", "").Replace(multi)
		}
		if _, ok := z.Get("ORIGIN"); ok {
			c = strings.Fields(strings.ReplaceAll(line, "@", get("ORIGIN")))
		} else {
			c = strings.Fields(line)
		}
		idx := func(i int) (string, error) {
			if i >= len(c) {
				return "", netPyErrorf("IndexError", "list index out of range")
			}
			return c[i], nil
		}
		if strings.Contains(line, "SOA") {
			if len(c) > 1 && c[1] != "IN" {
				c = append(c[:1], c[2:]...)
			}
			if len(c) < 10 {
				return nil, netPyErrorf("IndexError", "list index out of range")
			}
			z.Set("ORIGIN", c[0])
			z.Set("NETWORK", c[1])
			z.Set("SOURCE", c[3])
			z.Set("CONTACT", strings.Replace(c[4], ".", "@", 1))
			z.Set("SERIAL", c[5])
			z.Set("REFRESH", dnsToSeconds(c[6]))
			z.Set("RETRY", dnsToSeconds(c[7]))
			z.Set("EXPIRE", dnsToSeconds(c[8]))
			z.Set("MINTTL", dnsToSeconds(c[9]))
			continue
		}
		if c[0] == "IN" {
			if _, ok := z.Get("ORIGIN"); !ok {
				return nil, netPyErrorf("KeyError", "'ORIGIN'")
			}
			c = append([]string{get("ORIGIN")}, c...)
		}
		if !strings.HasSuffix(c[0], ".") && !strings.Contains(line, "NS") {
			if _, ok := z.Get("ORIGIN"); !ok {
				return nil, netPyErrorf("KeyError", "'ORIGIN'")
			}
			c[0] = c[0] + "." + get("ORIGIN")
		}
		c2, err := idx(2)
		if err != nil {
			return nil, err
		}
		c3, err := idx(3)
		if err != nil {
			return nil, err
		}
		switch {
		case c2 == "NS":
			l, ok := z.Get("NS")
			if !ok {
				l = value.NewList()
				z.Set("NS", l)
			}
			l.(*value.List).Append(c3)
		case c2 == "MX":
			if _, ok := z.Get("MX"); !ok {
				c4, err := idx(4)
				if err != nil {
					return nil, err
				}
				z.Set("MX", value.NewList(value.MapOf("priority", c3, "host", c4)))
			}
		case c3 == "A" || c3 == "AAAA":
			c4, err := idx(4)
			if err != nil {
				return nil, err
			}
			m, ok := z.Get(c3)
			if !ok {
				m = value.NewMap(0)
				z.Set(c3, m)
			}
			m.(*value.Map).Set(c[0], value.MapOf("TARGET", c4, "TTL", c[1]))
		default:
			m, ok := z.Get(c2)
			if !ok {
				m = value.NewMap(0)
				z.Set(c2, m)
			}
			if mm, isMap := m.(*value.Map); isMap {
				mm.Set(c[0], c3)
			}
		}
	}
	return z, nil
}

func dnsParseZone(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("parse_zone", args, kwargs, execmod.Opt("zonefile", nil), execmod.Opt("zone", nil))
	if err != nil {
		return nil, err
	}
	zone := execmod.String(v[1])
	if value.Truthy(v[0]) {
		if b, err := os.ReadFile(execmod.String(v[0])); err == nil {
			zone = string(b)
		}
	}
	if zone == "" {
		return "Error: Zone data was not found", nil
	}
	return dnsParseZoneText(zone)
}

// dnsIsIP is dig.check_ip: an IPv4 address (with a /1-32 prefix) or an
// IPv6 address (with a /8-128 prefix).
func dnsIsIP(s string) bool {
	addr, pfx, hasPfx := s, "", false
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		addr, pfx, hasPfx = s[:i], s[i+1:], true
	}
	a, err := netip.ParseAddr(addr)
	if err != nil || a.Zone() != "" {
		return false
	}
	lo, hi := 1, 32
	if a.Is6() {
		lo, hi = 8, 128
	}
	if !hasPfx {
		return true
	}
	n, err := strconv.Atoi(strings.TrimSpace(pfx))
	return err == nil && n >= lo && n <= hi
}

func dnsCheckIP(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("check_ip", args, kwargs, execmod.Req("ip_addr"))
	if err != nil {
		return nil, err
	}
	if !dnsHasDig() {
		return dnsNoDig, nil
	}
	s, ok := v[0].(string)
	if !ok {
		return false, nil
	}
	return dnsIsIP(s), nil
}

// dnsDig runs dig +short name rtype [@nameserver]; ok false on a non-zero
// exit.
func dnsDig(ctx *execmod.Context, name, rtype string, ns any) ([]string, bool, error) {
	cmd := value.NewList("dig", "+short", name, rtype)
	if ns != nil {
		cmd.Append("@" + value.Str(ns))
	}
	res, err := ctx.Call("cmd.run_all", []any{cmd}, value.MapOf("python_shell", false))
	if err != nil {
		return nil, false, err
	}
	m := res.(*value.Map)
	if rc, _ := m.Get("retcode"); !value.Equal(rc, int64(0)) {
		return nil, false, nil
	}
	out, _ := m.Get("stdout")
	return strings.Split(execmod.String(out), "\n"), true, nil
}

func dnsDigAddrs(ctx *execmod.Context, host, rtype string, ns any) (*value.List, error) {
	lines, ok, err := dnsDig(ctx, host, rtype, ns)
	out := value.NewList()
	if err != nil || !ok {
		return out, err
	}
	for _, l := range lines {
		if dnsIsIP(l) {
			out.Append(l)
		}
	}
	return out, nil
}

func dnsLookup(ctx *execmod.Context, args []any, kwargs *value.Map, fun, rtype, network string) (any, error) {
	v, _, err := execmod.Bind(fun, args, kwargs, execmod.Req("host"), execmod.Opt("nameserver", nil))
	if err != nil {
		return nil, err
	}
	host := value.Str(v[0])
	if dnsHasDig() {
		return dnsDigAddrs(ctx, host, rtype, v[1])
	}
	if v[1] != nil {
		return dnsNoDig, nil
	}
	rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(rctx, network, host)
	if err != nil || len(ips) == 0 {
		return "Unable to resolve " + host, nil
	}
	out := value.NewList()
	for _, ip := range ips {
		if network == "ip4" {
			ip = ip.Unmap()
		}
		out.Append(ip.String())
	}
	return out, nil
}

func dnsA(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return dnsLookup(ctx, args, kwargs, "A", "A", "ip4")
}

func dnsAAAA(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return dnsLookup(ctx, args, kwargs, "AAAA", "AAAA", "ip6")
}

func dnsNS(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("NS", args, kwargs, execmod.Req("domain"), execmod.Opt("resolve", true), execmod.Opt("nameserver", nil))
	if err != nil {
		return nil, err
	}
	if !dnsHasDig() {
		return dnsNoDig, nil
	}
	lines, ok, err := dnsDig(ctx, value.Str(v[0]), "NS", v[2])
	if err != nil || !ok {
		return value.NewList(), err
	}
	if !value.Truthy(v[1]) {
		return strList(lines), nil
	}
	out := value.NewList()
	for _, h := range lines {
		addrs, err := dnsDigAddrs(ctx, h, "A", v[2])
		if err != nil {
			return nil, err
		}
		out.Items = append(out.Items, addrs.Items...)
	}
	return out, nil
}

var dnsSPFRe = regexp.MustCompile(`^(?:\+|~)?(ip[46]|include):(.+)`)

func dnsSPFOf(ctx *execmod.Context, domain, record string, ns any, depth int) (*value.List, error) {
	out := value.NewList()
	if depth > 10 {
		return out, nil
	}
	lines, ok, err := dnsDig(ctx, domain, record, ns)
	if err != nil || !ok {
		return out, err
	}
	stdout := strings.Join(lines, "\n")
	if stdout == "" && record == "SPF" {
		return dnsSPFOf(ctx, domain, "TXT", ns, depth+1)
	}
	sections := strings.Fields(strings.ReplaceAll(stdout, `"`, ""))
	if len(sections) == 0 || sections[0] != "v=spf1" {
		return out, nil
	}
	if len(sections) > 1 && strings.HasPrefix(sections[1], "redirect=") {
		return dnsSPFOf(ctx, sections[1][9:], "SPF", ns, depth+1)
	}
	for _, s := range sections[1:] {
		m := dnsSPFRe.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		if m[1] == "include" {
			sub, err := dnsSPFOf(ctx, m[2], "SPF", ns, depth+1)
			if err != nil {
				return nil, err
			}
			out.Items = append(out.Items, sub.Items...)
		} else if dnsIsIP(m[2]) {
			out.Append(m[2])
		}
	}
	return out, nil
}

func dnsSPF(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("SPF", args, kwargs, execmod.Req("domain"), execmod.Opt("record", "SPF"), execmod.Opt("nameserver", nil))
	if err != nil {
		return nil, err
	}
	if !dnsHasDig() {
		return dnsNoDig, nil
	}
	return dnsSPFOf(ctx, value.Str(v[0]), value.Str(v[1]), v[2], 0)
}

func dnsMX(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("MX", args, kwargs, execmod.Req("domain"), execmod.Opt("resolve", false), execmod.Opt("nameserver", nil))
	if err != nil {
		return nil, err
	}
	if !dnsHasDig() {
		return dnsNoDig, nil
	}
	lines, ok, err := dnsDig(ctx, value.Str(v[0]), "MX", v[2])
	if err != nil || !ok {
		return value.NewList(), err
	}
	out := value.NewList()
	for _, l := range lines {
		f := strings.Fields(l)
		if !value.Truthy(v[1]) {
			out.Append(strList(f))
			continue
		}
		if len(f) < 2 {
			return nil, netPyErrorf("IndexError", "list index out of range")
		}
		addrs, err := dnsDigAddrs(ctx, f[1], "A", v[2])
		if err != nil {
			return nil, err
		}
		if addrs.Len() == 0 {
			return nil, netPyErrorf("IndexError", "list index out of range")
		}
		out.Append(value.NewList(f[0], addrs.Items[0]))
	}
	return out, nil
}

func dnsSerial(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("serial", args, kwargs, execmod.Opt("zone", ""), execmod.Opt("update", false))
	if err != nil {
		return nil, err
	}
	key := "dnsserial"
	if value.Truthy(v[0]) {
		key += "_" + value.Str(v[0])
	}
	stored, err := ctx.Call("grains.get", nil, value.MapOf("key", key))
	if err != nil {
		return nil, err
	}
	present := time.Now().Format("20060102") + "01"
	if !value.Truthy(v[1]) {
		if value.Truthy(stored) {
			return stored, nil
		}
		return present, nil
	}
	current := present
	if value.Truthy(stored) && value.Str(stored) >= present {
		n, err := testPyInt(stored)
		if err != nil {
			return nil, err
		}
		current = n.Add(n, big.NewInt(1)).String()
	}
	if _, err := ctx.Call("grains.setval", nil, value.MapOf("key", key, "val", current)); err != nil {
		return nil, err
	}
	return current, nil
}
