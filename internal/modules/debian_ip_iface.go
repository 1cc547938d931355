package modules

// debian_ip_iface.go is the interface half of salt/modules/debian_ip.py:
// reading /etc/network/interfaces (and interfaces.d) into Salt's adapter
// mappings, building an adapter from network.managed's settings (address
// families, validated options, ethtool, bonding, bridging, vlan and slave
// interfaces, source lines), rendering adapters as Salt's debian_eth and
// debian_source templates do, bonding module options in /etc/modprobe.d,
// and ifup/ifdown. PPPoE interfaces (a ppp peers file) are not supported.

import (
	"fmt"
	"math"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/value"
)

func init() {
	execmod.Register("ip.get_interface", ipGetInterface, "Return an interface's configuration lines from /etc/network/interfaces ([] when it has none).")
	execmod.Register("ip.build_interface", ipBuildInterface, "Write an interface's configuration (iface, iface_type, enabled, settings) and return its lines; test=True only renders them.")
	execmod.Register("ip.get_bond", ipGetBond, "Return the lines of a bond's /etc/modprobe.d/IFACE.conf.")
	execmod.Register("ip.build_bond", ipBuildBond, "Write a bond's /etc/modprobe.d/IFACE.conf from its settings, load bonding and install ifenslave; test=True only renders it.")
	execmod.Register("ip.up", ipUp, "Bring an interface up with ifup (not slaves and sources).")
	execmod.Register("ip.down", ipDown, "Bring an interface down with ifdown (not slaves and sources).")
}

const (
	debNetworkFile  = "/etc/network/interfaces"
	debNetworkDir   = "/etc/network/interfaces.d/"
	debModprobeDir  = "/etc/modprobe.d/"
	ipIfaceTypeList = "eth|bond|alias|clone|ipsec|dialup|bridge|slave|vlan|pppoe|source"
)

var ethtoolConfigOpts = map[string]string{"speed": "link-speed", "duplex": "link-duplex", "autoneg": "ethernet-autoneg",
	"rx": "offload-rx", "tx": "offload-tx", "sg": "offload-sg", "tso": "offload-tso", "ufo": "offload-ufo", "gso": "offload-gso",
	"gro": "offload-gro", "lro": "offload-lro"}

// revEthtoolOpts are the ethtool keys of an interfaces file.
var revEthtoolOpts = map[string]bool{"link-speed": true, "link-duplex": true, "ethernet-autoneg": true, "ethernet-port": true,
	"ethernet-wol": true, "driver-message-level": true, "ethernet-pause-rx": true, "ethernet-pause-tx": true,
	"ethernet-pause-autoneg": true, "offload-rx": true, "offload-tx": true, "offload-sg": true, "offload-tso": true,
	"offload-ufo": true, "offload-gso": true, "offload-lro": true, "offload-gro": true,
	"hardware-irq-coalesce-adaptive-rx": true, "hardware-irq-coalesce-adaptive-tx": true,
	"hardware-irq-coalesce-rx-usecs": true, "hardware-irq-coalesce-rx-frames": true, "hardware-dma-ring-rx": true,
	"hardware-dma-ring-rx-mini": true, "hardware-dma-ring-rx-jumbo": true, "hardware-dma-ring-tx": true}

func ifaceErr(iface, option, expected string) error {
	return &ipAttrError{fmt.Sprintf("Invalid option -- Interface: %s, Option: %s, Expected: [%s]", iface, option, expected)}
}

// Validators: each is one of Salt's __ipv4_quad, __int, ... and returns
// whether the value is valid and the value to keep.
type ipValidator func(v any) (bool, any)

func ipPyInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return 0, false
		}
		return int64(x), true
	case string:
		n, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(x), "_", ""), 10, 64)
		return n, err == nil
	}
	return 0, false
}

func vInt(v any) (bool, any) {
	if n, ok := ipPyInt(v); ok {
		return true, n
	}
	return false, v
}

func vFloat(v any) (bool, any) {
	switch x := v.(type) {
	case float64:
		return true, x
	case int64:
		return true, float64(x)
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err == nil {
			return true, f
		}
	}
	return false, v
}

func vAnything(v any) (bool, any) { return true, v }

// ipAddrValid is salt.utils.validate.net's __ip_addr.
func ipAddrValid(v any, six bool) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	maxMask := 32
	if six {
		maxMask = 128
	}
	ip, mask, hasMask := strings.Cut(s, "/")
	if i := strings.LastIndex(s, "/"); i >= 0 {
		ip, mask = s[:i], s[i+1:]
	}
	a, err := netip.ParseAddr(ip)
	if err != nil || a.Zone() != "" || (six && !a.Is6()) || (!six && !a.Is4()) {
		return false
	}
	if hasMask {
		m, ok := ipPyInt(mask)
		return ok && m >= 1 && m <= int64(maxMask)
	}
	return true
}

func vIPv4(v any) (bool, any) { return ipAddrValid(v, false), v }
func vIPv6(v any) (bool, any) { return ipAddrValid(v, true), v }

var macRE = regexp.MustCompile(`(?i)^(([0-9A-F]{1,2}[-]){5}([0-9A-F]{1,2})|([0-9A-F]{1,2}[:]){5}([0-9A-F]{1,2})|([0-9A-F]{1,2}[.]){5}([0-9A-F]{1,2}))$`)

