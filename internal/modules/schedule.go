package modules

// schedule.go is salt/modules/schedule.py: managing the minion's
// schedule. Salt's functions send manage_schedule events to the minion
// daemon and wait for its answer; brine's change the schedule the daemon
// runs through internal/schedule's Store (files under cachedir/schedule,
// under lock), which the daemon reads at every turn of its loop. As in
// Salt, without a running minion daemon the functions change nothing
// (except with offline=True, which edits _schedule.conf directly).

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"brine/internal/execmod"
	"brine/internal/pyops"
	"brine/internal/schedule"
	"brine/internal/value"
	"brine/internal/yamlload"
)

func init() {
	for _, f := range []struct {
		name string
		fn   execmod.Func
		doc  string
	}{
		{"schedule.list", scheduleList, "List the jobs scheduled on the minion as YAML: schedule.list [show_all=False] [show_disabled=True] [where=opts|pillar] [return_yaml=True] [offline=False]."},
		{"schedule.is_enabled", scheduleIsEnabled, "Whether the scheduler is enabled, or with NAME that job's settings."},
		{"schedule.purge", schedulePurge, "Delete every job (not the __ ones) from the schedule: schedule.purge [persist=True] [offline=False]."},
		{"schedule.delete", scheduleDelete, "Delete a job from the schedule: schedule.delete NAME [persist=True] [offline=False]."},
		{"schedule.build_schedule_item", scheduleBuildItem, "Build a job's settings from keyword arguments (function=, seconds=, when=, cron=, job_args=, job_kwargs=, ...)."},
		{"schedule.add", scheduleAdd, "Add a job to the schedule: schedule.add NAME function=FUN [seconds=N|minutes=|hours=|days=|when=|cron=|once=] [job_args=[...]] [job_kwargs={...}] [persist=True] [offline=False]."},
		{"schedule.modify", scheduleModify, "Change a job's settings: schedule.modify NAME [function=FUN] [seconds=N ...]."},
		{"schedule.run_job", scheduleRunJob, "Run a scheduled job now: schedule.run_job NAME [force=False]."},
		{"schedule.enable_job", scheduleEnableJob, "Enable a job: schedule.enable_job NAME [persist=True]."},
		{"schedule.disable_job", scheduleDisableJob, "Disable a job: schedule.disable_job NAME [persist=True]."},
		{"schedule.save", scheduleSave, "Save the schedule (not the pillar's jobs) to <config dir>/minion.d/_schedule.conf."},
		{"schedule.enable", scheduleEnable, "Enable the scheduler: schedule.enable [persist=True]."},
		{"schedule.disable", scheduleDisable, "Disable the scheduler: schedule.disable [persist=True]."},
		{"schedule.reload", scheduleReload, "Reload the schedule from pillar and from schedule.conf."},
		{"schedule.postpone_job", schedulePostponeJob, "Postpone a job's run at CURRENT_TIME to NEW_TIME: schedule.postpone_job NAME CURRENT_TIME NEW_TIME [time_fmt=%Y-%m-%dT%H:%M:%S]."},
		{"schedule.skip_job", scheduleSkipJob, "Skip a job's run at CURRENT_TIME: schedule.skip_job NAME CURRENT_TIME [time_fmt=%Y-%m-%dT%H:%M:%S]."},
		{"schedule.show_next_fire_time", scheduleShowNextFireTime, "Show when a job runs next: schedule.show_next_fire_time NAME."},
	} {
		execmod.Register(f.name, f.fn, f.doc)
	}
}

// scheduleConf are the job settings schedule.list shows (Salt's
// SCHEDULE_CONF).
var scheduleConf = []string{
	"name", "maxrunning", "function", "splay", "range", "when", "once", "once_fmt", "returner",
	"jid_include", "args", "kwargs", "_seconds", "seconds", "minutes", "hours", "days", "enabled",
	"return_job", "metadata", "cron", "until", "after", "return_config", "return_kwargs",
	"run_on_start", "skip_during_range", "run_after_skip_range",
}

func schedStore(ctx *execmod.Context) schedule.Store { return schedule.Store{Opts: ctx.Opts} }

// kw reads an optional keyword argument.
func kw(kwargs *value.Map, k string, def any) any {
	if v, ok := kwargs.Get(k); ok {
		return v
	}
	return def
}

