package modules

// nftables.go is salt/modules/nftables.py: rule text built from keyword
// arguments, tables, chains and rules listed, checked, added and removed
// with nft, the ruleset saved to /etc/nftables. Commands go through
// cmd.run as Salt's do, under the prefix attached as NftablesPrefixService
// (ip netns exec NAME in tests). Salt 3006's quirks are kept: build_rule
// builds a full command only for full='True' (a string), get_policy
// always returns None, and delete passes the handle lookup's mapping (or
// asks for a rule when given a position), so nft refuses it.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"brine/internal/execmod"
	"brine/internal/value"
)

// NftablesPrefixService is the execmod service under which a run (or a
// test) attaches a command prefix ([]string) every nft command runs under.
const NftablesPrefixService = "nftables.prefix"

func init() {
	for name, f := range map[string]struct {
		fn  execmod.Func
		doc string
	}{
		"version":         {nftVersion, "Return the nftables version (nft --version)."},
		"build_rule":      {nftBuildRule, "Build an nftables rule from keyword arguments: {'comment', 'rule', 'result'}."},
		"get_saved_rules": {nftGetSavedRules, "Return the rule lines of the saved rules file (conf_file)."},
		"list_tables":     {nftByFamily("list_tables", nftTables), "Return the tables of family (nft --json list tables)."},
		"get_rules":       {nftByFamily("get_rules", nftRules), "Return the listing of each table of family."},
		"get_rules_json":  {nftByFamily("get_rules_json", nftRulesJSON), "Return the ruleset of family as nft's JSON objects."},
		"save":            {nftSave, "Write every family's tables to filename (a directory gets salt-all-in-one.nft); the text written."},
		"get_rule_handle": {nftByRule("get_rule_handle", nftRuleHandle), "Return {'result', 'handle'} of rule in chain of table."},
		"check":           {nftByRule("check", nftCheckRule), "Check that rule is in chain of table: {'comment', 'result'}."},
		"check_chain":     {nftCheckChain, "Check that chain is in table: {'comment', 'result'}."},
		"check_table":     {nftCheckTable, "Check that table exists in family: {'comment', 'result'}."},
		"new_table":       {nftNewTable, "Create table in family: {'comment', 'result'}."},
		"delete_table":    {nftDeleteTable, "Delete table from family: {'comment', 'result'}."},
		"new_chain":       {nftNewChain, "Create chain in table (a base chain with table_type, hook and priority)."},
		"delete_chain":    {nftDeleteChain, "Delete chain from table: {'comment', 'result'}."},
		"append":          {nftAppend, "Add rule at the end of chain unless it is there: {'comment', 'result'}."},
		"insert":          {nftInsert, "Insert rule into chain (at position) unless it is there: {'comment', 'result'}."},
		"delete":          {nftDelete, "Delete a rule (by rule or position) from chain: {'comment', 'result'}."},
		"flush":           {nftFlush, "Flush chain (the whole table without one): {'comment', 'result'}."},
		"get_policy":      {nftGetPolicy, "Return the policy of chain (None, as in Salt 3006)."},
		"set_policy":      {nftSetPolicy, "Set the policy of a base chain: True on success."},
	} {
		execmod.Register("nftables."+name, needsCmd("nft", "nftables."+name, f.fn), f.doc)
	}
}

// nftFamilies maps Salt's family names to nft's.
var nftFamilies = map[string]string{"ipv4": "ip", "ip4": "ip", "ip": "ip", "ipv6": "ip6", "ip6": "ip6",
	"inet": "inet", "arp": "arp", "bridge": "bridge", "netdev": "netdev"}

func nftFamily(family any) (string, error) {
	f, ok := nftFamilies[execmod.String(family)]
	if !ok {
		return "", execmod.Errorf("KeyError: %s", value.Repr(family))
	}
	return f, nil
}