func vMAC(v any) (bool, any) {
	s, ok := v.(string)
	return ok && macRE.MatchString(s), v
}

func netmaskValid(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	octets := strings.Split(s, ".")
	if len(octets) != 4 || !ipAddrValid(s, false) {
		return false
	}
	return sort.SliceIsSorted(octets, func(i, j int) bool { return octets[i] > octets[j] })
}

func vIPv4Mask(v any) (bool, any) {
	ok, n := vInt(v)
	if ok {
		if x := n.(int64); x >= 0 && x <= 32 {
			return true, n
		}
	}
	return netmaskValid(n), n
}

func vIPv6Mask(v any) (bool, any) {
	ok, n := vInt(v)
	if x, isInt := n.(int64); ok && isInt && x >= 0 && x <= 128 {
		return true, n
	}
	return false, n
}

func vSpaceList(v any) (bool, any) {
	if s, ok := v.(string); ok {
		l := value.NewList()
		for _, f := range strings.Fields(s) {
			l.Append(f)
		}
		return l.Len() > 0, l
	}
	switch x := v.(type) {
	case *value.List:
		return x.Len() > 0, v
	case *value.Map:
		return true, v
	}
	return false, v
}

// vWithin is __within: the value (converted by dtype "str" or "int") must
// be one of within.
func vWithin(dtype string, within ...any) ipValidator {
	return func(v any) (bool, any) {
		conv := v
		switch dtype {
		case "str":
			conv = value.Str(v)
		case "int":
			n, ok := ipPyInt(v)
			if !ok {
				return false, v
			}
			conv = n
		}
		for _, w := range within {
			if value.Equal(conv, w) {
				return true, conv
			}
		}
		return false, conv
	}
}

var (
	ipv4AttrMap = map[string]ipValidator{
		"proto": vWithin("str", "bootp", "dhcp", "static", "manual", "loopback", "ppp"), "address": vIPv4, "addresses": vAnything,
		"netmask": vIPv4Mask, "broadcast": vIPv4, "metric": vInt, "gateway": vIPv4, "pointopoint": vIPv4, "hwaddress": vMAC,
		"mtu": vInt, "scope": vWithin("str", "global", "link", "host"), "hostname": vAnything, "leasehours": vInt, "leasetime": vInt,
		"vendor": vAnything, "client": vAnything, "bootfile": vAnything, "server": vIPv4, "hwaddr": vMAC,
		"mode": vWithin("str", "gre", "GRE", "ipip", "IPIP", "802.3ad"), "endpoint": vIPv4, "dstaddr": vIPv4, "local": vIPv4,
		"ttl": vInt, "slaves": vAnything, "provider": vAnything, "unit": vInt, "options": vAnything,
		"dns-nameservers": vSpaceList, "dns-search": vSpaceList, "vlan-raw-device": vAnything, "network": vAnything,
		"test": vAnything, "enable_ipv4": vAnything, "enable_ipv6": vAnything,
	}
	ipv6AttrMap = map[string]ipValidator{
		"proto": vWithin("", "auto", "loopback", "static", "manual", "dhcp", "v4tunnel", "6to4"), "address": vIPv6,
		"addresses": vAnything, "netmask": vIPv6Mask, "broadcast": vIPv6, "gateway": vIPv6, "hwaddress": vMAC, "mtu": vInt,
		"scope": vWithin("str", "global", "site", "link", "host"), "privext": vWithin("int", int64(0), int64(1), int64(2)),
		"dhcp": vWithin("int", int64(0), int64(1)), "media": vAnything, "accept_ra": vWithin("int", int64(0), int64(1), int64(2)),
		"autoconf": vWithin("int", int64(0), int64(1)), "preferred-lifetime": vInt, "dad-attempts": vInt, "dad-interval": vFloat,
		"slaves": vAnything, "mode": vWithin("str", "gre", "GRE", "ipip", "IPIP", "802.3ad"), "endpoint": vIPv4, "local": vIPv4,
		"ttl": vInt, "dns-nameservers": vSpaceList, "dns-search": vSpaceList, "vlan-raw-device": vAnything, "test": vAnything,
		"enable_ipv4": vAnything, "enable_ipv6": vAnything,
	}
	wirelessAttrMap = map[string]ipValidator{
		"wireless-essid": vAnything, "wireless-mode": vAnything, "wpa-ap-scan": vWithin("int", int64(0), int64(1), int64(2)),
		"wpa-conf": vAnything, "wpa-driver": vAnything, "wpa-group": vAnything, "wpa-key-mgmt": vAnything, "wpa-pairwise": vAnything,
		"wpa-psk": vAnything, "wpa-proto": vAnything, "wpa-roam": vAnything, "wpa-ssid": vAnything,
	}
	saltToDebianAttr = map[string]string{"dns": "dns-nameservers", "search": "dns-search", "hwaddr": "hwaddress", "ipaddr": "address", "ipaddrs": "addresses"}
)

// validateIfaceOption is _validate_interface_option.
func validateIfaceOption(attr string, v any, addrfam string) (bool, any) {
	var maps []map[string]ipValidator
	switch addrfam {
	case "inet":
		maps = []map[string]ipValidator{ipv4AttrMap, wirelessAttrMap}
	case "inet6":
		maps = []map[string]ipValidator{ipv6AttrMap, wirelessAttrMap}
	}
	for _, m := range maps {
		if f, ok := m[attr]; ok {
			return f(v)
		}
	}
	return false, v
}

