// Package iptables is the machine side of Salt's iptables module and
// states: the rules file each OS family keeps, the parsing of
// iptables-save output into Salt's nested tables and the word splitting
// Salt applies to the command lines it builds.
package iptables

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"brine/internal/value"
)

// ConfPath is the rules file iptables.save writes and
// iptables.get_saved_rules reads by default on an OS (Salt's _conf), for
// family "ipv4" or "ipv6".
func ConfPath(osFamily, osName, family string) (string, error) {
	v6 := family == "ipv6"
	pick := func(v4, v6path string) (string, error) {
		if v6 {
			return v6path, nil
		}
		return v4, nil
	}
	switch {
	case osFamily == "RedHat":
		return pick("/etc/sysconfig/iptables", "/etc/sysconfig/ip6tables")
	case osFamily == "Arch":
		return pick("/etc/iptables/iptables.rules", "/etc/iptables/ip6tables.rules")
	case osFamily == "Debian":
		return pick("/etc/iptables/rules.v4", "/etc/iptables/rules.v6")
	case osName == "Gentoo":
		return pick("/var/lib/iptables/rules-save", "/var/lib/ip6tables/rules-save")
	case osFamily == "Suse":
		return "/etc/sysconfig/scripts/SuSEfirewall2-custom", nil
	case osFamily == "Void":
		if family == "ipv4" {
			return "/etc/iptables/iptables.rules", nil
		}
		return "/etc/iptables/ip6tables.rules", nil
	case osName == "Alpine":
		return pick("/etc/iptables/rules-save", "/etc/iptables/rules6-save")
	case osFamily == "NILinuxRT":
		return pick("/etc/natinst/share/iptables.conf", "/etc/natinst/share/ip6tables.conf")
	}
	return "", fmt.Errorf("Saving iptables to file is not supported on %s. Please file an issue with SaltStack", osName)
}

// Split splits a command line into words as Python's shlex.split does
// (POSIX mode, no comments): the way Salt's cmd functions split the
// iptables command lines its module builds, and the way it reads rules.
func Split(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\r', '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		case '\\':
			if i+1 >= len(s) {
				return nil, errors.New("No escaped character")
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("No closing quotation")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("No closing quotation")
			}
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// options maps each spelling of a known option to its key's index in
// keys, the keys in the order a parsed rule lists them.
var options, keys = func() (map[string]int, []string) {
	spell := map[string]int{}
	var order []string
	for _, line := range strings.Split(optionTable, "\n") {
		for _, entry := range strings.Split(line, " , ") {
			f := strings.Fields(entry)
			if len(f) == 0 {
				continue
			}
			key := ""
			if d := f[len(f)-1]; strings.HasPrefix(d, "=") {
				key, f = d[1:], f[:len(f)-1]
			}
			for _, w := range f {
				if key == "" && strings.HasPrefix(w, "--") {
					key = w[2:]
				}
			}
			idx := len(order)
			order = append(order, key)
			for _, w := range f {
				spell[w] = idx
			}
		}
	}
	return spell, order
}()

var negativeNumber = regexp.MustCompile(`^-\d+$|^-\d*\.\d+$`)

// optionRef is what an argument is to Salt's argument parser (Python's
// argparse with the option table): a known option (idx >= 0, with an
// attached value when hasArg), an unknown one (idx < 0), or a value.
type optionRef struct {
	isOption bool
	idx      int
	arg      string
	hasArg   bool
}

// classify is argparse's _parse_optional for the option table (abbreviated
// long options included); an ambiguous abbreviation is an error.
func classify(tok string) (optionRef, error) {
	if tok == "" || tok[0] != '-' {
		return optionRef{}, nil
	}
	if i, ok := options[tok]; ok {
		return optionRef{isOption: true, idx: i}, nil
	}
	if len(tok) == 1 {
		return optionRef{}, nil
	}
	if name, arg, ok := strings.Cut(tok, "="); ok {
		if i, ok := options[name]; ok {
			return optionRef{isOption: true, idx: i, arg: arg, hasArg: true}, nil
		}
	}
	var matches []optionRef
	var names []string
	if tok[1] == '-' {
		prefix, arg, hasArg := strings.Cut(tok, "=")
		for s, i := range options {
			if strings.HasPrefix(s, prefix) {
				matches = append(matches, optionRef{isOption: true, idx: i, arg: arg, hasArg: hasArg})
				names = append(names, s)
			}
		}
	} else {
		for s, i := range options {
			switch {
			case s == tok[:2]:
				matches = append(matches, optionRef{isOption: true, idx: i, arg: tok[2:], hasArg: true})
				names = append(names, s)
			case strings.HasPrefix(s, tok):
				matches = append(matches, optionRef{isOption: true, idx: i})
				names = append(names, s)
			}
		}
	}
	switch {
	case len(matches) > 1:
		return optionRef{}, fmt.Errorf("ambiguous option: %s could match %s", tok, strings.Join(names, ", "))
	case len(matches) == 1:
		return matches[0], nil
	case negativeNumber.MatchString(tok), strings.Contains(tok, " "):
		return optionRef{}, nil
	}
	return optionRef{isOption: true, idx: -1}, nil
}

// joinValues is Salt's preparation of a split rule line before parsing:
// "! -x" becomes "-x !", the words after an option up to the next option
// (or "!") become one value, and an option without a value gets "".
func joinValues(args []string) []string {
	i := 0
	for i+1 < len(args) {
		swap := args[i] == "!" && strings.HasPrefix(args[i+1], "-")
		if swap {
			args[i], args[i+1] = args[i+1], args[i]
		}
		if strings.HasPrefix(args[i], "-") {
			i++
			if strings.HasPrefix(args[i], "-") || (args[i] == "!" && !swap) {
				args = append(args[:i], append([]string{""}, args[i:]...)...)
			} else {
				for i+1 < len(args) && args[i+1] != "!" && !strings.HasPrefix(args[i+1], "-") {
					args[i] += " " + args[i+1]
					args = append(args[:i+1], args[i+2:]...)
				}
			}
		}
		i++
	}
	if strings.HasPrefix(args[len(args)-1], "-") {
		args = append(args, "")
	}
	return args
}

// parseRule parses one "-A CHAIN ..." line into the values of each known
// option, indexed as keys.
func parseRule(line string) ([][]string, error) {
	args, err := Split(line)
	if err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return nil, errors.New("empty rule")
	}
	args = joinValues(args)
	refs := make([]optionRef, len(args))
	for i, a := range args {
		if a == "--" {
			break
		}
		if refs[i], err = classify(a); err != nil {
			return nil, err
		}
	}
	vals := make([][]string, len(keys))
	for i := 0; i < len(args); i++ {
		r := refs[i]
		if !r.isOption {
			continue
		}
		if r.idx < 0 {
			continue
		}
		v := r.arg
		if !r.hasArg {
			if i+1 >= len(args) || refs[i+1].isOption {
				return nil, fmt.Errorf("argument %s: expected one argument", args[i])
			}
			i++
			v = args[i]
		}
		vals[r.idx] = append(vals[r.idx], v)
	}
	return vals, nil
}

