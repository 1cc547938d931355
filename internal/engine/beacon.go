package engine

import "brine/internal/value"

// callBeacons is Salt's State.call_beacons, run after call_listen: every
// chunk with a "beacon" key is run again as its module's mod_beacon, with
// the state function in "sfun" and the ID "beacon_<id>". The copies keep
// the chunk's other keys, requisites included, and run as a low state of
// their own; their results join running after the listeners'. A module
// without mod_beacon gives the usual "was not found" result.
func (r *runner) callBeacons(chunks []*value.Map, running *value.Map) *value.Map {
	var lows []*value.Map
	for _, chunk := range chunks {
		if !chunk.Has("beacon") {
			continue
		}
		low := copyChunk(chunk)
		low.Set("sfun", get(chunk, "fun"))
		low.Set("fun", "mod_beacon")
		low.Set("__id__", "beacon_"+pyStr(get(chunk, "__id__")))
		lows = append(lows, low)
	}
	if len(lows) == 0 {
		return running
	}
	running.Update(r.callChunks(lows))
	return running
}
