package beacons

// load.go is salt/beacons/load.py: an event when a load average leaves
// its [low, high] range (or, with onchangeonly, when it crosses a bound).

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"brine/internal/pyops"
	"brine/internal/value"
)

func init() { Register("load", func() Module { return &load{} }) }

type load struct {
	last map[string]float64 // Salt's LAST_STATUS
}

var loadKeys = []string{"1m", "5m", "15m"}

func (*load) Validate(config any) (bool, string) {
	if !isList(config) {
		return false, "Configuration for load beacon must be a list."
	}
	c := ListToDict(config)
	if v, ok := c.Get("emitatstartup"); ok && !pyBool(v) {
		return false, "Configuration for load beacon option emitatstartup must be a boolean."
	}
	if v, ok := c.Get("onchangeonly"); ok && !pyBool(v) {
		return false, "Configuration for load beacon option onchangeonly must be a boolean."
	}
	av, ok := c.Get("averages")
	if !ok {
		return false, "Averages configuration is required for load beacon."
	}
	avg, _ := av.(*value.Map)
	if avg == nil || !hasAny(avg, loadKeys...) {
		return false, "Averages configuration for load beacon must contain 1m, 5m or 15m items."
	}
	for _, k := range loadKeys {
		l, ok := mustGet(avg, k).(*value.List)
		if !ok {
			return false, "Averages configuration for load beacon: 1m, 5m and 15m items must be a list of two items."
		}
		if len(l.Items) != 2 {
			return false, "Configuration for load beacon: 1m, 5m and 15m items must be a list of two items."
		}
	}
	return true, "Valid beacon configuration"
}

// loadavg is os.getloadavg().
func loadavg() (map[string]float64, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil, err
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return nil, fmt.Errorf("/proc/loadavg: unexpected content %q", b)
	}
	out := map[string]float64{}
	for i, k := range loadKeys {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

func (l *load) Beacon(_ *Context, config any) ([]*value.Map, error) {
	c := ListToDict(config)
	emitAtStartup, onChange := true, false
	if v, ok := c.Get("emitatstartup"); ok {
		emitAtStartup = value.Truthy(v)
	}
	if v, ok := c.Get("onchangeonly"); ok {
		onChange = value.Truthy(v)
	}
	avgs, err := loadavg()
	if err != nil {
		return nil, err
	}
	if onChange && l.last == nil {
		l.last = map[string]float64{}
		for k, v := range avgs {
			l.last[k] = v
		}
		if !emitAtStartup {
			return nil, nil
		}
	}
	averages, _ := mustGet(c, "averages").(*value.Map)
	send := false
	for _, k := range loadKeys {
		bounds, ok := mustGet(averages, k).(*value.List)
		if !ok || len(bounds.Items) < 2 {
			continue
		}
		lo, err := pyops.Float(bounds.Items[0])
		if err != nil {
			return nil, err
		}
		hi, err := pyops.Float(bounds.Items[1])
		if err != nil {
			return nil, err
		}
		cur := avgs[k]
		if onChange {
			if (cur > hi && l.last[k] < hi) || (cur < lo && l.last[k] > lo) {
				send = true
				break
			}
		} else if cur < lo || cur > hi {
			send = true
			break
		}
	}
	if onChange {
		for k, v := range avgs {
			l.last[k] = v
		}
	}
	if !send {
		return nil, nil
	}
	return []*value.Map{value.MapOf("1m", avgs["1m"], "5m", avgs["5m"], "15m", avgs["15m"])}, nil
}