// kwargsOf drops Salt's __pub_* publication data.
func kwargsOf(kwargs *value.Map) *value.Map {
	out := value.NewMap(kwargs.Len())
	kwargs.Range(func(k, v any) bool {
		if !strings.HasPrefix(value.Str(k), "__") {
			out.Set(k, v)
		}
		return true
	})
	return out
}

// nameArg takes the job name, the first positional or name=.
func nameArg(fun string, args []any, kwargs *value.Map) (string, []any, *value.Map, error) {
	kwargs = kwargsOf(kwargs)
	if len(args) > 0 {
		return execmod.String(args[0]), args[1:], kwargs, nil
	}
	if n, ok := kwargs.Delete("name"); ok {
		return execmod.String(n), nil, kwargs, nil
	}
	return "", nil, nil, &execmod.InvocationError{Msg: fmt.Sprintf("%s() missing 1 required positional argument: 'name'", fun)}
}

// daemonSchedule returns the schedule the daemon runs (options' jobs
// over pillar's, as Salt's _get_schedule), or nil when no daemon runs:
// Salt's event would find no listener.
func daemonSchedule(ctx *execmod.Context, where string) *value.Map {
	st := schedStore(ctx)
	if !st.DaemonRunning() {
		return nil
	}
	cur, _, err := st.Current()
	if err != nil {
		return nil
	}
	var pil *value.Map
	if ctx.Pillar != nil {
		if p, ok := ctx.Pillar.Get("schedule"); ok {
			pil, _ = p.(*value.Map)
		}
	}
	switch where {
	case "pillar":
		return schedule.Merged(nil, pil)
	case "opts":
		return schedule.Merged(cur, nil)
	}
	return schedule.Merged(cur, pil)
}

// plainCopy deep-copies m into plain (sorted when dumped) mappings.
func plainCopy(v any) any {
	switch x := v.(type) {
	case *value.Map:
		out := value.NewMap(x.Len())
		x.Range(func(k, vv any) bool {
			out.Set(k, plainCopy(vv))
			return true
		})
		return out
	case *value.List:
		l := value.NewList()
		for _, e := range x.Items {
			l.Append(plainCopy(e))
		}
		return l
	}
	return v
}

// listSchedule is list_ with return_yaml=False.
func listSchedule(ctx *execmod.Context, showAll, showDisabled bool, where string, offline bool) (sched, saved *value.Map, err error) {
	st := schedStore(ctx)
	if offline {
		s, err := st.Saved()
		if err != nil {
			return nil, nil, err
		}
		sched = plainCopy(s).(*value.Map)
		saved = plainCopy(s).(*value.Map)
	} else {
		sched = value.NewMap(0)
		if d := daemonSchedule(ctx, where); d != nil {
			sched = plainCopy(d).(*value.Map)
		}
		if saved, err = st.Saved(); err != nil {
			return nil, nil, err
		}
	}
	for _, k := range append([]any(nil), sched.Keys()...) {
		job := value.Str(k)
		if job == "enabled" || job == "skip_function" || job == "skip_during_range" {
			continue
		}
		v, _ := sched.Get(k)
		data, ok := v.(*value.Map)
		if !ok {
			continue
		}
		if strings.HasPrefix(job, "__") && !showAll {
			sched.Delete(k)
			continue
		}
		if !data.Has("enabled") {
			data.Set("enabled", true)
		}
		for _, ik := range append([]any(nil), data.Keys()...) {
			item := value.Str(ik)
			iv, _ := data.Get(ik)
			switch {
			case !slices.Contains(scheduleConf, item), iv == nil:
				data.Delete(ik)
			case iv == "true":
				data.Set(ik, true)
			case iv == "false":
				data.Set(ik, false)
			}
		}
		if en, _ := data.Get("enabled"); !showDisabled && !value.Truthy(en) {
			sched.Delete(k)
			continue
		}
		data.Delete("_seconds")
	}
	return sched, saved, nil
}

