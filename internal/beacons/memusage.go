package beacons

// memusage.go is salt/beacons/memusage.py: an event while the memory in
// use reaches a percentage.

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"brine/internal/value"
)

func init() { Register("memusage", func() Module { return memusage{} }) }

type memusage struct{}

func (memusage) Validate(config any) (bool, string) {
	if !isList(config) {
		return false, "Configuration for memusage beacon must be a list."
	}
	if !ListToDict(config).Has("percent") {
		return false, "Configuration for memusage beacon requires percent."
	}
	return true, "Valid beacon configuration"
}

func (memusage) Beacon(_ *Context, config any) ([]*value.Map, error) {
	pct, err := memPercent()
	if err != nil {
		return nil, err
	}
	want, err := percentFloat(mustGet(ListToDict(config), "percent"))
	if err != nil {
		return nil, err
	}
	if pct >= want {
		return []*value.Map{value.MapOf("memusage", pct)}, nil
	}
	return nil, nil
}

// memPercent is psutil's virtual_memory().percent: the share of
// MemTotal not available, rounded to one decimal.
func memPercent() (float64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	kb := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fs := strings.Fields(rest)
		if len(fs) == 0 {
			continue
		}
		if v, err := strconv.ParseFloat(fs[0], 64); err == nil {
			kb[k] = v
		}
	}
	total := kb["MemTotal"]
	if total == 0 {
		return 0, nil
	}
	avail, ok := kb["MemAvailable"]
	if !ok {
		avail = kb["MemFree"] + kb["Buffers"] + kb["Cached"]
	}
	return round1((total - avail) / total * 100), nil
}
