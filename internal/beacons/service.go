package beacons

// service.go is salt/beacons/service.py: the running state of services
// (through service.status), every loop or, with onchangeonly, when it
// changes (after delay seconds).

import (
	"fmt"
	"os"
	"time"

	"brine/internal/pyops"
	"brine/internal/value"
)

func init() { Register("service", func() Module { return &service{last: map[string]*svcStatus{}} }) }

type service struct {
	last map[string]*svcStatus // Salt's LAST_STATUS
}

type svcStatus struct {
	running any
	since   time.Time // Salt's "time": a change waiting for its delay
}

func (*service) Validate(config any) (bool, string) {
	if !isList(config) {
		return false, "Configuration for service beacon must be a list."
	}
	c := ListToDict(config)
	s, ok := c.Get("services")
	if !ok {
		return false, "Configuration for service beacon requires services."
	}
	svcs, ok := s.(*value.Map)
	if !ok {
		return false, "Services configuration item for service beacon must be a dictionary."
	}
	for _, v := range svcs.Values() {
		if _, ok := v.(*value.Map); !ok {
			return false, "Configuration for service beacon must be a list of dictionaries."
		}
	}
	return true, "Valid beacon configuration"
}

func (s *service) Beacon(ctx *Context, config any) ([]*value.Map, error) {
	if ctx.Call == nil {
		return nil, fmt.Errorf("'service.status' is not available")
	}
	svcs, _ := mustGet(ListToDict(config), "services").(*value.Map)
	var ret []*value.Map
	for _, k := range svcs.Keys() {
		name := value.Str(k)
		scfg, _ := mustGet(svcs, name).(*value.Map)
		if scfg == nil {
			scfg = value.NewMap(0)
		}
		running, err := ctx.Call("service.status", []any{name}, value.NewMap(0))
		if err != nil {
			return nil, err
		}
		st := value.MapOf("running", running)
		ev := value.MapOf(name, st, "service_name", name, "tag", name)
		now := time.Now()
		delay := 0.0
		if d, ok := scfg.Get("delay"); ok {
			if delay, err = pyops.Float(d); err != nil {
				return nil, err
			}
		}
		if f, ok := scfg.Get("uncleanshutdown"); ok && !value.Truthy(running) {
			_, err := os.Stat(value.Str(f))
			st.Set("uncleanshutdown", err == nil)
		}
		if mustGet(scfg, "onchangeonly") != true {
			ret = append(ret, ev)
			continue
		}
		emitAtStartup := true
		if v, ok := scfg.Get("emitatstartup"); ok {
			emitAtStartup = value.Truthy(v)
		}
		last, seen := s.last[name]
		if !seen {
			last = &svcStatus{running: running}
			s.last[name] = last
			if !emitAtStartup {
				continue
			}
			if delay > 0 {
				last.since = now
			} else {
				ret = append(ret, ev)
			}
		}
		if !value.Equal(last.running, running) {
			last = &svcStatus{running: running}
			s.last[name] = last
			if delay > 0 {
				last.since = now
			} else {
				ret = append(ret, ev)
			}
		}
		if !last.since.IsZero() && float64(int64(now.Sub(last.since).Seconds()+0.5)) > delay {
			last.since = time.Time{}
			ret = append(ret, ev)
		}
	}
	return ret, nil
}
