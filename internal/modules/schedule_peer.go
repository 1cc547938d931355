package modules

// schedule_peer.go is schedule.copy, schedule.move and schedule.job_status
// of salt/modules/schedule.py. copy and move publish schedule.add to
// other minions with publish.publish (so the master's peer option must
// allow this minion schedule.add); move then deletes the job here.

import (
	"fmt"
	"time"

	"brine/internal/execmod"
	"brine/internal/pyops"
	"brine/internal/value"
)

func init() {
	execmod.Register("schedule.copy", func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		return scheduleTransfer(ctx, "copy", args, kwargs)
	}, "Copy a scheduled job to the minions target selects (through publish.publish of schedule.add): schedule.copy NAME TARGET [test=False].")
	execmod.Register("schedule.move", func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		return scheduleTransfer(ctx, "move", args, kwargs)
	}, "Move a scheduled job to the minions target selects (schedule.copy, then schedule.delete here): schedule.move NAME TARGET [test=False].")
	execmod.Register("schedule.job_status", scheduleJobStatus,
		"Show a job as the running scheduler holds it, times formatted with time_fmt: schedule.job_status NAME "+
			"[time_fmt=%Y-%m-%dT%H:%M:%S]. None when no minion daemon runs the schedule.")
}

// scheduleTransfer is Salt's copy and move (op).
func scheduleTransfer(ctx *execmod.Context, op string, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind(op, args, kwargsOf(kwargs), execmod.Req("name"), execmod.Req("target"))
	if err != nil {
		return nil, err
	}
	name := execmod.String(v[0])
	ret := value.MapOf("comment", value.NewList(), "result", true)
	if !value.Truthy(v[0]) {
		ret.Set("comment", "Job name is required.")
		ret.Set("result", false)
	}
	verb := map[string]string{"copy": "copied", "move": "moved"}[op]
	if t, ok := rest.Get("test"); ok && value.Truthy(t) {
		ret.Set("comment", fmt.Sprintf("Job: %s would be %s from schedule.", name, verb))
		return ret, nil
	}
	optsSched, _, err := listSchedule(ctx, true, true, "opts", false)
	if err != nil {
		return nil, err
	}
	pillarSched, _, err := listSchedule(ctx, true, true, "pillar", false)
	if err != nil {
		return nil, err
	}
	data, ok := optsSched.Get(name)
	if !ok {
		data, ok = pillarSched.Get(name)
	}
	if !ok {
		ret.Set("comment", fmt.Sprintf("Job %s does not exist.", name))
		ret.Set("result", false)
		return ret, nil
	}
	opts := value.NewList()
	if dm, isMap := data.(*value.Map); isMap {
		dm.Range(func(k, val any) bool {
			opts.Append(value.Str(k) + "=" + value.Str(val))
			return true
		})
	}
	res, err := ctx.Call("publish.publish", []any{v[1], "schedule.add", opts}, nil)
	if err != nil {
		return nil, err
	}
	response, isMap := res.(*value.Map)
	if !isMap {
		return nil, pyException("TypeError", "string indices must be integers, not 'str'")
	}
	minions, failed := value.NewList(), value.NewList()
	response.Range(func(k, r any) bool {
		minions.Append(k)
		if !value.Truthy(r) {
			failed.Append(k)
		}
		return true
	})
	switch {
	case response.Len() == 0:
		ret.Set("comment", "no servers answered the published schedule.add command")
	case failed.Len() > 0:
		ret.Set("comment", "the following minions return False")
		ret.Set("minions", failed)
	default:
		if op == "move" {
			if _, err := scheduleDelete(ctx, []any{name}, value.NewMap(0)); err != nil {
				return nil, err
			}
			ret.Set("comment", fmt.Sprintf("Moved Job %s from schedule.", name))
		} else {
			ret.Set("comment", fmt.Sprintf("Copied Job %s from schedule to minion(s).", name))
		}
		ret.Set("result", true)
		ret.Set("minions", minions)
	}
	return ret, nil
}

// scheduleJobStatus is Salt's job_status: the job's data in the running
// scheduler (the options' jobs over pillar's) with its next fire time,
// or {} for a job it does not have; None without a minion daemon (Salt
// waits for an answer no one sends).
func scheduleJobStatus(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("job_status", args, kwargsOf(kwargs), execmod.Req("name"), execmod.Opt("time_fmt", "%Y-%m-%dT%H:%M:%S"))
	if err != nil {
		return nil, err
	}
	sched := daemonSchedule(ctx, "")
	if sched == nil {
		return nil, nil
	}
	name, tf := execmod.String(v[0]), execmod.String(v[1])
	out := value.NewMap(0)
	data, _ := sched.Get(name)
	dm, ok := data.(*value.Map)
	if !ok {
		return out, nil
	}
	out = plainCopy(dm).(*value.Map)
	if !out.Has("name") {
		out.Set("name", name)
	}
	if js, ok := schedStore(ctx).ReadState().Jobs[name]; ok && !js.NextFireTime.IsZero() {
		out.Set("_next_fire_time", pyops.Strftime(js.NextFireTime.In(time.Local), tf))
	}
	return out, nil
}
