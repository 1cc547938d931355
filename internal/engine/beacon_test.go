package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"brine/internal/engine"
	"brine/internal/statemod"
	"brine/internal/value"
)

// beaconRegistry is testRegistry with a t.mod_beacon that reports the
// state function it was called for and whether it ran in test mode.
func beaconRegistry() *statemod.Registry {
	r := testRegistry()
	r.Register(&statemod.Function{Name: "t.mod_beacon", Params: []statemod.Param{statemod.Req("name")}, Kwargs: true,
		Run: func(c *statemod.Call) (*value.Map, error) {
			cmt := "beacon for " + c.Str("sfun") + " " + value.Str(c.Get("beacon"))
			if c.Test {
				cmt += " (test)"
			}
			return value.MapOf("name", "beacon_"+c.Str("name"), "changes", value.NewMap(0), "result", true, "comment", cmt), nil
		}})
	return r
}

// TestBeaconPass pins Salt's call_beacons: after the run and its
// listeners, each chunk with a beacon key runs again as mod_beacon with
// the ID beacon_<id>, keeping its requisites (looked up among the beacon
// chunks only).
func TestBeaconPass(t *testing.T) {
	tests := []struct {
		name, src, want string
		test            bool
		tags            []string
	}{
		{"none", `
- {id: a, fun: t.ok}`, "a True t.ok", false, nil},
		{"after the run", `
- {id: a, fun: t.chg, beacon: true}
- {id: b, fun: t.ok}`, "a True t.chg\nb True t.ok\nbeacon_a True beacon for chg True", false,
			[]string{"t_|-a_|-a_|-chg", "t_|-b_|-b_|-ok", "t_|-beacon_a_|-a_|-mod_beacon"}},
		{"a false beacon still runs", `
- {id: a, fun: t.ok, beacon: false}`, "a True t.ok\nbeacon_a True beacon for ok False", false, nil},
		{"after the listeners", `
- {id: a, fun: t.chg, beacon: true}
- {id: b, fun: t.ok, listen: [{t: a}], beacon: true}`, "a True t.chg\nb True t.ok\nlistener_b True watch fired\nbeacon_a True beacon for chg True\nbeacon_b True beacon for ok True", false, nil},
		{"test mode", `
- {id: a, fun: t.chg, beacon: true}`, "a None t.chg\nbeacon_a True beacon for chg True (test)", true, nil},
		{"whatever the state returned", `
- {id: a, fun: t.fail, beacon: true}`, "a False t.fail\nbeacon_a True beacon for fail True", false, nil},
		{"no mod_beacon", `
- {id: a, fun: nw.ok, beacon: true}`, "a True nw.ok\nNone False State 'nw.mod_beacon' was not found in SLS 'main'|Reason: 'nw.mod_beacon' is not available.|", false,
			[]string{"nw_|-a_|-a_|-ok", "nw_|-beacon_a_|-a_|-mod_beacon"}},
		{"a requisite on a beacon chunk", `
- {id: a, fun: t.ok, beacon: true}
- {id: b, fun: t.ok, beacon: true, require: [{t: a}]}`, "a True t.ok\nb True t.ok\nbeacon_a True beacon for ok True\nbeacon_b True beacon for ok True", false, nil},
		{"a requisite on a chunk without beacon", `
- {id: a, fun: t.ok}
- {id: b, fun: t.ok, beacon: true, require: [{t: a}]}`, "a True t.ok\nb True t.ok\nbeacon_b False The following requisites were not found:|                   require:|                       t: a|", false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			chunks := lows(t, tc.src)
			before := make([]string, len(chunks))
			for i, c := range chunks {
				before[i] = value.ToJSON(c, value.JSONOptions{})
			}
			now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
			ret, err := engine.Run(chunks, engine.RunOptions{
				Test: tc.test, Registry: beaconRegistry(),
				Now:   func() time.Time { return now },
				Sleep: func(context.Context, time.Duration) {},
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(ret); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if tc.tags != nil {
				var tags []string
				ret.Range(func(k, _ any) bool {
					tags = append(tags, k.(string))
					return true
				})
				if strings.Join(tags, " ") != strings.Join(tc.tags, " ") {
					t.Errorf("tags %q, want %q", tags, tc.tags)
				}
			}
			for i, c := range chunks {
				if got := value.ToJSON(c, value.JSONOptions{}); got != before[i] {
					t.Errorf("chunk %d changed: %s, was %s", i, got, before[i])
				}
			}
		})
	}
}
