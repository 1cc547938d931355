package modules

// firewalld.go is salt/modules/firewalld.py: zones, services, ports,
// port forwards, ICMP blocks, interfaces, sources and rich rules managed
// with firewall-cmd. Every call is one firewall-cmd command line built as
// Salt builds it (split as cmd.run_all splits it without a shell) and run
// through cmd.run_all under the prefix attached as FirewalldPrefixService
// (nsenter into an isolated daemon's namespaces in tests). A non-zero exit
// is "firewall-cmd failed: <stderr, or stdout when stderr is empty>".
// Salt's quirks are kept: --permanent is the default everywhere, the
// list_all parser keeps firewall-cmd's "name (active)" headers, block_icmp
// returns False for an unknown type, and the "already bound" checks of
// the interface and source functions only log.

import (
	"fmt"
	"log/slog"
	"os/exec"
	"regexp"
	"strings"

	"brine/internal/execmod"
	"brine/internal/pyops"
	"brine/internal/value"
)

// FirewalldPrefixService is the execmod service under which a run (or a
// test) attaches a command prefix ([]string) that firewall-cmd runs under.
const FirewalldPrefixService = "firewalld.prefix"

// fwdVirtual is Salt's reason for not loading the module.
const fwdVirtual = "The firewalld execution module cannot be loaded: the firewall-cmd binary is not in the path."

