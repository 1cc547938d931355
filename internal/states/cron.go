package states

// cron.go is salt/states/cron.py (cron.present, cron.absent,
// cron.env_present, cron.env_absent) with the crontab handling of
// salt/modules/cron.py: the managed part of a user's crontab below Salt's
// tag line, entries identified by SALT_CRON_IDENTIFIER comments, written
// back with crontab(1).

import (
	"fmt"
	"strings"

	"brine/internal/statemod"
	"brine/internal/system"
	"brine/internal/system/crontab"
	"brine/internal/value"
)

// CrontabService is the execmod service name under which a run (or a
// test) attaches its own Crontab.
const CrontabService = crontab.Service

// Crontab reads and replaces the crontab of a user.
type Crontab = crontab.Store

func crontabStore(c *statemod.Call) Crontab {
	if c.Env != nil && c.Env.Exec != nil {
		if t, ok := c.Env.Exec.Service(CrontabService).(Crontab); ok {
			return t
		}
	}
	return crontab.Cmd{Runner: system.Exec{}}
}

// cronStatus is Salt's _check_cron: absent, present or update.
func cronStatus(t *crontab.Tab, w *crontab.Want) string {
	list := t.Crons
	if w.Special != "" {
		list = t.Special
	}
	for _, e := range list {
		if !crontab.Matched(e, w.Cmd, w.Identifier) {
			continue
		}
		var change bool
		if w.Special == "" {
			for i, p := range e.Times() {
				change = change || crontab.NeedsChange(p, w.Times[i])
			}
		} else {
			change = e.Spec != w.Special
		}
		id := w.Identifier
		change = change || crontab.NeedsChange(e.Identifier, &id) || e.Cmd != w.Cmd ||
			crontab.NeedsChange(e.Comment, w.Comment) || e.Commented != w.Commented
		if change {
			return "update"
		}
		return "present"
	}
	return "absent"
}

func cronParams(extra ...statemod.Param) []statemod.Param {
	return append([]statemod.Param{statemod.Req("name"), statemod.Opt("user", "root")}, extra...)
}

func init() {
	statemod.Register(&statemod.Function{Name: "cron.present",
		Params: cronParams(statemod.Opt("minute", "*"), statemod.Opt("hour", "*"), statemod.Opt("daymonth", "*"),
			statemod.Opt("month", "*"), statemod.Opt("dayweek", "*"), statemod.Opt("comment", nil),
			statemod.Opt("commented", false), statemod.Opt("identifier", false), statemod.Opt("special", nil)),
		Doc: "Ensure that a cron job is in the user's crontab.",
		Run: cronPresent})
	statemod.Register(&statemod.Function{Name: "cron.absent",
		Params: cronParams(statemod.Opt("identifier", false), statemod.Opt("special", nil)), Kwargs: true,
		Doc: "Ensure that a cron job is not in the user's crontab.",
		Run: cronAbsent})
	statemod.Register(&statemod.Function{Name: "cron.env_present",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("value", nil), statemod.Opt("user", "root")},
		Doc:    "Ensure that an environment variable is set in the user's crontab.",
		Run:    cronEnvPresent})
	statemod.Register(&statemod.Function{Name: "cron.env_absent",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("user", "root")},
		Doc:    "Ensure that an environment variable is not set in the user's crontab.",
		Run:    cronEnvAbsent})
}

func cronIdentifier(c *statemod.Call, name string) string {
	id := c.Get("identifier")
	if id == false || id == nil {
		return name
	}
	return value.Str(id)
}

func readTab(c *statemod.Call, user string) (*crontab.Tab, error) {
	data, err := crontabStore(c).Read(user)
	if err != nil {
		return nil, err
	}
	return crontab.Parse(data), nil
}

func cronPresent(c *statemod.Call) (*value.Map, error) {
	name := strings.TrimSpace(c.Name())
	user := c.Str("user")
	ret := value.MapOf("changes", value.NewMap(0), "comment", "", "name", name, "result", true)
	w := &crontab.Want{Cmd: name, Identifier: cronIdentifier(c, name), Commented: c.Get("commented") == true}
	if c.Has("special") {
		w.Special = c.Str("special")
	} else {
		for i, f := range crontab.Fields {
			if c.Has(f) {
				w.Times[i] = crontab.Str(strings.ToLower(c.Str(f)))
			}
		}
	}
	if c.Has("comment") {
		w.Comment = crontab.Str(c.Str("comment"))
	}
	t, err := readTab(c, user)
	if err != nil {
		return statemod.Ret(name, false, err.Error()), nil
	}
	if c.Test {
		switch cronStatus(t, w) {
		case "absent":
			ret.Set("result", nil)
			ret.Set("comment", "Cron "+name+" is set to be added")
		case "present":
			ret.Set("comment", "Cron "+name+" already present")
		default:
			ret.Set("result", nil)
			ret.Set("comment", "Cron "+name+" is set to be updated")
		}
		return ret, nil
	}
	switch crontab.Set(t, *w) {
	case "present":
		ret.Set("comment", "Cron "+name+" already present")
		return ret, nil
	case "new":
		ret.Set("comment", fmt.Sprintf("Cron %s added to %s's crontab", name, user))
	default:
		ret.Set("comment", "Cron "+name+" updated")
	}
	if err := crontabStore(c).Write(user, t.Render()); err != nil {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Cron %s for user %s failed to commit with error \n%s", name, user, err))
		return ret, nil
	}
	ret.Set("changes", value.MapOf(user, name))
	return ret, nil
}

