package states

// apt.go is the "apt" state module of Salt (salt/states/aptpkg.py): its one
// function, apt.held, puts a package on hold through dpkg's selections
// (pkg.get_selections and pkg.set_selections of aptpkg).

import (
	"fmt"
	"strconv"
	"strings"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "apt.held",
		Params: []statemod.Param{statemod.Req("name")},
		Doc:    "Put a package in dpkg's hold state so that it is not upgraded.",
		Run:    aptHeld})
}

// dataIsTrue is salt.utils.data.is_true: numbers (and strings that parse
// as one) are true above zero, other strings when "true", anything else
// by Python truth.
func dataIsTrue(v any) bool {
	if s, ok := v.(string); ok {
		if n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
			return n > 0
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			return f > 0
		}
		return strings.ToLower(s) == "true"
	}
	if value.IsNumber(v) {
		return value.ToFloat(v) > 0
	}
	return value.Truthy(v)
}

func aptHeld(c *statemod.Call) (*value.Map, error) {
	name := c.Get("name")
	ret := statemod.Ret(name, false, "")
	r, err := c.Salt("pkg.get_selections", nil, value.MapOf("pattern", name))
	if err != nil {
		return nil, err
	}
	sel, _ := r.(*value.Map)
	switch {
	case !value.Truthy(r):
		ret.Set("comment", fmt.Sprintf("Package %s does not have a state", value.Str(name)))
	case !dataIsTrue(getv(sel, "hold")):
		if c.Test {
			ret.Set("result", nil)
			ret.Set("comment", fmt.Sprintf("Package %s is set to be held", value.Str(name)))
			break
		}
		res, err := c.Salt("pkg.set_selections", nil, value.MapOf("selection", value.MapOf("hold", value.NewList(name))))
		if err != nil {
			return nil, err
		}
		var ch any
		ok := false
		if m, isMap := res.(*value.Map); isMap {
			ch, ok = m.Get(name)
		}
		if !ok {
			return nil, fmt.Errorf("KeyError: %s", value.Repr(name))
		}
		ret.Set("changes", ch)
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("Package %s is now being held", value.Str(name)))
	default:
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("Package %s is already held", value.Str(name)))
	}
	return ret, nil
}
