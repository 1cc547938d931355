package states

// firewalld.go is salt/states/firewalld.py: present (a zone with its ICMP
// blocks, default flag, masquerading, ports, port forwards, services,
// interfaces, sources and rich rules, each optionally pruned) and service
// (a service definition's ports and protocols), both through the
// firewalld execution functions, always on the permanent configuration,
// followed by a reload when something changed. Salt 3006's behaviour is
// kept where it surprises: present turns masquerading off unless
// masquerade=True; service creates a missing service, and reloads, even
// in test mode; an error after some changes keeps them in the return (and
// present still reloads). Where Salt lists a Python set (the "new" list
// of an item that is not pruned) brine lists the current items first,
// then the added ones in the order given.

import (
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"strings"

	"brine/internal/execmod"
	"brine/internal/output"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	name := statemod.Req("name")
	params := []statemod.Param{name}
	for _, p := range []struct {
		item string
		def  any
	}{
		{"block_icmp", nil}, {"prune_block_icmp", false}, {"default", nil}, {"masquerade", false},
		{"ports", nil}, {"prune_ports", false}, {"port_fwd", nil}, {"prune_port_fwd", false},
		{"services", nil}, {"prune_services", false}, {"interfaces", nil}, {"prune_interfaces", false},
		{"sources", nil}, {"prune_sources", false}, {"rich_rules", nil}, {"prune_rich_rules", false},
	} {
		params = append(params, statemod.Opt(p.item, p.def))
	}
	statemod.Register(&statemod.Function{Name: "firewalld.present", Params: params, Run: fwdPresent, Virtual: fwdStateVirtual,
		Doc: "Ensure the zone name exists with the given ICMP blocks, masquerading, ports, forwards, services, interfaces, sources and rich rules."})
	statemod.Register(&statemod.Function{Name: "firewalld.service",
		Params: []statemod.Param{name, statemod.Opt("ports", nil), statemod.Opt("protocols", nil)}, Run: fwdServiceState, Virtual: fwdStateVirtual,
		Doc: "Ensure the service name exists with exactly the given ports and protocols."})
}

// fwdStateVirtual is the state module's __virtual__: it needs firewall-cmd.
func fwdStateVirtual() string {
	if _, err := exec.LookPath("firewall-cmd"); err != nil {
		return "firewall-cmd is not available, firewalld is probably not installed."
	}
	return ""
}

// fwdIsExecError reports whether err is a CommandExecutionError, the only
// error the states catch (others end the state as an exception).
func fwdIsExecError(err error) bool {
	var cee *execmod.CommandExecutionError
	return errors.As(err, &cee)
}

// fwdStrings iterates v as Python iterates it: a list's items, a string's
// characters, a mapping's keys; None is empty.
func fwdStrings(v any) []any {
	switch x := v.(type) {
	case nil:
		return nil
	case *value.List:
		return append([]any(nil), x.Items...)
	case string:
		var out []any
		for _, r := range x {
			out = append(out, string(r))
		}
		return out
	case *value.Map:
		return x.Keys()
	}
	return []any{v}
}

// fwdSet is an insertion-ordered set of hashable values.
type fwdSet struct {
	items []any
	seen  map[string]bool
}

func fwdKey(v any) string { return value.TypeName(v) + ":" + value.Repr(v) }

func newFwdSet(items ...[]any) *fwdSet {
	s := &fwdSet{seen: map[string]bool{}}
	for _, l := range items {
		for _, it := range l {
			s.add(it)
		}
	}
	return s
}

func (s *fwdSet) add(v any) {
	if k := fwdKey(v); !s.seen[k] {
		s.seen[k] = true
		s.items = append(s.items, v)
	}
}

func (s *fwdSet) has(v any) bool { return s.seen[fwdKey(v)] }

// minus is the items of s not in o.
func (s *fwdSet) minus(o *fwdSet) []any {
	var out []any
	for _, it := range s.items {
		if !o.has(it) {
			out = append(out, it)
		}
	}
	return out
}

func fwdListOf(items []any) *value.List {
	l := value.NewList()
	for _, it := range items {
		l.Append(it)
	}
	return l
}