func scheduleList(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("schedule.list", args, kwargsOf(kwargs), execmod.Opt("show_all", false), execmod.Opt("show_disabled", true),
		execmod.Opt("where", nil), execmod.Opt("return_yaml", true), execmod.Opt("offline", false))
	if err != nil {
		return nil, err
	}
	where := ""
	if v[2] != nil {
		where = execmod.String(v[2])
	}
	sched, saved, err := listSchedule(ctx, value.Truthy(v[0]), value.Truthy(v[1]), where, value.Truthy(v[4]))
	if err != nil {
		return nil, err
	}
	if !value.Truthy(v[3]) {
		return sched, nil
	}
	sched.Range(func(k, val any) bool {
		if m, ok := val.(*value.Map); ok {
			m.Set("saved", saved.Has(k))
		}
		return true
	})
	return yamlload.Dump(value.MapOf("schedule", sched), yamlload.DumpOptions{AllowUnicode: true, SortKeys: true, DefaultFlowStyle: yamlload.FlowStyle(false)})
}

func scheduleIsEnabled(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("is_enabled", args, kwargsOf(kwargs), execmod.Opt("name", nil))
	if err != nil {
		return nil, err
	}
	sched, _, err := listSchedule(ctx, false, true, "", false)
	if err != nil {
		return nil, err
	}
	if !value.Truthy(v[0]) {
		if e, ok := sched.Get("enabled"); ok {
			return e, nil
		}
		return true, nil
	}
	if j, ok := sched.Get(execmod.String(v[0])); ok {
		return j, nil
	}
	return value.NewMap(0), nil
}

// result builds Salt's {"comment": ..., "result": ...} returns in order.
func result(kv ...any) *value.Map { return value.MapOf(kv...) }

func inSchedule(ctx *execmod.Context, where, name string) bool {
	s, _, err := listSchedule(ctx, true, true, where, false)
	return err == nil && s.Has(name)
}

func schedulePurge(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	kwargs = kwargsOf(kwargs)
	offline := value.Truthy(kw(kwargs, "offline", false))
	comments := value.NewList()
	changes := value.NewMap(0)
	ret := result("comment", comments, "changes", changes, "result", true)
	current, _, err := listSchedule(ctx, true, true, "", offline)
	if err != nil {
		return nil, err
	}
	persist := value.Truthy(kw(kwargs, "persist", true))
	st := schedStore(ctx)
	for _, k := range append([]any(nil), current.Keys()...) {
		name := value.Str(k)
		if name == "enabled" || strings.HasPrefix(name, "__") {
			continue
		}
		switch {
		case value.Truthy(kw(kwargs, "test", false)):
			comments.Append(fmt.Sprintf("Job: %s would be deleted from schedule.", name))
		case offline:
			current.Delete(k)
			comments.Append(fmt.Sprintf("Deleted job: %s from schedule.", name))
			changes.Set(name, "removed")
		default:
			if !st.DaemonRunning() {
				continue
			}
			if err := st.Update(persist, func(s *value.Map) error { s.Delete(name); return nil }); err != nil {
				return nil, err
			}
			if !inSchedule(ctx, "", name) {
				changes.Set(name, "removed")
				comments.Append(fmt.Sprintf("Deleted job: %s from schedule.", name))
			} else {
				comments.Append(fmt.Sprintf("Failed to delete job %s from schedule.", name))
			}
		}
	}
	if offline {
		if err := st.PersistRaw(current); err != nil {
			return nil, err
		}
	}
	return ret, nil
}

func scheduleDelete(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	name, _, kwargs, err := nameArg("delete", args, kwargs)
	if err != nil {
		return nil, err
	}
	changes := value.NewMap(0)
	ret := result("comment", fmt.Sprintf("Failed to delete job %s from schedule.", name), "result", false, "changes", changes)
	if name == "" {
		ret.Set("comment", "Job name is required.")
	}
	st := schedStore(ctx)
	switch {
	case value.Truthy(kw(kwargs, "test", false)):
		ret.Set("comment", fmt.Sprintf("Job: %s would be deleted from schedule.", name))
		ret.Set("result", true)
	case value.Truthy(kw(kwargs, "offline", false)):
		current, _, err := listSchedule(ctx, true, true, "opts", true)
		if err != nil {
			return nil, err
		}
		if !current.Has(name) {
			return nil, &execmod.CommandExecutionError{Msg: fmt.Sprintf("KeyError: '%s'", name)}
		}
		current.Delete(name)
		if err := st.PersistRaw(current); err != nil {
			return nil, err
		}
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("Deleted Job %s from schedule.", name))
		changes.Set(name, "removed")
	default:
		persist := value.Truthy(kw(kwargs, "persist", true))
		switch {
		case inSchedule(ctx, "opts", name):
		case inSchedule(ctx, "pillar", name):
			persist = false // the daemon cannot delete a pillar job
		default:
			ret.Set("comment", fmt.Sprintf("Job %s does not exist.", name))
			return ret, nil
		}
		if err := st.Update(persist, func(s *value.Map) error { s.Delete(name); return nil }); err != nil {
			return nil, err
		}
		if !inSchedule(ctx, "", name) {
			ret.Set("result", true)
			ret.Set("comment", fmt.Sprintf("Deleted Job %s from schedule.", name))
			changes.Set(name, "removed")
		} else {
			ret.Set("comment", fmt.Sprintf("Failed to delete job %s from schedule.", name))
		}
	}
	return ret, nil
}

