package highstate

import (
	"fmt"
	"strings"

	"brine/internal/execmod"
	"brine/internal/value"
)

// disabledRuns is Salt's state module _disabled: a message for each name
// in funs (SLS names, or "highstate") that the grain state_runs_disabled
// lists, exactly or through a "mod.*" pattern.
func disabledRuns(ctx *execmod.Context, funs []any) []any {
	if ctx.Grains == nil {
		return nil
	}
	v, _ := ctx.Grains.Get("state_runs_disabled")
	pats, ok := v.(*value.List)
	if !ok {
		return nil
	}
	var out []any
	for _, f := range funs {
		name := value.Str(f)
		for _, p := range pats.Items {
			pat := value.Str(p)
			if strings.Contains(pat, ".*") {
				prefix, _, _ := strings.Cut(pat, ".")
				prefix += "."
				if strings.HasPrefix(name, prefix) {
					out = append(out, fmt.Sprintf("The state file \"%s\" is currently disabled by \"%s\", to re-enable, run state.enable %s.", name, pat, pat))
					continue
				}
			} else if pat == name {
				out = append(out, fmt.Sprintf("The state file \"%s\" is currently disabled, to re-enable, run state.enable %s.", pat, pat))
				continue
			}
		}
	}
	return out
}

// slsDisabled is state.sls's check: mods as given (a list, or one name
// not split on commas).
func slsDisabled(ctx *execmod.Context, mods any) *value.List {
	funs := []any{mods}
	if l, ok := mods.(*value.List); ok {
		funs = l.Items
	}
	msgs := disabledRuns(ctx, funs)
	if len(msgs) == 0 {
		return nil
	}
	ctx.SetRetcode(exStateCompilerError)
	return value.NewList(msgs...)
}

// highstateDisabled is state.highstate's return when "highstate" is in
// state_runs_disabled (the result is the string "False", as in Salt).
func highstateDisabled(ctx *execmod.Context) *value.Map {
	if len(disabledRuns(ctx, []any{"highstate"})) == 0 {
		return nil
	}
	return value.MapOf(
		"name", "Salt highstate run is disabled. To re-enable, run state.enable highstate",
		"result", "False",
		"comment", "Disabled",
	)
}

func init() {
	execmod.Register("state.disable", stateDisable, "Disable state runs: add SLS or state function names to the state_runs_disabled grain.")
	execmod.Register("state.enable", stateEnable, "Enable state runs disabled with state.disable.")
}

func stateDisable(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return toggleDisabled(ctx, "state.disable", args, kwargs, true)
}

func stateEnable(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return toggleDisabled(ctx, "state.enable", args, kwargs, false)
}

// toggleDisabled is Salt's state.disable (disable set) and state.enable:
// the state_runs_disabled grain updated through grains.setval, with one
// "Info:" line per name.
func toggleDisabled(ctx *execmod.Context, fun string, args []any, kwargs *value.Map, disable bool) (any, error) {
	vals, _, err := execmod.Bind(fun, args, kwargs, execmod.Req("states"))
	if err != nil {
		return nil, err
	}
	cur, err := ctx.Call("grains.get", []any{"state_runs_disabled"}, nil)
	if err != nil {
		return nil, err
	}
	runs := value.NewList()
	if l, ok := cur.(*value.List); ok {
		runs.Append(l.Items...)
	}
	var names []any
	if l, ok := vals[0].(*value.List); ok {
		names = l.Items
	} else {
		for _, s := range SplitMods(vals[0]) {
			names = append(names, s)
		}
	}
	var msg []string
	changed := false
	for _, n := range names {
		at := -1
		for i, e := range runs.Items {
			if value.Equal(e, n) {
				at = i
				break
			}
		}
		switch {
		case disable && at >= 0:
			msg = append(msg, fmt.Sprintf("Info: %s state already disabled.", value.Str(n)))
		case disable:
			msg = append(msg, fmt.Sprintf("Info: %s state disabled.", value.Str(n)))
			runs.Append(n)
			changed = true
		case at < 0:
			msg = append(msg, fmt.Sprintf("Info: %s state already enabled.", value.Str(n)))
		default:
			msg = append(msg, fmt.Sprintf("Info: %s state enabled.", value.Str(n)))
			runs.Items = append(runs.Items[:at], runs.Items[at+1:]...)
			changed = true
		}
	}
	if changed {
		if _, err := ctx.Call("grains.setval", []any{"state_runs_disabled", runs}, nil); err != nil {
			return nil, err
		}
	}
	return value.MapOf("res", true, "msg", strings.Join(msg, "\n")), nil
}
