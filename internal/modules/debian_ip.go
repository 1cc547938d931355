package modules

// debian_ip.go is the part of salt/modules/debian_ip.py (Salt's "ip"
// module on Debian) behind the network.routes and network.system states:
// interface route scripts in /etc/network/if-up.d and if-down.d, and the
// global settings (/etc/default/networking, the host name and the
// resolver's domain and search). The text is what Salt's debian_ip
// templates render. Paths are under the sysroot service when a test sets
// one.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/value"
)

func init() {
	execmod.Register("ip.get_routes", ipGetRoutes, "Return the lines of an interface's route scripts (if-up.d and if-down.d route-IFACE).")
	execmod.Register("ip.build_routes", ipBuildRoutes, "Write an interface's route scripts from routes (a list of name/ipaddr/netmask/gateway/metric) and return their lines; test=True only renders them.")
	execmod.Register("ip.get_network_settings", ipGetNetworkSettings, "Return the global network settings as NETWORKING/HOSTNAME/DOMAIN/SEARCH lines.")
	execmod.Register("ip.build_network_settings", ipBuildNetworkSettings, "Write /etc/default/networking (and the resolver's domain and search) from enabled, hostname and search; test=True only renders it.")
	execmod.Register("ip.apply_network_settings", ipApplyNetworkSettings, "Restart the networking service (unless require_reboot) and set the host name with apply_hostname.")
}

const (
	debNetworkUpDir   = "/etc/network/if-up.d/"
	debNetworkDownDir = "/etc/network/if-down.d/"
	debNetworkingFile = "/etc/default/networking"
	debHostnameFile   = "/etc/hostname"
	debResolvFile     = "/etc/resolv.conf"
)

// ipConfigTrue and ipConfigFalse are _CONFIG_TRUE and _CONFIG_FALSE,
// compared as Python's == does (1 and 0 are True and False).
func ipConfigIn(v any, truth bool) bool {
	words := []string{"no", "off", "false", "0"}
	if truth {
		words = []string{"yes", "on", "true", "1"}
	}
	switch x := v.(type) {
	case string:
		for _, w := range words {
			if x == w {
				return true
			}
		}
	case bool:
		return x == truth
	case int64:
		return (x == 1 && truth) || (x == 0 && !truth)
	case float64:
		return (x == 1 && truth) || (x == 0 && !truth)
	}
	return false
}

const ipConfigValid = "yes|on|true|1|True|no|off|false|0|False"

// ipPath is path under the sysroot.
func ipPath(ctx *execmod.Context, p string) string {
	if r := sysRoot(ctx); r != "" {
		return filepath.Join(r, p)
	}
	return p
}

// ipReadLines is _read_file: the lines with their newlines, none when the
// file cannot be read.
func ipReadLines(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return fileops.SplitLines(string(data))
}

func linesList(lines []string) *value.List {
	l := value.NewList()
	for _, s := range lines {
		l.Append(s)
	}
	return l
}

// ipAttrError is Salt's AttributeError from this module: the network
// states catch it (by its PythonType) and report its text as a failure.
type ipAttrError struct{ msg string }

func (e *ipAttrError) Error() string { return e.msg }

// PythonType names the Python exception class the error stands for.
func (e *ipAttrError) PythonType() string { return "AttributeError" }

func ipGetRoutes(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_routes", args, kwargs, execmod.Req("iface"))
	if err != nil {
		return nil, err
	}
	iface := execmod.String(v[0])
	// Salt's _read_file gives "" for a file it cannot read, and "" + lines
	// is a TypeError.
	up, upErr := os.ReadFile(ipPath(ctx, filepath.Join(debNetworkUpDir, "route-"+iface)))
	down, downErr := os.ReadFile(ipPath(ctx, filepath.Join(debNetworkDownDir, "route-"+iface)))
	switch {
	case upErr != nil && downErr != nil:
		return "", nil
	case upErr != nil:
		return nil, fmt.Errorf(`TypeError: can only concatenate str (not "list") to str`)
	}
	lines := fileops.SplitLines(string(up))
	if downErr == nil {
		lines = append(lines, fileops.SplitLines(string(down))...)
	}
	return linesList(lines), nil
}

