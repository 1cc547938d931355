package runners

// jobs.go is salt/runners/jobs.py over the master's job store (the
// JetStream job and return buckets, brine's job cache).

import (
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"brine/internal/execmod"
	"brine/internal/fleet/proto"
	"brine/internal/match"
	"brine/internal/value"
)

func init() {
	Register("jobs.list_jobs", jobsListJobs, "List the jobs the master keeps; search_function, search_target (globs, comma-separated), start_time and end_time (dates) filter them, search_metadata matches the jobs' metadata.")
	Register("jobs.lookup_jid", jobsLookupJID, "Return the returns of job jid by minion; missing=True adds the targeted minions that did not return.")
	Register("jobs.list_job", jobsListJob, "Return the record of job jid (function, arguments, target, user, minions, start time) with its returns under Result.")
	Register("jobs.print_job", jobsPrintJob, "Return the record of job jid and its returns, keyed by the jid.")
	Register("jobs.exit_success", jobsExitSuccess, "Return, per targeted minion of job jid, whether it returned a true value.")
	Register("jobs.last_run", jobsLastRun, "Return the record of the most recent job (optionally of function and target), as print_job does; False when there is none.")
	Register("jobs.active", jobsActive, "Ask every minion which jobs it is running and return them by jid, with the minions running them and those that returned already.")
}

// startTimeLayout is Salt's jid_to_time format.
const startTimeLayout = "2006, Jan 02 15:04:05.000000"

// jobArguments is the job's argument list as Salt's job load keeps it:
// the positional arguments, then the keyword arguments as one mapping
// marked __kwarg__ (condition_input).
func jobArguments(job proto.Job) *value.List {
	l := value.NewList(job.Arg.List()...)
	if kw := job.Kwarg.Map(); kw.Len() > 0 {
		m := value.MapOf("__kwarg__", true)
		kw.Range(func(k, v any) bool {
			m.Set(k, v)
			return true
		})
		l.Append(m)
	}
	return l
}

// formatJob is Salt's _format_jid_instance; minions adds the targeted
// minions (get_load's Minions).
func formatJob(job proto.Job, minions bool) *value.Map {
	user := job.User
	if user == "" {
		user = "root"
	}
	m := value.MapOf(
		"Function", job.Fun,
		"Arguments", jobArguments(job),
		"Target", job.Tgt,
		"Target-type", job.TgtType,
		"User", user,
	)
	if minions {
		m.Set("Minions", strList(job.Minions))
	}
	t, _ := proto.JIDTime(job.JID)
	m.Set("StartTime", t.Format(startTimeLayout))
	return m
}

// noJob is Salt's record of a jid the job cache does not know.
func noJob(jid string) *value.Map {
	m := value.MapOf("Error", "Cannot contact returner or no job with this jid")
	if t, err := proto.JIDTime(jid); err == nil {
		m.Set("StartTime", t.Format(startTimeLayout))
	}
	return m
}

// job reads job jid; found is false when the store does not have it.
func (c *Context) job(jid string) (job proto.Job, found bool, err error) {
	conn, err := c.Client()
	if err != nil {
		return job, false, err
	}
	if !proto.ValidJID(jid) {
		return job, false, nil
	}
	job, err = conn.Job(c.Ctx, jid)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return job, false, nil
	}
	return job, err == nil, err
}

// results is Salt's get_jid: {minion: {"return": ..., "out": ...}} in
// minion id order.
func (c *Context) results(jid string) (*value.Map, error) {
	conn, err := c.Client()
	if err != nil {
		return nil, err
	}
	out := value.NewMap(0)
	if !proto.ValidJID(jid) {
		return out, nil
	}
	got, err := conn.Returns(c.Ctx, jid, nil, nil)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(got))
	for id := range got {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		r := got[id]
		m := value.MapOf("return", r.Return.V)
		if r.Out != "" {
			m.Set("out", r.Out)
		}
		out.Set(id, m)
	}
	return out, nil
}