func attrKnown(attr string) bool {
	_, a := ipv4AttrMap[attr]
	_, b := ipv6AttrMap[attr]
	_, c := wirelessAttrMap[attr]
	return a || b || c
}

// subMap returns m[k] as a mapping, creating it.
func subMap(m *value.Map, k string) *value.Map {
	if v, ok := m.GetString(k); ok {
		if sm, ok := v.(*value.Map); ok {
			return sm
		}
	}
	sm := value.NewMap(0)
	m.Set(k, sm)
	return sm
}

var bondBridgeSplitRE = regexp.MustCompile(`[_-]`)

// parseInterfaces is _parse_interfaces over the interfaces file and the
// files of interfaces.d.
func parseInterfaces(ctx *execmod.Context) (*value.Map, error) {
	var files []string
	if entries, err := os.ReadDir(ipPath(ctx, debNetworkDir)); err == nil {
		for _, e := range entries {
			files = append(files, debNetworkDir+"/"+e.Name())
		}
	}
	if st, err := os.Stat(ipPath(ctx, debNetworkFile)); err == nil && st.Mode().IsRegular() {
		files = append([]string{debNetworkFile}, files...)
	}
	adapters := value.NewMap(0)
	for _, file := range files {
		data, err := os.ReadFile(ipPath(ctx, file))
		if err != nil {
			return nil, execmod.Errorf("%s", pyOSError(err))
		}
		iface := value.NewMap(0)
		for _, line := range fileops.SplitLines(string(data)) {
			if strings.HasPrefix(strings.TrimLeft(line, " \t\r\n\v\f"), "#") || strings.TrimSpace(line) == "" {
				continue
			}
			switch {
			case strings.HasPrefix(line, "iface"):
				f := strings.Fields(line)
				if len(f) != 4 {
					return nil, &ipAttrError{fmt.Sprintf("Interface file malformed: %s.", value.Repr(strList(f)))}
				}
				ad := subMap(adapters, f[1])
				fams := subMap(ad, "data")
				iface = subMap(fams, f[2])
				iface.Set("addrfam", f[2])
				iface.Set("proto", f[3])
				iface.Set("filename", file)
			case line[0] == ' ' || line[0] == '\t' || line[0] == '\v' || line[0] == '\f' || line[0] == '\r':
				// attr, valuestr = line.rstrip().split(None, 1)
				trimmed := strings.TrimSpace(line)
				f := strings.Fields(trimmed)
				if len(f) < 2 {
					return nil, execmod.Errorf("ValueError: not enough values to unpack (expected 2, got %d)", len(f))
				}
				attr := f[0]
				val := strings.TrimLeft(trimmed[len(attr):], " \t\r\n\v\f")
				fam, _ := iface.GetString("addrfam")
				switch {
				case attrKnown(attr):
					name := strings.ReplaceAll(attr, "-", "_")
					_, v := validateIfaceOption(attr, val, value.Str(fam))
					if name == "address" && iface.Has("address") {
						l, ok := ipGetv(iface, "addresses").(*value.List)
						if !ok {
							l = value.NewList()
							iface.Set("addresses", l)
						}
						l.Append(v)
					} else {
						iface.Set(name, v)
					}
				case revEthtoolOpts[attr]:
					subMap(iface, "ethtool").Set(attr, val)
				case strings.HasPrefix(attr, "bond"), strings.HasPrefix(attr, "bridge"):
					parts := bondBridgeSplitRE.Split(attr, 2)
					if len(parts) < 2 {
						return nil, execmod.Errorf("IndexError: list index out of range")
					}
					key := "bonding"
					if strings.HasPrefix(attr, "bridge") {
						key = "bridging"
					}
					subMap(iface, key).Set(parts[1], val)
				case attr == "up" || attr == "pre-up" || attr == "post-up" || attr == "down" || attr == "pre-down" || attr == "post-down":
					k := strings.ReplaceAll(attr, "-", "_") + "_cmds"
					l, ok := ipGetv(iface, k).(*value.List)
					if !ok {
						l = value.NewList()
						iface.Set(k, l)
					}
					l.Append(val)
				}
			case strings.HasPrefix(line, "auto"):
				for _, w := range strings.Fields(line)[1:] {
					subMap(adapters, w).Set("enabled", true)
				}
			case strings.HasPrefix(line, "allow-hotplug"):
				for _, w := range strings.Fields(line)[1:] {
					subMap(adapters, w).Set("hotplug", true)
				}
			case strings.HasPrefix(line, "source"):
				src := subMap(adapters, "source")
				d, ok := ipGetv(src, "data").(*value.Map)
				if !ok {
					d = value.MapOf("sources", value.NewList())
					src.Set("data", d)
				}
				if f := strings.Fields(line); len(f) > 1 {
					ipGetv(d, "sources").(*value.List).Append(f[1])
				}
			}
		}
	}
	// _filter_malformed_interfaces
	for _, k := range adapters.Keys() {
		name := value.Str(k)
		if name == "source" {
			continue
		}
		ad := ipGetv(adapters, name).(*value.Map)
		d, ok := ipGetv(ad, "data").(*value.Map)
		if !ok {
			adapters.Delete(k)
			continue
		}
		for _, opt := range []string{"ethtool", "bonding", "bridging"} {
			for _, inet := range []string{"inet", "inet6"} {
				fam, ok := ipGetv(d, inet).(*value.Map)
				if !ok {
					continue
				}
				if om, ok := ipGetv(fam, opt).(*value.Map); ok {
					fam.Set(opt+"_keys", ipSortedKeys(om))
				}
			}
		}
	}
	return adapters, nil
}

