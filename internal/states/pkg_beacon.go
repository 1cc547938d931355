package states

// pkg_beacon.go is pkg.mod_beacon of salt/states/pkg.py: for a
// pkg.installed or pkg.removed state with beacon: True, a pkg beacon
// watching its packages (pkgs, else the name), set with beacon.present.

import (
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "pkg.mod_beacon", Params: []statemod.Param{statemod.Req("name")}, Kwargs: true,
		Doc: "Add the pkg beacon a pkg.installed or pkg.removed state asks for with beacon: True (run by the state system).",
		Run: pkgModBeacon})
}

func pkgModBeacon(c *statemod.Call) (*value.Map, error) {
	return modBeacon(c, "pkg", []string{"installed", "removed"}, "mod_beacon", func(string) (*value.Map, error) {
		pkgs, ok := c.Args.Get("pkgs")
		if !ok {
			pkgs = value.NewList(c.Get("name"))
		}
		return value.MapOf("pkgs", pkgs, "interval", int64(60), "beacon_module", "pkg"), nil
	})
}