// listJob is Salt's list_job.
func (c *Context) listJob(jid string) (*value.Map, error) {
	ret := value.MapOf("jid", jid)
	job, found, err := c.job(jid)
	if err != nil {
		return nil, err
	}
	if found {
		ret.Update(formatJob(job, true))
	} else {
		ret.Update(noJob(jid))
	}
	res, err := c.results(jid)
	if err != nil {
		return nil, err
	}
	ret.Set("Result", res)
	return ret, nil
}

func jidArg(name string, args []any, kwargs *value.Map, more ...execmod.Param) ([]any, error) {
	params := append([]execmod.Param{execmod.Req("jid"), execmod.Opt("ext_source", nil)}, more...)
	v, _, err := execmod.Bind(name, args, kwargs, params...)
	if err != nil {
		return nil, err
	}
	v[0] = execmod.String(v[0])
	return v, nil
}

func jobsListJob(c *Context, args []any, kwargs *value.Map) (any, error) {
	v, err := jidArg("list_job", args, kwargs, execmod.Opt("display_progress", false))
	if err != nil {
		return nil, err
	}
	return c.listJob(v[0].(string))
}

func jobsLookupJID(c *Context, args []any, kwargs *value.Map) (any, error) {
	v, err := jidArg("lookup_jid", args, kwargs, execmod.Opt("returned", true), execmod.Opt("missing", false), execmod.Opt("display_progress", false))
	if err != nil {
		return nil, err
	}
	data, err := c.listJob(v[0].(string))
	if err != nil {
		return nil, err
	}
	rv, _ := data.Get("Result")
	returns := rv.(*value.Map)
	ret := value.NewMap(returns.Len())
	// The first return's outputter is the outputter of all.
	outputter := ""
	if returns.Len() > 0 {
		_, first := returns.At(0)
		outputter = execmod.String(mapGet(first.(*value.Map), "out"))
	}
	returns.Range(func(id, r any) bool {
		rm := r.(*value.Map)
		if value.Truthy(v[2]) {
			rv, _ := rm.Get("return")
			ret.Set(id, rv)
		}
		return true
	})
	if value.Truthy(v[3]) {
		if mv, ok := data.Get("Minions"); ok {
			for _, id := range mv.(*value.List).Items {
				if !returns.Has(id) {
					ret.Set(id, "Minion did not return")
				}
			}
		}
	}
	if outputter != "" {
		return value.MapOf("outputter", outputter, "data", ret), nil
	}
	return ret, nil
}

func jobsPrintJob(c *Context, args []any, kwargs *value.Map) (any, error) {
	v, err := jidArg("print_job", args, kwargs)
	if err != nil {
		return nil, err
	}
	return c.printJob(v[0].(string))
}

// printJob is Salt's print_job: the record and its returns under the jid.
func (c *Context) printJob(jid string) (*value.Map, error) {
	job, found, err := c.job(jid)
	if err != nil {
		return nil, err
	}
	rec := noJob(jid)
	if found {
		rec = formatJob(job, true)
	}
	res, err := c.results(jid)
	if err != nil {
		return nil, err
	}
	rec.Set("Result", res)
	return value.MapOf(jid, rec), nil
}

func jobsExitSuccess(c *Context, args []any, kwargs *value.Map) (any, error) {
	v, err := jidArg("exit_success", args, kwargs)
	if err != nil {
		return nil, err
	}
	data, err := c.listJob(v[0].(string))
	if err != nil {
		return nil, err
	}
	rv, _ := data.Get("Result")
	result := rv.(*value.Map)
	ret := value.NewMap(0)
	if mv, ok := data.Get("Minions"); ok {
		for _, id := range mv.(*value.List).Items {
			r, _ := result.Get(id)
			rm, _ := r.(*value.Map)
			ok := false
			if rm != nil {
				x, _ := rm.Get("return")
				ok = value.Truthy(x)
			}
			ret.Set(id, ok)
		}
	}
	result.Range(func(id, r any) bool {
		x, _ := r.(*value.Map).Get("return")
		if value.Truthy(x) {
			ret.Set(id, true)
		}
		return true
	})
	return ret, nil
}