func ipGetv(m *value.Map, k string) any {
	if m == nil {
		return nil
	}
	v, _ := m.GetString(k)
	return v
}

func ipSortedKeys(m *value.Map) *value.List {
	var keys []string
	m.Range(func(k, _ any) bool { keys = append(keys, value.Str(k)); return true })
	sort.Strings(keys)
	return strList(keys)
}

var (
	ethValidOpts = []string{"autoconf", "privext", "dhcp", "hwaddress", "vlan_raw_device", "address", "addresses", "netmask",
		"metric", "gateway", "pointopoint", "scope", "hostname", "media", "leasehours", "leasetime", "vendor", "client", "bootfile",
		"server", "mode", "endpoint", "dstaddr", "local", "ttl", "mtu", "provider", "unit", "options", "master", "dns_nameservers",
		"wireless_mode", "wpa_ap_scan", "wpa_conf", "wpa_driver", "wpa_group", "wpa_key_mgmt", "wpa_pairwise", "wpa_proto",
		"wpa_psk", "wpa_roam", "wpa_ssid", "accept_ra"}
	ethOptMap = map[string]string{"addresses": "address", "hwaddr": "hwaddress", "up_cmds": "up", "down_cmds": "down",
		"pre_up_cmds": "pre-up", "post_up_cmds": "post-up", "pre_down_cmds": "pre-down", "post_down_cmds": "post-down",
		"master": "bond-master", "accept_ra": "accept_ra"}
)

// jinjaItems is what a Jinja for loop (or join) visits in v, and whether
// v is iterable at all.
func jinjaItems(v any) ([]any, bool) {
	switch x := v.(type) {
	case string:
		var out []any
		for _, r := range x {
			out = append(out, string(r))
		}
		return out, true
	case *value.List:
		return x.Items, true
	case *value.Map:
		return x.Keys(), true
	}
	return nil, false
}

func jinjaJoin(v any) string {
	items, _ := jinjaItems(v)
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = value.Str(it)
	}
	return strings.Join(parts, " ")
}

func isJinjaNumber(v any) bool {
	switch v.(type) {
	case int64, float64, bool:
		return true
	}
	return false
}

// renderEth is debian_eth.jinja for one adapter.
func renderEth(name string, ad *value.Map) string {
	var b strings.Builder
	if value.Truthy(ipGetv(ad, "enabled")) {
		b.WriteString("auto " + name + "\n")
	}
	if value.Truthy(ipGetv(ad, "hotplug")) {
		b.WriteString("allow-hotplug " + name + "\n")
	}
	data, _ := ipGetv(ad, "data").(*value.Map)
	for _, inet := range []string{"inet", "inet6"} {
		iface, _ := ipGetv(data, inet).(*value.Map)
		if iface == nil || iface.Len() == 0 || value.Str(ipGetv(iface, "addrfam")) != inet {
			continue
		}
		if !value.Truthy(ipGetv(iface, "proto")) || !value.Truthy(ipGetv(iface, "addrfam")) {
			continue
		}
		fmt.Fprintf(&b, "iface %s %s %s\n", name, value.Str(ipGetv(iface, "addrfam")), value.Str(ipGetv(iface, "proto")))
		for _, opt := range ethValidOpts {
			deb, ok := ethOptMap[opt]
			if !ok {
				deb = strings.ReplaceAll(opt, "_", "-")
			}
			val := ipGetv(iface, opt)
			if !value.Truthy(val) {
				continue
			}
			_, iterable := jinjaItems(val)
			_, isStr := val.(string)
			switch {
			case opt == "dns_nameservers" && iterable:
				b.WriteString("    " + deb + " " + jinjaJoin(val) + "\n")
			case isStr || isJinjaNumber(val):
				b.WriteString("    " + deb + " " + value.Str(val) + "\n")
			case iterable:
				items, _ := jinjaItems(val)
				for _, it := range items {
					b.WriteString("    " + deb + " " + value.Str(it) + "\n")
				}
			}
		}
		for _, grp := range []struct{ key, prefix string }{{"ethtool", ""}, {"bonding", "bond-"}, {"bridging", "bridge_"}} {
			opts, _ := ipGetv(iface, grp.key).(*value.Map)
			if opts == nil || opts.Len() == 0 {
				continue
			}
			keys, _ := jinjaItems(ipGetv(iface, grp.key+"_keys"))
			for _, k := range keys {
				v, found := opts.Get(k)
				if _, isStr := v.(string); isStr {
					b.WriteString("    " + grp.prefix + value.Str(k) + " " + value.Str(v) + "\n")
				} else if _, iterable := jinjaItems(v); iterable || !found {
					b.WriteString("    " + grp.prefix + value.Str(k) + " " + jinjaJoin(v) + "\n")
				}
			}
		}
	}
	return b.String()
}

