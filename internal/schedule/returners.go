package schedule

import (
	"sync"

	"brine/internal/value"
)

// ReturnCall is a scheduled job's return on its way to returners.
type ReturnCall struct {
	// Names are the returners: the job's returner then the
	// schedule_returner option, in order, without repeats.
	Names []string
	// Ret is Salt's scheduled return: id, fun, fun_args, schedule, jid,
	// pid, return, retcode, success, and metadata, ret_config and
	// ret_kwargs when the job has them.
	Ret *value.Map
	// Opts, Grains and Pillar are the minion's, for the returners'
	// configuration.
	Opts, Grains, Pillar *value.Map
}

// Returners runs a scheduled job's returners. The returners package
// installs it with SetReturners; until then scheduled returns go to the
// master's job cache only.
type Returners func(ReturnCall)

var (
	returnersMu sync.RWMutex
	returners   Returners
)

// SetReturners installs the returner hook (nil removes it).
func SetReturners(f Returners) {
	returnersMu.Lock()
	defer returnersMu.Unlock()
	returners = f
}

// CallReturners hands c to the hook when c names returners and a hook is
// installed.
func CallReturners(c ReturnCall) {
	if len(c.Names) == 0 {
		return
	}
	returnersMu.RLock()
	f := returners
	returnersMu.RUnlock()
	if f != nil {
		f(c)
	}
}

// ReturnerNames lists the returners of a job: its returner setting then
// the schedule_returner option, each a string or a list, without repeats.
func ReturnerNames(settings ...any) []string {
	var out []string
	add := func(s string) {
		if s == "" {
			return
		}
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	for _, r := range settings {
		switch x := r.(type) {
		case string:
			add(x)
		case *value.List:
			for _, e := range x.Items {
				if s, ok := e.(string); ok {
					add(s)
				}
			}
		}
	}
	return out
}