// jobFilter is list_jobs' search arguments.
type jobFilter struct {
	metadata           any
	function, target   any
	startTime, endTime any
}

// splitInput is salt.utils.args.split_input: a list as is, text split on
// commas, each item stripped.
func splitInput(v any) []string {
	var out []string
	switch x := v.(type) {
	case *value.List:
		for _, e := range x.Items {
			out = append(out, strings.TrimSpace(execmod.String(e)))
		}
	default:
		for _, e := range strings.Split(execmod.String(x), ",") {
			out = append(out, strings.TrimSpace(e))
		}
	}
	return out
}

// matches reports whether the job record rec passes the filter, as
// list_jobs tests each one.
func (f jobFilter) matches(rec *value.Map) (bool, error) {
	if value.Truthy(f.metadata) {
		// brine's jobs carry no metadata: Salt keeps only jobs whose
		// Metadata matches, so none.
		md, ok := rec.Get("Metadata")
		if !ok {
			return false, nil
		}
		want, isMap := f.metadata.(*value.Map)
		if !isMap {
			return true, nil
		}
		hit := false
		want.Range(func(k, v any) bool {
			if got, ok := md.(*value.Map).Get(k); ok && value.Equal(got, v) {
				hit = true
			}
			return true
		})
		if !hit {
			return false, nil
		}
	}
	globMatch := func(have string, pats any) bool {
		for _, p := range splitInput(pats) {
			if match.Fnmatch(have, p) {
				return true
			}
		}
		return false
	}
	if value.Truthy(f.target) {
		t, _ := rec.Get("Target")
		var targets []string
		if l, ok := t.(*value.List); ok {
			for _, e := range l.Items {
				targets = append(targets, execmod.String(e))
			}
		} else {
			targets = []string{execmod.String(t)}
		}
		hit := false
		for _, t := range targets {
			hit = hit || globMatch(t, f.target)
		}
		if !hit {
			return false, nil
		}
	}
	if value.Truthy(f.function) {
		fn, _ := rec.Get("Function")
		if !globMatch(execmod.String(fn), f.function) {
			return false, nil
		}
	}
	st, _ := rec.Get("StartTime")
	start, _ := time.Parse(startTimeLayout, execmod.String(st))
	if value.Truthy(f.startTime) {
		t, err := parseTime(execmod.String(f.startTime))
		if err != nil {
			return false, err
		}
		if start.Before(t) {
			return false, nil
		}
	}
	if value.Truthy(f.endTime) {
		t, err := parseTime(execmod.String(f.endTime))
		if err != nil {
			return false, err
		}
		if start.After(t) {
			return false, nil
		}
	}
	return true, nil
}

// timeLayouts are the date forms start_time and end_time accept (Salt
// parses them with dateutil): Salt's own StartTime form, ISO 8601 and
// the usual variants.
var timeLayouts = []string{
	startTimeLayout, "2006, Jan 02 15:04:05", "2006, Jan 2 15:04:05",
	time.RFC3339Nano, "2006-01-02T15:04:05.999999", "2006-01-02T15:04:05", "2006-01-02 15:04:05.999999",
	"2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02", "Jan 2 2006 15:04:05", "Jan 2 2006",
	"2 Jan 2006 15:04:05", "2 Jan 2006", "2006/01/02 15:04:05", "2006/01/02",
}

// parseTime reads a date; times are UTC, as job ids are.
func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, &execmod.InvocationError{Msg: "Unknown string format: " + s}
}