func init() {
	perm := execmod.Opt("permanent", true)
	zoneOpt, zone := execmod.Opt("zone", nil), execmod.Req("zone")
	restart := execmod.Opt("restart", true)
	reg := func(name string, fn execmod.Func, doc string) {
		execmod.Register("firewalld."+name, fwdAvailable(fn), doc)
	}
	// Functions that run one fixed option and return its output.
	for name, op := range map[string]string{
		"version":        "--version",
		"reload_rules":   "--reload",
		"default_zone":   "--get-default-zone",
		"make_permanent": "--runtime-to-permanent",
	} {
		reg(name, fwdFixed(name, op), fmt.Sprintf("Run firewall-cmd %s and return its output.", op))
	}
	// Predefined names, as a list.
	for name, op := range map[string]string{
		"get_zones":      "--get-zones",
		"get_services":   "--get-services",
		"get_icmp_types": "--get-icmptypes",
	} {
		name, op := name, op
		reg(name, func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
			v, _, err := execmod.Bind(name, args, kwargs, perm)
			if err != nil {
				return nil, err
			}
			return fwdSplit(fwdCmd(ctx, op+fwdPerm(v[0])))
		}, fmt.Sprintf("Return the names firewall-cmd %s lists (permanent configuration by default).", op))
	}
	// Zone and service creation and deletion (permanent, then a reload).
	for name, spec := range map[string][2]string{
		"new_zone":       {"zone", "new-zone"},
		"delete_zone":    {"zone", "delete-zone"},
		"new_service":    {"name", "new-service"},
		"delete_service": {"name", "delete-service"},
	} {
		name, spec := name, spec
		reg(name, func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
			v, _, err := execmod.Bind(name, args, kwargs, execmod.Req(spec[0]), restart)
			if err != nil {
				return nil, err
			}
			return fwdMgmt(ctx, spec[1], v[0], v[1])
		}, fmt.Sprintf("Run firewall-cmd --%s=%s --permanent, then reload unless restart=False.", spec[1], strings.ToUpper(spec[0])))
	}
	// Per-zone listings where the zone defaults to the default zone.
	reg("list_services", fwdListOpt("list_services", "--list-services"), "Return the services of zone (the default zone when omitted).")
	// Per-zone listings that need a zone.
	for name, op := range map[string]string{
		"list_ports":      "--list-ports",
		"list_icmp_block": "--list-icmp-blocks",
		"get_interfaces":  "--list-interfaces",
		"get_sources":     "--list-sources",
	} {
		name, op := name, op
		reg(name, func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
			v, _, err := execmod.Bind(name, args, kwargs, zone, perm)
			if err != nil {
				return nil, err
			}
			return fwdSplit(fwdCmd(ctx, fwdZone(v[0])+" "+op+fwdPerm(v[1])))
		}, fmt.Sprintf("Return the items firewall-cmd --zone=ZONE %s lists.", op))
	}
	reg("get_rich_rules", func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind("get_rich_rules", args, kwargs, zone, perm)
		if err != nil {
			return nil, err
		}
		out, err := fwdCmd(ctx, fwdZone(v[0])+" --list-rich-rules"+fwdPerm(v[1]))
		if err != nil {
			return nil, err
		}
		return fwdList(pyops.SplitLines(out, false)), nil
	}, "Return the rich rules of zone, one per line.")
	// Changes to a zone that may default to the default zone.
	for name, spec := range map[string][2]string{
		"add_service":    {"service", "--add-service="},
		"remove_service": {"service", "--remove-service="},
	} {
		name, spec := name, spec
		reg(name, func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
			v, _, err := execmod.Bind(name, args, kwargs, execmod.Req(spec[0]), zoneOpt, perm)
			if err != nil {
				return nil, err
			}
			return fwdCmd(ctx, fwdOptZone(v[1])+spec[1]+value.Str(v[0])+fwdPerm(v[2]))
		}, fmt.Sprintf("Run firewall-cmd %sSERVICE on zone (the default zone when omitted).", spec[1]))
	}
	for name, op := range map[string]string{
		"add_masquerade":    "--add-masquerade",
		"remove_masquerade": "--remove-masquerade",
	} {
		name, op := name, op
		reg(name, func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
			v, _, err := execmod.Bind(name, args, kwargs, zoneOpt, perm)
			if err != nil {
				return nil, err
			}
			return fwdCmd(ctx, fwdOptZone(v[0])+op+fwdPerm(v[1]))
		}, fmt.Sprintf("Run firewall-cmd %s on zone (the default zone when omitted).", op))
	}
	// Changes to a named zone.
	for name, spec := range map[string][3]string{
		"remove_port":      {"port", "--remove-port=", ""},
		"add_source":       {"source", "--add-source=", "add"},
		"remove_source":    {"source", "--remove-source=", "remove"},
		"add_interface":    {"interface", "--add-interface=", "add"},
		"remove_interface": {"interface", "--remove-interface=", "remove"},
		"change_interface": {"interface", "--change-interface=", "add"},
		"add_rich_rule":    {"rule", "--add-rich-rule=", ""},
		"remove_rich_rule": {"rule", "--remove-rich-rule=", ""},
	} {
		name, spec := name, spec
		reg(name, func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
			v, _, err := execmod.Bind(name, args, kwargs, zone, execmod.Req(spec[0]), perm)
			if err != nil {
				return nil, err
			}
			if spec[2] != "" {
				if err := fwdLogBound(ctx, spec[0], spec[2], v[0], v[1], v[2]); err != nil {
					return nil, err
				}
			}
			arg := value.Str(v[1])
			if spec[0] == "rule" {
				arg = "'" + arg + "'"
			}
			return fwdCmd(ctx, fwdZone(v[0])+" "+spec[1]+arg+fwdPerm(v[2]))
		}, fmt.Sprintf("Run firewall-cmd --zone=ZONE %s%s.", spec[1], strings.ToUpper(spec[0])))
	}
	// Service definitions (always permanent).
	for name, spec := range map[string][3]string{
		"add_service_port":        {"port", "--add-port=", "check"},
		"remove_service_port":     {"port", "--remove-port=", "check"},
		"add_service_protocol":    {"protocol", "--add-protocol=", ""},
		"remove_service_protocol": {"protocol", "--remove-protocol=", ""},
	} {
		name, spec := name, spec
		reg(name, func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
			v, _, err := execmod.Bind(name, args, kwargs, execmod.Req("service"), execmod.Req(spec[0]))
			if err != nil {
				return nil, err
			}
			if spec[2] == "check" {
				services, err := fwdSplit(fwdCmd(ctx, "--get-services --permanent"))
				if err != nil {
					return nil, err
				}
				if !fwdIn(v[0], services) {
					return nil, execmod.Errorf("The service does not exist.")
				}
			}
			return fwdCmd(ctx, "--permanent --service="+value.Str(v[0])+" "+spec[1]+value.Str(v[1]))
		}, fmt.Sprintf("Run firewall-cmd --permanent --service=SERVICE %s%s.", spec[1], strings.ToUpper(spec[0])))
	}
	for name, op := range map[string]string{
		"get_service_ports":     "--get-ports",
		"get_service_protocols": "--get-protocols",
	} {
		name, op := name, op
		reg(name, func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
			v, _, err := execmod.Bind(name, args, kwargs, execmod.Req("service"))
			if err != nil {
				return nil, err
			}
			return fwdSplit(fwdCmd(ctx, "--permanent --service="+value.Str(v[0])+" "+op))
		}, fmt.Sprintf("Return what firewall-cmd --permanent --service=SERVICE %s lists.", op))
	}
	reg("list_zones", fwdListZones, "Return every zone's settings as {zone: {setting: [values]}}.")
	reg("list_all", fwdListAll, "Return the settings of zone (the default zone when omitted) as {zone: {setting: [values]}}.")
	reg("set_default_zone", fwdSetDefaultZone, "Set the default zone (runtime and permanent).")
	reg("get_masquerade", fwdGetMasquerade, "True when masquerading is enabled on zone (the default zone when omitted).")
	reg("add_port", fwdAddPort, "Allow port (PORT/PROTO) in zone; force_masquerade=True enables masquerading first.")
	reg("add_port_fwd", fwdPortFwd("add_port_fwd", "--add-forward-port", true), "Forward port src to dest (proto, dstaddr) in zone.")
	reg("remove_port_fwd", fwdPortFwd("remove_port_fwd", "--remove-forward-port", false), "Remove the forward of port src to dest (proto, dstaddr) from zone.")
	reg("list_port_fwd", fwdListPortFwd, "Return the port forwards of zone as mappings.")
	reg("block_icmp", fwdICMP("block_icmp", true), "Block an ICMP type on zone: 'success', or False for an unknown type.")
	reg("allow_icmp", fwdICMP("allow_icmp", false), "Stop blocking an ICMP type on zone: 'success', or False for an unknown type.")
}