var timeKeys = []string{"seconds", "minutes", "hours", "days"}

// buildItem is build_schedule_item: the job's settings from kwargs, or
// a failed result.
func buildItem(ctx *execmod.Context, name string, kwargs *value.Map) (*value.Map, *value.Map, error) {
	fail := func(msg string) (*value.Map, *value.Map, error) {
		return nil, result("comment", msg, "result", false), nil
	}
	if name == "" {
		return fail("Job name is required.")
	}
	item := value.NewMap(0)
	fn, ok := kwargs.Get("function")
	if !ok {
		return nil, nil, &execmod.CommandExecutionError{Msg: "KeyError: 'function'"}
	}
	item.Set("function", fn)
	for _, t := range timeKeys {
		if kwargs.Has(t) && (kwargs.Has("when") || kwargs.Has("cron")) {
			return fail(`Unable to use "seconds", "minutes", "hours", or "days" with "when" or "cron" options.`)
		}
	}
	if kwargs.Has("when") && kwargs.Has("cron") {
		return fail(`Unable to use "when" and "cron" options together.  Ignoring.`)
	}
	for _, t := range timeKeys {
		if v, ok := kwargs.Get(t); ok {
			item.Set(t, v)
		}
	}
	for _, k := range []string{"return_job", "metadata"} {
		if v, ok := kwargs.Get(k); ok {
			item.Set(k, v)
		}
	}
	if v, ok := kwargs.Get("job_args"); ok {
		if _, isList := v.(*value.List); !isList {
			return fail("job_args is not a list. please correct and try again.")
		}
		item.Set("args", v)
	}
	if v, ok := kwargs.Get("job_kwargs"); ok {
		if _, isMap := v.(*value.Map); !isMap {
			return fail("job_kwargs is not a dict. please correct and try again.")
		}
		item.Set("kwargs", v)
	}
	item.Set("maxrunning", kw(kwargs, "maxrunning", int64(1)))
	item.Set("name", kw(kwargs, "name", name))
	item.Set("enabled", kw(kwargs, "enabled", true))
	if v, ok := kwargs.Get("jid_include"); !ok || value.Truthy(v) {
		item.Set("jid_include", true)
	}
	if v, ok := kwargs.Get("splay"); ok {
		if m, isMap := v.(*value.Map); isMap {
			sp, _ := m.Get("start")
			ep, _ := m.Get("end")
			v = value.MapOf("start", sp, "end", ep)
		}
		item.Set("splay", v)
	}
	if w, ok := kwargs.Get("when"); ok {
		whens := []any{w}
		if l, isList := w.(*value.List); isList {
			whens = l.Items
		}
		for _, x := range whens {
			if _, err := schedule.ParseDate(value.Str(x), time.Now()); err != nil {
				return fail(fmt.Sprintf(`Schedule item %s for "when" in invalid.`, value.Str(x)))
			}
		}
	}
	for _, k := range []string{"range", "when", "once", "once_fmt", "cron", "returner", "after", "return_config", "return_kwargs", "until", "run_on_start", "skip_during_range"} {
		if v, ok := kwargs.Get(k); ok {
			item.Set(k, v)
		}
	}
	return item, nil, nil
}

func scheduleBuildItem(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	name, _, kwargs, err := nameArg("build_schedule_item", args, kwargs)
	if err != nil {
		return nil, err
	}
	item, failed, err := buildItem(ctx, name, kwargs)
	if err != nil {
		return nil, err
	}
	if failed != nil {
		return failed, nil
	}
	return item, nil
}