// routeField is route.KEY in the template: a mapping's item, else
// nothing.
func routeField(route any, k string) (string, bool) {
	m, ok := route.(*value.Map)
	if !ok {
		return "", false
	}
	v, ok := m.GetString(k)
	if !ok || !value.Truthy(v) {
		return "", false
	}
	return value.Str(v), true
}

// renderRoutes is route_eth.jinja.
func renderRoutes(kind, iface string, routes any) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n# %s\ntest \"${IFACE}\" = \"%s\" || exit 0\n", kind, iface)
	var items []any
	switch r := routes.(type) {
	case *value.List:
		items = r.Items
	case *value.Map:
		items = r.Keys()
	case string:
		for _, c := range r {
			items = append(items, string(c))
		}
	case nil:
		return "", &ipAttrError{"'NoneType' object is not iterable"}
	default:
		return "", &ipAttrError{fmt.Sprintf("'%s' object is not iterable", pyTypeOf(routes))}
	}
	for _, route := range items {
		if n, ok := routeField(route, "name"); ok {
			b.WriteString("# " + n + "\n")
		}
		b.WriteString("ip route " + kind + " ")
		if ip, ok := routeField(route, "ipaddr"); ok {
			b.WriteString(ip)
		}
		if m, ok := routeField(route, "netmask"); ok {
			b.WriteString("/" + m)
		}
		b.WriteString(" ")
		if g, ok := routeField(route, "gateway"); ok {
			b.WriteString("via " + g)
		}
		b.WriteString(" dev " + iface)
		if m, ok := routeField(route, "metric"); ok {
			b.WriteString(" metric " + m)
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}

// lowerKeys is {k.lower(): v}.
func lowerKeys(m *value.Map) *value.Map {
	out := value.NewMap(m.Len())
	m.Range(func(k, v any) bool {
		out.Set(strings.ToLower(value.Str(k)), v)
		return true
	})
	return out
}

func ipBuildRoutes(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, settings, err := execmod.Bind("build_routes", args, kwargs, execmod.Req("iface"))
	if err != nil {
		return nil, err
	}
	iface := execmod.String(v[0])
	opts := lowerKeys(settings)
	routes, ok := opts.GetString("routes")
	if !ok {
		return nil, &ipAttrError{fmt.Sprintf("Invalid option -- Route interface: %s, Option: routes, Expected: [List of routes]", iface)}
	}
	add, err := renderRoutes("add", iface, routes)
	if err != nil {
		return nil, err
	}
	del, err := renderRoutes("del", iface, routes)
	if err != nil {
		return nil, err
	}
	if t, ok := settings.GetString("test"); ok && value.Truthy(t) {
		return linesList(fileops.SplitLines(add + del)), nil
	}
	var lines []string
	for _, f := range []struct{ dir, text string }{{debNetworkUpDir, add}, {debNetworkDownDir, del}} {
		name, err := ipWriteRoutes(ctx, iface, f.text, f.dir)
		if err != nil {
			return nil, err
		}
		lines = append(lines, ipReadLines(name)...)
	}
	return linesList(lines), nil
}

// ipWriteRoutes is _write_file_routes: route-IFACE (dots as
// underscores, for run-parts) in dir, mode 0755.
func ipWriteRoutes(ctx *execmod.Context, iface, text, dir string) (string, error) {
	folder := ipPath(ctx, dir)
	if strings.HasSuffix(dir, "/") {
		folder += "/"
	}
	name := filepath.Join(folder, "route-"+strings.ReplaceAll(iface, ".", "_"))
	if _, err := os.Stat(folder); err != nil {
		return "", &ipAttrError{fmt.Sprintf("%s cannot be written. %s does not exist", name, folder)}
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		return "", execmod.Errorf("%s", pyOSError(err))
	}
	if _, err := ctx.Call("file.set_mode", []any{name, "0755"}, nil); err != nil {
		return "", err
	}
	return name, nil
}

// ipNetworkSettings is _parse_current_network_settings, in its order.
type ipNetworkSettings struct {
	networking, hostname, domainname string
	search                           any // the resolver's search list
}

// ipResolv is the domain and search of resolv.conf (parse_resolv); ok is
// false when it cannot be read.
func ipResolv(path string) (domain string, search []string, ok bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		var arg []string
		for _, a := range f[1:] {
			if a[0] == '#' || a[0] == ';' {
				break
			}
			arg = append(arg, a)
		}
		switch strings.ToLower(f[0]) {
		case "domain":
			if len(arg) > 0 {
				domain = arg[0]
			}
		case "search":
			search = arg
		}
	}
	return domain, search, true
}

