package states

// iptables.go is salt/states/iptables.py: chains present or absent, rules
// appended, inserted or deleted (built by iptables.build_rule from the
// state's arguments), chain policies and flushes, for family ipv4 or
// ipv6, optionally saved to the rules file (save=True, or a file name);
// mod_aggregate folds the other append (or insert) chunks into the first
// one's rules, as Salt 3006 does.

import (
	"fmt"
	"strings"
	"unicode"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	params := []statemod.Param{statemod.Req("name"), statemod.Opt("table", "filter"), statemod.Opt("family", "ipv4")}
	for _, f := range []struct {
		name   string
		kwargs bool
		run    statemod.Func
		doc    string
	}{
		{"chain_present", false, iptChainPresent, "Ensure the chain name exists in table."},
		{"chain_absent", false, iptChainAbsent, "Ensure the chain name does not exist in table (flushed, then deleted)."},
		{"append", true, func(c *statemod.Call) (*value.Map, error) { return iptRuleStateCall(c, "append") }, "Ensure a rule (built from the arguments) is in chain, appending it."},
		{"insert", true, func(c *statemod.Call) (*value.Map, error) { return iptRuleStateCall(c, "insert") }, "Ensure a rule (built from the arguments) is in chain, inserting it at position."},
		{"delete", true, func(c *statemod.Call) (*value.Map, error) { return iptRuleStateCall(c, "delete") }, "Ensure a rule (from the arguments, or at position) is not in chain."},
		{"set_policy", true, iptSetPolicyState, "Ensure the policy of chain is policy."},
		{"flush", true, iptFlushState, "Flush the rules of chain (all chains without one) in table."},
	} {
		statemod.Register(&statemod.Function{Name: "iptables." + f.name, Params: params, Kwargs: f.kwargs, Run: f.run, Doc: f.doc})
	}
	statemod.Register(&statemod.Function{Name: "iptables.mod_aggregate", Kwargs: true, Run: iptModAggregate,
		Doc: "Fold the iptables chunks with the same function still to run into this one's rules (state_aggregate)."})
}

func iptChainPresent(c *statemod.Call) (*value.Map, error) {
	name, table, family := c.Get("name"), c.Get("table"), c.Get("family")
	ret := statemod.Ret(name, nil, "")
	check, err := c.Salt("iptables.check_chain", []any{table, name, family}, nil)
	if err != nil {
		return nil, err
	}
	if check == true {
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("iptables %s chain is already exist in %s table for %s", value.Str(name), value.Str(table), value.Str(family)))
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", fmt.Sprintf("iptables %s chain in %s table needs to be set for %s", value.Str(name), value.Str(table), value.Str(family)))
		return ret, nil
	}
	out, err := c.Salt("iptables.new_chain", []any{table, name, family}, nil)
	if err != nil {
		return nil, err
	}
	if out == true {
		ret.Set("changes", value.MapOf("locale", name))
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("iptables %s chain in %s table create success for %s", value.Str(name), value.Str(table), value.Str(family)))
		return ret, nil
	}
	ret.Set("result", false)
	ret.Set("comment", fmt.Sprintf("Failed to create %s chain in %s table: %s for %s", value.Str(name), value.Str(table), iptStrip(value.Str(out)), value.Str(family)))
	return ret, nil
}

