package states

// file_beacon.go is file.mod_beacon of salt/states/file.py: for a
// file.managed or file.directory state with beacon: True, an inotify
// beacon watching the path, built from beacon_data and set with
// beacon.present.

import (
	"fmt"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "file.mod_beacon", Params: []statemod.Param{statemod.Req("name")}, Kwargs: true,
		Doc: "Add the inotify beacon a file.managed or file.directory state asks for with beacon: True (run by the state system).",
		Run: fileModBeacon})
}

func fileModBeacon(c *statemod.Call) (*value.Map, error) {
	return modBeacon(c, "file", []string{"managed", "directory"}, "beacon", func(sfun string) (*value.Map, error) {
		bd, err := beaconDataArg(c)
		if err != nil {
			return nil, err
		}
		data := value.MapOf("mask", beaconDataGet(bd, "mask", value.NewList("create", "delete", "modify")))
		if sfun == "directory" {
			data.Set("auto_add", beaconDataGet(bd, "auto_add", true))
			data.Set("recurse", beaconDataGet(bd, "recurse", true))
			data.Set("exclude", beaconDataGet(bd, "exclude", value.NewList()))
		}
		return value.MapOf(
			"files", value.MapOf(c.Get("name"), data),
			"interval", beaconDataGet(bd, "interval", int64(60)),
			"coalesce", beaconDataGet(bd, "coalesce", false),
			"beacon_module", "inotify",
		), nil
	})
}

// modBeacon is the shape the mod_beacon functions share: sfun (the state
// function the chunk ran) must be one of funs, and with beacon true the
// beacon_<module>_<name> whose arguments build returns is set with
// beacon.present; verb ends the message for an unsupported sfun.
func modBeacon(c *statemod.Call, mod string, funs []string, verb string, build func(sfun string) (*value.Map, error)) (*value.Map, error) {
	sfun := value.Str(c.Get("sfun")) // "None" when missing, as Python formats it
	supported := false
	for _, f := range funs {
		supported = supported || f == sfun
	}
	if !supported {
		return value.MapOf("name", c.Get("name"), "changes", value.NewMap(0),
			"comment", fmt.Sprintf("%s.%s does not work with the %s state function", mod, sfun, verb), "result", false), nil
	}
	if !c.Bool("beacon") {
		return value.MapOf("name", c.Get("name"), "changes", value.NewMap(0), "comment", "Not adding beacon.", "result", true), nil
	}
	kwargs, err := build(sfun)
	if err != nil {
		return nil, err
	}
	module := value.Str(getv(kwargs, "beacon_module"))
	args := value.MapOf("name", fmt.Sprintf("beacon_%s_%s", module, c.Str("name")))
	args.Update(kwargs)
	f, _ := statemod.Default.Lookup("beacon.present")
	bound, _ := f.BindArgs(args)
	sub := *c
	sub.Fun, sub.Args = f, bound
	return beaconPresent(&sub)
}

// beaconDataArg is the beacon_data argument ({} when not given); Salt
// calls .get on it, so anything but a mapping is an AttributeError.
func beaconDataArg(c *statemod.Call) (*value.Map, error) {
	v, ok := c.Args.Get("beacon_data")
	if !ok {
		return value.NewMap(0), nil
	}
	m, isMap := v.(*value.Map)
	if !isMap {
		return nil, fmt.Errorf("AttributeError: '%s' object has no attribute 'get'", pyTypeName(v))
	}
	return m, nil
}

// beaconDataGet is beacon_data.get(k, def).
func beaconDataGet(bd *value.Map, k string, def any) any {
	if v, ok := bd.Get(k); ok {
		return v
	}
	return def
}