func mustGetMap(m *value.Map, k string) any { v, _ := m.Get(k); return v }

func scheduleAdd(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	name, _, kwargs, err := nameArg("add", args, kwargs)
	if err != nil {
		return nil, err
	}
	changes := value.NewMap(0)
	ret := result("comment", fmt.Sprintf("Failed to add job %s to schedule.", name), "result", false, "changes", changes)
	offline := value.Truthy(kw(kwargs, "offline", false))
	current, _, err := listSchedule(ctx, true, true, "", offline)
	if err != nil {
		return nil, err
	}
	if current.Has(name) {
		ret.Set("comment", fmt.Sprintf("Job %s already exists in schedule.", name))
		return ret, nil
	}
	if name == "" {
		ret.Set("comment", "Job name is required.")
	}
	for _, t := range timeKeys {
		if kwargs.Has(t) && (kwargs.Has("when") || kwargs.Has("cron")) {
			ret.Set("comment", `Error: Unable to use "seconds", "minutes", "hours", or "days" with "when" or "cron" options.`)
			return ret, nil
		}
	}
	if kwargs.Has("when") && kwargs.Has("cron") {
		ret.Set("comment", `Unable to use "when" and "cron" options together.  Ignoring.`)
		return ret, nil
	}
	persist := value.Truthy(kw(kwargs, "persist", true))
	item, failed, err := buildItem(ctx, name, kwargs)
	if err != nil || failed != nil {
		return failed, err
	}
	st := schedStore(ctx)
	switch {
	case value.Truthy(kw(kwargs, "test", false)):
		ret.Set("comment", fmt.Sprintf("Job: %s would be added to schedule.", name))
		ret.Set("result", true)
	case offline:
		current.Set(name, item)
		if err := st.PersistRaw(current); err != nil {
			return nil, err
		}
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("Added job: %s to schedule.", name))
		changes.Set(name, "added")
	default:
		if !st.DaemonRunning() {
			return ret, nil
		}
		if err := st.Update(persist, func(s *value.Map) error { s.Set(name, item); return nil }); err != nil {
			return nil, err
		}
		if inSchedule(ctx, "", name) {
			ret.Set("result", true)
			ret.Set("comment", fmt.Sprintf("Added job: %s to schedule.", name))
			changes.Set(name, "added")
		}
	}
	return ret, nil
}

func scheduleModify(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	name, _, kwargs, err := nameArg("modify", args, kwargs)
	if err != nil {
		return nil, err
	}
	changes := value.NewMap(0)
	ret := result("comment", "", "changes", changes, "result", true)
	for _, t := range timeKeys {
		if kwargs.Has(t) && (kwargs.Has("when") || kwargs.Has("cron")) {
			ret.Set("result", false)
			ret.Set("comment", `Error: Unable to use "seconds", "minutes", "hours", or "days" with "when" option.`)
			return ret, nil
		}
	}
	if kwargs.Has("when") && kwargs.Has("cron") {
		ret.Set("result", false)
		ret.Set("comment", `Unable to use "when" and "cron" options together.  Ignoring.`)
		return ret, nil
	}
	offline := value.Truthy(kw(kwargs, "offline", false))
	current, _, err := listSchedule(ctx, true, true, "", offline)
	if err != nil {
		return nil, err
	}
	cv, ok := current.Get(name)
	cur, isMap := cv.(*value.Map)
	if !ok || !isMap {
		ret.Set("comment", fmt.Sprintf("Job %s does not exist in schedule.", name))
		ret.Set("result", false)
		return ret, nil
	}
	if !kwargs.Has("function") {
		kwargs.Set("function", mustGetMap(cur, "function"))
	}
	if s, ok := cur.Delete("_seconds"); ok {
		cur.Set("seconds", s)
	}
	item, failed, err := buildItem(ctx, name, kwargs)
	if err != nil || failed != nil {
		return failed, err
	}
	item.Delete("test")
	if value.Equal(item, cur) {
		ret.Set("comment", fmt.Sprintf("Job %s in correct state", name))
		return ret, nil
	}
	changes.Set(name, value.MapOf("old", cur.Copy(), "new", item))
	st := schedStore(ctx)
	switch {
	case value.Truthy(kw(kwargs, "test", false)):
		ret.Set("comment", fmt.Sprintf("Job: %s would be modified in schedule.", name))
	case offline:
		cur.Update(item)
		if err := st.PersistRaw(current); err != nil {
			return nil, err
		}
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("Modified job: %s in schedule.", name))
	default:
		if !st.DaemonRunning() {
			ret.Set("comment", fmt.Sprintf("Failed to modify job %s in schedule.", name))
			ret.Set("result", false)
			return ret, nil
		}
		if inSchedule(ctx, "opts", name) {
			persist := value.Truthy(kw(kwargs, "persist", true))
			if err := st.Update(persist, func(s *value.Map) error { s.Set(name, item); return nil }); err != nil {
				return nil, err
			}
		} // a pillar job is left as it is, as Salt's daemon does
		ret.Set("comment", fmt.Sprintf("Modified job: %s in schedule.", name))
	}
	return ret, nil
}