func fwdItems(v any) []any {
	if l, ok := v.(*value.List); ok {
		return l.Items
	}
	return nil
}

// fwdState is one run of a state: the call, its return and test mode.
type fwdState struct {
	c    *statemod.Call
	ret  *value.Map
	test bool
}

func (s *fwdState) changes() *value.Map {
	ch, _ := s.ret.Get("changes")
	return ch.(*value.Map)
}

// salt calls an execution function; a CommandExecutionError becomes the
// state's "Error: ..." comment (failed reports it), others end the state.
func (s *fwdState) salt(fun string, args []any, kw ...any) (any, bool, error) {
	out, err := s.c.Salt(fun, args, value.MapOf(kw...))
	if err != nil {
		if fwdIsExecError(err) {
			s.ret.Set("comment", "Error: "+err.Error())
			return nil, true, nil
		}
		return nil, true, err
	}
	return out, false, nil
}

func fwdPresent(c *statemod.Call) (*value.Map, error) {
	s := &fwdState{c: c, ret: value.MapOf("name", c.Get("name"), "result", false, "changes", value.NewMap(0), "comment", ""), test: c.Test}
	if err := s.present(); err != nil {
		return nil, err
	}
	if s.changes().Len() > 0 {
		if _, err := c.Salt("firewalld.reload_rules", nil, nil); err != nil {
			return nil, err
		}
	}
	return s.ret, nil
}

// item is what present does for one list of items (ports, services, ...):
// list the current ones, add the missing, remove the others when pruning,
// and record {"old": current, "new": ...}.
type fwdItem struct {
	key, prune, change string
	list, add, remove  string
	zoneFirst          bool // the execution function takes (zone, item), else (item, zone)
	transform          func([]any) ([]any, error)
	addKw              []any
}

func (s *fwdState) present() error {
	c, name := s.c, s.c.Get("name")
	nameStr := value.Str(name)
	zones, stop, err := s.salt("firewalld.get_zones", nil, "permanent", true)
	if stop {
		return err
	}
	if !fwdIn(name, zones) {
		if !s.test {
			if _, stop, err := s.salt("firewalld.new_zone", []any{name}); stop {
				return err
			}
		}
		s.changes().Set(name, value.MapOf("old", zones, "new", name))
	}

	if value.Truthy(c.Get("block_icmp")) || value.Truthy(c.Get("prune_block_icmp")) {
		if stop, err := s.icmp(name); stop {
			return err
		}
	}

	if value.Truthy(c.Get("default")) {
		def, stop, err := s.salt("firewalld.default_zone", nil)
		if stop {
			return err
		}
		if !value.Equal(name, def) {
			if !s.test {
				if _, stop, err := s.salt("firewalld.set_default_zone", []any{name}); stop {
					return err
				}
			}
			s.changes().Set("default", value.MapOf("old", def, "new", name))
		}
	}

	masq, stop, err := s.salt("firewalld.get_masquerade", []any{name}, "permanent", true)
	if stop {
		return err
	}
	want := value.Truthy(c.Get("masquerade"))
	if want != value.Truthy(masq) {
		fun, msg := "firewalld.add_masquerade", "Masquerading successfully set."
		if !want {
			fun, msg = "firewalld.remove_masquerade", "Masquerading successfully disabled."
		}
		if !s.test {
			if _, stop, err := s.salt(fun, []any{name}, "permanent", true); stop {
				return err
			}
		}
		s.changes().Set("masquerade", value.MapOf("old", "", "new", msg))
	}

	for _, it := range []fwdItem{
		{key: "ports", prune: "prune_ports", change: "ports", list: "list_ports", add: "add_port", remove: "remove_port",
			zoneFirst: true, addKw: []any{"force_masquerade", false}},
		{key: "port_fwd", prune: "prune_port_fwd", change: "port_fwd", list: "list_port_fwd", zoneFirst: true},
		{key: "services", prune: "prune_services", change: "services", list: "list_services", add: "add_service", remove: "remove_service"},
		{key: "interfaces", prune: "prune_interfaces", change: "interfaces", list: "get_interfaces", add: "change_interface", remove: "remove_interface", zoneFirst: true},
		{key: "sources", prune: "prune_sources", change: "sources", list: "get_sources", add: "add_source", remove: "remove_source", zoneFirst: true},
		{key: "rich_rules", prune: "prune_rich_rules", change: "rich_rules", list: "get_rich_rules", add: "add_rich_rule", remove: "remove_rich_rule",
			zoneFirst: true, transform: fwdNormalizeRichRules},
	} {
		if !value.Truthy(c.Get(it.key)) && !value.Truthy(c.Get(it.prune)) {
			continue
		}
		var stop bool
		var err error
		if it.key == "port_fwd" {
			stop, err = s.portFwd(name)
		} else {
			stop, err = s.items(name, it)
		}
		if stop {
			return err
		}
	}

	switch {
	case s.changes().Len() == 0:
		s.ret.Set("result", true)
		s.ret.Set("comment", fmt.Sprintf("'%s' is already in the desired state.", nameStr))
	case s.test:
		s.ret.Set("result", nil)
		s.ret.Set("comment", fmt.Sprintf("Configuration for '%s' will change:\n%s", nameStr, fwdNested(c, s.changes())))
		s.ret.Set("changes", value.NewMap(0))
	default:
		s.ret.Set("result", true)
		s.ret.Set("comment", fmt.Sprintf("'%s' was configured.", nameStr))
	}
	return nil
}