// Parse reads iptables-save output as Salt's _parse_conf does:
// {table: {chain: {"policy", "packet count", "byte count", "rules",
// "rules_comment"}}}, each rule a mapping of option key to the list of
// its values ("append", the chain, left out), each commented rule also
// under its comment.
func Parse(text string) (*value.Map, error) {
	ret := value.NewMap(0)
	var table *value.Map
	for _, line := range splitLines(text) {
		switch {
		case strings.HasPrefix(line, "*"):
			table = value.NewMap(0)
			ret.Set(strings.ReplaceAll(line, "*", ""), table)
		case strings.HasPrefix(line, ":"):
			f := strings.Fields(line)
			if table == nil || len(f) < 3 {
				return nil, fmt.Errorf("malformed chain line: %q", line)
			}
			counters := strings.NewReplacer("[", "", "]", "").Replace(f[2])
			pc, bc, ok := strings.Cut(counters, ":")
			if !ok || strings.Contains(bc, ":") {
				return nil, fmt.Errorf("malformed chain counters: %q", line)
			}
			table.Set(strings.ReplaceAll(f[0], ":", ""), value.MapOf(
				"policy", f[1], "packet count", pc, "byte count", bc,
				"rules", value.NewList(), "rules_comment", value.NewMap(0)))
		case strings.HasPrefix(line, "-A"):
			vals, err := parseRule(line)
			if err != nil {
				return nil, err
			}
			appendKey := options["--append"]
			if len(vals[appendKey]) == 0 || table == nil {
				return nil, fmt.Errorf("rule outside a chain: %q", line)
			}
			cv, ok := table.Get(vals[appendKey][0])
			chain, _ := cv.(*value.Map)
			if !ok || chain == nil {
				return nil, fmt.Errorf("KeyError: '%s'", vals[appendKey][0])
			}
			rule := value.NewMap(0)
			for i, v := range vals {
				if len(v) > 0 && i != appendKey {
					rule.Set(keys[i], strList(v))
				}
			}
			if c := vals[options["--comment"]]; len(c) > 0 {
				rc, _ := chain.Get("rules_comment")
				rc.(*value.Map).Set(strings.Trim(c[0], `"`), rule)
			}
			rl, _ := chain.Get("rules")
			rl.(*value.List).Append(rule)
		}
	}
	return ret, nil
}

func strList(xs []string) *value.List {
	l := value.NewList()
	for _, x := range xs {
		l.Append(x)
	}
	return l
}

// splitLines is Python's str.splitlines for the line breaks
// iptables-save output can hold.
func splitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