// fwdAvailable is the module's __virtual__: the functions need firewall-cmd.
func fwdAvailable(f execmod.Func) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		if !hasCmd("firewall-cmd") {
			return nil, &execmod.UnavailableError{Module: "firewalld", Reason: fwdVirtual}
		}
		return f(ctx, args, kwargs)
	}
}

// fwdCmd runs firewall-cmd with the options line (Salt's __firewall_cmd)
// and returns its standard output.
func fwdCmd(ctx *execmod.Context, line string) (string, error) {
	bin, err := exec.LookPath("firewall-cmd")
	if err != nil {
		bin = "None"
	}
	out, err := netfilterRun(ctx, FirewalldPrefixService, "cmd.run_all", bin+" "+line)
	if err != nil {
		return "", err
	}
	m, _ := out.(*value.Map)
	get := func(k string) any {
		if m == nil {
			return nil
		}
		v, _ := m.Get(k)
		return v
	}
	if !value.Equal(get("retcode"), int64(0)) {
		msg := execmod.String(get("stderr"))
		if msg == "" {
			msg = execmod.String(get("stdout"))
		}
		return "", execmod.Errorf("firewall-cmd failed: %s", msg)
	}
	return execmod.String(get("stdout")), nil
}

// fwdPerm is the " --permanent" Salt appends when permanent is true.
func fwdPerm(permanent any) string {
	if value.Truthy(permanent) {
		return " --permanent"
	}
	return ""
}

// fwdZone is "--zone=ZONE", formatted whatever zone is (None too).
func fwdZone(zone any) string { return "--zone=" + value.Str(zone) }

// fwdOptZone is "--zone=ZONE " when a zone is given, else nothing.
func fwdOptZone(zone any) string {
	if value.Truthy(zone) {
		return fwdZone(zone) + " "
	}
	return ""
}

// fwdList turns strings into a list value.
func fwdList(items []string) *value.List {
	l := value.NewList()
	for _, s := range items {
		l.Append(s)
	}
	return l
}

// fwdSplit splits the output of a command on white space (str.split()).
func fwdSplit(out string, err error) (*value.List, error) {
	if err != nil {
		return nil, err
	}
	return fwdList(strings.Fields(out)), nil
}

// fwdIn is Python's `v in items` for a list of strings.
func fwdIn(v any, items *value.List) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	for _, it := range items.Items {
		if it == s {
			return true
		}
	}
	return false
}

func fwdFixed(name, op string) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		if _, _, err := execmod.Bind(name, args, kwargs); err != nil {
			return nil, err
		}
		return fwdCmd(ctx, op)
	}
}

// fwdMgmt creates or deletes a zone or service in the permanent
// configuration, then reloads when restart is true and that succeeded.
func fwdMgmt(ctx *execmod.Context, op string, name, restart any) (any, error) {
	out, err := fwdCmd(ctx, "--"+op+"="+value.Str(name)+" --permanent")
	if err != nil {
		return nil, err
	}
	if value.Truthy(restart) && out == "success" {
		return fwdCmd(ctx, "--reload")
	}
	return out, nil
}

func fwdListOpt(name, op string) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind(name, args, kwargs, execmod.Opt("zone", nil), execmod.Opt("permanent", true))
		if err != nil {
			return nil, err
		}
		return fwdSplit(fwdCmd(ctx, fwdOptZone(v[0])+op+fwdPerm(v[1])))
	}
}

