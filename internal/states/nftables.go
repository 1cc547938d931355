package states

// nftables.go is salt/states/nftables.py: tables and chains present or
// absent, rules appended, inserted or deleted (built by
// nftables.build_rule from the state's arguments), chain policies and
// flushes. Salt 3006's behaviour is kept where it surprises:
// chain_absent flushes and deletes the chain even in test mode, then
// fails on the mapping delete_chain returns; set_policy never finds the
// current policy (nftables.get_policy returns None).

import (
	"fmt"
	"strings"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	reg := func(name string, params []statemod.Param, kwargs bool, run statemod.Func, doc string) {
		statemod.Register(&statemod.Function{Name: "nftables." + name, Params: params, Kwargs: kwargs, Run: run, Doc: doc})
	}
	name, family := statemod.Req("name"), statemod.Opt("family", "ipv4")
	table := statemod.Opt("table", "filter")
	reg("chain_present", []statemod.Param{name, table, statemod.Opt("table_type", nil), statemod.Opt("hook", nil), statemod.Opt("priority", nil), family},
		false, nftChainPresent, "Ensure the chain name exists in table (a base chain with table_type, hook and priority).")
	reg("chain_absent", []statemod.Param{name, table, family}, false, nftChainAbsent, "Flush and delete the chain name of table.")
	for _, kind := range []string{"append", "insert", "delete"} {
		kind := kind
		reg(kind, []statemod.Param{name, family}, true, func(c *statemod.Call) (*value.Map, error) { return nftRuleState(c, kind) },
			map[string]string{"append": "Ensure a rule (built from the arguments) is in chain, adding it at the end.",
				"insert": "Ensure a rule (built from the arguments) is in chain, inserting it at position.",
				"delete": "Ensure a rule (built from the arguments) is not in chain."}[kind])
	}
	reg("flush", []statemod.Param{name, family, statemod.Opt("ignore_absence", false)}, true, nftFlushState, "Flush the rules of chain (or of the whole table).")
	reg("set_policy", []statemod.Param{name, table, family}, true, nftSetPolicyState, "Ensure the policy of the base chain is policy.")
	reg("table_present", []statemod.Param{name, family}, true, nftTablePresent, "Ensure the table name exists in family.")
	reg("table_absent", []statemod.Param{name, family}, true, nftTableAbsent, "Ensure the table name does not exist in family.")
}

// nftStateKwargs is the state's **kwargs: its arguments other than its
// parameters, without Salt's internal keywords.
func nftStateKwargs(c *statemod.Call) *value.Map {
	kw := value.NewMap(0)
	c.Args.Range(func(k, v any) bool {
		ks, _ := k.(string)
		for _, p := range c.Fun.Params {
			if p.Name == ks {
				return true
			}
		}
		if !statemod.IsInternalKeyword(ks) {
			kw.Set(k, v)
		}
		return true
	})
	return kw
}

func nftResult(m any) bool {
	mm, _ := m.(*value.Map)
	if mm == nil {
		return false
	}
	r, _ := mm.Get("result")
	return value.Truthy(r)
}

func nftComment(m any) string {
	mm, _ := m.(*value.Map)
	if mm == nil {
		return ""
	}
	r, _ := mm.Get("comment")
	return value.Str(r)
}

func nftChainPresent(c *statemod.Call) (*value.Map, error) {
	name, table, family := c.Get("name"), c.Get("table"), c.Get("family")
	ret := statemod.Ret(name, nil, "")
	n, t, f := value.Str(name), value.Str(table), value.Str(family)
	check, err := c.Salt("nftables.check_chain", []any{table, name}, value.MapOf("family", family))
	if err != nil {
		return nil, err
	}
	if r, _ := check.(*value.Map).Get("result"); r == true {
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("nftables %s chain is already exist in %s table for %s", n, t, f))
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", fmt.Sprintf("nftables chain %s would be created in table %s for family %s", n, t, f))
		return ret, nil
	}
	res, err := c.Salt("nftables.new_chain", []any{table, name}, value.MapOf("table_type", c.Get("table_type"),
		"hook", c.Get("hook"), "priority", c.Get("priority"), "family", family))
	if err != nil {
		return nil, err
	}
	if r, _ := res.(*value.Map).Get("result"); r == true {
		ret.Set("changes", value.MapOf("locale", name))
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("nftables %s chain in %s table create success for %s", n, t, f))
		return ret, nil
	}
	ret.Set("result", false)
	ret.Set("comment", fmt.Sprintf("Failed to create %s chain in %s table: %s for %s", n, t, iptStrip(nftComment(res)), f))
	return ret, nil
}

func nftChainAbsent(c *statemod.Call) (*value.Map, error) {
	name, table, family := c.Get("name"), c.Get("table"), c.Get("family")
	if _, err := c.Salt("nftables.check_chain", []any{table, name, family}, nil); err != nil {
		return nil, err
	}
	// check_chain's mapping is always true and so is flush's: Salt goes
	// on to delete the chain, then fails on delete_chain's mapping.
	if _, err := c.Salt("nftables.flush", []any{table, name, family}, nil); err != nil {
		return nil, err
	}
	if _, err := c.Salt("nftables.delete_chain", []any{table, name, family}, nil); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("AttributeError: 'dict' object has no attribute 'strip'")
}

