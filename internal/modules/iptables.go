package modules

// iptables.go is salt/modules/iptables.py: rule text built from keyword
// arguments (build_rule), the tables read from iptables-save or the saved
// rules file, and chains, rules and policies changed with iptables or
// ip6tables (family=ipv6). Commands go through cmd.run_* as Salt's do,
// under the prefix attached as IptablesPrefixService (ip netns exec NAME
// in tests); the rules file and the parsing live in
// internal/system/iptables.

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/system/iptables"
	"brine/internal/value"
)

// IptablesPrefixService is the execmod service under which a run (or a
// test) attaches a command prefix ([]string) every iptables command runs
// under, such as {"ip", "netns", "exec", "NAME"}.
const IptablesPrefixService = "iptables.prefix"

func init() {
	for name, f := range map[string]struct {
		fn  execmod.Func
		doc string
	}{
		"version":          {iptVersion, "Return the iptables version (iptables --version)."},
		"build_rule":       {iptBuildRule, "Build the text of a rule from keyword arguments (full=True: the whole iptables command)."},
		"get_saved_rules":  {iptGetSavedRules, "Return the rules of the saved rules file as {table: {chain: {...}}}."},
		"get_rules":        {iptGetRules, "Return the rules in effect (iptables-save) as {table: {chain: {...}}}."},
		"get_saved_policy": {iptGetSavedPolicy, "Return the policy of chain in the saved rules file (None when unknown)."},
		"get_policy":       {iptGetPolicy, "Return the policy of chain in effect (None when unknown)."},
		"set_policy":       {iptSetPolicy, "Set the policy of chain; iptables' error output ('' on success)."},
		"save":             {iptSave, "Write the rules in effect (less iptables.save_filters) to filename or the OS's rules file."},
		"check":            {iptCheck, "True when rule is in chain of table."},
		"check_chain":      {iptCheckChain, "True when chain exists in table."},
		"new_chain":        {iptNewChain, "Create chain in table: True, or iptables' error."},
		"delete_chain":     {iptDeleteChain, "Delete chain from table: True, or iptables' error."},
		"append":           {iptAppend, "Append rule to chain unless it is there: True when appended."},
		"insert":           {iptInsert, "Insert rule at position (negative: from the end) unless it is there; iptables' error output."},
		"delete":           {iptDelete, "Delete a rule by position or text; iptables' error output ('' on success)."},
		"flush":            {iptFlush, "Flush chain (all chains when empty) of table; iptables' error output."},
	} {
		execmod.Register("iptables."+name, needsCmd("iptables", "iptables."+name, f.fn), f.doc)
	}
}

// needsCmd is the __virtual__ of the iptables and nftables modules: f
// (registered as name) is available only where the command bin is.
func needsCmd(bin, name string, f execmod.Func) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		if !hasCmd(bin) {
			return nil, &execmod.CommandExecutionError{Msg: "'" + name + "' is not available."}
		}
		return f(ctx, args, kwargs)
	}
}

// iptBin is Salt's _iptables_cmd: the path of iptables or ip6tables
// ("None" when missing, as Salt formats it).
func iptBin(family any) string {
	name := "iptables"
	if family == "ipv6" {
		name = "ip6tables"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "None"
	}
	return p
}

// iptRun splits the command line as Salt's cmd functions do without a
// shell and runs it through the cmd function fun, under the prefix.
func iptRun(ctx *execmod.Context, fun, line string, kw ...any) (string, error) {
	out, err := netfilterRun(ctx, IptablesPrefixService, fun, line, kw...)
	return execmod.String(out), err
}

// netfilterRun runs a command line through the cmd function fun (split
// as Salt splits it without a shell), under the prefix attached as the
// service named prefixService.
func netfilterRun(ctx *execmod.Context, prefixService, fun, line string, kw ...any) (any, error) {
	argv, err := iptables.Split(line)
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	if p, ok := ctx.Service(prefixService).([]string); ok {
		argv = append(append([]string{}, p...), argv...)
	}
	return runArgv(ctx, fun, argv, kw...)
}

// iptStderr runs line and returns its error output (cmd.run_stderr).
func iptStderr(ctx *execmod.Context, line string) (string, error) {
	return iptRun(ctx, "cmd.run_stderr", line)
}