// nftRun runs an nft command line through cmd.run (output and errors
// together) and returns its output.
func nftRun(ctx *execmod.Context, format string, a ...any) (string, error) {
	out, err := netfilterRun(ctx, NftablesPrefixService, "cmd.run", fmt.Sprintf(format, a...))
	return execmod.String(out), err
}

// nftRet is Salt's {'comment': ..., 'result': ...} return.
func nftRet(comment string, result bool) *value.Map {
	return value.MapOf("comment", comment, "result", result)
}

func nftOK(m any) bool {
	r, _ := m.(*value.Map).Get("result")
	return value.Truthy(r)
}

func nftVersion(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("version", args, kwargs); err != nil {
		return nil, err
	}
	out, err := nftRun(ctx, "nft --version")
	if err != nil {
		return nil, err
	}
	f := strings.Fields(out)
	if len(f) < 2 {
		return nil, execmod.Errorf("IndexError: list index out of range")
	}
	return f[1], nil
}

// nftPorts is Salt's handling of dports and sports: comma-separated port
// numbers, sorted in descending order.
func nftPorts(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", execmod.Errorf("AttributeError: '%s' object has no attribute 'split'", value.TypeName(v))
	}
	var ports []int
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return "", execmod.Errorf("ValueError: invalid literal for int() with base 10: %s", value.Repr(p))
		}
		ports = append(ports, n)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ports)))
	parts := make([]string, len(ports))
	for i, n := range ports {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ", "), nil
}

func nftBuildRule(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, kw, err := execmod.Bind("build_rule", args, kwargs,
		execmod.Opt("table", nil), execmod.Opt("chain", nil), execmod.Opt("command", nil),
		execmod.Opt("position", ""), execmod.Opt("full", nil), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	table, chain, command, position, full, family := v[0], v[1], v[2], v[3], v[4], v[5]
	ret := value.MapOf("comment", "", "rule", "", "result", false)
	get := func(k string) any { x, _ := kw.Get(k); return x }
	if kw.Has("target") {
		t, _ := kw.Delete("target")
		kw.Set("jump", t)
	}
	fam, err := nftFamily(family)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	add := func(format string, k string) {
		fmt.Fprintf(&b, format, value.Str(get(k)))
		kw.Delete(k)
	}
	if kw.Has("if") {
		add("meta iifname %s ", "if")
	}
	if kw.Has("of") {
		add("meta oifname %s ", "of")
	}
	proto := ""
	if kw.Has("proto") {
		proto = value.Str(get("proto"))
	}
	if kw.Has("connstate") {
		add("ct state { %s } ", "connstate")
	}
	if kw.Has("icmp-type") {
		add("icmp type { %s } ", "icmp-type")
	}
	if kw.Has("pkttype") {
		add("meta pkttype { %s } ", "pkttype")
	}
	if kw.Has("counter") {
		b.WriteString("counter ")
		kw.Delete("counter")
	}
	for _, pair := range [][3]string{{"saddr", "source", "ip saddr %s "}, {"daddr", "destination", "ip daddr %s "}} {
		if kw.Has(pair[0]) || kw.Has(pair[1]) {
			x := get(pair[0])
			if !value.Truthy(x) {
				x = get(pair[1])
			}
			fmt.Fprintf(&b, pair[2], value.Str(x))
			kw.Delete(pair[0])
			kw.Delete(pair[1])
		}
	}
	for _, k := range []string{"dport", "sport"} {
		if kw.Has(k) {
			fmt.Fprintf(&b, "%s { %s } ", k, strings.ReplaceAll(value.Str(get(k)), ":", "-"))
			kw.Delete(k)
		}
	}
	for _, k := range []string{"dports", "sports"} {
		if kw.Has(k) {
			ports, err := nftPorts(get(k))
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&b, "%s { %s } ", k[:len(k)-1], ports)
			kw.Delete(k)
		}
	}
	for _, k := range []string{"jump", "j"} {
		if kw.Has(k) {
			add("%s ", k)
		}
	}
	if kw.Has("redirect-to") || kw.Has("to-port") {
		x := get("redirect-to")
		if !value.Truthy(x) {
			x = get("to-port")
		}
		fmt.Fprintf(&b, "redirect to %s ", value.Str(x))
		kw.Delete("redirect-to")
		kw.Delete("to-port")
	}
	if kw.Has("to-ports") {
		add("--to-ports %s ", "to-ports")
	}
	for _, k := range []string{"to-source", "to-destination"} {
		if kw.Has(k) {
			add("%s ", k)
		}
	}
	if kw.Has("reject-with") {
		add("reject with %s ", "reject-with")
	}
	rule := pyStripSpace(b.String())
	rule = strings.ReplaceAll(rule, "dport", proto+" dport")
	rule = strings.ReplaceAll(rule, "sport", proto+" sport")
	ret.Set("rule", rule)
	if full == "True" || full == "true" {
		switch {
		case !value.Truthy(table):
			ret.Set("comment", "Table needs to be specified")
			return ret, nil
		case !value.Truthy(chain):
			ret.Set("comment", "Chain needs to be specified")
			return ret, nil
		case !value.Truthy(command):
			ret.Set("comment", "Command needs to be specified")
			return ret, nil
		}
		t, c := value.Str(table), value.Str(chain)
		switch cmd := value.Str(command); {
		case cmd == "Insert" || cmd == "insert" || cmd == "INSERT":
			if value.Truthy(position) {
				ret.Set("rule", fmt.Sprintf("nft insert rule %s %s %s position %s %s", fam, t, c, value.Str(position), rule))
			} else {
				ret.Set("rule", fmt.Sprintf("nft insert rule %s %s %s %s", fam, t, c, rule))
			}
		default:
			ret.Set("rule", fmt.Sprintf("nft %s rule %s %s %s %s", cmd, fam, t, c, rule))
		}
	}
	if r, _ := ret.Get("rule"); r != "" {
		ret.Set("comment", "Successfully built rule")
	}
	ret.Set("result", true)
	return ret, nil
}

