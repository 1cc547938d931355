package beacons

// network_info.go is salt/beacons/network_info.py: an event for each
// configured interface whose counters (psutil's net_io_counters) equal,
// or with type: greater exceed, the configured values.

import (
	"bufio"
	"math/big"
	"os"
	"strconv"
	"strings"

	"brine/internal/pyops"
	"brine/internal/value"
)

func init() { Register("network_info", func() Module { return networkInfo{} }) }

type networkInfo struct{}

// netAttrs are psutil's counters, in its order.
var netAttrs = []string{"bytes_sent", "bytes_recv", "packets_sent", "packets_recv", "errin", "errout", "dropin", "dropout"}

func (networkInfo) Validate(config any) (bool, string) {
	if !isList(config) {
		return false, "Configuration for network_info beacon must be a list."
	}
	ifs, _ := mustGet(ListToDict(config), "interfaces").(*value.Map)
	if ifs == nil {
		return true, "Valid beacon configuration"
	}
	for _, v := range ifs.Values() {
		ic, ok := v.(*value.Map)
		if !ok {
			return false, "Configuration for network_info beacon must be a list of dictionaries."
		}
		if !hasAny(ic, append([]string{"type"}, netAttrs...)...) {
			return false, "Invalid configuration item in Beacon configuration."
		}
	}
	return true, "Valid beacon configuration"
}

func (networkInfo) Beacon(_ *Context, config any) ([]*value.Map, error) {
	stats, err := netCounters()
	if err != nil {
		return nil, err
	}
	ifs, _ := mustGet(ListToDict(config), "interfaces").(*value.Map)
	if ifs == nil {
		return nil, nil
	}
	var ret []*value.Map
	for _, k := range ifs.Keys() {
		name := value.Str(k)
		st, ok := stats[name]
		if !ok {
			continue
		}
		ic, _ := mustGet(ifs, name).(*value.Map)
		if ic == nil {
			continue
		}
		greater := mustGet(ic, "type") == "greater"
		diff := false
		for i, attr := range netAttrs {
			v, ok := ic.Get(attr)
			if !ok {
				continue
			}
			want, err := pyops.Int(v, 10)
			if err != nil {
				return nil, err
			}
			w, ok := want.(int64)
			if !ok {
				if b, isBig := want.(*big.Int); isBig && b.IsInt64() {
					w = b.Int64()
				} else {
					continue
				}
			}
			if (greater && st[i] > w) || (!greater && st[i] == w) {
				diff = true
			}
		}
		if diff {
			counters := value.NewMap(len(netAttrs))
			for i, attr := range netAttrs {
				counters.Set(attr, st[i])
			}
			ret = append(ret, value.MapOf("interface", name, "network_info", counters))
		}
	}
	return ret, nil
}

// netCounters reads /proc/net/dev into psutil's counters per interface
// (netAttrs order).
func netCounters() (map[string][]int64, error) {
	f, err := os.Open("/proc/net/dev")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fs := strings.Fields(rest)
		if len(fs) < 16 {
			continue
		}
		n := make([]int64, 16)
		for i := range n {
			n[i], _ = strconv.ParseInt(fs[i], 10, 64)
		}
		// received: bytes packets errs drop ...; sent from field 8 on
		out[strings.TrimSpace(name)] = []int64{n[8], n[0], n[9], n[1], n[2], n[10], n[3], n[11]}
	}
	return out, sc.Err()
}