// icmp is present's block_icmp and prune_block_icmp.
func (s *fwdState) icmp(name any) (bool, error) {
	want := fwdStrings(s.c.Get("block_icmp"))
	prune := value.Truthy(s.c.Get("prune_block_icmp"))
	cur, stop, err := s.salt("firewalld.list_icmp_block", []any{name}, "permanent", true)
	if stop {
		return true, err
	}
	current := fwdItems(cur)
	var added, removed []any
	if len(want) > 0 {
		valid, stop, err := s.salt("firewalld.get_icmp_types", nil, "permanent", true)
		if stop {
			return true, err
		}
		validSet := newFwdSet(fwdItems(valid))
		for _, bad := range newFwdSet(want).minus(validSet) {
			slog.Error(fmt.Sprintf("%s is an invalid ICMP type", value.Str(bad)))
			for i, w := range want {
				if fwdKey(w) == fwdKey(bad) {
					want = append(want[:i:i], want[i+1:]...)
					break
				}
			}
		}
		added = newFwdSet(want).minus(newFwdSet(current))
		for _, t := range added {
			if !s.test {
				if _, stop, err := s.salt("firewalld.block_icmp", []any{name, t}, "permanent", true); stop {
					return true, err
				}
			}
		}
	}
	if prune {
		removed = newFwdSet(current).minus(newFwdSet(want))
		for _, t := range removed {
			if !s.test {
				if _, stop, err := s.salt("firewalld.allow_icmp", []any{name, t}, "permanent", true); stop {
					return true, err
				}
			}
		}
	}
	if len(added) > 0 || len(removed) > 0 {
		newList := want
		if !prune {
			newList = newFwdSet(current, added).items
		}
		s.changes().Set("icmp_types", value.MapOf("old", cur, "new", fwdListOf(newList)))
	}
	return false, nil
}

// items is present's handling of ports, services, interfaces, sources and
// rich rules.
func (s *fwdState) items(name any, it fwdItem) (bool, error) {
	want := fwdStrings(s.c.Get(it.key))
	if it.transform != nil {
		var err error
		if want, err = it.transform(want); err != nil {
			return true, err
		}
	}
	prune := value.Truthy(s.c.Get(it.prune))
	cur, stop, err := s.salt("firewalld."+it.list, []any{name}, "permanent", true)
	if stop {
		return true, err
	}
	current := fwdItems(cur)
	args := func(item any) []any {
		if it.zoneFirst {
			return []any{name, item}
		}
		return []any{item, name}
	}
	added := newFwdSet(want).minus(newFwdSet(current))
	var removed []any
	for _, item := range added {
		if !s.test {
			if _, stop, err := s.salt("firewalld."+it.add, args(item), append([]any{"permanent", true}, it.addKw...)...); stop {
				return true, err
			}
		}
	}
	if prune {
		removed = newFwdSet(current).minus(newFwdSet(want))
		for _, item := range removed {
			if !s.test {
				if _, stop, err := s.salt("firewalld."+it.remove, args(item), "permanent", true); stop {
					return true, err
				}
			}
		}
	}
	if len(added) > 0 || len(removed) > 0 {
		newList := want
		if !prune {
			newList = newFwdSet(current, added).items
		}
		s.changes().Set(it.change, value.MapOf("old", cur, "new", fwdListOf(newList)))
	}
	return false, nil
}

