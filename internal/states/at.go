package states

// at.go is salt/states/at.py: at.present, at.absent, at.watch and
// at.mod_watch, working through the at.* execution functions.

import (
	"fmt"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	present := []statemod.Param{statemod.Req("name"), statemod.Req("timespec"), statemod.Opt("tag", nil),
		statemod.Opt("user", nil), statemod.Opt("job", nil), statemod.Opt("unique_tag", false)}
	statemod.Register(&statemod.Function{Name: "at.present", Params: present,
		Doc: "Queue an at job (job, else name) to run at timespec, as user, tagged with tag.", Run: atPresent})
	statemod.Register(&statemod.Function{Name: "at.absent", Params: []statemod.Param{statemod.Req("name"), statemod.Opt("jobid", nil)},
		Kwargs: true, Doc: "Remove the job jobid, or the jobs matching the at.jobcheck filters given (all jobs without any).", Run: atAbsent})
	statemod.Register(&statemod.Function{Name: "at.watch", Params: present,
		Doc: "Queue an at job only when a watched state changes (through mod_watch).",
		Run: func(c *statemod.Call) (*value.Map, error) { return statemod.Ret(c.Get("name"), true, ""), nil }})
	statemod.Register(&statemod.Function{Name: "at.mod_watch", Params: []statemod.Param{statemod.Req("name")}, Kwargs: true,
		Doc: "Queue the job of an at.watch state whose watched states changed.", Run: atModWatch})
}

// atMap is an at.* return as a map (an empty one for anything else).
func atMap(v any) *value.Map {
	if m, ok := v.(*value.Map); ok {
		return m
	}
	return value.NewMap(0)
}

func atJobs(m *value.Map) *value.List {
	if l, ok := getv(m, "jobs").(*value.List); ok {
		return l
	}
	return value.NewList()
}

func atPresent(c *statemod.Call) (*value.Map, error) {
	ret := statemod.Ret(c.Get("name"), true, "")
	job := c.Get("job")
	if !value.Truthy(job) {
		job = c.Get("name")
	}
	timespec, tag, user := c.Get("timespec"), c.Get("tag"), c.Get("user")
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", fmt.Sprintf("job %s added and will run on %s", value.Str(job), value.Str(timespec)))
		return ret, nil
	}
	if c.Bool("unique_tag") {
		if !value.Truthy(tag) {
			ret.Set("result", false)
			ret.Set("comment", "no tag provided and unique_tag is set to True")
			return ret, nil
		}
		res, err := c.Salt("at.jobcheck", nil, value.MapOf("tag", tag))
		if err != nil {
			return nil, err
		}
		if atJobs(atMap(res)).Len() > 0 {
			ret.Set("comment", fmt.Sprintf("atleast one job with tag %s exists.", value.Str(tag)))
			return ret, nil
		}
	}
	kw := value.MapOf("tag", tag)
	if value.Truthy(user) {
		info, err := c.Salt("user.info", []any{user}, nil)
		if err != nil {
			return nil, err
		}
		if !value.Truthy(info) {
			ret.Set("result", false)
			ret.Set("comment", fmt.Sprintf("user %s does not exists", value.Str(user)))
			return ret, nil
		}
		ret.Set("comment", fmt.Sprintf("job %s added and will run as %s on %s", value.Str(job), value.Str(user), value.Str(timespec)))
		kw.Set("runas", user)
	} else {
		ret.Set("comment", fmt.Sprintf("job %s added and will run on %s", value.Str(job), value.Str(timespec)))
	}
	out, err := c.Salt("at.at", []any{timespec, job}, kw)
	if err != nil {
		return nil, err
	}
	res := atMap(out)
	if jobs := atJobs(res); jobs.Len() > 0 {
		ret.Set("changes", jobs.Items[0])
	}
	if e, ok := res.Get("error"); ok {
		ret.Set("result", false)
		ret.Set("comment", e)
	}
	return ret, nil
}

func atAbsent(c *statemod.Call) (*value.Map, error) {
	name := c.Get("name")
	ret := statemod.Ret(name, true, "")
	kwargs := c.ExtraKwargs()
	if kwargs.Has("limit") {
		ret.Set("result", false)
		ret.Set("comment", "limit parameter not supported "+value.Str(name))
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "removed ? job(s)")
		return ret, nil
	}
	if jobid := c.Get("jobid"); value.Truthy(jobid) {
		res, err := c.Salt("at.atq", []any{jobid}, nil)
		if err != nil {
			return nil, err
		}
		jobs := atJobs(atMap(res))
		switch jobs.Len() {
		case 0:
			ret.Set("comment", fmt.Sprintf("job with id %s not present", value.Str(jobid)))
			return ret, nil
		case 1:
			if value.Truthy(getv(atMap(jobs.Items[0]), "job")) {
				out, err := c.Salt("at.atrm", []any{jobid}, nil)
				if err != nil {
					return nil, err
				}
				removed := atRemoved(out)
				// Salt looks for jobid itself among the removed job numbers,
				// which are strings: an integer jobid reads as a failure.
				ok := false
				for _, r := range removed.Items {
					ok = ok || value.Equal(r, jobid)
				}
				ret.Set("result", ok)
				if ok {
					ret.Set("comment", fmt.Sprintf("job with id %s was removed", value.Str(jobid)))
				} else {
					ret.Set("comment", fmt.Sprintf("failed to remove job with id %s", value.Str(jobid)))
				}
				ret.Set("changes", value.MapOf("removed", removed))
				return ret, nil
			}
		default:
			ret.Set("result", false)
			ret.Set("comment", fmt.Sprintf("more than one job was return for job with id %s", value.Str(jobid)))
			return ret, nil
		}
	}
	var args []any
	if kwargs.Len() > 0 {
		res, err := c.Salt("at.jobcheck", nil, kwargs)
		if err != nil {
			return nil, err
		}
		for _, j := range atJobs(atMap(res)).Items {
			args = append(args, value.Str(getv(atMap(j), "job")))
		}
	} else {
		args = []any{"all"}
	}
	out, err := c.Salt("at.atrm", args, nil)
	if err != nil {
		return nil, err
	}
	removed := atRemoved(out)
	if removed.Len() > 0 {
		ret.Set("changes", value.MapOf("removed", removed))
	}
	ret.Set("comment", fmt.Sprintf("removed %d job(s)", removed.Len()))
	return ret, nil
}

// atRemoved is at.atrm's jobs.removed list.
func atRemoved(out any) *value.List {
	if l, ok := getv(atMap(getv(atMap(out), "jobs")), "removed").(*value.List); ok {
		return l
	}
	return value.NewList()
}

func atModWatch(c *statemod.Call) (*value.Map, error) {
	if c.Str("sfun") != "watch" {
		return value.MapOf("name", c.Get("name"), "changes", value.NewMap(0), "result", false, "comment", ""), nil
	}
	nc, err := rebind(c, "at.present")
	if err != nil {
		return nil, err
	}
	return atPresent(nc)
}