func iptChainAbsent(c *statemod.Call) (*value.Map, error) {
	name, table, family := c.Get("name"), c.Get("table"), c.Get("family")
	ret := statemod.Ret(name, nil, "")
	check, err := c.Salt("iptables.check_chain", []any{table, name, family}, nil)
	if err != nil {
		return nil, err
	}
	if !value.Truthy(check) {
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("iptables %s chain is already absent in %s table for %s", value.Str(name), value.Str(table), value.Str(family)))
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", fmt.Sprintf("iptables %s chain in %s table needs to be removed %s", value.Str(name), value.Str(table), value.Str(family)))
		return ret, nil
	}
	flushed, err := c.Salt("iptables.flush", []any{table, name, family}, nil)
	if err != nil {
		return nil, err
	}
	if value.Truthy(flushed) {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Failed to flush %s chain in %s table: %s for %s", value.Str(name), value.Str(table), iptStrip(value.Str(flushed)), value.Str(family)))
		return ret, nil
	}
	out, err := c.Salt("iptables.delete_chain", []any{table, name, family}, nil)
	if err != nil {
		return nil, err
	}
	if out == true {
		ret.Set("changes", value.MapOf("locale", name))
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("iptables %s chain in %s table delete success for %s", value.Str(name), value.Str(table), value.Str(family)))
	} else {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Failed to delete %s chain in %s table: %s for %s", value.Str(name), value.Str(table), iptStrip(value.Str(out)), value.Str(family)))
	}
	return ret, nil
}

func iptRuleStateCall(c *statemod.Call, kind string) (*value.Map, error) {
	return iptRuleState(c, kind, c.Get("name"), c.Get("table"), c.Get("family"), argsBut(c, "name", "table", "family"))
}

// iptSaveFile is the filename a save argument names (nil: the OS's
// rules file).
func iptSaveFile(save any) any {
	if save == true {
		return nil
	}
	return save
}

// kwKey is kwargs[k] in the iptables and nftables states (KeyError when
// missing).
func kwKey(kw *value.Map, k string) (any, error) {
	v, ok := kw.Get(k)
	if !ok {
		return nil, fmt.Errorf("KeyError: '%s'", k)
	}
	return v, nil
}

// ruleComment is the comment of the iptables and nftables (tool) append,
// insert and delete states (kind) for rule cmd of state n in family fam:
// at is "kept" (nothing to do), "test" (would change), "failed" or "done".
func ruleComment(tool, kind, at, n, fam, cmd string) string {
	switch at + " " + kind {
	case "kept append":
		return fmt.Sprintf("%s rule for %s already set (%s) for %s", tool, n, cmd, fam)
	case "kept insert":
		return fmt.Sprintf("%s rule for %s already set for %s (%s)", tool, n, fam, cmd)
	case "kept delete":
		return fmt.Sprintf("%s rule for %s already absent for %s (%s)", tool, n, fam, cmd)
	case "test append":
		return fmt.Sprintf("%s rule for %s needs to be set (%s) for %s", tool, n, cmd, fam)
	case "test insert":
		return fmt.Sprintf("%s rule for %s needs to be set for %s (%s)", tool, n, fam, cmd)
	case "test delete":
		return fmt.Sprintf("%s rule for %s needs to be deleted for %s (%s)", tool, n, fam, cmd)
	case "failed append":
		return fmt.Sprintf("Failed to set %s rule for %s.\nAttempted rule was %s for %s", tool, n, cmd, fam)
	case "failed insert":
		return fmt.Sprintf("Failed to set %s rule for %s.\nAttempted rule was %s", tool, n, cmd)
	case "failed delete":
		return fmt.Sprintf("Failed to delete %s rule for %s.\nAttempted rule was %s", tool, n, cmd)
	case "done delete":
		return fmt.Sprintf("Delete %s rule for %s %s", tool, n, cmd)
	}
	return fmt.Sprintf("Set %s rule for %s to: %s for %s", tool, n, cmd, fam)
}