// pyStripSpace is Python's str.strip().
func pyStripSpace(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return strings.ContainsRune(" \t\n\r\v\f\x1c\x1d\x1e\x1f\x85\u00a0", r) })
}

// nftConf is Salt's _conf: the saved ruleset's path on this OS ("" when
// the OS has none), under the test root.
func nftConf(ctx *execmod.Context) string {
	fam := execmod.String(ctxGrain(ctx, "os_family"))
	if fam == "RedHat" || fam == "Arch" || fam == "Debian" || execmod.String(ctxGrain(ctx, "os")) == "Gentoo" {
		return filepath.Join("/", sysRoot(ctx), "/etc/nftables")
	}
	return ""
}

func nftGetSavedRules(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_saved_rules", args, kwargs, execmod.Opt("conf_file", nil))
	if err != nil {
		return nil, err
	}
	path := execmod.String(v[0])
	if c := nftConf(ctx); c != "" && !value.Truthy(v[0]) {
		path = c
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, execmod.Errorf("%s", pyOSErrorText(err, path))
	}
	out := value.NewList()
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if t := pyStripSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			out.Append(l)
		}
	}
	return out, nil
}

// nftByFamily is a function whose one argument is family (default ipv4).
func nftByFamily(name string, f func(*execmod.Context, any) (*value.List, error)) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind(name, args, kwargs, execmod.Opt("family", "ipv4"))
		if err != nil {
			return nil, err
		}
		return f(ctx, v[0])
	}
}