// nftRuleState is the append, insert and delete states.
func nftRuleState(c *statemod.Call, kind string) (*value.Map, error) {
	name, family := c.Get("name"), c.Get("family")
	ret := statemod.Ret(name, nil, "")
	kw := nftStateKwargs(c)
	build := func(extra ...any) (*value.Map, error) {
		args := value.MapOf(extra...)
		args.Set("family", family)
		kw.Range(func(k, v any) bool { args.Set(k, v); return true })
		out, err := c.Salt("nftables.build_rule", nil, args)
		m, _ := out.(*value.Map)
		return m, err
	}
	res, err := build()
	if err != nil {
		return nil, err
	}
	if !nftResult(res) {
		return res, nil
	}
	rv, _ := res.Get("rule")
	rule := value.Str(rv)
	command := map[string]string{"append": "add", "insert": "insert", "delete": "D"}[kind]
	if res, err = build("full", true, "command", command); err != nil {
		return nil, err
	}
	if !nftResult(res) {
		return res, nil
	}
	cv, _ := res.Get("rule")
	cmd := iptStrip(value.Str(cv))
	table, err := kwKey(kw, "table")
	if err != nil {
		return nil, err
	}
	chain, err := kwKey(kw, "chain")
	if err != nil {
		return nil, err
	}
	check, err := c.Salt("nftables.check", []any{table, chain, rule, family}, nil)
	if err != nil {
		return nil, err
	}
	n, f := value.Str(name), value.Str(family)
	exists := nftResult(check)
	if exists == (kind != "delete") {
		ret.Set("result", true)
		ret.Set("comment", ruleComment("nftables", kind, "kept", n, f, cmd))
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", ruleComment("nftables", kind, "test", n, f, cmd))
		return ret, nil
	}
	var out any
	switch kind {
	case "append":
		out, err = c.Salt("nftables.append", []any{table, chain, rule, family}, nil)
	case "insert":
		position, perr := kwKey(kw, "position")
		if perr != nil {
			return nil, perr
		}
		out, err = c.Salt("nftables.insert", []any{table, chain, position, rule, family}, nil)
	default:
		args := value.MapOf("family", family, "rule", rule)
		if p, ok := kw.Get("position"); ok {
			args = value.MapOf("family", family, "position", p)
		}
		out, err = c.Salt("nftables.delete", []any{table, chain}, args)
	}
	if err != nil {
		return nil, err
	}
	if !nftResult(out) {
		ret.Set("result", false)
		comment := ruleComment("nftables", kind, "failed", n, f, cmd)
		if kind == "append" {
			comment += ".\n" + nftComment(out)
		}
		ret.Set("comment", comment)
		return ret, nil
	}
	ret.Set("changes", value.MapOf("locale", name))
	ret.Set("result", true)
	ret.Set("comment", ruleComment("nftables", kind, "done", n, f, cmd))
	if save, ok := kw.Get("save"); ok && value.Truthy(save) {
		if _, err := c.Salt("nftables.save", nil, value.MapOf("filename", nil, "family", family)); err != nil {
			return nil, err
		}
		if kind == "delete" {
			ret.Set("comment", fmt.Sprintf("Deleted and Saved nftables rule for %s for %s%s", n, cmd, f))
		} else {
			ret.Set("comment", fmt.Sprintf("Set and Saved nftables rule for %s to: %s for %s", n, cmd, f))
		}
	}
	return ret, nil
}

func nftFlushState(c *statemod.Call) (*value.Map, error) {
	name, family, ignore := c.Get("name"), c.Get("family"), c.Bool("ignore_absence")
	ret := statemod.Ret(name, nil, "")
	if c.Test {
		ret.Set("comment", "nftables flush not performed in test mode.")
		return ret, nil
	}
	kw := nftStateKwargs(c)
	table, ok := kw.Get("table")
	if !ok {
		table = "filter"
	}
	f := value.Str(family)
	checkTable, err := c.Salt("nftables.check_table", []any{table}, value.MapOf("family", family))
	if err != nil {
		return nil, err
	}
	if !ignore && !nftResult(checkTable) {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Failed to flush table %s in family %s, table does not exist.", value.Str(table), f))
		return ret, nil
	}
	chain, hasChain := kw.Get("chain")
	var checkChain any
	if !hasChain {
		chain = ""
	} else {
		if checkChain, err = c.Salt("nftables.check_chain", []any{table, chain}, value.MapOf("family", family)); err != nil {
			return nil, err
		}
		if !ignore && !nftResult(checkChain) {
			ret.Set("result", false)
			ret.Set("comment", fmt.Sprintf("Failed to flush chain %s in table %s in family %s, chain does not exist.", value.Str(chain), value.Str(table), f))
			return ret, nil
		}
	}
	res, err := c.Salt("nftables.flush", []any{table, chain, family}, nil)
	if err != nil {
		return nil, err
	}
	ok = nftResult(res)
	if !ok && ignore {
		if !nftResult(checkTable) {
			ok = true
		} else if !hasChain {
			return nil, fmt.Errorf("UnboundLocalError: cannot access local variable 'check_chain' where it is not associated with a value")
		} else {
			ok = !nftResult(checkChain)
		}
	}
	if !ok {
		ret.Set("result", false)
		ret.Set("comment", "Failed to flush nftables rules")
		return ret, nil
	}
	ret.Set("changes", value.MapOf("locale", name))
	ret.Set("result", true)
	ret.Set("comment", fmt.Sprintf("Flush nftables rules in %s table %s chain %s family", value.Str(table), value.Str(chain), f))
	return ret, nil
}