func ipHostname(ctx *execmod.Context) string {
	lines := ipReadLines(ipPath(ctx, debHostnameFile))
	if len(lines) == 0 {
		return ""
	}
	h, _, _ := strings.Cut(lines[0], "\n")
	return h
}

func ipCurrentSettings(ctx *execmod.Context) ipNetworkSettings {
	var s ipNetworkSettings
	if data, err := os.ReadFile(ipPath(ctx, debNetworkingFile)); err == nil {
		for _, line := range fileops.SplitLines(string(data)) {
			if strings.HasPrefix(line, "#") {
				continue
			}
			if strings.HasPrefix(line, "CONFIGURE_INTERFACES") {
				_, v, _ := strings.Cut(line, "=")
				s.networking = strings.TrimSpace(v)
			}
		}
	}
	s.hostname = ipHostname(ctx)
	domain, search, _ := ipResolv(ipPath(ctx, debResolvFile))
	s.domainname = domain
	l := value.NewList()
	for _, x := range search {
		l.Append(x)
	}
	s.search = l
	return s
}

// renderDisplayNetwork is display-network.jinja.
func renderDisplayNetwork(networking, hostname, domain string, search any) []string {
	var lines []string
	for _, kv := range []struct {
		k string
		v any
	}{{"NETWORKING", networking}, {"HOSTNAME", hostname}, {"DOMAIN", domain}, {"SEARCH", search}} {
		if value.Truthy(kv.v) {
			lines = append(lines, kv.k+"="+value.Str(kv.v)+"\n")
		}
	}
	return lines
}

// ipUbuntuServices is the Ubuntu 12.04+ case, where the networking
// service stands for /etc/default/networking.
func ipUbuntuServices(ctx *execmod.Context) bool {
	full, _ := ctx.Grains.GetString("osfullname")
	rel, _ := ctx.Grains.GetString("osrelease")
	major, err := strconv.Atoi(strings.Split(value.Str(rel), ".")[0])
	return value.Str(full) == "Ubuntu" && err == nil && major >= 12
}

func ipGetNetworkSettings(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("get_network_settings", args, kwargs); err != nil {
		return nil, err
	}
	if ipUbuntuServices(ctx) {
		networking := "no"
		if avail, err := ctx.Call("service.available", []any{"networking"}, nil); err != nil {
			return nil, err
		} else if value.Truthy(avail) {
			st, err := ctx.Call("service.status", []any{"networking"}, nil)
			if err != nil {
				return nil, err
			}
			if value.Truthy(st) {
				networking = "yes"
			}
		}
		domain, _, _ := ipResolv(ipPath(ctx, debResolvFile))
		return linesList(renderDisplayNetwork(networking, ipHostname(ctx), domain, nil)), nil
	}
	s := ipCurrentSettings(ctx)
	return linesList(renderDisplayNetwork(s.networking, s.hostname, s.domainname, s.search)), nil
}

// renderNetworking is network.jinja.
func renderNetworking(networking string) string {
	return "# Configuration for networking init script being run during\n# the boot sequence\n\n" +
		"# Set to 'no' to skip interfaces configuration on boot\nCONFIGURE_INTERFACES=" + networking + "\n\n" +
		"# Don't configure these interfaces. Shell wildcards supported/\n#EXCLUDE_INTERFACES=\n\n" +
		"# Set to 'yes' to enable additional verbosity\n#VERBOSE=no"
}

var (
	ipDomainRE = regexp.MustCompile(`^domain\s+`)
	ipSearchRE = regexp.MustCompile(`^search\s+`)
)