// iptRuleState is the append, insert and delete states for one rule, or
// for the rules mod_aggregate gathered.
func iptRuleState(c *statemod.Call, kind string, name, table, family any, kw *value.Map) (*value.Map, error) {
	ret := statemod.Ret(name, nil, "")
	if rv, ok := kw.Get("rules"); ok {
		return iptRulesState(c, kind, ret, family, rv)
	}
	if kind == "append" {
		kw.Delete("__agg__")
	}
	for _, k := range append([]any(nil), kw.Keys()...) {
		if ks, _ := k.(string); statemod.IsInternalKeyword(ks) {
			kw.Delete(k)
		}
	}
	kw.Set("name", name)
	kw.Set("table", table)
	build := func(extra ...any) (string, error) {
		args := value.MapOf(append([]any{"family", family}, extra...)...)
		kw.Range(func(k, v any) bool { args.Set(k, v); return true })
		out, err := c.Salt("iptables.build_rule", nil, args)
		return value.Str(out), err
	}
	rule, err := build()
	if err != nil {
		return nil, err
	}
	full, flag := any(true), map[string]string{"append": "A", "insert": "I", "delete": "D"}[kind]
	if kind == "append" {
		full = "True"
	}
	command, err := build("full", full, "command", flag)
	if err != nil {
		return nil, err
	}
	command = iptStrip(command)
	chain, err := kwKey(kw, "chain")
	if err != nil {
		return nil, err
	}
	check, err := c.Salt("iptables.check", []any{table, chain, rule, family}, nil)
	if err != nil {
		return nil, err
	}
	n, fam := value.Str(name), value.Str(family)
	save, _ := kw.Get("save")
	if kind != "delete" && check == true {
		ret.Set("result", true)
		ret.Set("comment", ruleComment("iptables", kind, "kept", n, fam, command))
		if value.Truthy(save) {
			if err := iptSaveIfChanged(c, ret, n, fam, command, iptSaveFile(save), family); err != nil {
				return nil, err
			}
		}
		return ret, nil
	}
	position, hasPosition := kw.Get("position")
	if kind == "delete" && check != true && !hasPosition {
		ret.Set("result", true)
		ret.Set("comment", ruleComment("iptables", kind, "kept", n, fam, command))
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", ruleComment("iptables", kind, "test", n, fam, command))
		return ret, nil
	}
	var ok bool
	switch kind {
	case "append":
		out, err := c.Salt("iptables.append", []any{table, chain, rule, family}, nil)
		if err != nil {
			return nil, err
		}
		ok = value.Truthy(out)
	case "insert":
		if !hasPosition {
			return nil, fmt.Errorf("KeyError: 'position'")
		}
		out, err := c.Salt("iptables.insert", []any{table, chain, position, rule, family}, nil)
		if err != nil {
			return nil, err
		}
		ok = !value.Truthy(out)
	default:
		args := value.MapOf("family", family, "rule", rule)
		if hasPosition {
			args = value.MapOf("family", family, "position", position)
		}
		out, err := c.Salt("iptables.delete", []any{table, chain}, args)
		if err != nil {
			return nil, err
		}
		ok = !value.Truthy(out)
	}
	if !ok {
		ret.Set("result", false)
		ret.Set("comment", ruleComment("iptables", kind, "failed", n, fam, command))
		return ret, nil
	}
	ret.Set("changes", value.MapOf("locale", name))
	ret.Set("result", true)
	ret.Set("comment", ruleComment("iptables", kind, "done", n, fam, command))
	if value.Truthy(save) {
		out, err := c.Salt("iptables.save", nil, value.MapOf("filename", iptSaveFile(save), "family", family))
		if err != nil {
			return nil, err
		}
		verb := "Set and saved"
		if kind == "delete" {
			verb = "Deleted and saved"
		}
		ret.Set("comment", fmt.Sprintf("%s iptables rule %s for %s\n%s\n%s", verb, n, fam, command, value.Str(out)))
	}
	return ret, nil
}

// iptChainRules lists the rules of every chain of every table, in order.
func iptChainRules(rules any) *value.List {
	out := value.NewList()
	tables, _ := rules.(*value.Map)
	tables.Range(func(_, t any) bool {
		chains, _ := t.(*value.Map)
		chains.Range(func(_, ch any) bool {
			var r any
			if m, ok := ch.(*value.Map); ok {
				r, _ = m.Get("rules")
			}
			out.Append(r)
			return true
		})
		return true
	})
	return out
}