// renderSource is debian_source.jinja.
func renderSource(ad *value.Map) string {
	var b strings.Builder
	data, _ := ipGetv(ad, "data").(*value.Map)
	items, _ := jinjaItems(ipGetv(data, "sources"))
	for _, s := range items {
		b.WriteString("\nsource " + value.Str(s) + "\n")
	}
	return b.String()
}

// textLines is [line + "\n" for line in text.split("\n")].
func textLines(text string) *value.List {
	l := value.NewList()
	for _, s := range strings.Split(text, "\n") {
		l.Append(s + "\n")
	}
	return l
}

func ipGetInterface(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_interface", args, kwargs, execmod.Req("iface"))
	if err != nil {
		return nil, err
	}
	adapters, err := parseInterfaces(ctx)
	if err != nil {
		return nil, err
	}
	name := execmod.String(v[0])
	ad, ok := ipGetv(adapters, name).(*value.Map)
	if !ok {
		return value.NewList(), nil
	}
	if name == "source" {
		return textLines(renderSource(ad)), nil
	}
	return textLines(renderEth(name, ad)), nil
}

// ipConfigWord is the "on"/"off" (or "True"/"False") form of a yes/no
// option, or an error listing the valid values.
func ipConfigWord(iface, opt string, v any, on, off string) (string, error) {
	switch {
	case ipConfigIn(v, true):
		return on, nil
	case ipConfigIn(v, false):
		return off, nil
	}
	return "", ifaceErr(iface, opt, ipConfigValid)
}

// parseEthtoolOpts is _parse_ethtool_opts.
func parseEthtoolOpts(opts *value.Map, iface string) (*value.Map, error) {
	config := value.NewMap(0)
	if v, ok := opts.GetString("autoneg"); ok {
		w, err := ipConfigWord(iface, "autoneg", v, "on", "off")
		if err != nil {
			return nil, err
		}
		config.Set("autoneg", w)
	}
	if v, ok := opts.GetString("duplex"); ok {
		if !value.Equal(v, "full") && !value.Equal(v, "half") {
			return nil, ifaceErr(iface, "duplex", "full|half")
		}
		config.Set("duplex", v)
	}
	if v, ok := opts.GetString("speed"); ok {
		switch value.Str(v) {
		case "10", "100", "1000", "10000":
			config.Set("speed", v)
		default:
			return nil, ifaceErr(iface, value.Str(v), "10|100|1000|10000")
		}
	}
	for _, o := range []string{"rx", "tx", "sg", "tso", "ufo", "gso", "gro", "lro"} {
		if v, ok := opts.GetString(o); ok {
			w, err := ipConfigWord(iface, o, v, "on", "off")
			if err != nil {
				return nil, err
			}
			config.Set(o, w)
		}
	}
	return config, nil
}

// bondDefaults are _parse_settings_bond's defaults.
var bondDefaults = map[string]string{"ad_select": "0", "tx_queues": "16", "miimon": "100", "arp_interval": "250", "downdelay": "200",
	"lacp_rate": "0", "max_bonds": "1", "updelay": "0", "use_carrier": "on", "xmit_hash_policy": "layer2"}

var bondModes = map[string]string{"balance-rr": "0", "0": "0", "active-backup": "1", "1": "1", "balance-xor": "2", "2": "2",
	"broadcast": "3", "3": "3", "802.3ad": "4", "4": "4", "balance-tlb": "5", "5": "5", "balance-alb": "6", "6": "6"}

