package engine

import (
	"brine/internal/match"
	"brine/internal/value"
)

// globalConditions is Salt's State._match_global_state_conditions: the
// global_state_conditions option maps "*", "mod.fun" or "mod" to compound
// targets (one or a list); when some apply to this state and none matches
// the minion, the state is not called and this no-op result is returned.
// nil means the state runs.
func (r *runner) globalConditions(full, state string, name any) *value.Map {
	ex := r.exec()
	if ex.Opts == nil {
		return nil
	}
	v, _ := ex.Opts.Get("global_state_conditions")
	conds, ok := v.(*value.Map)
	if !ok || conds.Len() == 0 {
		return nil
	}
	var mc *match.Context
	matched, applies := false, false
	conds.Range(func(k, c any) bool {
		key, _ := k.(string)
		if key != "*" && key != full && key != state {
			return true
		}
		var targets []any
		switch x := c.(type) {
		case string:
			targets = []any{x}
		case *value.List:
			targets = x.Items
		}
		for _, t := range targets {
			if mc == nil {
				id, _ := ex.Opts.Get("id")
				groups, _ := ex.Opts.Get("nodegroups")
				ng, _ := groups.(*value.Map)
				mc = &match.Context{ID: pyStr(id), Grains: ex.Grains, Pillar: ex.Pillar, Nodegroups: ng}
			}
			applies = true
			if match.Compound(mc, t) {
				matched = true
			}
		}
		return true
	})
	if !applies || matched {
		return nil
	}
	return value.MapOf(
		"name", name,
		"comment", "Failed to meet global state conditions. State not called.",
		"changes", value.NewMap(0),
		"result", nil,
	)
}