// iptSaveIfChanged saves the rules in effect when they differ from the
// saved ones, noting it in the comment (a rule already set with save).
func iptSaveIfChanged(c *statemod.Call, ret *value.Map, name, fam, command string, filename, family any) error {
	saved, err := c.Salt("iptables.get_saved_rules", nil, value.MapOf("conf_file", filename, "family", family))
	if err != nil {
		return err
	}
	current, err := c.Salt("iptables.get_rules", nil, value.MapOf("family", family))
	if err != nil {
		return err
	}
	if value.Equal(iptChainRules(current), iptChainRules(saved)) {
		return nil
	}
	out, err := c.Salt("iptables.save", nil, value.MapOf("filename", filename, "family", family))
	if err != nil {
		return err
	}
	comment, _ := ret.Get("comment")
	ret.Set("comment", fmt.Sprintf("%s\nSaved iptables rule %s for %s\n%s\n%s", value.Str(comment), name, fam, command, value.Str(out)))
	return nil
}

// iptRulesState runs the state for each rule mod_aggregate gathered,
// saving once at the end when one of them asked to (never for delete, as
// in Salt).
func iptRulesState(c *statemod.Call, kind string, ret *value.Map, family, rv any) (*value.Map, error) {
	locale := value.NewList()
	ret.Set("changes", value.MapOf("locale", locale))
	var comments []string
	save := false
	var saveFile any
	rules, _ := rv.(*value.List)
	var items []any
	if rules != nil {
		items = rules.Items
	}
	for _, item := range items {
		rule, ok := item.(*value.Map)
		if !ok {
			return nil, fmt.Errorf("TypeError: argument after ** must be a mapping, not %s", value.TypeName(item))
		}
		rule.Delete("rules")
		rule.Delete("__agg__")
		if s, _ := rule.Get("save"); value.Truthy(s) {
			if kind != "delete" {
				save = true
			}
			saveFile = s
			rule.Set("save", false)
		}
		name, ok := rule.Get("name")
		if !ok {
			return nil, fmt.Errorf("TypeError: %s() missing 1 required positional argument: 'name'", kind)
		}
		table, ok := rule.Get("table")
		if !ok {
			table = "filter"
		}
		fam, ok := rule.Get("family")
		if !ok {
			fam = "ipv4"
		}
		kw := value.NewMap(0)
		rule.Range(func(k, v any) bool {
			if k != "name" && k != "table" && k != "family" {
				kw.Set(k, v)
			}
			return true
		})
		sub, err := iptRuleState(c, kind, name, table, fam, kw)
		if err != nil {
			return nil, err
		}
		subChanges, _ := sub.Get("changes")
		if l, ok := subChanges.(*value.Map).Get("locale"); ok {
			locale.Append(l)
		}
		cm, _ := sub.Get("comment")
		comments = append(comments, value.Str(cm))
		res, _ := sub.Get("result")
		ret.Set("result", res)
	}
	if save {
		if _, err := c.Salt("iptables.save", nil, value.MapOf("filename", iptSaveFile(saveFile), "family", family)); err != nil {
			return nil, err
		}
	}
	if locale.Len() == 0 {
		ret.Set("changes", value.NewMap(0))
	}
	ret.Set("comment", strings.Join(comments, "\n"))
	return ret, nil
}

// iptStrip is Python's str.strip().
func iptStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) })
}