// iptWait is "--wait" when the iptables of family has that option.
func iptWait(ctx *execmod.Context, family any) (string, error) {
	out, err := iptRun(ctx, "cmd.run_stdout", iptBin(family)+" --help", "output_loglevel", "quiet")
	if err != nil {
		return "", err
	}
	if strings.Contains(out, "--wait") {
		return "--wait", nil
	}
	return "", nil
}

func iptVersion(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("version", args, kwargs, execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	out, err := iptRun(ctx, "cmd.run_stdout", iptBin(v[0])+" --version")
	if err != nil {
		return nil, err
	}
	f := strings.Fields(out)
	if len(f) < 2 {
		return nil, execmod.Errorf("IndexError: list index out of range")
	}
	return f[1], nil
}

// iptBangNot is Salt's negation prefix pattern, removed wherever it occurs
// in a value that starts with it.
var iptBangNot = regexp.MustCompile(`(!|not)[\s\v]?`)

// iptAfterJump are the target options, written after the jump in this
// order.
var iptAfterJump = strings.Fields(`j jump add-set and-mark and-tos checksum-fill
clamp-mss-to-pmtu clustermac ctevents ctmask del-set ecn-tcp-remove exist
expevents gateway hash-init hashmode helper label local-node log-ip-options
log-level log-prefix log-tcp-options log-tcp-sequence log-uid mask new nfmask
nflog-group nflog-prefix nflog-range nflog-threshold nodst notrack on-ip
on-port or-mark or-tos persistent queue-balance queue-bypass queue-num random
rateest-ewmalog rateest-interval rateest-name reject-with restore restore-mark
save-mark selctx set-class set-dscp set-dscp-class set-mark set-mss set-tos
set-xmark strip-options timeout to to-destination to-ports to-source
total-nodes tproxy-mark ttl-dec ttl-inc ttl-set type ulog-cprange ulog-nlgroup
ulog-prefix ulog-qthreshold xor-mark xor-tos zone dst-pfx hl-dec hl-inc hl-set
hmark-dport-mask hmark-dst-prefix hmark-mod hmark-offset hmark-proto-mask
hmark-rnd hmark-spi-mask hmark-sport-mask hmark-src-prefix hmark-tuple
led-always-blink led-delay led-trigger-id queue-cpu-fanout src-pfx to-port
addr and-mask delude honeypot or-mask prefix reset reuse set-mac shift static
tarpit tname ttl`)

// iptNoArg is Python's `v in (None, "")`: an option written without a value.
func iptNoArg(v any) bool { return v == nil || v == "" }

func iptHasWord(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func iptBuildRule(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, kw, err := execmod.Bind("build_rule", args, kwargs,
		execmod.Opt("table", "filter"), execmod.Opt("chain", nil), execmod.Opt("command", nil),
		execmod.Opt("position", ""), execmod.Opt("full", nil), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	table, chain, command, position, full, family := v[0], v[1], v[2], v[3], v[4], v[5]
	rule, msg := iptRuleWords(kw)
	if msg != "" {
		return msg, nil
	}
	if !value.Truthy(full) {
		return strings.Join(rule, " "), nil
	}
	switch {
	case !value.Truthy(table):
		return "Error: Table needs to be specified", nil
	case !value.Truthy(chain):
		return "Error: Chain needs to be specified", nil
	case !value.Truthy(command):
		return "Error: Command needs to be specified", nil
	}
	flag := "--"
	if strings.Contains("ACDIRLSFZNXPE", value.Str(command)) {
		flag = "-"
	}
	wait, err := iptWait(ctx, family)
	if err != nil {
		return nil, err
	}
	return fmt.Sprintf("%s %s -t %s %s%s %s %s %s", iptBin(family), wait, value.Str(table), flag,
		value.Str(command), value.Str(chain), value.Str(position), strings.Join(rule, " ")), nil
}

// iptRuleWords builds the words of a rule from the keyword arguments of
// build_rule (consumed from kw), or returns Salt's error text.
func iptRuleWords(kw *value.Map) ([]string, string) {
	get := func(k string) any { x, _ := kw.Get(k); return x }
	if kw.Has("target") {
		t, _ := kw.Delete("target")
		kw.Set("jump", t)
	}
	for _, k := range append([]any(nil), kw.Keys()...) {
		if ks, _ := k.(string); ks == "name" || ks == "state" || ks == "chain" || ks == "save" || ks == "table" || statemod.IsInternalKeyword(ks) {
			kw.Delete(k)
		}
	}
	var rule []string
	protocol := false
	negate := func(k string) string {
		s := value.Str(get(k))
		if strings.HasPrefix(s, "!") || strings.HasPrefix(s, "not") {
			kw.Set(k, iptBangNot.ReplaceAllString(s, ""))
			return "! "
		}
		return ""
	}
	for _, io := range [][2]string{{"if", "-i"}, {"of", "-o"}} {
		if kw.Has(io[0]) {
			n := negate(io[0])
			rule = append(rule, fmt.Sprintf("%s%s %s", n, io[1], value.Str(get(io[0]))))
			kw.Delete(io[0])
		}
	}
	if kw.Has("proto") && get("match") != "policy" {
		p, _ := kw.Delete("proto")
		kw.Set("protocol", p)
	}
	if kw.Has("protocol") {
		n := negate("protocol")
		rule = append(rule, fmt.Sprintf("%s-p %s", n, value.Str(get("protocol"))))
		protocol = true
		kw.Delete("protocol")
	}
	if kw.Has("match") {
		var matches []string
		if l, ok := get("match").(*value.List); ok {
			for _, m := range l.Items {
				matches = append(matches, value.Str(m))
			}
		} else {
			matches = strings.Split(value.Str(get("match")), ",")
		}
		for _, m := range matches {
			rule = append(rule, "-m "+m)
			if t := strings.TrimSpace(m); kw.Has("name_") && (t == "pknock" || t == "quota2" || t == "recent") {
				rule = append(rule, "--name "+value.Str(get("name_")))
				kw.Delete("name_")
			}
		}
		if kw.Has("proto") && get("match") == "policy" {
			n := negate("proto")
			rule = append(rule, fmt.Sprintf("%s--proto %s", n, value.Str(get("proto"))))
			kw.Delete("proto")
		}
		kw.Delete("match")
	}
	if kw.Has("match-set") {
		var sets []any
		if l, ok := get("match-set").(*value.List); ok {
			sets = l.Items
		} else {
			sets = []any{get("match-set")}
		}
		for _, s := range sets {
			ms, neg := value.Str(s), ""
			if strings.HasPrefix(ms, "!") || strings.HasPrefix(ms, "not") {
				neg, ms = "! ", iptBangNot.ReplaceAllString(ms, "")
			}
			rule = append(rule, fmt.Sprintf("-m set %s--match-set %s", neg, ms))
		}
		kw.Delete("match-set")
	}
	if kw.Has("connstate") {
		if !iptHasWord(rule, "-m state") {
			rule = append(rule, "-m state")
		}
		n := negate("connstate")
		rule = append(rule, fmt.Sprintf("%s--state %s", n, value.Str(get("connstate"))))
		kw.Delete("connstate")
	}
	for _, k := range []string{"dport", "sport"} {
		if kw.Has(k) {
			n := negate(k)
			rule = append(rule, fmt.Sprintf("%s--%s %s", n, k, value.Str(get(k))))
			kw.Delete(k)
		}
	}
	for _, k := range []string{"dports", "sports"} {
		if !kw.Has(k) {
			continue
		}
		if !iptHasWord(rule, "-m multiport") {
			rule = append(rule, "-m multiport")
			if !protocol {
				return nil, "Error: protocol must be specified"
			}
		}
		var ports string
		if l, ok := get(k).(*value.List); ok {
			neg := false
			for _, p := range l.Items {
				if s := value.Str(p); (strings.HasPrefix(s, "!") || strings.HasPrefix(s, "not")) && value.Truthy(p) {
					neg = true
				}
			}
			parts := make([]string, len(l.Items))
			for i, p := range l.Items {
				parts[i] = value.Str(p)
				if neg {
					parts[i] = iptBangNot.ReplaceAllString(parts[i], "")
				}
			}
			if neg {
				rule = append(rule, "!")
			}
			ports = strings.Join(parts, ",")
		} else {
			ports = value.Str(get(k))
			if strings.HasPrefix(ports, "!") || strings.HasPrefix(ports, "not") {
				ports = iptBangNot.ReplaceAllString(ports, "")
				rule = append(rule, "!")
			}
		}
		rule = append(rule, fmt.Sprintf("--%s %s", k, ports))
		kw.Delete(k)
	}
	if kw.Has("comment") {
		if !iptHasWord(rule, "-m comment") {
			rule = append(rule, "-m comment")
		}
		rule = append(rule, fmt.Sprintf("--comment \"%s\"", value.Str(get("comment"))))
		kw.Delete("comment")
	}
	if kw.Has("set") && value.Truthy(get("set")) {
		n := negate("set")
		rule = append(rule, fmt.Sprintf("%s--match-set %s", n, value.Str(get("set"))))
		kw.Delete("set")
	}
	var after []string
	for _, k := range iptAfterJump {
		if !kw.Has(k) {
			continue
		}
		x := get(k)
		switch s := value.Str(x); {
		case iptNoArg(x):
			after = append(after, "--"+k)
		case strings.ContainsAny(s, " \t\n\r\v\f"):
			after = append(after, fmt.Sprintf("--%s \"%s\"", k, s))
		default:
			after = append(after, fmt.Sprintf("--%s %s", k, s))
		}
		kw.Delete(k)
	}
	for _, k := range append([]any(nil), kw.Keys()...) {
		ks := value.Str(k)
		n := negate(ks)
		x := get(ks)
		flag := "--"
		if utf8.RuneCountInString(ks) == 1 {
			flag = "-"
		}
		arg := ""
		if !iptNoArg(x) {
			arg = " " + value.Str(x)
		}
		rule = append(rule, n+flag+ks+arg)
	}
	return append(rule, after...), ""
}

// iptConf is Salt's _conf for the minion's OS, under the test root.
func iptConf(ctx *execmod.Context, family any) (string, error) {
	p, err := iptables.ConfPath(execmod.String(ctxGrain(ctx, "os_family")), execmod.String(ctxGrain(ctx, "os")), execmod.String(family))
	if err != nil {
		return "", execmod.Errorf("%s", err)
	}
	return filepath.Join("/", sysRoot(ctx), p), nil
}

// iptParse is Salt's _parse_conf: the saved rules (conf_file or the OS's
// rules file) or, in memory, the output of iptables-save.
func iptParse(ctx *execmod.Context, confFile any, inMem bool, family any) (*value.Map, error) {
	if _, err := iptConf(ctx, "ipv4"); err != nil {
		return nil, err
	}
	var text string
	switch {
	case !inMem || value.Truthy(confFile):
		path := execmod.String(confFile)
		if !value.Truthy(confFile) {
			path, _ = iptConf(ctx, family)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, execmod.Errorf("%s", pyOSErrorText(err, path))
		}
		text = string(data)
	default:
		out, err := iptRun(ctx, "cmd.run_stdout", iptBin(family)+"-save")
		if err != nil {
			return nil, err
		}
		text = out
	}
	m, err := iptables.Parse(text)
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return m, nil
}

func iptGetSavedRules(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_saved_rules", args, kwargs, execmod.Opt("conf_file", nil), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	return iptParse(ctx, v[0], false, v[1])
}

func iptGetRules(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_rules", args, kwargs, execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	return iptParse(ctx, nil, true, v[0])
}

// iptPolicy looks rules[table][chain]["policy"] up (None when missing).
func iptPolicy(rules *value.Map, table, chain any) any {
	t, _ := rules.Get(value.Str(table))
	tm, _ := t.(*value.Map)
	if tm == nil {
		return nil
	}
	c, _ := tm.Get(value.Str(chain))
	cm, _ := c.(*value.Map)
	if cm == nil {
		return nil
	}
	p, _ := cm.Get("policy")
	return p
}

func iptGetSavedPolicy(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_saved_policy", args, kwargs, execmod.Opt("table", "filter"),
		execmod.Opt("chain", nil), execmod.Opt("conf_file", nil), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	if !value.Truthy(v[1]) {
		return "Error: Chain needs to be specified", nil
	}
	rules, err := iptParse(ctx, v[2], false, v[3])
	if err != nil {
		return nil, err
	}
	return iptPolicy(rules, v[0], v[1]), nil
}

func iptGetPolicy(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_policy", args, kwargs, execmod.Opt("table", "filter"),
		execmod.Opt("chain", nil), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	if !value.Truthy(v[1]) {
		return "Error: Chain needs to be specified", nil
	}
	rules, err := iptParse(ctx, nil, true, v[2])
	if err != nil {
		return nil, err
	}
	return iptPolicy(rules, v[0], v[1]), nil
}

func iptSetPolicy(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_policy", args, kwargs, execmod.Opt("table", "filter"),
		execmod.Opt("chain", nil), execmod.Opt("policy", nil), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	switch {
	case !value.Truthy(v[1]):
		return "Error: Chain needs to be specified", nil
	case !value.Truthy(v[2]):
		return "Error: Policy needs to be specified", nil
	}
	wait, err := iptWait(ctx, v[3])
	if err != nil {
		return nil, err
	}
	return iptStderr(ctx, fmt.Sprintf("%s %s -t %s -P %s %s", iptBin(v[3]), wait, value.Str(v[0]), value.Str(v[1]), value.Str(v[2])))
}

// iptSaveFilters drops the lines of iptables-save output that match one
// of the iptables.save_filters patterns (Salt's _regex_iptables_save).
func iptSaveFilters(ctx *execmod.Context, out string) (string, error) {
	conf, err := ctx.Call("config.option", []any{"iptables.save_filters", value.NewList()}, nil)
	if err != nil {
		return "", err
	}
	if !value.Truthy(conf) {
		return out, nil
	}
	var res []*regexp.Regexp
	if l, ok := conf.(*value.List); ok {
		for _, p := range l.Items {
			re, err := regexp.Compile(value.Str(p))
			if err != nil {
				slog.Warn(fmt.Sprintf("Skipping regex rule: '%s': %s", value.Str(p), err))
				continue
			}
			res = append(res, re)
		}
	}
	if len(res) == 0 {
		return out, nil
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(out, "\n") {
		keep := true
		for _, re := range res {
			if re.MatchString(line) {
				keep = false
				break
			}
		}
		if keep {
			b.WriteString(line)
		}
	}
	return b.String(), nil
}

func iptSave(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("save", args, kwargs, execmod.Opt("filename", nil), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	if _, err := iptConf(ctx, "ipv4"); err != nil {
		return nil, err
	}
	filename := execmod.String(v[0])
	if !value.Truthy(v[0]) {
		if filename, err = iptConf(ctx, v[1]); err != nil {
			return nil, err
		}
	}
	slog.Debug("Saving rules to " + filename)
	if dir := filepath.Dir(filename); !isDir(dir) {
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return nil, execmod.Errorf("%s", err)
		}
	}
	out, err := iptRun(ctx, "cmd.run_stdout", iptBin(v[1])+"-save")
	if err != nil {
		return nil, err
	}
	if out, err = iptSaveFilters(ctx, out); err != nil {
		return nil, err
	}
	return ctx.Call("file.write", []any{filename, out}, nil)
}

func iptCheck(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("check", args, kwargs, execmod.Opt("table", "filter"),
		execmod.Opt("chain", nil), execmod.Opt("rule", nil), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	return iptCheckRule(ctx, v[0], v[1], v[2], v[3])
}

// iptCheckRule is Salt's check: True when the rule is in the chain, or an
// error text for a missing chain or rule.
func iptCheckRule(ctx *execmod.Context, table, chain, rule, family any) (any, error) {
	switch {
	case !value.Truthy(chain):
		return "Error: Chain needs to be specified", nil
	case !value.Truthy(rule):
		return "Error: Rule needs to be specified", nil
	}
	bin := iptBin(family)
	help, err := iptRun(ctx, "cmd.run_stdout", bin+" --help", "output_loglevel", "quiet")
	if err != nil {
		return nil, err
	}
	if !strings.Contains(help, "--check") {
		return nil, execmod.Errorf("%s has no --check option", bin)
	}
	if _, err := iptRun(ctx, "cmd.run_stderr", fmt.Sprintf("%s -t %s -C %s %s", bin, value.Str(table), value.Str(chain), value.Str(rule)), "output_loglevel", "quiet"); err != nil {
		return nil, err
	}
	return ctx.Retcode() == 0, nil
}

func iptCheckChain(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("check_chain", args, kwargs, execmod.Opt("table", "filter"),
		execmod.Opt("chain", nil), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	if !value.Truthy(v[1]) {
		return "Error: Chain needs to be specified", nil
	}
	out, err := iptRun(ctx, "cmd.run_stdout", fmt.Sprintf("%s-save -t %s", iptBin(v[2]), value.Str(v[0])))
	if err != nil {
		return nil, err
	}
	return strings.Contains(out, ":"+value.Str(v[1])+" "), nil
}

// iptChainCmd runs iptables -N or -X on a chain: True, or the error.
func iptChainCmd(ctx *execmod.Context, fun, flag string, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind(fun, args, kwargs, execmod.Opt("table", "filter"),
		execmod.Opt("chain", nil), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	if !value.Truthy(v[1]) {
		return "Error: Chain needs to be specified", nil
	}
	wait, err := iptWait(ctx, v[2])
	if err != nil {
		return nil, err
	}
	out, err := iptStderr(ctx, fmt.Sprintf("%s %s -t %s %s %s", iptBin(v[2]), wait, value.Str(v[0]), flag, value.Str(v[1])))
	if err != nil || out != "" {
		return out, err
	}
	return true, nil
}

func iptNewChain(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return iptChainCmd(ctx, "new_chain", "-N", args, kwargs)
}

func iptDeleteChain(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return iptChainCmd(ctx, "delete_chain", "-X", args, kwargs)
}

func iptAppend(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("append", args, kwargs, execmod.Opt("table", "filter"),
		execmod.Opt("chain", nil), execmod.Opt("rule", nil), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	table, chain, rule, family := v[0], v[1], v[2], v[3]
	switch {
	case !value.Truthy(chain):
		return "Error: Chain needs to be specified", nil
	case !value.Truthy(rule):
		return "Error: Rule needs to be specified", nil
	}
	wait, err := iptWait(ctx, family)
	if err != nil {
		return nil, err
	}
	if ok, err := iptCheckRule(ctx, table, chain, rule, family); err != nil || ok == true {
		return false, err
	}
	out, err := iptStderr(ctx, fmt.Sprintf("%s %s -t %s -A %s %s", iptBin(family), wait, value.Str(table), value.Str(chain), value.Str(rule)))
	if err != nil {
		return nil, err
	}
	return out == "", nil
}

func iptInsert(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("insert", args, kwargs, execmod.Opt("table", "filter"),
		execmod.Opt("chain", nil), execmod.Opt("position", nil), execmod.Opt("rule", nil), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	table, chain, position, rule, family := v[0], v[1], v[2], v[3], v[4]
	switch {
	case !value.Truthy(chain):
		return "Error: Chain needs to be specified", nil
	case !value.Truthy(position):
		return "Error: Position needs to be specified or use append (-A)", nil
	case !value.Truthy(rule):
		return "Error: Rule needs to be specified", nil
	}
	switch p := position.(type) {
	case int64:
		if p < 0 {
			rules, err := iptParse(ctx, nil, true, family)
			if err != nil {
				return nil, err
			}
			t, _ := rules.Get(value.Str(table))
			tm, _ := t.(*value.Map)
			var c any
			if tm != nil {
				c, _ = tm.Get(value.Str(chain))
			}
			cm, _ := c.(*value.Map)
			if cm == nil {
				return nil, execmod.Errorf("KeyError: '%s'", value.Str(chain))
			}
			rl, _ := cm.Get("rules")
			size := int64(rl.(*value.List).Len())
			if p = size + p + 1; p == 0 {
				p = 1
			}
			position = p
		}
	case string:
		return nil, execmod.Errorf("'<' not supported between instances of 'str' and 'int'")
	}
	wait, err := iptWait(ctx, family)
	if err != nil {
		return nil, err
	}
	if ok, err := iptCheckRule(ctx, table, chain, rule, family); err != nil || ok == true {
		return false, err
	}
	return iptStderr(ctx, fmt.Sprintf("%s %s -t %s -I %s %s %s", iptBin(family), wait, value.Str(table), value.Str(chain), value.Str(position), value.Str(rule)))
}

func iptDelete(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("delete", args, kwargs, execmod.Req("table"),
		execmod.Opt("chain", nil), execmod.Opt("position", nil), execmod.Opt("rule", nil), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	table, chain, position, rule, family := v[0], v[1], v[2], v[3], v[4]
	if value.Truthy(position) && value.Truthy(rule) {
		return "Error: Only specify a position or a rule, not both", nil
	}
	if value.Truthy(position) {
		rule = position
	}
	wait, err := iptWait(ctx, family)
	if err != nil {
		return nil, err
	}
	return iptStderr(ctx, fmt.Sprintf("%s %s -t %s -D %s %s", iptBin(family), wait, value.Str(table), value.Str(chain), value.Str(rule)))
}

func iptFlush(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("flush", args, kwargs, execmod.Opt("table", "filter"),
		execmod.Opt("chain", ""), execmod.Opt("family", "ipv4"))
	if err != nil {
		return nil, err
	}
	wait, err := iptWait(ctx, v[2])
	if err != nil {
		return nil, err
	}
	return iptStderr(ctx, fmt.Sprintf("%s %s -t %s -F %s", iptBin(v[2]), wait, value.Str(v[0]), value.Str(v[1])))
}