func cronAbsent(c *statemod.Call) (*value.Map, error) {
	name := strings.TrimSpace(c.Name())
	user := c.Str("user")
	id := cronIdentifier(c, name)
	ret := value.MapOf("name", name, "result", true, "changes", value.NewMap(0), "comment", "")
	t, err := readTab(c, user)
	if err != nil {
		return statemod.Ret(name, false, err.Error()), nil
	}
	list := &t.Crons
	if c.Has("special") {
		list = &t.Special
	}
	idx := -1
	for i, e := range *list {
		if crontab.Matched(e, name, id) && (!c.Has("special") || e.Spec == c.Str("special")) {
			idx = i
			break
		}
	}
	if c.Test {
		// Salt's test run looks among the timed jobs only, whatever
		// special says.
		idx = -1
		for i, e := range t.Crons {
			if crontab.Matched(e, name, id) {
				idx = i
				break
			}
		}
		if idx < 0 {
			ret.Set("comment", "Cron "+name+" is absent")
		} else {
			ret.Set("result", nil)
			ret.Set("comment", "Cron "+name+" is set to be removed")
		}
		return ret, nil
	}
	if idx < 0 {
		ret.Set("comment", "Cron "+name+" already absent")
		return ret, nil
	}
	*list = append((*list)[:idx:idx], (*list)[idx+1:]...)
	if err := crontabStore(c).Write(user, t.Render()); err != nil {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Cron %s for user %s failed to commit with error %s", name, user, err))
		return ret, nil
	}
	ret.Set("comment", fmt.Sprintf("Cron %s removed from %s's crontab", name, user))
	ret.Set("changes", value.MapOf(user, name))
	return ret, nil
}

func cronEnvPresent(c *statemod.Call) (*value.Map, error) {
	name, user := c.Name(), c.Str("user")
	val := c.Str("value")
	ret := value.MapOf("changes", value.NewMap(0), "comment", "", "name", name, "result", true)
	t, err := readTab(c, user)
	if err != nil {
		return statemod.Ret(name, false, err.Error()), nil
	}
	status := "absent"
	for i, e := range t.Env {
		if e.Name == name {
			status = "present"
			if e.Value != val {
				status = "update"
				if !c.Test {
					t.Env = append(t.Env[:i:i], t.Env[i+1:]...)
				}
			}
			break
		}
	}
	if c.Test {
		switch status {
		case "absent":
			ret.Set("result", nil)
			ret.Set("comment", "Cron env "+name+" is set to be added")
		case "present":
			ret.Set("comment", "Cron env "+name+" already present")
		default:
			ret.Set("result", nil)
			ret.Set("comment", "Cron env "+name+" is set to be updated")
		}
		return ret, nil
	}
	if status == "present" {
		ret.Set("comment", "Cron env "+name+" already present")
		return ret, nil
	}
	t.Env = append(t.Env, crontab.Env{Name: name, Value: val})
	if err := crontabStore(c).Write(user, t.Render()); err != nil {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Cron env %s for user %s failed to commit with error \n%s", name, user, err))
		return ret, nil
	}
	if status == "absent" {
		ret.Set("comment", fmt.Sprintf("Cron env %s added to %s's crontab", name, user))
	} else {
		ret.Set("comment", "Cron env "+name+" updated")
	}
	ret.Set("changes", value.MapOf(user, name))
	return ret, nil
}

func cronEnvAbsent(c *statemod.Call) (*value.Map, error) {
	name, user := c.Name(), c.Str("user")
	ret := value.MapOf("name", name, "result", true, "changes", value.NewMap(0), "comment", "")
	t, err := readTab(c, user)
	if err != nil {
		return statemod.Ret(name, false, err.Error()), nil
	}
	idx := -1
	for i, e := range t.Env {
		if e.Name == name {
			idx = i
		}
	}
	if c.Test {
		if idx < 0 {
			ret.Set("comment", "Cron env "+name+" is absent")
		} else {
			ret.Set("result", nil)
			ret.Set("comment", "Cron env "+name+" is set to be removed")
		}
		return ret, nil
	}
	if idx < 0 {
		ret.Set("comment", "Cron env "+name+" already absent")
		return ret, nil
	}
	t.Env = append(t.Env[:idx:idx], t.Env[idx+1:]...)
	if err := crontabStore(c).Write(user, t.Render()); err != nil {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Cron env %s for user %s failed to commit with error %s", name, user, err))
		return ret, nil
	}
	ret.Set("comment", fmt.Sprintf("Cron env %s removed from %s's crontab", name, user))
	ret.Set("changes", value.MapOf(user, name))
	return ret, nil
}