// nftTables is list_tables for an nft family name.
func nftTables(ctx *execmod.Context, family any) (*value.List, error) {
	fam, err := nftFamily(family)
	if err != nil {
		return nil, err
	}
	tables := value.NewList()
	l, err := nftJSON(ctx, "nft --json --numeric --numeric --numeric list tables %s", fam)
	if err != nil || l == nil || l.Len() == 0 {
		return tables, err
	}
	for _, it := range l.Items {
		im, _ := it.(*value.Map)
		if im == nil || im.Has("metainfo") {
			continue
		}
		t, ok := im.Get("table")
		if !ok {
			return nil, execmod.Errorf("KeyError: 'table'")
		}
		tables.Append(t)
	}
	return tables, nil
}

func nftRules(ctx *execmod.Context, family any) (*value.List, error) {
	tables, err := nftTables(ctx, family)
	if err != nil {
		return nil, err
	}
	fam, _ := nftFamily(family)
	rules := value.NewList()
	for _, t := range tables.Items {
		tm, _ := t.(*value.Map)
		name, _ := tm.Get("name")
		out, err := nftRun(ctx, "nft --numeric --numeric --numeric list table %s %s", fam, value.Str(name))
		if err != nil {
			return nil, err
		}
		rules.Append(out)
	}
	return rules, nil
}

func nftRulesJSON(ctx *execmod.Context, family any) (*value.List, error) {
	fam, err := nftFamily(family)
	if err != nil {
		return nil, err
	}
	l, err := nftJSON(ctx, "nft --numeric --numeric --numeric --json list ruleset %s", fam)
	if err != nil || l == nil {
		return value.NewList(), err
	}
	return l, nil
}

// nftJSON runs an nft --json listing and returns its "nftables" items
// (nil when the output is empty or not such a document).
func nftJSON(ctx *execmod.Context, format string, a ...any) (*value.List, error) {
	out, err := nftRun(ctx, format, a...)
	if err != nil || out == "" {
		return nil, err
	}
	data, err := value.FromJSON([]byte(out))
	m, _ := data.(*value.Map)
	if err != nil || m == nil {
		return nil, nil
	}
	items, _ := m.Get("nftables")
	l, _ := items.(*value.List)
	return l, nil
}

func nftSave(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("save", args, kwargs, execmod.Opt("filename", nil), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	filename := execmod.String(v[0])
	if c := nftConf(ctx); c != "" && !value.Truthy(v[0]) {
		filename = c
	}
	var b strings.Builder
	b.WriteString("#! nft -f\n")
	for _, fam := range []string{"ip", "ip6", "inet", "arp", "bridge", "netdev"} {
		out, err := nftRules(ctx, fam)
		if err != nil {
			return nil, err
		}
		if out.Len() > 0 {
			b.WriteString("\n")
		}
		parts := make([]string, out.Len())
		for i, r := range out.Items {
			parts[i] = value.Str(r)
		}
		b.WriteString(strings.Join(parts, "\n"))
	}
	b.WriteString("\n")
	if st, err := os.Stat(filename); err == nil && st.IsDir() {
		filename += "/salt-all-in-one.nft"
	}
	if err := os.WriteFile(filename, []byte(b.String()), 0o666); err != nil {
		return nil, execmod.Errorf("Problem writing to configuration file: %s", pyOSErrorText(err, filename))
	}
	return b.String(), nil
}

// nftTableChainArgs binds (table, chain, rule, family) with Salt's
// defaults.
func nftTableChainArgs(fun string, args []any, kwargs *value.Map, extra ...execmod.Param) ([]any, error) {
	params := append([]execmod.Param{execmod.Opt("table", "filter"), execmod.Opt("chain", nil)}, extra...)
	params = append(params, execmod.Opt("family", "ipv4"))
	v, _, err := execmod.Bind(fun, args, kwargs, params...)
	return v, err
}

// nftByRule is a function of (table, chain, rule, family) with Salt's
// defaults.
func nftByRule(name string, f func(ctx *execmod.Context, table, chain, rule, family any) (any, error)) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, err := nftTableChainArgs(name, args, kwargs, execmod.Opt("rule", nil))
		if err != nil {
			return nil, err
		}
		return f(ctx, v[0], v[1], v[2], v[3])
	}
}