var fwdZoneHeader = regexp.MustCompile(`(?i)^[a-z0-9]`)

// fwdParseZones is Salt's __parse_zone: a line starting with a letter or
// digit names a zone, "  key: value" lines become {key: [value]}, and
// tab-indented lines add values to the key before them.
func fwdParseZones(out string) (*value.Map, error) {
	zones := value.NewMap(0)
	var zone *value.Map
	zoneName, haveZone, id := "", false, ""
	for _, line := range pyops.SplitLines(out, false) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if fwdZoneHeader.MatchString(line) {
			zoneName, haveZone = strings.TrimRight(line, " \t\r\n\v\f"), true
			zone = nil
			if z, ok := zones.Get(zoneName); ok {
				zone, _ = z.(*value.Map)
			}
			continue
		}
		if !haveZone {
			return nil, execmod.Errorf("UnboundLocalError: local variable 'zone_name' referenced before assignment")
		}
		if strings.HasPrefix(line, "\t") {
			var vals *value.List
			if zone != nil {
				if l, ok := zone.Get(id); ok {
					vals, _ = l.(*value.List)
				}
			}
			if vals == nil {
				return nil, execmod.Errorf("KeyError: %s", value.Repr(zoneName))
			}
			vals.Append(strings.TrimSpace(line))
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			return nil, execmod.Errorf("ValueError: not enough values to unpack (expected 2, got 1)")
		}
		id = strings.TrimSpace(key)
		entry := value.NewList()
		entry.Append(strings.TrimSpace(val))
		if zone == nil || zone.Len() == 0 {
			zone = value.NewMap(0)
			zones.Set(zoneName, zone)
		}
		zone.Set(id, entry)
	}
	return zones, nil
}

func fwdListZones(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_zones", args, kwargs, execmod.Opt("permanent", true))
	if err != nil {
		return nil, err
	}
	out, err := fwdCmd(ctx, "--list-all-zones"+fwdPerm(v[0]))
	if err != nil {
		return nil, err
	}
	return fwdParseZones(out)
}

func fwdListAll(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_all", args, kwargs, execmod.Opt("zone", nil), execmod.Opt("permanent", true))
	if err != nil {
		return nil, err
	}
	return fwdZoneInfo(ctx, v[0], v[1])
}

func fwdZoneInfo(ctx *execmod.Context, zone, permanent any) (*value.Map, error) {
	out, err := fwdCmd(ctx, fwdOptZone(zone)+"--list-all"+fwdPerm(permanent))
	if err != nil {
		return nil, err
	}
	return fwdParseZones(out)
}

func fwdSetDefaultZone(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_default_zone", args, kwargs, execmod.Req("zone"))
	if err != nil {
		return nil, err
	}
	return fwdCmd(ctx, "--set-default-zone="+value.Str(v[0]))
}

func fwdGetMasquerade(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_masquerade", args, kwargs, execmod.Opt("zone", nil), execmod.Opt("permanent", true))
	if err != nil {
		return nil, err
	}
	return fwdMasquerade(ctx, v[0], v[1])
}

// fwdMasquerade is false when any zone listed has "masquerade: no".
func fwdMasquerade(ctx *execmod.Context, zone, permanent any) (bool, error) {
	info, err := fwdZoneInfo(ctx, zone, permanent)
	if err != nil {
		return false, err
	}
	masq := true
	var kerr error
	info.Range(func(_, z any) bool {
		zm, _ := z.(*value.Map)
		var l *value.List
		if zm != nil {
			if m, ok := zm.Get("masquerade"); ok {
				l, _ = m.(*value.List)
			}
		}
		if l == nil || len(l.Items) == 0 {
			kerr = execmod.Errorf("KeyError: 'masquerade'")
			return false
		}
		if l.Items[0] == "no" {
			masq = false
		}
		return true
	})
	return masq, kerr
}

// fwdForceMasquerade enables masquerading on zone when force is true and
// it is not enabled (in the permanent configuration, as Salt checks it).
func fwdForceMasquerade(ctx *execmod.Context, zone, force any) error {
	if !value.Truthy(force) {
		return nil
	}
	on, err := fwdMasquerade(ctx, zone, true)
	if err != nil || on {
		return err
	}
	_, err = fwdCmd(ctx, fwdOptZone(zone)+"--add-masquerade --permanent")
	return err
}