// fwdForward is a port forward: source port, destination port, protocol
// and destination address.
type fwdForward [4]string

// dict is the forward as the state's changes show it.
func (f fwdForward) dict() *value.Map {
	return value.MapOf("Source port", f[0], "Destination port", f[1], "Protocol", f[2], "Destination address", f[3])
}

// fwdParseForward reads "src:dest:proto[:destaddr]".
func fwdParseForward(v any) (fwdForward, error) {
	str, ok := v.(string)
	if !ok {
		return fwdForward{}, fmt.Errorf("AttributeError: '%s' object has no attribute 'split'", value.TypeName(v))
	}
	p := strings.Split(str, ":")
	switch {
	case len(p) == 4:
		return fwdForward{p[0], p[1], p[2], p[3]}, nil
	case len(p) > 4:
		return fwdForward{}, errors.New("ValueError: too many values to unpack (expected 4)")
	case len(p) < 3:
		return fwdForward{}, fmt.Errorf("ValueError: not enough values to unpack (expected 3, got %d)", len(p))
	}
	return fwdForward{p[0], p[1], p[2], ""}, nil
}

// portFwd is present's port_fwd and prune_port_fwd.
func (s *fwdState) portFwd(name any) (bool, error) {
	prune := value.Truthy(s.c.Get("prune_port_fwd"))
	cur, stop, err := s.salt("firewalld.list_port_fwd", []any{name}, "permanent", true)
	if stop {
		return true, err
	}
	var want, current []any
	for _, v := range fwdStrings(s.c.Get("port_fwd")) {
		f, err := fwdParseForward(v)
		if err != nil {
			return true, err
		}
		want = append(want, f)
	}
	for _, m := range fwdItems(cur) {
		mm, _ := m.(*value.Map)
		get := func(k string) string {
			if mm == nil {
				return ""
			}
			x, _ := mm.Get(k)
			return value.Str(x)
		}
		current = append(current, fwdForward{get("Source port"), get("Destination port"), get("Protocol"), get("Destination address")})
	}
	added := fwdMinus(want, current)
	var removed []any
	for _, f := range added {
		fw := f.(fwdForward)
		if !s.test {
			if _, stop, err := s.salt("firewalld.add_port_fwd", []any{name, fw[0], fw[1], fw[2], fw[3]},
				"permanent", true, "force_masquerade", false); stop {
				return true, err
			}
		}
	}
	if prune {
		removed = fwdMinus(current, want)
		for _, f := range removed {
			fw := f.(fwdForward)
			if !s.test {
				if _, stop, err := s.salt("firewalld.remove_port_fwd", []any{name, fw[0], fw[1], fw[2], fw[3]}, "permanent", true); stop {
					return true, err
				}
			}
		}
	}
	if len(added) > 0 || len(removed) > 0 {
		newList := want
		if !prune {
			newList = append(fwdMinus(current, nil), fwdMinus(added, current)...)
		}
		dicts := func(l []any) *value.List {
			out := value.NewList()
			for _, f := range l {
				out.Append(f.(fwdForward).dict())
			}
			return out
		}
		s.changes().Set("port_fwd", value.MapOf("old", dicts(current), "new", dicts(newList)))
	}
	return false, nil
}

// fwdMinus is the distinct forwards of a not in b.
func fwdMinus(a, b []any) []any {
	seen := map[fwdForward]bool{}
	for _, f := range b {
		seen[f.(fwdForward)] = true
	}
	var out []any
	for _, f := range a {
		if fw := f.(fwdForward); !seen[fw] {
			seen[fw] = true
			out = append(out, f)
		}
	}
	return out
}