// parseSettingsBond is _parse_settings_bond with its per-mode rules.
func parseSettingsBond(ctx *execmod.Context, opts *value.Map, iface string) (*value.Map, error) {
	m, ok := opts.GetString("mode")
	if !ok {
		return nil, execmod.Errorf("KeyError: 'mode'")
	}
	ms, isStr := m.(string)
	mode, known := bondModes[ms]
	if !isStr || !known {
		return nil, ifaceErr(iface, "mode", "0|1|2|3|4|5|6|balance-rr|active-backup|balance-xor|broadcast|802.3ad|balance-tlb|balance-alb")
	}
	bond := value.MapOf("mode", mode)
	intOpt := func(k, valid string) error {
		v, ok := opts.GetString(k)
		if !ok {
			bond.Set(k, bondDefaults[k])
			return nil
		}
		if _, isInt := ipPyInt(v); !isInt {
			return ifaceErr(iface, k, valid)
		}
		bond.Set(k, v)
		return nil
	}
	arpTargets := func() error {
		v, _ := opts.GetString("arp_ip_target")
		l, ok := v.(*value.List)
		if !ok || l.Len() < 1 || l.Len() > 16 {
			return ifaceErr(iface, "arp_ip_target", "list of ips (up to 16)")
		}
		parts := make([]string, 0, l.Len())
		for _, ip := range l.Items {
			s, ok := ip.(string)
			if !ok {
				return execmod.Errorf("TypeError: can only concatenate str (not \"%s\") to str", pyTypeOf(ip))
			}
			parts = append(parts, s)
		}
		bond.Set("arp_ip_target", strings.Join(parts, ","))
		return intOpt("arp_interval", "integer")
	}
	useCarrier := func() error {
		v, ok := opts.GetString("use_carrier")
		if !ok {
			bond.Set("use_carrier", bondDefaults["use_carrier"])
			return nil
		}
		w, err := ipConfigWord(iface, "use_carrier", v, "1", "0")
		if err != nil {
			return err
		}
		bond.Set("use_carrier", w)
		return nil
	}
	hashing := func() error {
		v, ok := opts.GetString("hashing-algorithm")
		if !ok {
			return nil
		}
		switch v {
		case "layer2", "layer2+3", "layer3+4":
			bond.Set("xmit_hash_policy", v)
			return nil
		}
		return ifaceErr(iface, "hashing-algorithm", "layer2|layer2+3|layer3+4")
	}
	primary := func() {
		if v, ok := opts.GetString("primary"); ok {
			bond.Set("primary", v)
		}
	}
	links := func(extra ...string) error {
		for _, k := range append([]string{"miimon", "downdelay", "updelay"}, extra...) {
			valid := "integer"
			if k == "lacp_rate" {
				valid = "fast|1|slow|0"
				switch v, _ := opts.GetString(k); v {
				case "fast":
					opts.Set(k, "1")
				case "slow":
					opts.Set(k, "0")
				}
			}
			if err := intOpt(k, valid); err != nil {
				return err
			}
		}
		return nil
	}
	var err error
	switch mode {
	case "0":
		err = arpTargets()
	case "1":
		if err = links(); err == nil {
			primary()
			os, _ := ctx.Grains.GetString("os")
			major := int64(0)
			if info, ok := ctx.Grains.GetString("osrelease_info"); ok {
				if l, ok := info.(*value.List); ok && l.Len() > 0 {
					major, _ = ipPyInt(l.Items[0])
				}
			}
			if !(value.Str(os) == "Ubuntu" && major >= 16) {
				err = useCarrier()
			}
		}
	case "2":
		if err = arpTargets(); err == nil {
			err = hashing()
		}
	case "3":
		if err = links(); err == nil {
			err = useCarrier()
		}
	case "4":
		if err = links("lacp_rate", "ad_select"); err == nil {
			if err = useCarrier(); err == nil {
				err = hashing()
			}
		}
	case "5", "6":
		if err = links(); err == nil {
			if err = useCarrier(); err == nil {
				primary()
			}
		}
	}
	return bond, err
}

var bridgeHWRE = regexp.MustCompile(`^[0-9a-f]{2}([-:])[0-9a-f]{2}([-:][0-9a-f]{2}){4}$`)

func noAttr(v any, attr string) error {
	return &ipAttrError{fmt.Sprintf("'%s' object has no attribute '%s'", pyTypeOf(v), attr)}
}

// parseBridgeOpts is _parse_bridge_opts.
func parseBridgeOpts(opts *value.Map, iface string) (*value.Map, error) {
	config := value.NewMap(0)
	if v, ok := opts.GetString("ports"); ok {
		if l, isList := v.(*value.List); isList {
			v = jinjaJoin(l)
			opts.Set("ports", v)
		}
		config.Set("ports", v)
	}
	for _, o := range []string{"ageing", "fd", "gcint", "hello", "maxage"} {
		if v, ok := opts.GetString(o); ok {
			if valid, _ := vFloat(v); !valid {
				return nil, ifaceErr(iface, o, "float")
			}
			config.Set(o, v)
		}
	}
	for _, o := range []string{"bridgeprio", "maxwait"} {
		if v, ok := opts.GetString(o); ok {
			switch v.(type) {
			case int64, bool:
				config.Set(o, v)
			default:
				return nil, ifaceErr(iface, o, "integer")
			}
		}
	}
	if v, ok := opts.GetString("hw"); ok {
		s, isStr := v.(string)
		if !isStr {
			return nil, noAttr(v, "lower")
		}
		m := bridgeHWRE.FindStringSubmatch(strings.ToLower(s))
		if m == nil || strings.Count(strings.ToLower(s), m[1]) != 5 {
			return nil, ifaceErr(iface, "hw", "valid MAC address")
		}
		config.Set("hw", v)
	}
	last := "maxwait"
	for _, o := range []string{"pathcost", "portprio"} {
		last = o
		if v, ok := opts.GetString(o); ok {
			s, isStr := v.(string)
			if !isStr {
				return nil, noAttr(v, "split")
			}
			f := strings.Fields(s)
			if len(f) != 2 {
				return nil, ifaceErr(iface, o, "interface integer")
			}
			if _, isInt := ipPyInt(f[1]); !isInt {
				return nil, ifaceErr(iface, o, "interface integer")
			}
			config.Set(o, f[0]+" "+f[1])
		}
	}
	if v, ok := opts.GetString("stp"); ok {
		w, err := ipConfigWord(iface, "stp", v, "on", "off")
		if err != nil {
			return nil, err
		}
		config.Set("stp", w)
	}
	if v, ok := opts.GetString("waitport"); ok {
		switch x := v.(type) {
		case int64, bool:
			config.Set("waitport", v)
		case string:
			f := strings.Fields(x)
			if len(f) > 1 && isDigits(f[0]) {
				config.Set("waitport", f[0]+" "+strings.Join(f[1:], " "))
			} else {
				return nil, ifaceErr(iface, last, "integer [interfaces]")
			}
		default:
			return nil, noAttr(v, "split")
		}
	}
	return config, nil
}

var vlanSuffixRE = regexp.MustCompile(`\.\d*`)