func scheduleRunJob(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("run_job", args, kwargsOf(kwargs), execmod.Req("name"), execmod.Opt("force", false))
	if err != nil {
		return nil, err
	}
	name := execmod.String(v[0])
	ret := result("comment", value.NewList(), "result", true)
	if name == "" {
		ret.Set("comment", "Job name is required.")
		ret.Set("result", false)
	}
	sched, _, err := listSchedule(ctx, true, true, "", false)
	if err != nil {
		return nil, err
	}
	jv, ok := sched.Get(name)
	if !ok {
		ret.Set("comment", fmt.Sprintf("Job %s does not exist.", name))
		ret.Set("result", false)
		return ret, nil
	}
	data, _ := jv.(*value.Map)
	if en, has := data.Get("enabled"); has && !value.Truthy(en) && !value.Truthy(v[1]) {
		ret.Set("comment", fmt.Sprintf("Job %s is disabled.", name))
		return ret, nil
	}
	st := schedStore(ctx)
	if !st.DaemonRunning() || st.QueueRun(name) != nil {
		ret.Set("comment", fmt.Sprintf("Failed to run job %s on minion.", name))
		ret.Set("result", false)
		return ret, nil
	}
	ret.Set("comment", fmt.Sprintf("Scheduling Job %s on minion.", name))
	return ret, nil
}