// fwdNormalizeRichRules quotes every value of a rich rule with double
// quotes (single-quoted ones re-quoted), as firewall-cmd lists rules.
func fwdNormalizeRichRules(rules []any) ([]any, error) {
	out := make([]any, 0, len(rules))
	for _, r := range rules {
		rule, ok := r.(string)
		if !ok {
			return nil, fmt.Errorf("AttributeError: '%s' object has no attribute 'split'", value.TypeName(r))
		}
		var b strings.Builder
		for _, word := range strings.Split(rule, " ") {
			if k, v, ok := strings.Cut(word, "="); ok {
				if !strings.HasPrefix(v, `"`) && !strings.HasSuffix(v, `"`) {
					if strings.HasPrefix(v, "'") && strings.HasSuffix(v, "'") {
						if len(v) >= 2 {
							v = v[1 : len(v)-1]
						} else {
							v = ""
						}
					}
					v = `"` + v + `"`
				}
				word = k + "=" + v
			}
			b.WriteString(" " + word)
		}
		out = append(out, strings.TrimLeft(b.String(), " \t\n\r\v\f"))
	}
	return out, nil
}

// fwdNested renders changes as Salt's nested outputter does (no colours),
// trailing white space removed.
func fwdNested(c *statemod.Call, changes *value.Map) string {
	f, ok := output.Default.Lookup("nested")
	if !ok {
		return value.Repr(changes)
	}
	opts := value.NewMap(0)
	if c.Env != nil && c.Env.Exec != nil && c.Env.Exec.Opts != nil {
		opts = c.Env.Exec.Opts
	}
	s, err := f(changes, &output.Options{Opts: opts})
	if err != nil {
		return value.Repr(changes)
	}
	return strings.TrimRight(s, " \t\n\r\v\f")
}

// fwdIn is Python's `v in l` for the list l.
func fwdIn(v, l any) bool {
	for _, it := range fwdItems(l) {
		if value.Equal(it, v) {
			return true
		}
	}
	return false
}

func fwdServiceState(c *statemod.Call) (*value.Map, error) {
	name := c.Get("name")
	s := &fwdState{c: c, ret: value.MapOf("name", name, "result", false, "changes", value.NewMap(0), "comment", ""), test: c.Test}
	services, err := c.Salt("firewalld.get_services", nil, nil)
	if err != nil {
		return nil, err
	}
	if !fwdIn(name, services) {
		if _, err := c.Salt("firewalld.new_service", []any{name}, value.MapOf("restart", false)); err != nil {
			return nil, err
		}
	}
	for _, kind := range []string{"port", "protocol"} {
		want := fwdStrings(c.Get(kind + "s"))
		cur, stop, err := s.salt("firewalld.get_service_"+kind+"s", []any{name})
		if stop {
			return s.ret, err
		}
		current := fwdItems(cur)
		added := newFwdSet(want).minus(newFwdSet(current))
		removed := newFwdSet(current).minus(newFwdSet(want))
		for _, p := range added {
			if !s.test {
				if _, stop, err := s.salt("firewalld.add_service_"+kind, []any{name, p}); stop {
					return s.ret, err
				}
			}
		}
		for _, p := range removed {
			if !s.test {
				if _, stop, err := s.salt("firewalld.remove_service_"+kind, []any{name, p}); stop {
					return s.ret, err
				}
			}
		}
		if len(added) > 0 || len(removed) > 0 {
			wantList := c.Get(kind + "s")
			if !value.Truthy(wantList) {
				wantList = value.NewList()
			}
			s.changes().Set(kind+"s", value.MapOf("old", cur, "new", wantList))
		}
	}
	if s.changes().Len() > 0 {
		if _, err := c.Salt("firewalld.reload_rules", nil, nil); err != nil {
			return nil, err
		}
	}
	nameStr := value.Str(name)
	s.ret.Set("result", true)
	switch {
	case s.changes().Len() == 0:
		s.ret.Set("comment", fmt.Sprintf("'%s' is already in the desired state.", nameStr))
	case s.test:
		s.ret.Set("result", nil)
		s.ret.Set("comment", fmt.Sprintf("Configuration for '%s' will change.", nameStr))
	default:
		s.ret.Set("comment", fmt.Sprintf("'%s' was configured.", nameStr))
	}
	return s.ret, nil
}