func ipBuildNetworkSettings(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	_, settings, err := execmod.Bind("build_network_settings", args, kwargs)
	if err != nil {
		return nil, err
	}
	test := false
	if t, ok := settings.GetString("test"); ok {
		test = value.Truthy(t)
	}
	cur := ipCurrentSettings(ctx)
	opts := lowerKeys(settings)
	// _parse_network_settings
	var networking any = cur.networking
	if en, ok := opts.GetString("enabled"); ok {
		networking = en
	}
	var netWord string
	switch {
	case ipConfigIn(networking, true):
		netWord = "yes"
	case ipConfigIn(networking, false):
		netWord = "no"
	default:
		return nil, &ipAttrError{"Invalid network setting -- Setting: networking, Expected: [" + ipConfigValid + "]"}
	}
	var hostname any = cur.hostname
	if h, ok := opts.GetString("hostname"); ok {
		hostname = h
	}
	if !value.Truthy(hostname) {
		return nil, &ipAttrError{"Invalid network setting -- Setting: hostname, Expected: [server1.example.com]"}
	}
	hs, isStr := hostname.(string)
	if !isStr {
		return nil, &ipAttrError{fmt.Sprintf("'%s' object has no attribute 'split'", pyTypeOf(hostname))}
	}
	search, hasSearch := opts.GetString("search")
	if ipUbuntuServices(ctx) {
		fun := "service.disable"
		if netWord == "yes" {
			fun = "service.enable"
		}
		for _, svc := range []string{"NetworkManager", "networking"} {
			avail, err := ctx.Call("service.available", []any{svc}, nil)
			if err != nil {
				return nil, err
			}
			if value.Truthy(avail) {
				if _, err := ctx.Call(fun, []any{svc}, nil); err != nil {
					return nil, err
				}
			}
		}
	} else {
		text := renderNetworking(netWord)
		if test {
			return linesList(fileops.SplitLines(text)), nil
		}
		if err := os.WriteFile(ipPath(ctx, debNetworkingFile), []byte(text), 0o644); err != nil {
			return nil, execmod.Errorf("%s", pyOSError(err))
		}
	}
	short, dom, hasDom := strings.Cut(hs, ".")
	domain, newDomain := cur.domainname, false
	if hasDom && dom != cur.domainname {
		domain, newDomain = dom, true
	}
	var searchDomain any = cur.search
	newSearch := false
	if hasSearch && !value.Equal(search, cur.search) {
		searchDomain, newSearch = search, true
	}
	if newDomain || newSearch {
		path := ipPath(ctx, debResolvFile)
		_, _, readable := ipResolv(path)
		var lines []string
		for _, item := range ipReadLines(path) {
			switch {
			case ipDomainRE.MatchString(item):
				item = "domain " + domain
			case ipSearchRE.MatchString(item):
				item = "search " + value.Str(searchDomain)
			}
			lines = append(lines, item)
		}
		if !readable {
			lines = append([]string{"domain " + domain}, lines...)
			lines = append([]string{"search " + value.Str(searchDomain)}, lines...)
		}
		if !test {
			if _, err := os.Stat(path); err != nil {
				return nil, &ipAttrError{fmt.Sprintf("%[1]s cannot be written. %[1]s does not exist and create is setto False", path)}
			}
			if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
				return nil, execmod.Errorf("%s", pyOSError(err))
			}
		}
	}
	return linesList(renderDisplayNetwork(netWord, short, domain, searchDomain)), nil
}

func ipApplyNetworkSettings(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	_, settings, err := execmod.Bind("apply_network_settings", args, kwargs)
	if err != nil {
		return nil, err
	}
	get := func(k string) any {
		v, ok := settings.GetString(k)
		if !ok {
			return false
		}
		return v
	}
	hostnameOK := true
	if ipConfigIn(get("apply_hostname"), true) {
		if h, ok := settings.GetString("hostname"); ok {
			res, err := ctx.Call("network.mod_hostname", []any{h}, nil)
			if err != nil {
				return nil, err
			}
			hostnameOK = value.Truthy(res)
		} else {
			hostnameOK = false
		}
	}
	var res any = true
	if !ipConfigIn(get("require_reboot"), true) {
		stop, err := ctx.Call("service.stop", []any{"networking"}, nil)
		if err != nil {
			return nil, err
		}
		time.Sleep(2 * time.Second)
		res = stop
		if value.Truthy(stop) {
			if res, err = ctx.Call("service.start", []any{"networking"}, nil); err != nil {
				return nil, err
			}
		}
	}
	if !hostnameOK {
		return false, nil
	}
	return res, nil
}
