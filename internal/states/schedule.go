package states

// schedule.go is salt/states/schedule.py: schedule.present, absent,
// enabled and disabled, each through the schedule execution functions
// (schedule.list, build_schedule_item, add, modify, delete, enable_job,
// disable_job), which change the schedule of the running minion daemon.

import (
	"fmt"
	"slices"
	"strings"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	for _, f := range []struct {
		name, doc string
		run       statemod.Func
	}{
		{"schedule.present", "Ensure a job is in the minion's schedule with the settings given.", schedulePresent},
		{"schedule.absent", "Ensure a job is not in the minion's schedule.", scheduleAbsent},
		{"schedule.enabled", "Ensure a job of the minion's schedule is enabled.", scheduleToggle("schedule.enable_job", "Enabled")},
		{"schedule.disabled", "Ensure a job of the minion's schedule is disabled.", scheduleToggle("schedule.disable_job", "Disabled")},
	} {
		statemod.Register(&statemod.Function{Name: f.name, Params: []statemod.Param{statemod.Req("name")}, Kwargs: true, Doc: f.doc, Run: f.run})
	}
}

// argsBut is the call's arguments other than skip, in order (a state's
// **kwargs).
func argsBut(c *statemod.Call, skip ...string) *value.Map {
	kw := value.NewMap(c.Args.Len())
	c.Args.Range(func(k, v any) bool {
		if !slices.Contains(skip, value.Str(k)) {
			kw.Set(k, v)
		}
		return true
	})
	return kw
}

// scheduleCall calls fun(name, **kwargs) and returns its result mapping.
func scheduleCall(c *statemod.Call, fun string, kwargs *value.Map) (*value.Map, error) {
	res, err := c.Salt(fun, []any{c.Get("name")}, kwargs)
	if err != nil {
		return nil, err
	}
	m, ok := res.(*value.Map)
	if !ok {
		return nil, fmt.Errorf("%s returned %s, not a mapping", fun, value.TypeName(res))
	}
	return m, nil
}

// scheduleCurrent is schedule.list(show_all=True, return_yaml=False).
func scheduleCurrent(c *statemod.Call) (*value.Map, error) {
	res, err := c.Salt("schedule.list", nil, value.MapOf("show_all", true, "return_yaml", false))
	if err != nil {
		return nil, err
	}
	m, _ := res.(*value.Map)
	if m == nil {
		m = value.NewMap(0)
	}
	return m, nil
}

// scheduleRet starts the state's return; comments are joined by lines.
func scheduleRet(c *statemod.Call) *value.Map {
	return value.MapOf("name", c.Get("name"), "result", true, "changes", value.NewMap(0), "comment", "")
}

// scheduleFailed copies a failed execution result into ret: its result
// and comment as they are (a list stays a list, as in Salt).
func scheduleFailed(ret, res *value.Map) (*value.Map, bool) {
	if r := getv(res, "result"); !value.Truthy(r) {
		ret.Set("result", r)
		ret.Set("comment", getv(res, "comment"))
		return ret, true
	}
	return ret, false
}

func schedulePresent(c *statemod.Call) (*value.Map, error) {
	name := c.Str("name")
	ret := scheduleRet(c)
	var comments []string
	current, err := scheduleCurrent(c)
	if err != nil {
		return nil, err
	}
	kwargs := argsBut(c, "name")
	if cur, ok := current.Get(c.Get("name")); ok {
		item, err := c.Salt("schedule.build_schedule_item", []any{c.Get("name")}, kwargs.Copy())
		if err != nil {
			return nil, err
		}
		if m, ok := item.(*value.Map); ok {
			if r, has := m.Get("result"); has && !value.Truthy(r) {
				ret.Set("result", r)
				ret.Set("comment", getv(m, "comment"))
				return ret, nil
			}
			if !m.Has("enabled") {
				m.Set("enabled", true)
			}
		}
		switch {
		case value.Equal(item, cur):
			comments = append(comments, fmt.Sprintf("Job %s in correct state", name))
		case c.Test:
			kwargs.Set("test", true)
			res, err := scheduleCall(c, "schedule.modify", kwargs)
			if err != nil {
				return nil, err
			}
			comments = append(comments, value.Str(getv(res, "comment")))
			ret.Set("changes", getv(res, "changes"))
		default:
			res, err := scheduleCall(c, "schedule.modify", kwargs)
			if err != nil {
				return nil, err
			}
			if r, failed := scheduleFailed(ret, res); failed {
				return r, nil
			}
			comments = append(comments, fmt.Sprintf("Modifying job %s in schedule", name))
			ret.Set("changes", getv(res, "changes"))
		}
	} else if c.Test {
		kwargs.Set("test", true)
		res, err := scheduleCall(c, "schedule.add", kwargs)
		if err != nil {
			return nil, err
		}
		comments = append(comments, value.Str(getv(res, "comment")))
	} else {
		res, err := scheduleCall(c, "schedule.add", kwargs)
		if err != nil {
			return nil, err
		}
		if r, failed := scheduleFailed(ret, res); failed {
			return r, nil
		}
		comments = append(comments, fmt.Sprintf("Adding new job %s to schedule", name))
		ret.Set("changes", getv(res, "changes"))
	}
	ret.Set("comment", strings.Join(comments, "\n"))
	return ret, nil
}

func scheduleAbsent(c *statemod.Call) (*value.Map, error) {
	name := c.Str("name")
	ret := scheduleRet(c)
	res, done, err := scheduleJobCall(c, ret, "schedule.delete")
	if err != nil {
		return nil, err
	}
	if done {
		return ret, nil
	}
	if r, failed := scheduleFailed(ret, res); failed {
		return r, nil
	}
	ret.Set("comment", fmt.Sprintf("Removed job %s from schedule", name))
	ret.Set("changes", getv(res, "changes"))
	return ret, nil
}

// scheduleJobCall calls fun on the job the state names (with test in
// test mode); done is true when ret is already the state's return: the job
// is not in the schedule, or the call only said what it would do.
func scheduleJobCall(c *statemod.Call, ret *value.Map, fun string) (res *value.Map, done bool, err error) {
	current, err := scheduleCurrent(c)
	if err != nil {
		return nil, true, err
	}
	if !current.Has(c.Get("name")) {
		ret.Set("comment", fmt.Sprintf("Job %s not present in schedule", c.Str("name")))
		return nil, true, nil
	}
	kwargs := argsBut(c, "name")
	if c.Test {
		kwargs.Set("test", true)
	}
	if res, err = scheduleCall(c, fun, kwargs); err != nil {
		return nil, true, err
	}
	if c.Test {
		ret.Set("comment", value.Str(getv(res, "comment")))
		return nil, true, nil
	}
	return res, false, nil
}

// scheduleToggle is schedule.enabled or schedule.disabled through fun
// (schedule.enable_job or schedule.disable_job); verb starts the comment.
func scheduleToggle(fun, verb string) statemod.Func {
	return func(c *statemod.Call) (*value.Map, error) {
		name := c.Str("name")
		ret := scheduleRet(c)
		res, done, err := scheduleJobCall(c, ret, fun)
		if err != nil {
			return nil, err
		}
		if done {
			return ret, nil
		}
		if r := getv(res, "result"); !value.Truthy(r) {
			ret.Set("result", r)
			ret.Set("changes", getv(res, "changes"))
			ret.Set("comment", getv(res, "comment"))
			return ret, nil
		}
		ret.Set("comment", fmt.Sprintf("%s job %s from schedule", verb, name))
		return ret, nil
	}
}