func iptSetPolicyState(c *statemod.Call) (*value.Map, error) {
	name, table, family := c.Get("name"), c.Get("table"), c.Get("family")
	kw := argsBut(c, "name", "table", "family")
	ret := statemod.Ret(name, nil, "")
	chain, err := kwKey(kw, "chain")
	if err != nil {
		return nil, err
	}
	current, err := c.Salt("iptables.get_policy", []any{table, chain, family}, nil)
	if err != nil {
		return nil, err
	}
	policy, err := kwKey(kw, "policy")
	if err != nil {
		return nil, err
	}
	ch, tb, fam, pol := value.Str(chain), value.Str(table), value.Str(family), value.Str(policy)
	if value.Equal(current, policy) {
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("iptables default policy for chain %s on table %s for %s already set to %s", ch, tb, fam, pol))
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", fmt.Sprintf("iptables default policy for chain %s on table %s for %s needs to be set to %s", ch, tb, fam, pol))
		return ret, nil
	}
	out, err := c.Salt("iptables.set_policy", []any{table, chain, policy, family}, nil)
	if err != nil {
		return nil, err
	}
	if value.Truthy(out) {
		ret.Set("result", false)
		ret.Set("comment", "Failed to set iptables default policy")
		return ret, nil
	}
	ret.Set("changes", value.MapOf("locale", name))
	ret.Set("result", true)
	ret.Set("comment", fmt.Sprintf("Set default policy for %s to %s family %s", ch, pol, fam))
	if save, _ := kw.Get("save"); value.Truthy(save) {
		if _, err := c.Salt("iptables.save", nil, value.MapOf("filename", iptSaveFile(save), "family", family)); err != nil {
			return nil, err
		}
		ret.Set("comment", fmt.Sprintf("Set and saved default policy for %s to %s family %s", ch, pol, fam))
	}
	return ret, nil
}

func iptFlushState(c *statemod.Call) (*value.Map, error) {
	name, table, family := c.Get("name"), c.Get("table"), c.Get("family")
	kw := argsBut(c, "name", "table", "family")
	ret := statemod.Ret(name, nil, "")
	chain, ok := kw.Get("chain")
	if !ok {
		chain = ""
	}
	if c.Test {
		ret.Set("comment", fmt.Sprintf("iptables rules in %s table %s chain %s family needs to be flushed", value.Str(name), value.Str(table), value.Str(family)))
		return ret, nil
	}
	out, err := c.Salt("iptables.flush", []any{table, chain, family}, nil)
	if err != nil {
		return nil, err
	}
	if value.Truthy(out) {
		ret.Set("result", false)
		ret.Set("comment", "Failed to flush iptables rules")
		return ret, nil
	}
	ret.Set("changes", value.MapOf("locale", name))
	ret.Set("result", true)
	ret.Set("comment", fmt.Sprintf("Flush iptables rules in %s table %s chain %s family", value.Str(table), value.Str(chain), value.Str(family)))
	return ret, nil
}

// iptModAggregate is Salt's iptables.mod_aggregate: for an append or
// insert chunk, a copy of every iptables chunk with the same function that
// has not run nor been folded yet goes into this chunk's rules, and that
// chunk is marked folded. The chunk itself is marked before this runs, so
// (as in Salt 3006) its own rule is not among them.
func iptModAggregate(c *statemod.Call) (*value.Map, error) {
	low := c.Low
	fun, _ := low.Get("fun")
	if fun != "append" && fun != "insert" {
		return low, nil
	}
	var rules []any
	for _, ch := range c.Chunks {
		if c.Running != nil && c.Running.Has(statemod.Tag(ch)) {
			continue
		}
		st, _ := ch.Get("state")
		f, _ := ch.Get("fun")
		if st != "iptables" || ch.Has("__agg__") || f != fun {
			continue
		}
		dup := false
		for _, r := range rules {
			if value.Equal(r, ch) {
				dup = true
				break
			}
		}
		if !dup {
			rules = append(rules, value.DeepCopy(ch))
			ch.Set("__agg__", true)
		}
	}
	if len(rules) > 0 {
		if cur, ok := low.Get("rules"); ok {
			if l, ok := cur.(*value.List); ok {
				l.Append(rules...)
			}
		} else {
			low.Set("rules", value.NewList(rules...))
		}
	}
	return low, nil
}
