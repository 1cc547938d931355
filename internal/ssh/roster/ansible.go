package roster

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"

	"brine/internal/value"
)

// ansibleConversion maps Ansible host variables to roster keys, as
// salt/roster/ansible.py does; the other variables become minion_opts.
var ansibleConversion = map[string]string{
	"ansible_ssh_host":             "host",
	"ansible_ssh_port":             "port",
	"ansible_ssh_user":             "user",
	"ansible_ssh_pass":             "passwd",
	"ansible_sudo_pass":            "sudo",
	"ansible_ssh_private_key_file": "priv",
}

// Inventory is an Ansible INI inventory read as a roster: Hosts are the
// roster entries (in file order), Groups map each group (children
// expanded) to its hosts, for nodegroup targeting.
type Inventory struct {
	Hosts  *value.Map
	Groups map[string][]string
}

// LoadAnsible reads an INI inventory ([group], [group:children] and
// [group:vars] sections, host lines with key=value variables). Group
// variables apply to the group's hosts; host variables win.
func LoadAnsible(path string) (*Inventory, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	type host struct {
		vars   *value.Map
		groups []string
	}
	hostOrder := []string{}
	hostsBy := map[string]*host{}
	direct := map[string][]string{}
	children := map[string][]string{}
	groupVars := map[string]*value.Map{}
	section, kind := "ungrouped", ""
	sc := bufio.NewScanner(bytes.NewReader(src))
	line := 0
	for sc.Scan() {
		line++
		l := strings.TrimSpace(sc.Text())
		if l == "" || l[0] == '#' || l[0] == ';' {
			continue
		}
		if l[0] == '[' {
			if !strings.HasSuffix(l, "]") {
				return nil, &Error{File: path, Line: line, Column: 1, Msg: "unterminated section header " + l}
			}
			name := l[1 : len(l)-1]
			section, kind, _ = strings.Cut(name, ":")
			if kind != "" && kind != "children" && kind != "vars" {
				return nil, &Error{File: path, Line: line, Column: 1, Msg: fmt.Sprintf("unknown section kind %q", kind)}
			}
			continue
		}
		fields := strings.Fields(l)
		switch kind {
		case "children":
			children[section] = append(children[section], fields[0])
		case "vars":
			k, v, ok := strings.Cut(l, "=")
			if !ok {
				return nil, &Error{File: path, Line: line, Column: 1, Msg: "expected key=value in [" + section + ":vars]"}
			}
			if groupVars[section] == nil {
				groupVars[section] = value.NewMap(0)
			}
			groupVars[section].Set(strings.TrimSpace(k), inventoryValue(strings.TrimSpace(v)))
		default:
			name := fields[0]
			h := hostsBy[name]
			if h == nil {
				h = &host{vars: value.NewMap(0)}
				hostsBy[name] = h
				hostOrder = append(hostOrder, name)
			}
			h.groups = append(h.groups, section)
			direct[section] = append(direct[section], name)
			for i, f := range fields[1:] {
				k, v, ok := strings.Cut(f, "=")
				if !ok {
					return nil, &Error{File: path, Line: line, Column: strings.Index(l, fields[i+1]) + 1, Msg: fmt.Sprintf("expected key=value, found %q", f)}
				}
				h.vars.Set(k, inventoryValue(v))
			}
		}
	}
	var expand func(g string, seen map[string]bool) []string
	expand = func(g string, seen map[string]bool) []string {
		if seen[g] {
			return nil
		}
		seen[g] = true
		out := append([]string(nil), direct[g]...)
		for _, c := range children[g] {
			out = append(out, expand(c, seen)...)
		}
		return out
	}
	inv := &Inventory{Hosts: value.NewMap(len(hostOrder)), Groups: map[string][]string{}}
	for g := range direct {
		inv.Groups[g] = expand(g, map[string]bool{})
	}
	for g := range children {
		inv.Groups[g] = expand(g, map[string]bool{})
	}
	inv.Groups["all"] = hostOrder
	for _, name := range hostOrder {
		h := hostsBy[name]
		vars := value.NewMap(0)
		apply := func(m *value.Map) {
			if m != nil {
				for _, k := range m.Keys() {
					v, _ := m.Get(k)
					vars.Set(k, v)
				}
			}
		}
		apply(groupVars["all"])
		for g, members := range inv.Groups {
			if g == "all" {
				continue
			}
			for _, m := range members {
				if m == name {
					apply(groupVars[g])
				}
			}
		}
		apply(h.vars)
		e := value.NewMap(0)
		for _, k := range append([]any(nil), vars.Keys()...) {
			if to, ok := ansibleConversion[value.Str(k)]; ok {
				v, _ := vars.Delete(k)
				e.Set(to, v)
			}
		}
		e.Set("minion_opts", vars)
		if !e.Has("host") {
			e.Set("host", name)
		}
		inv.Hosts.Set(name, e)
	}
	return inv, nil
}

// inventoryValue strips the quotes of an inventory value.
func inventoryValue(v string) any {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}