// parseSettingsEth is _parse_settings_eth: the adapter for settings.
func parseSettingsEth(ctx *execmod.Context, opts *value.Map, ifaceType string, enabled bool, iface string) (*value.Map, error) {
	ad := value.MapOf("type", ifaceType)
	fams := value.MapOf("inet", value.NewMap(0), "inet6", value.NewMap(0))
	ad.Set("data", fams)
	fam := func(name string) *value.Map { return ipGetv(fams, name).(*value.Map) }
	if enabled {
		ad.Set("enabled", true)
	}
	if value.Truthy(ipGetv(opts, "hotplug")) {
		ad.Set("hotplug", true)
	}
	if value.Truthy(ipGetv(opts, "enable_ipv6")) && value.Equal(ipGetv(opts, "iface_type"), "vlan") {
		fam("inet6").Set("vlan_raw_device", vlanSuffixRE.ReplaceAllString(iface, ""))
	}
	for _, addrfam := range []string{"inet", "inet6"} {
		data := fam(addrfam)
		if ifaceType != "bridge" {
			tmp, err := parseEthtoolOpts(opts, iface)
			if err != nil {
				return nil, err
			}
			if tmp.Len() > 0 {
				ethtool := value.NewMap(0)
				tmp.Range(func(k, v any) bool {
					ethtool.Set(ethtoolConfigOpts[value.Str(k)], v)
					return true
				})
				data.Set("ethtool", ethtool)
				data.Set("ethtool_keys", ipSortedKeys(ethtool))
			}
		}
		switch ifaceType {
		case "bridge":
			br, err := parseBridgeOpts(opts, iface)
			if err != nil {
				return nil, err
			}
			if br.Len() > 0 {
				data.Set("bridging", br)
				data.Set("bridging_keys", ipSortedKeys(br))
				data.Set("addrfam", addrfam)
			}
		case "bond":
			bond, err := parseSettingsBond(ctx, opts, iface)
			if err != nil {
				return nil, err
			}
			slaves, ok := opts.GetString("slaves")
			if !ok {
				return nil, execmod.Errorf("KeyError: 'slaves'")
			}
			bond.Set("slaves", slaves)
			data.Set("bonding", bond)
			data.Set("bonding_keys", ipSortedKeys(bond))
			data.Set("addrfam", addrfam)
		case "slave":
			master, ok := opts.GetString("master")
			if !ok {
				return nil, execmod.Errorf("KeyError: 'master'")
			}
			ad.Set("master", master)
			opts.Set("proto", "manual")
			data.Set("master", master)
			data.Set("addrfam", addrfam)
		case "vlan":
			data.Set("vlan_raw_device", vlanSuffixRE.ReplaceAllString(iface, ""))
			data.Set("addrfam", addrfam)
		}
	}
	opts.Delete("mode")
	var err error
	opts.Range(func(k, val any) bool {
		opt := value.Str(k)
		inet := ""
		switch {
		case strings.HasPrefix(opt, "ipv4"):
			opt, inet = opt[4:], "inet"
			fam("inet").Set("addrfam", "inet")
		case strings.HasPrefix(opt, "ipv6"):
			opt, inet = opt[4:], "inet6"
			fam("inet6").Set("addrfam", "inet6")
		case opt == "ipaddr" || opt == "address" || opt == "ipaddresses" || opt == "addresses" || opt == "gateway" || opt == "proto":
			fam("inet").Set("addrfam", "inet")
			inet = "inet"
		}
		attr := opt
		if a, ok := saltToDebianAttr[opt]; ok {
			attr = a
		}
		debopt := strings.ReplaceAll(attr, "-", "_")
		for _, addrfam := range []string{"inet", "inet6"} {
			valid, v := validateIfaceOption(attr, val, addrfam)
			if !valid {
				continue
			}
			if (inet == "" && !fam(addrfam).Has(debopt)) || inet == addrfam {
				fam(addrfam).Set(debopt, v)
			}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	for _, o := range []string{"up_cmds", "pre_up_cmds", "post_up_cmds", "down_cmds", "pre_down_cmds", "post_down_cmds"} {
		if v, ok := opts.GetString(o); ok {
			fam("inet").Set(o, v)
			fam("inet6").Set(o, v)
		}
	}
	for _, p := range [][2]string{{"inet", "enable_ipv4"}, {"inet6", "enable_ipv6"}} {
		if v, ok := opts.GetString(p[1]); (ok && v == false) || value.Str(ipGetv(fam(p[0]), "addrfam")) != p[0] {
			fams.Delete(p[0])
		}
	}
	return ad, nil
}

func ipBuildInterface(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, settings, err := execmod.Bind("build_interface", args, kwargs, execmod.Req("iface"), execmod.Req("iface_type"), execmod.Req("enabled"))
	if err != nil {
		return nil, err
	}
	iface := execmod.String(v[0])
	ifaceType := strings.ToLower(execmod.String(v[1]))
	switch ifaceType {
	case "eth", "bond", "bridge", "slave", "vlan", "source":
	case "alias", "clone", "ipsec", "dialup":
		return nil, execmod.Errorf("UnboundLocalError: cannot access local variable 'opts' where it is not associated with a value")
	case "pppoe":
		return nil, execmod.Errorf("pppoe interfaces are not supported by brine's ip module")
	default:
		return nil, ifaceErr(iface, ifaceType, ipIfaceTypeList)
	}
	switch ifaceType {
	case "slave":
		settings.Set("slave", "yes")
		if !settings.Has("master") {
			return nil, &ipAttrError{"master is a required setting for slave interfaces"}
		}
	case "vlan":
		settings.Set("vlan", "yes")
		if _, err := ctx.Call("pkg.install", []any{"vlan"}, nil); err != nil {
			return nil, err
		}
	case "bond":
		if !settings.Has("slaves") {
			return nil, &ipAttrError{"slaves is a required setting for bond interfaces"}
		}
	case "bridge":
		if !settings.Has("ports") {
			return nil, &ipAttrError{"ports is a required setting for bridge interfaces on Debian or Ubuntu based systems"}
		}
		if _, err := ctx.Call("pkg.install", []any{"bridge-utils"}, nil); err != nil {
			return nil, err
		}
	}
	var ad *value.Map
	if ifaceType == "source" {
		src, ok := settings.GetString("source")
		if !ok {
			return nil, execmod.Errorf("KeyError: 'source'")
		}
		ad = value.MapOf("type", ifaceType, "data", value.MapOf("sources", value.NewList(src)))
	} else if ad, err = parseSettingsEth(ctx, settings, ifaceType, value.Truthy(v[2]), iface); err != nil {
		return nil, err
	}
	render := func(name string, a *value.Map) string {
		if value.Equal(ipGetv(a, "type"), "source") {
			return renderSource(a)
		}
		return renderEth(name, a)
	}
	if t, ok := settings.GetString("test"); ok && value.Truthy(t) {
		return textLines(renderEth(iface, ad)), nil
	}
	adapters, err := parseInterfaces(ctx)
	if err != nil {
		return nil, err
	}
	adapters.Set(iface, ad)
	var all strings.Builder
	saved := ""
	var last *value.Map
	adapters.Range(func(k, a any) bool {
		am, _ := a.(*value.Map)
		text := render(value.Str(k), am)
		all.WriteString(text)
		if value.Str(k) == iface {
			saved = text
		}
		last = am
		return true
	})
	filename, separate := debNetworkFile, false
	if f, ok := settings.GetString("filename"); ok {
		filename, separate = value.Str(f), true
		if !strings.HasPrefix(filename, "/") {
			filename = debNetworkDir + "/" + filename
		}
	} else if d, ok := ipGetv(last, "data").(*value.Map); ok && d.Has("filename") {
		// Salt writes to its mapping here, which fails: keep its error.
		return nil, execmod.Errorf("TypeError: expected str, bytes or os.PathLike object, not OrderedDict")
	}
	path := ipPath(ctx, filename)
	if _, err := os.Stat(filepath.Dir(path)); err != nil {
		return nil, &ipAttrError{filepath.Dir(path) + " cannot be written."}
	}
	out := all.String()
	if separate {
		out = saved
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		return nil, execmod.Errorf("%s", pyOSError(err))
	}
	return textLines(saved), nil
}

func ipGetBond(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_bond", args, kwargs, execmod.Req("iface"))
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(ipPath(ctx, filepath.Join(debModprobeDir, execmod.String(v[0])+".conf")))
	if err != nil {
		return "", nil
	}
	return linesList(fileops.SplitLines(string(data))), nil
}

// renderBondConf is conf.jinja.
func renderBondConf(name string, bond *value.Map) string {
	var b strings.Builder
	b.WriteString("alias " + name + " bonding\noptions " + name + " ")
	bond.Range(func(k, v any) bool {
		b.WriteString(value.Str(k) + "=" + value.Str(v) + " ")
		return true
	})
	return b.String()
}

func ipBuildBond(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, settings, err := execmod.Bind("build_bond", args, kwargs, execmod.Req("iface"))
	if err != nil {
		return nil, err
	}
	iface := execmod.String(v[0])
	bond, err := parseSettingsBond(ctx, settings, iface)
	if err != nil {
		return nil, err
	}
	text := renderBondConf(iface, bond)
	if t, ok := settings.GetString("test"); ok && value.Truthy(t) {
		return linesList(fileops.SplitLines(text)), nil
	}
	dir := ipPath(ctx, debModprobeDir)
	path := filepath.Join(dir, iface+".conf")
	if _, err := os.Stat(dir); err != nil {
		return nil, &ipAttrError{fmt.Sprintf("%s cannot be written. %s/ does not exist", path, dir)}
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return nil, execmod.Errorf("%s", pyOSError(err))
	}
	if _, err := ctx.Call("kmod.load", []any{"bonding"}, nil); err != nil {
		return nil, err
	}
	if _, err := ctx.Call("pkg.install", []any{"ifenslave"}, nil); err != nil {
		return nil, err
	}
	return linesList(ipReadLines(path)), nil
}

func ipUpDown(ctx *execmod.Context, fun, cmd string, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind(fun, args, kwargs, execmod.Req("iface"), execmod.Req("iface_type"))
	if err != nil {
		return nil, err
	}
	switch execmod.String(v[1]) {
	case "slave", "source":
		return nil, nil
	}
	return ctx.Call("cmd.run", []any{value.NewList(cmd, execmod.String(v[0]))}, nil)
}

func ipUp(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return ipUpDown(ctx, "up", "ifup", args, kwargs)
}

func ipDown(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return ipUpDown(ctx, "down", "ifdown", args, kwargs)
}