// nftLower is Python's str.lower() of a string argument (an error for
// other types, as Salt's .lower() call raises).
func nftLower(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("AttributeError: '%s' object has no attribute 'lower'", value.TypeName(v))
	}
	return strings.ToLower(s), nil
}

func nftSetPolicyState(c *statemod.Call) (*value.Map, error) {
	name, table, family := c.Get("name"), c.Get("table"), c.Get("family")
	ret := statemod.Ret(name, nil, "")
	kw := nftStateKwargs(c)
	chain, err := kwKey(kw, "chain")
	if err != nil {
		return nil, err
	}
	current, err := c.Salt("nftables.get_policy", []any{table, chain, family}, nil)
	if err != nil {
		return nil, err
	}
	policy, err := kwKey(kw, "policy")
	if err != nil {
		return nil, err
	}
	cur := ""
	if value.Truthy(current) {
		if cur, err = nftLower(current); err != nil {
			return nil, err
		}
	}
	want, err := nftLower(policy)
	if err != nil {
		return nil, err
	}
	ch, t, f, p := value.Str(chain), value.Str(table), value.Str(family), value.Str(policy)
	if cur == want {
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("nftables default policy for chain %s on table %s for %s already set to %s", ch, t, f, p))
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", fmt.Sprintf("nftables default policy for chain %s on table %s for %s needs to be set to %s", ch, t, f, p))
		return ret, nil
	}
	out, err := c.Salt("nftables.set_policy", []any{table, chain, want, family}, nil)
	if err != nil {
		return nil, err
	}
	if !value.Truthy(out) {
		ret.Set("result", false)
		ret.Set("comment", "Failed to set nftables default policy")
		return ret, nil
	}
	ret.Set("changes", value.MapOf("locale", name))
	ret.Set("result", true)
	ret.Set("comment", fmt.Sprintf("Set default policy for %s to %s family %s", ch, p, f))
	if save, ok := kw.Get("save"); ok && value.Truthy(save) {
		fn, _ := kw.Get("save_filename")
		if _, err := c.Salt("nftables.save", nil, value.MapOf("filename", fn, "family", family)); err != nil {
			return nil, err
		}
		ret.Set("comment", fmt.Sprintf("Set and saved default policy for %s to %s family %s", ch, p, f))
	}
	return ret, nil
}

func nftTablePresent(c *statemod.Call) (*value.Map, error) {
	name, family := c.Get("name"), c.Get("family")
	ret := statemod.Ret(name, nil, "")
	n, f := value.Str(name), value.Str(family)
	check, err := c.Salt("nftables.check_table", []any{name}, value.MapOf("family", family))
	if err != nil {
		return nil, err
	}
	if r, _ := check.(*value.Map).Get("result"); r == true {
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("nftables table %s already exists in family %s", n, f))
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", fmt.Sprintf("nftables table %s would be created in family %s", n, f))
		return ret, nil
	}
	res, err := c.Salt("nftables.new_table", []any{name}, value.MapOf("family", family))
	if err != nil {
		return nil, err
	}
	if r, _ := res.(*value.Map).Get("result"); r == true {
		ret.Set("changes", value.MapOf("locale", name))
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("nftables table %s successfully created in family %s", n, f))
	} else {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Failed to create table %s for family %s", n, f))
	}
	return ret, nil
}

func nftTableAbsent(c *statemod.Call) (*value.Map, error) {
	name, family := c.Get("name"), c.Get("family")
	ret := statemod.Ret(name, nil, "")
	n, f := value.Str(name), value.Str(family)
	check, err := c.Salt("nftables.check_table", []any{name, family}, nil)
	if err != nil {
		return nil, err
	}
	if r, _ := check.(*value.Map).Get("result"); r == false {
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("nftables table %s is already absent from family %s", n, f))
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", fmt.Sprintf("nftables table %s would be deleted from family %s", n, f))
		return ret, nil
	}
	res, err := c.Salt("nftables.delete_table", []any{name}, value.MapOf("family", family))
	if err != nil {
		return nil, err
	}
	if r, _ := res.(*value.Map).Get("result"); r == true {
		ret.Set("changes", value.MapOf("locale", name))
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("nftables table %s successfully deleted from family %s", n, f))
	} else {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Failed to delete table %s from family %s", n, f))
	}
	return ret, nil
}
