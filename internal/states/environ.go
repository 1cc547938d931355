package states

// environ.go is salt/states/environ.py: the minion process's environment.

import (
	"os"

	"brine/internal/statemod"
	"brine/internal/system/procenv"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "environ.setenv", Run: environSetenv,
		Doc: "Set the salt process environment variables.",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("value"), p("false_unsets", false), p("clear_all", false),
			p("update_minion", false), p("permanent", false)}})
}

func environSetenv(c *statemod.Call) (*value.Map, error) {
	name := c.Get("name")
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	changes := value.NewMap(0)
	var environ *value.Map
	switch v := c.Get("value").(type) {
	case string:
		environ = value.MapOf(name, v)
	case bool:
		if v {
			return fileErr(ret, "Environ value must be string, dict or False")
		}
		environ = value.MapOf(name, false)
	case *value.Map:
		environ = v
	default:
		return fileErr(ret, "Environ value must be string, dict or False")
	}
	falseUnsets := c.Get("false_unsets") == true
	clearAll := c.Get("clear_all") == true
	if clearAll {
		for _, k := range procenv.Names() {
			if environ.Has(k) {
				continue
			}
			if falseUnsets {
				changes.Set(k, nil)
			} else {
				changes.Set(k, "")
			}
		}
	}
	environ.Range(func(k, v any) bool {
		key := value.Str(k)
		cur, set := os.LookupEnv(key)
		switch {
		case v == false:
			if !set {
				if !falseUnsets {
					changes.Set(k, "")
				}
			} else if !falseUnsets {
				if cur != "" {
					changes.Set(k, "")
				}
			} else {
				changes.Set(k, nil)
			}
		case set && value.Equal(cur, v) || !set && value.Equal("", v):
		default:
			changes.Set(k, v)
		}
		return true
	})
	if c.Test {
		ret.Set("changes", changes)
		if changes.Len() > 0 {
			ret.Set("comment", "Environ values will be changed")
		} else {
			ret.Set("comment", "Environ values are already set with the correct values")
		}
		return ret, nil
	}
	if changes.Len() == 0 {
		ret.Set("comment", "Environ values were already set with the correct values")
		return ret, nil
	}
	// environ.setenv
	out := value.NewMap(0)
	if clearAll {
		for _, k := range procenv.Names() {
			if !environ.Has(k) {
				out.Set(k, procenv.Setval(k, false, falseUnsets))
			}
		}
	}
	failed := false
	environ.Range(func(k, v any) bool {
		switch v.(type) {
		case string, bool:
			if v == true {
				failed = true
				return false
			}
			out.Set(k, procenv.Setval(value.Str(k), v, falseUnsets))
		default:
			failed = true
			return false
		}
		return true
	})
	if failed || out.Len() == 0 {
		ret.Set("result", false)
		ret.Set("comment", "Failed to set environ variables")
		ret.Set("changes", changes)
		return ret, nil
	}
	ret.Set("changes", out)
	ret.Set("comment", "Environ values were set")
	return ret, nil
}