func fwdAddPort(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("add_port", args, kwargs, execmod.Req("zone"), execmod.Req("port"),
		execmod.Opt("permanent", true), execmod.Opt("force_masquerade", false))
	if err != nil {
		return nil, err
	}
	if err := fwdForceMasquerade(ctx, v[0], v[3]); err != nil {
		return nil, err
	}
	return fwdCmd(ctx, fwdZone(v[0])+" --add-port="+value.Str(v[1])+fwdPerm(v[2]))
}

func fwdPortFwd(name, op string, add bool) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		params := []execmod.Param{execmod.Req("zone"), execmod.Req("src"), execmod.Req("dest"),
			execmod.Opt("proto", "tcp"), execmod.Opt("dstaddr", ""), execmod.Opt("permanent", true)}
		if add {
			params = append(params, execmod.Opt("force_masquerade", false))
		}
		v, _, err := execmod.Bind(name, args, kwargs, params...)
		if err != nil {
			return nil, err
		}
		if add {
			if err := fwdForceMasquerade(ctx, v[0], v[6]); err != nil {
				return nil, err
			}
		}
		return fwdCmd(ctx, fmt.Sprintf("%s %s=port=%s:proto=%s:toport=%s:toaddr=%s%s", fwdZone(v[0]), op,
			value.Str(v[1]), value.Str(v[3]), value.Str(v[2]), value.Str(v[4]), fwdPerm(v[5])))
	}
}

func fwdListPortFwd(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_port_fwd", args, kwargs, execmod.Req("zone"), execmod.Opt("permanent", true))
	if err != nil {
		return nil, err
	}
	out, err := fwdCmd(ctx, fwdZone(v[0])+" --list-forward-ports"+fwdPerm(v[1]))
	if err != nil {
		return nil, err
	}
	ret := value.NewList()
	for _, line := range pyops.SplitLines(out, false) {
		parts := strings.Split(line, ":")
		if len(parts) != 4 {
			if len(parts) < 4 {
				return nil, execmod.Errorf("ValueError: not enough values to unpack (expected 4, got %d)", len(parts))
			}
			return nil, execmod.Errorf("ValueError: too many values to unpack (expected 4)")
		}
		vals := make([]string, 4)
		for i, p := range parts {
			f := strings.Split(p, "=")
			if len(f) < 2 {
				return nil, execmod.Errorf("IndexError: list index out of range")
			}
			vals[i] = f[1]
		}
		ret.Append(value.MapOf("Source port", vals[0], "Protocol", vals[1],
			"Destination port", vals[2], "Destination address", vals[3]))
	}
	return ret, nil
}

// fwdICMP is block_icmp (block true) and allow_icmp: an unknown type is
// False, a type already in the wanted state is "success" without a change.
func fwdICMP(name string, block bool) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind(name, args, kwargs, execmod.Req("zone"), execmod.Req("icmp"), execmod.Opt("permanent", true))
		if err != nil {
			return nil, err
		}
		types, err := fwdSplit(fwdCmd(ctx, "--get-icmptypes"+fwdPerm(v[2])))
		if err != nil {
			return nil, err
		}
		if !fwdIn(v[1], types) {
			slog.Error("Invalid ICMP type")
			return false, nil
		}
		blocked, err := fwdSplit(fwdCmd(ctx, fwdZone(v[0])+" --list-icmp-blocks"+fwdPerm(v[2])))
		if err != nil {
			return nil, err
		}
		op := "--add-icmp-block="
		if block && fwdIn(v[1], blocked) {
			slog.Info("ICMP block already exists")
			return "success", nil
		}
		if !block {
			if !fwdIn(v[1], blocked) {
				slog.Info("ICMP Type is already permitted")
				return "success", nil
			}
			op = "--remove-icmp-block="
		}
		return fwdCmd(ctx, fwdZone(v[0])+" "+op+value.Str(v[1])+fwdPerm(v[2]))
	}
}

// fwdLogBound is the check the interface and source functions make
// before changing a binding: it lists the zone's bindings (failing as the
// listing fails) and only logs what it finds.
func fwdLogBound(ctx *execmod.Context, kind, action string, zone, item, permanent any) error {
	op := map[string]string{"interface": "--list-interfaces", "source": "--list-sources"}[kind]
	bound, err := fwdSplit(fwdCmd(ctx, fwdZone(zone)+" "+op+fwdPerm(permanent)))
	if err != nil {
		return err
	}
	title := strings.ToUpper(kind[:1]) + kind[1:]
	in := fwdIn(item, bound)
	switch {
	case action == "add" && in:
		slog.Info(title + " is already bound to zone.")
	case action == "remove" && !in:
		slog.Info(title + " is not bound to zone.")
	}
	return nil
}
