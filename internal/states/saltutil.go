package states

// saltutil.go is salt/states/saltutil.py: one state per saltutil.sync_*
// execution function, which reports what was synced as changes.

import (
	"fmt"

	"brine/internal/statemod"
	"brine/internal/value"
)

// saltutilSyncKinds are the kinds with a saltutil.sync_<kind> state
// (sync_pillar, which only masterless minions have, is in saltutil_pillar.go).
var saltutilSyncKinds = []string{"beacons", "clouds", "engines", "executors", "grains", "log_handlers",
	"matchers", "modules", "output", "outputters", "proxymodules", "renderers", "returners", "sdb",
	"serializers", "states", "thorium", "utils"}

func init() {
	statemod.Register(&statemod.Function{Name: "saltutil.sync_all", Params: []statemod.Param{statemod.Req("name")}, Kwargs: true,
		Doc: "Run saltutil.sync_all; the kinds that synced anything are the changes.", Run: saltutilSyncAllState})
	for _, kind := range saltutilSyncKinds {
		statemod.Register(&statemod.Function{Name: "saltutil.sync_" + kind, Params: []statemod.Param{statemod.Req("name")}, Kwargs: true,
			Doc: "Run saltutil.sync_" + kind + "; what it synced is the change.",
			Run: func(c *statemod.Call) (*value.Map, error) { return saltutilSyncOne(c, kind), nil }})
	}
}

// saltutilSyncKwargs are the call's arguments but name, passed on to the
// execution function.
func saltutilSyncKwargs(c *statemod.Call) *value.Map {
	kw := value.NewMap(c.Args.Len())
	c.Args.Range(func(k, v any) bool {
		if k != "name" {
			kw.Set(k, v)
		}
		return true
	})
	return kw
}

func saltutilSyncOne(c *statemod.Call, kind string) *value.Map {
	ret := statemod.Ret(c.Get("name"), true, "")
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", fmt.Sprintf("saltutil.sync_%s would have been run", kind))
		return ret
	}
	res, err := c.Salt("saltutil.sync_"+kind, nil, saltutilSyncKwargs(c))
	if err != nil {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Failed to run sync_%s: %s", kind, err))
		return ret
	}
	if value.Truthy(res) {
		ret.Set("changes", value.MapOf(kind, res))
		ret.Set("comment", fmt.Sprintf("Updated %s.", kind))
	} else {
		ret.Set("comment", "No updates to sync")
	}
	return ret
}

func saltutilSyncAllState(c *statemod.Call) (*value.Map, error) {
	ret := statemod.Ret(c.Get("name"), true, "")
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "saltutil.sync_all would have been run")
		return ret, nil
	}
	res, err := c.Salt("saltutil.sync_all", nil, saltutilSyncKwargs(c))
	if err != nil {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Failed to run sync_all: %s", err))
		return ret, nil
	}
	changes := value.NewMap(0)
	if m, ok := res.(*value.Map); ok {
		m.Range(func(k, v any) bool {
			if value.Truthy(v) {
				changes.Set(k, v)
			}
			return true
		})
	}
	ret.Set("changes", changes)
	ret.Set("comment", "Sync performed")
	if changes.Len() == 0 {
		ret.Set("comment", "No updates to sync")
	}
	return ret, nil
}
