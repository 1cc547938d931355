package beacons

// status.go is salt/beacons/status.py: every run, one event carrying the
// readings of status.* functions (by default loadavg, cpustats, meminfo,
// vmstats and time), tagged with the UTC time.

import (
	"errors"
	"fmt"
	"time"

	"brine/internal/execmod"
	"brine/internal/pyops"
	"brine/internal/value"
)

func init() { Register("status", func() Module { return status{} }) }

type status struct{}

func (status) Validate(config any) (bool, string) {
	if !isList(config) {
		return false, "Configuration for status beacon must be a list."
	}
	return true, "Valid beacon configuration"
}

func (status) Beacon(ctx *Context, config any) ([]*value.Map, error) {
	ctime := isoformat(time.Now().UTC())
	var entries []any
	switch c := config.(type) {
	case *value.List:
		entries = c.Items
	case nil:
	default:
		if value.Truthy(c) {
			entries = []any{c}
		}
	}
	if len(entries) == 0 {
		all := value.NewList("all")
		entries = []any{value.MapOf("loadavg", all, "cpustats", all, "meminfo", all, "vmstats", all, "time", all)}
	}
	if ctx.Call == nil {
		return nil, fmt.Errorf("execution functions are not available")
	}
	ret := value.NewMap(0)
	for _, e := range entries {
		entry, ok := e.(*value.Map)
		if !ok {
			continue
		}
		for _, k := range entry.Keys() {
			fn := value.Str(k)
			ret.Set(fn, value.NewMap(0))
			data, err := ctx.Call("status."+fn, nil, value.NewMap(0))
			if err != nil {
				var cee *execmod.CommandExecutionError
				if errors.As(err, &cee) {
					ctx.Log.Error(fmt.Sprintf("Status beacon attempted to process function %s but encountered error: %s", fn, err))
					continue
				}
				return nil, err
			}
			items := []any{mustGet(entry, fn)}
			if l, ok := items[0].(*value.List); ok {
				items = l.Items
			}
			for _, item := range items {
				if item == "all" {
					ret.Set(fn, data)
					continue
				}
				cur, _ := ret.Get(fn)
				curMap, _ := cur.(*value.Map)
				switch d := data.(type) {
				case *value.Map:
					v, ok := d.Get(item)
					if !ok {
						ret.Set(fn, "Status beacon is incorrectly configured: "+value.Repr(item))
						continue
					}
					if curMap != nil {
						curMap.Set(item, v)
					}
				case *value.List:
					iv, err := pyops.Int(item, 10)
					if err != nil {
						return nil, err
					}
					i, _ := iv.(int64)
					if i < 0 {
						i += int64(len(d.Items))
					}
					if i < 0 || i >= int64(len(d.Items)) {
						return nil, fmt.Errorf("list index out of range")
					}
					if curMap != nil {
						curMap.Set(item, d.Items[i])
					}
				default:
					return nil, fmt.Errorf("string indices must be integers")
				}
			}
		}
	}
	return []*value.Map{value.MapOf("tag", ctime, "data", ret)}, nil
}

// isoformat is Python's datetime.isoformat(): microseconds only when
// not zero.
func isoformat(t time.Time) string {
	if t.Nanosecond()/1000 == 0 {
		return t.Format("2006-01-02T15:04:05")
	}
	return t.Format("2006-01-02T15:04:05.000000")
}