// toggleJob is enable_job and disable_job.
func toggleJob(ctx *execmod.Context, fun string, args []any, kwargs *value.Map, enable bool) (any, error) {
	name, _, kwargs, err := nameArg(fun, args, kwargs)
	if err != nil {
		return nil, err
	}
	changes := value.NewMap(0)
	ret := result("comment", value.NewList(), "result", true, "changes", changes)
	if name == "" {
		ret.Set("comment", "Job name is required.")
		ret.Set("result", false)
	}
	verb, past := "disable", "Disabled"
	if enable {
		verb, past = "enable", "Enabled"
	}
	// Salt's enable_job looks at the test option, disable_job at test=.
	test := value.Truthy(kw(kwargs, "test", false))
	if enable {
		test = value.Truthy(mustOpt(ctx, "test"))
	}
	if test {
		ret.Set("comment", fmt.Sprintf("Job: %s would be %sd in schedule.", name, verb))
		return ret, nil
	}
	persist := value.Truthy(kw(kwargs, "persist", true))
	inOpts := inSchedule(ctx, "opts", name)
	if !inOpts && !inSchedule(ctx, "pillar", name) {
		ret.Set("comment", fmt.Sprintf("Job %s does not exist.", name))
		ret.Set("result", false)
		return ret, nil
	}
	st := schedStore(ctx)
	if inOpts {
		if err := st.Update(persist, func(s *value.Map) error {
			if j, ok := s.Get(name); ok {
				if jm, ok := j.(*value.Map); ok {
					jm.Set("enabled", enable)
				}
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	sched, _, err := listSchedule(ctx, true, true, "", false)
	if err != nil {
		return nil, err
	}
	jv, _ := sched.Get(name)
	data, _ := jv.(*value.Map)
	if data != nil && value.Truthy(kw(data, "enabled", true)) == enable {
		ret.Set("comment", fmt.Sprintf("%s Job %s in schedule.", past, name))
		changes.Set(name, strings.ToLower(past))
	} else {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Failed to %s job %s in schedule.", verb, name))
	}
	return ret, nil
}

func scheduleEnableJob(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return toggleJob(ctx, "enable_job", args, kwargs, true)
}

func scheduleDisableJob(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return toggleJob(ctx, "disable_job", args, kwargs, false)
}

func scheduleSave(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	kwargs = kwargsOf(kwargs)
	ret := result("comment", value.NewList(), "result", true)
	if value.Truthy(kw(kwargs, "test", false)) {
		ret.Set("comment", "Schedule would be saved.")
		return ret, nil
	}
	st := schedStore(ctx)
	if !st.DaemonRunning() {
		return ret, nil
	}
	if err := st.Update(true, func(*value.Map) error { return nil }); err != nil {
		ret.Set("result", false)
		ret.Set("comment", "Failed to save schedule.")
		return ret, nil
	}
	ret.Set("comment", "Schedule (non-pillar items) saved.")
	return ret, nil
}

// toggleSchedule is enable and disable.
func toggleSchedule(ctx *execmod.Context, kwargs *value.Map, enable bool) (any, error) {
	kwargs = kwargsOf(kwargs)
	changes := value.NewMap(0)
	ret := result("comment", value.NewList(), "changes", changes, "result", true)
	verb, past := "disable", "Disabled"
	if enable {
		verb, past = "enable", "Enabled"
	}
	if value.Truthy(kw(kwargs, "test", false)) {
		ret.Set("comment", fmt.Sprintf("Schedule would be %sd.", verb))
		return ret, nil
	}
	st := schedStore(ctx)
	if !st.DaemonRunning() {
		return ret, nil
	}
	persist := value.Truthy(kw(kwargs, "persist", true))
	if err := st.Update(persist, func(s *value.Map) error { s.Set("enabled", enable); return nil }); err != nil {
		return nil, err
	}
	sched := daemonSchedule(ctx, "")
	if e, ok := sched.Get("enabled"); ok && value.Truthy(e) == enable {
		ret.Set("comment", fmt.Sprintf("%s schedule on minion.", past))
		changes.Set("schedule", strings.ToLower(past))
	} else {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Failed to %s schedule on minion.", verb))
	}
	return ret, nil
}

func scheduleEnable(ctx *execmod.Context, _ []any, kwargs *value.Map) (any, error) {
	return toggleSchedule(ctx, kwargs, true)
}

func scheduleDisable(ctx *execmod.Context, _ []any, kwargs *value.Map) (any, error) {
	return toggleSchedule(ctx, kwargs, false)
}

func scheduleReload(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("schedule.reload", args, kwargsOf(kwargs)); err != nil {
		return nil, err
	}
	comments := value.NewList()
	ret := result("comment", comments, "result", true)
	st := schedStore(ctx)
	if ctx.Pillar != nil && ctx.Pillar.Has("schedule") {
		if r, ok := ctx.Service(pillarRefreshService).(pillarRefresher); ok && r.RefreshPillar() == nil {
			comments.Append("Reloaded schedule from pillar on minion.")
		} else {
			comments.Append("Failed to reload schedule from pillar on minion.")
			ret.Set("result", false)
		}
	}
	// Salt reads schedule.conf (not _schedule.conf) here.
	sfn := filepath.Join(filepath.Dir(st.ConfFile()), "schedule.conf")
	b, err := os.ReadFile(sfn)
	if err != nil {
		return ret, nil
	}
	v, lerr := yamlload.SafeLoad(b, sfn)
	if lerr != nil {
		comments.Append(fmt.Sprintf("Unable to read existing schedule file: %s", lerr))
	}
	m, _ := v.(*value.Map)
	sched, _ := mustGetMap(orEmptyMap(m), "schedule").(*value.Map)
	if m == nil || m.Len() == 0 || sched == nil || sched.Len() == 0 {
		comments.Append("Failed to reload schedule on minion.  Saved file is empty or invalid.")
		ret.Set("result", false)
		return ret, nil
	}
	if !st.DaemonRunning() {
		comments.Append("Failed to reload schedule on minion from schedule.conf.")
		ret.Set("result", false)
		return ret, nil
	}
	if err := st.Update(false, func(s *value.Map) error { s.Update(sched); return nil }); err != nil {
		return nil, err
	}
	comments.Append("Reloaded schedule on minion from schedule.conf.")
	return ret, nil
}

func orEmptyMap(m *value.Map) *value.Map {
	if m == nil {
		return value.NewMap(0)
	}
	return m
}

// explicitJob is postpone_job and skip_job: the times they add to a job
// (skip_explicit, and for postpone run_explicit).
func explicitJob(ctx *execmod.Context, fun string, args []any, kwargs *value.Map, postpone bool) (any, error) {
	params := []execmod.Param{execmod.Req("name"), execmod.Req("current_time")}
	if postpone {
		params = append(params, execmod.Req("new_time"))
	}
	kwargs = kwargsOf(kwargs)
	timeFmt := "%Y-%m-%dT%H:%M:%S"
	if f, ok := kwargs.Delete("time_fmt"); ok && value.Truthy(f) {
		timeFmt = value.Str(f)
	}
	v, _, err := execmod.Bind(fun, args, kwargs, params...)
	if err != nil {
		return nil, err
	}
	name, cur := execmod.String(v[0]), v[1]
	ret := result("comment", value.NewList(), "result", true)
	fail := func(msg string) (any, error) {
		ret.Set("comment", msg)
		ret.Set("result", false)
		return ret, nil
	}
	if name == "" {
		return fail("Job name is required.")
	}
	parse := func(x any) bool {
		s, ok := x.(string)
		if !ok {
			return false
		}
		_, err := schedule.Strptime(s, timeFmt, time.Local)
		return err == nil
	}
	if !value.Truthy(cur) {
		if postpone {
			return fail("Job current time is required.")
		}
		return fail("Job time is required.")
	}
	if !parse(cur) {
		return fail("Date string could not be parsed.")
	}
	var newTime any
	if postpone {
		newTime = v[2]
		if !value.Truthy(newTime) {
			return fail("Job new_time is required.")
		}
		if !parse(newTime) {
			return fail("Date string could not be parsed.")
		}
	}
	what, done := "skipped", "Added Skip Job %s in schedule."
	failed := "Failed to skip job %s in schedule."
	if postpone {
		what, done, failed = "postponed", "Postponed Job %s in schedule.", "Failed to postpone job %s in schedule."
	}
	if value.Truthy(mustOpt(ctx, "test")) {
		ret.Set("comment", fmt.Sprintf("Job: %s would be %s in schedule.", name, what))
		return ret, nil
	}
	inOpts := inSchedule(ctx, "opts", name)
	if !inOpts && !inSchedule(ctx, "pillar", name) {
		return fail(fmt.Sprintf("Job %s does not exist.", name))
	}
	st := schedStore(ctx)
	if inOpts {
		// Salt's daemon does not persist these.
		if err := st.Update(false, func(s *value.Map) error {
			j, _ := s.Get(name)
			jm, ok := j.(*value.Map)
			if !ok {
				return nil
			}
			add := func(key string, t any) {
				l, ok := mustGetMap(jm, key).(*value.List)
				if !ok {
					l = value.NewList()
					jm.Set(key, l)
				}
				l.Append(value.MapOf("time", t, "time_fmt", timeFmt))
			}
			add("skip_explicit", cur)
			if postpone {
				add("run_explicit", newTime)
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	d := daemonSchedule(ctx, "")
	jv, _ := orEmptyMap(d).Get(name)
	data, _ := jv.(*value.Map)
	if data != nil && value.Truthy(kw(data, "enabled", true)) {
		ret.Set("comment", fmt.Sprintf(done, name))
		return ret, nil
	}
	return fail(fmt.Sprintf(failed, name))
}

func schedulePostponeJob(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return explicitJob(ctx, "postpone_job", args, kwargs, true)
}

func scheduleSkipJob(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return explicitJob(ctx, "skip_job", args, kwargs, false)
}

func scheduleShowNextFireTime(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	name, _, _, err := nameArg("show_next_fire_time", args, kwargs)
	if err != nil {
		return nil, err
	}
	ret := result("result", true)
	if name == "" {
		ret.Set("comment", "Job name is required.")
		ret.Set("result", false)
	}
	st := schedStore(ctx)
	if !st.DaemonRunning() {
		ret.Set("comment", "next fire time not available.")
		return ret, nil
	}
	js, ok := st.ReadState().Jobs[name]
	if !ok || js.NextFireTime.IsZero() {
		ret.Set("next_fire_time", nil)
		return ret, nil
	}
	ret.Set("next_fire_time", pyops.Strftime(js.NextFireTime.In(time.Local), "%Y-%m-%dT%H:%M:%S"))
	return ret, nil
}