// listJobs is list_jobs over the store: every job record, oldest first.
func (c *Context) listJobs(f jobFilter) (*value.Map, error) {
	conn, err := c.Client()
	if err != nil {
		return nil, err
	}
	jobs, err := conn.Jobs(c.Ctx)
	if err != nil {
		return nil, err
	}
	out := value.NewMap(0)
	for _, j := range jobs {
		rec := formatJob(j, false)
		ok, err := f.matches(rec)
		if err != nil {
			return nil, err
		}
		if ok {
			out.Set(j.JID, rec)
		}
	}
	return out, nil
}

func jobsListJobs(c *Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_jobs", args, kwargs,
		execmod.Opt("ext_source", nil), execmod.Opt("outputter", nil), execmod.Opt("search_metadata", nil),
		execmod.Opt("search_function", nil), execmod.Opt("search_target", nil),
		execmod.Opt("start_time", nil), execmod.Opt("end_time", nil), execmod.Opt("display_progress", false))
	if err != nil {
		return nil, err
	}
	out, err := c.listJobs(jobFilter{metadata: v[2], function: v[3], target: v[4], startTime: v[5], endTime: v[6]})
	if err != nil {
		return nil, err
	}
	if value.Truthy(v[1]) {
		return value.MapOf("outputter", v[1], "data", out), nil
	}
	return out, nil
}

func jobsLastRun(c *Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("last_run", args, kwargs,
		execmod.Opt("ext_source", nil), execmod.Opt("outputter", nil), execmod.Opt("metadata", nil),
		execmod.Opt("function", nil), execmod.Opt("target", nil), execmod.Opt("display_progress", false))
	if err != nil {
		return nil, err
	}
	if v[2] != nil && value.Truthy(v[2]) {
		if _, ok := v[2].(*value.Map); !ok {
			return false, nil
		}
	}
	all, err := c.listJobs(jobFilter{metadata: v[2], function: v[3], target: v[4]})
	if err != nil {
		return nil, err
	}
	if all.Len() == 0 {
		return false, nil
	}
	jids := make([]string, 0, all.Len())
	all.Range(func(k, _ any) bool {
		jids = append(jids, k.(string))
		return true
	})
	sort.Strings(jids)
	return c.printJob(jids[len(jids)-1])
}

func jobsActive(c *Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("active", args, kwargs, execmod.Opt("display_progress", false)); err != nil {
		return nil, err
	}
	res, err := c.cmd(cmdSpec{tgt: "*", fun: "saltutil.running"})
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(0)
	res.Range(func(id, md any) bool {
		r, _ := md.(*value.Map).Get("ret")
		l, ok := r.(*value.List)
		if !ok {
			return true
		}
		for _, j := range l.Items {
			jm, ok := j.(*value.Map)
			if !ok {
				continue
			}
			jid := execmod.String(mapGet(jm, "jid"))
			pid := mapGet(jm, "pid")
			if cur, ok := ret.Get(jid); ok {
				run, _ := cur.(*value.Map).Get("Running")
				run.(*value.List).Append(value.MapOf(id, pid))
				continue
			}
			rec := formatJob(proto.Job{
				JID: jid, Fun: execmod.String(mapGet(jm, "fun")),
				Arg: proto.ValueJSON{V: mapGet(jm, "arg")}, Tgt: execmod.String(mapGet(jm, "tgt")),
				TgtType: execmod.String(mapGet(jm, "tgt_type")), User: execmod.String(mapGet(jm, "user")),
			}, false)
			rec.Set("Running", value.NewList(value.MapOf(id, pid)))
			rec.Set("Returned", value.NewList())
			ret.Set(jid, rec)
		}
		return true
	})
	var err2 error
	ret.Range(func(jid, rec any) bool {
		rs, err := c.results(jid.(string))
		if err != nil {
			err2 = err
			return false
		}
		rl, _ := rec.(*value.Map).Get("Returned")
		rs.Range(func(id, _ any) bool {
			rl.(*value.List).Append(id)
			return true
		})
		return true
	})
	return ret, err2
}

func mapGet(m *value.Map, k string) any {
	v, _ := m.Get(k)
	return v
}