func nftRuleHandle(ctx *execmod.Context, table, chain, rule, family any) (any, error) {
	if res, err := nftCheckRule(ctx, table, chain, rule, family); err != nil || !nftOK(res) {
		return res, err
	}
	fam, _ := nftFamily(family)
	out, err := nftRun(ctx, "nft --numeric --numeric --numeric --handle list chain %s %s %s", fam, value.Str(table), value.Str(chain))
	if err != nil {
		return nil, err
	}
	pat, err := regexp.Compile(value.Str(rule) + ` # handle (?P<handle>\d+)`)
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	for _, l := range regexp.MustCompile("\n+").Split(out, -1) {
		if m := pat.FindStringSubmatch(l); m != nil {
			return value.MapOf("result", true, "handle", m[pat.SubexpIndex("handle")]), nil
		}
	}
	return value.MapOf("result", false, "comment", "Could not find rule "+value.Str(rule)), nil
}

// nftCheckRule is Salt's check after its table and chain checks (which
// get_rule_handle shares): whether rule is listed in chain.
func nftCheckRule(ctx *execmod.Context, table, chain, rule, family any) (any, error) {
	switch {
	case !value.Truthy(chain):
		return nftRet("Chain needs to be specified", false), nil
	case !value.Truthy(rule):
		return nftRet("Rule needs to be specified", false), nil
	}
	if res, err := nftTableChainCheck(ctx, table, chain, family); err != nil || !nftOK(res) {
		return res, err
	}
	fam, _ := nftFamily(family)
	out, err := nftRun(ctx, "nft --handle --numeric --numeric --numeric list chain %s %s %s", fam, value.Str(table), value.Str(chain))
	if err != nil {
		return nil, err
	}
	desc := fmt.Sprintf("Rule %s in chain %s in table %s in family %s", value.Str(rule), value.Str(chain), value.Str(table), value.Str(family))
	if strings.Contains(out, value.Str(rule)+" #") {
		return nftRet(desc+" exists", true), nil
	}
	return nftRet(desc+" does not exist", false), nil
}

// nftTableChainCheck runs check_table, then check_chain.
func nftTableChainCheck(ctx *execmod.Context, table, chain, family any) (any, error) {
	res, err := nftTableCheck(ctx, table, family)
	if err != nil || !nftOK(res) {
		return res, err
	}
	return nftChainCheck(ctx, table, chain, family)
}

func nftCheckChain(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, err := nftTableChainArgs("check_chain", args, kwargs)
	if err != nil {
		return nil, err
	}
	return nftChainCheck(ctx, v[0], v[1], v[2])
}

func nftChainCheck(ctx *execmod.Context, table, chain, family any) (any, error) {
	if !value.Truthy(chain) {
		return nftRet("Chain needs to be specified", false), nil
	}
	fam, err := nftFamily(family)
	if err != nil {
		return nil, err
	}
	out, err := nftRun(ctx, "nft list table %s %s", fam, value.Str(table))
	if err != nil {
		return nil, err
	}
	desc := fmt.Sprintf("Chain %s in table %s in family %s", value.Str(chain), value.Str(table), value.Str(family))
	if strings.Contains(out, "chain "+value.Str(chain)+" {") {
		return nftRet(desc+" exists", true), nil
	}
	return nftRet(desc+" does not exist", false), nil
}

