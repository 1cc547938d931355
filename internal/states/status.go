package states

// status.go is salt/states/status.py: the monitoring states status.loadavg
// and status.process. They change nothing and report what they saw under
// "data".

import (
	"fmt"
	"strconv"
	"strings"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "status.loadavg",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("maximum", nil), statemod.Opt("minimum", nil)},
		Doc:    "Check that the load average name (1-min, 5-min or 15-min) lies between minimum and maximum.",
		Run:    statusLoadavgState})
	statemod.Register(&statemod.Function{Name: "status.process",
		Params: []statemod.Param{statemod.Req("name")},
		Doc:    "Check that a process whose ps line matches the regular expression name is running.",
		Run:    statusProcessState})
}

// monitorRet is a monitoring state's return: failed until proven good.
func monitorRet(name any) *value.Map {
	return value.MapOf("name", name, "result", false, "comment", "", "changes", value.NewMap(0), "data", value.NewMap(0))
}

// pyFloat converts a number or numeric string as Python's float() does.
func pyFloat(v any) (float64, error) {
	switch x := v.(type) {
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return 0, fmt.Errorf("could not convert string to float: %s", value.Repr(x))
		}
		return f, nil
	}
	return 0, fmt.Errorf("float() argument must be a string or a real number, not %s", value.Repr(v))
}

// pyGreaterEqual is Python's a >= b for the numbers and strings a state
// file gives.
func pyGreaterEqual(a, b any) (bool, error) {
	as, aStr := a.(string)
	bs, bStr := b.(string)
	if aStr && bStr {
		return as >= bs, nil
	}
	if aStr || bStr {
		return false, fmt.Errorf("'>=' not supported between instances of '%s' and '%s'", pyTypeName(a), pyTypeName(b))
	}
	af, err := pyFloat(a)
	if err != nil {
		return false, err
	}
	bf, err := pyFloat(b)
	if err != nil {
		return false, err
	}
	return af >= bf, nil
}

func statusLoadavgState(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := monitorRet(c.Get("name"))
	out, err := c.Salt("status.loadavg", nil, nil)
	if err != nil {
		return nil, err
	}
	data, _ := out.(*value.Map)
	cur, ok := data.GetString(name)
	if !ok {
		ret.Set("comment", "Requested load average "+name+" not available ")
		return ret, nil
	}
	minimum, maximum := c.Get("minimum"), c.Get("maximum")
	if value.Truthy(minimum) && value.Truthy(maximum) {
		ge, err := pyGreaterEqual(minimum, maximum)
		if err != nil {
			return nil, err
		}
		if ge {
			ret.Set("comment", "Min must be less than max")
			return ret, nil
		}
	}
	load, err := pyFloat(cur)
	if err != nil {
		return nil, err
	}
	ret.Set("data", cur)
	if value.Truthy(minimum) {
		lo, err := pyFloat(minimum)
		if err != nil {
			return nil, err
		}
		if load < lo {
			ret.Set("comment", "Load avg is below minimum of "+value.Str(minimum)+" at "+value.Str(load))
			return ret, nil
		}
	}
	if value.Truthy(maximum) {
		hi, err := pyFloat(maximum)
		if err != nil {
			return nil, err
		}
		if load > hi {
			ret.Set("comment", "Load avg above maximum of "+value.Str(maximum)+" at "+value.Str(load))
			return ret, nil
		}
	}
	ret.Set("comment", "Load avg in acceptable range")
	ret.Set("result", true)
	return ret, nil
}

func statusProcessState(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := monitorRet(c.Get("name"))
	pids, err := c.Salt("status.pid", []any{name}, nil)
	if err != nil {
		return nil, err
	}
	if !value.Truthy(pids) {
		ret.Set("comment", `Process signature "`+name+`" not found `)
		return ret, nil
	}
	ret.Set("data", pids)
	ret.Set("comment", `Process signature "`+name+`" was found `)
	ret.Set("result", true)
	return ret, nil
}
