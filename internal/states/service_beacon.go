package states

// service_beacon.go is service.mod_beacon of salt/states/service.py: for
// a service.running or service.dead state with beacon: True, a service
// beacon watching the service, built from beacon_data and set with
// beacon.present.

import (
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "service.mod_beacon", Params: []statemod.Param{statemod.Req("name")}, Kwargs: true,
		Doc: "Add the service beacon a service.running or service.dead state asks for with beacon: True (run by the state system).",
		Run: serviceModBeacon})
}

func serviceModBeacon(c *statemod.Call) (*value.Map, error) {
	return modBeacon(c, "service", []string{"running", "dead"}, "beacon", func(string) (*value.Map, error) {
		bd, err := beaconDataArg(c)
		if err != nil {
			return nil, err
		}
		data := value.MapOf(
			"onchangeonly", beaconDataGet(bd, "onchangeonly", true),
			"delay", beaconDataGet(bd, "delay", int64(0)),
			"emitatstartup", beaconDataGet(bd, "emitatstartup", false),
			// Salt reads uncleanshutdown from emitatstartup.
			"uncleanshutdown", beaconDataGet(bd, "emitatstartup", nil),
		)
		return value.MapOf(
			"services", value.MapOf(c.Get("name"), data),
			"interval", beaconDataGet(bd, "interval", int64(60)),
			"beacon_module", "service",
		), nil
	})
}
