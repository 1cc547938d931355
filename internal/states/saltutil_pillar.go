package states

// saltutil_pillar.go is saltutil.sync_pillar of salt/states/saltutil.py:
// saltutil.sync_pillar run as a state (an error, on a minion with a
// master, fails the state with Salt's comment).

import (
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "saltutil.sync_pillar", Params: []statemod.Param{statemod.Req("name")}, Kwargs: true,
		Doc: "Run saltutil.sync_pillar (masterless minions only); what it synced is the change.",
		Run: func(c *statemod.Call) (*value.Map, error) { return saltutilSyncOne(c, "pillar"), nil }})
}