func nftCheckTable(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("check_table", args, kwargs, execmod.Opt("table", nil), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	return nftTableCheck(ctx, v[0], v[1])
}

func nftTableCheck(ctx *execmod.Context, table, family any) (any, error) {
	if !value.Truthy(table) {
		return nftRet("Table needs to be specified", false), nil
	}
	fam, err := nftFamily(family)
	if err != nil {
		return nil, err
	}
	out, err := nftRun(ctx, "nft list tables %s", fam)
	if err != nil {
		return nil, err
	}
	desc := fmt.Sprintf("Table %s in family %s", value.Str(table), value.Str(family))
	if strings.Contains(out, fmt.Sprintf("table %s %s", fam, value.Str(table))) {
		return nftRet(desc+" exists", true), nil
	}
	return nftRet(desc+" does not exist", false), nil
}

// nftChange runs an nft command that prints nothing on success and
// returns Salt's {'comment', 'result'} with done or failed as the comment.
func nftChange(ctx *execmod.Context, done, failed, format string, a ...any) (any, error) {
	out, err := nftRun(ctx, format, a...)
	if err != nil {
		return nil, err
	}
	if out == "" {
		return nftRet(done, true), nil
	}
	return nftRet(failed, false), nil
}

func nftNewTable(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("new_table", args, kwargs, execmod.Req("table"), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	table, family := v[0], v[1]
	if !value.Truthy(table) {
		return nftRet("Table needs to be specified", false), nil
	}
	if res, err := nftTableCheck(ctx, table, family); err != nil || nftOK(res) {
		return res, err
	}
	fam, _ := nftFamily(family)
	desc := fmt.Sprintf("Table %s in family %s", value.Str(table), value.Str(family))
	return nftChange(ctx, desc+" created", desc+" could not be created", "nft add table %s %s", fam, value.Str(table))
}

func nftDeleteTable(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("delete_table", args, kwargs, execmod.Req("table"), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	table, family := v[0], v[1]
	if !value.Truthy(table) {
		return nftRet("Table needs to be specified", false), nil
	}
	if res, err := nftTableCheck(ctx, table, family); err != nil || !nftOK(res) {
		return res, err
	}
	fam, _ := nftFamily(family)
	desc := fmt.Sprintf("Table %s in family %s", value.Str(table), value.Str(family))
	return nftChange(ctx, desc+" deleted", desc+" could not be deleted", "nft delete table %s %s", fam, value.Str(table))
}

func nftNewChain(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("new_chain", args, kwargs, execmod.Opt("table", "filter"), execmod.Opt("chain", nil),
		execmod.Opt("table_type", nil), execmod.Opt("hook", nil), execmod.Opt("priority", nil), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	table, chain, tableType, hook, priority, family := v[0], v[1], v[2], v[3], v[4], v[5]
	if !value.Truthy(chain) {
		return nftRet("Chain needs to be specified", false), nil
	}
	if res, err := nftTableCheck(ctx, table, family); err != nil || !nftOK(res) {
		return res, err
	}
	desc := fmt.Sprintf("Chain %s in table %s in family %s", value.Str(chain), value.Str(table), value.Str(family))
	res, err := nftChainCheck(ctx, table, chain, family)
	if err != nil {
		return nil, err
	}
	if nftOK(res) {
		return nftRet(desc+" already exists", false), nil
	}
	fam, _ := nftFamily(family)
	cmd := fmt.Sprintf("nft -- add chain %s %s %s", fam, value.Str(table), value.Str(chain))
	if value.Truthy(tableType) || value.Truthy(hook) || value.Truthy(priority) {
		if !value.Truthy(tableType) || !value.Truthy(hook) || value.Str(priority) == "" {
			return nftRet("Table_type, hook, and priority required.", false), nil
		}
		cmd = fmt.Sprintf(`%s \{ type %s hook %s priority %s\; \}`, cmd, value.Str(tableType), value.Str(hook), value.Str(priority))
	}
	return nftChange(ctx, desc+" created", desc+" could not be created", "%s", cmd)
}

func nftDeleteChain(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, err := nftTableChainArgs("delete_chain", args, kwargs)
	if err != nil {
		return nil, err
	}
	table, chain, family := v[0], v[1], v[2]
	if !value.Truthy(chain) {
		return nftRet("Chain needs to be specified", false), nil
	}
	if res, err := nftTableChainCheck(ctx, table, chain, family); err != nil || !nftOK(res) {
		return res, err
	}
	fam, _ := nftFamily(family)
	desc := fmt.Sprintf("Chain %s in table %s in family %s", value.Str(chain), value.Str(table), value.Str(family))
	return nftChange(ctx, desc+" deleted", desc+" could not be deleted", "nft delete chain %s %s %s", fam, value.Str(table), value.Str(chain))
}

// nftAddRule is append and insert: the checks, then nft add rule or nft
// insert rule (cmd).
func nftAddRule(ctx *execmod.Context, table, chain, rule, family any, cmd func(fam string) string) (any, error) {
	switch {
	case !value.Truthy(chain):
		return nftRet("Chain needs to be specified", false), nil
	case !value.Truthy(rule):
		return nftRet("Rule needs to be specified", false), nil
	}
	if res, err := nftTableChainCheck(ctx, table, chain, family); err != nil || !nftOK(res) {
		return res, err
	}
	t, c, r, f := value.Str(table), value.Str(chain), value.Str(rule), value.Str(family)
	res, err := nftCheckRule(ctx, table, chain, rule, family)
	if err != nil {
		return nil, err
	}
	if nftOK(res) {
		return nftRet(fmt.Sprintf("Rule %s chain %s in table %s in family %s already exists", r, c, t, f), false), nil
	}
	fam, _ := nftFamily(family)
	return nftChange(ctx, fmt.Sprintf("Added rule \"%s\" chain %s in table %s in family %s.", r, c, t, f),
		fmt.Sprintf("Failed to add rule \"%s\" chain %s in table %s in family %s.", r, c, t, f), "%s", cmd(fam))
}

func nftAppend(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, err := nftTableChainArgs("append", args, kwargs, execmod.Opt("rule", nil))
	if err != nil {
		return nil, err
	}
	table, chain, rule, family := v[0], v[1], v[2], v[3]
	return nftAddRule(ctx, table, chain, rule, family, func(fam string) string {
		return fmt.Sprintf("nft add rule %s %s %s %s", fam, value.Str(table), value.Str(chain), value.Str(rule))
	})
}

func nftInsert(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, err := nftTableChainArgs("insert", args, kwargs, execmod.Opt("position", nil), execmod.Opt("rule", nil))
	if err != nil {
		return nil, err
	}
	table, chain, position, rule, family := v[0], v[1], v[2], v[3], v[4]
	return nftAddRule(ctx, table, chain, rule, family, func(fam string) string {
		if value.Truthy(position) {
			return fmt.Sprintf("nft insert rule %s %s %s position %s %s", fam, value.Str(table), value.Str(chain), value.Str(position), value.Str(rule))
		}
		return fmt.Sprintf("nft insert rule %s %s %s %s", fam, value.Str(table), value.Str(chain), value.Str(rule))
	})
}

func nftDelete(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("delete", args, kwargs, execmod.Req("table"), execmod.Opt("chain", nil),
		execmod.Opt("position", nil), execmod.Opt("rule", nil), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	table, chain, position, rule, family := v[0], v[1], v[2], v[3], v[4]
	if value.Truthy(position) && value.Truthy(rule) {
		return nftRet("Only specify a position or a rule, not both", false), nil
	}
	if res, err := nftTableChainCheck(ctx, table, chain, family); err != nil || !nftOK(res) {
		return res, err
	}
	t, c, r, f := value.Str(table), value.Str(chain), value.Str(rule), value.Str(family)
	res, err := nftCheckRule(ctx, table, chain, rule, family)
	if err != nil {
		return nil, err
	}
	if !nftOK(res) {
		return nftRet(fmt.Sprintf("Rule %s chain %s in table %s in family %s does not exist", r, c, t, f), false), nil
	}
	if !value.Truthy(position) {
		if position, err = nftRuleHandle(ctx, table, chain, rule, family); err != nil {
			return nil, err
		}
	}
	fam, _ := nftFamily(family)
	return nftChange(ctx, fmt.Sprintf("Deleted rule \"%s\" in chain %s in table %s in family %s.", r, c, t, f),
		fmt.Sprintf("Failed to delete rule \"%s\" in chain %s  table %s in family %s", r, c, t, f),
		"nft delete rule %s %s %s handle %s", fam, t, c, value.Str(position))
}

func nftFlush(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("flush", args, kwargs, execmod.Opt("table", "filter"), execmod.Opt("chain", ""), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	table, chain, family := v[0], v[1], v[2]
	if res, err := nftTableCheck(ctx, table, family); err != nil || !nftOK(res) {
		return res, err
	}
	fam, _ := nftFamily(family)
	t, c, f := value.Str(table), value.Str(chain), value.Str(family)
	cmd, what := fmt.Sprintf("nft flush table %s %s", fam, t), fmt.Sprintf("from table %s in family %s.", t, f)
	if value.Truthy(chain) {
		if res, err := nftChainCheck(ctx, table, chain, family); err != nil || !nftOK(res) {
			return res, err
		}
		cmd, what = fmt.Sprintf("nft flush chain %s %s %s", fam, t, c), fmt.Sprintf("from chain %s in table %s in family %s.", c, t, f)
	}
	return nftChange(ctx, "Flushed rules "+what, "Failed to flush rules "+what, "%s", cmd)
}

func nftGetPolicy(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, err := nftTableChainArgs("get_policy", args, kwargs)
	if err != nil {
		return nil, err
	}
	if !value.Truthy(v[1]) {
		return "Error: Chain needs to be specified", nil
	}
	fam, err := nftFamily(v[2])
	if err != nil {
		return nil, err
	}
	// Salt 3006 indexes the list of ruleset objects by "nftables", which
	// fails, so the policy is never found.
	_, err = nftRulesJSON(ctx, fam)
	return nil, err
}

func nftSetPolicy(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_policy", args, kwargs, execmod.Opt("table", "filter"), execmod.Opt("chain", nil),
		execmod.Opt("policy", nil), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	table, chain, policy, family := v[0], v[1], v[2], v[3]
	switch {
	case !value.Truthy(chain):
		return "Error: Chain needs to be specified", nil
	case !value.Truthy(policy):
		return "Error: Policy needs to be specified", nil
	}
	fam, err := nftFamily(family)
	if err != nil {
		return nil, err
	}
	rules, err := nftRulesJSON(ctx, fam)
	if err != nil || rules.Len() == 0 {
		return false, err
	}
	var info *value.Map
	for _, r := range rules.Items {
		rm, _ := r.(*value.Map)
		if rm == nil {
			continue
		}
		ch, _ := rm.Get("chain")
		cm, _ := ch.(*value.Map)
		if cm == nil {
			continue
		}
		t, okT := cm.Get("table")
		n, okN := cm.Get("name")
		if okT && okN && value.Equal(t, table) && value.Equal(n, chain) {
			info = cm
			break
		}
	}
	if info == nil || !info.Has("type") || !info.Has("hook") || !info.Has("prio") {
		return false, nil
	}
	typ, _ := info.Get("type")
	hook, _ := info.Get("hook")
	prio, _ := info.Get("prio")
	out, err := netfilterRun(ctx, NftablesPrefixService, "cmd.run_all",
		fmt.Sprintf(`nft add chain %s %s %s "{ type %s hook %s priority %s; policy %s; }"`, fam, value.Str(table), value.Str(chain),
			value.Str(typ), value.Str(hook), value.Str(prio), value.Str(policy)))
	if err != nil {
		return nil, err
	}
	m, _ := out.(*value.Map)
	return value.Equal(cmdGet(m, "retcode"), int64(0)), nil
}
