// Package schedule is Salt's minion scheduler (salt/utils/schedule.py):
// the evaluation of a schedule (intervals, once, when, cron, splay,
// range, skip times, after/until, maxrunning, enabled, run_on_start) at a
// given time, and the store through which the minion daemon and the
// schedule.* execution functions share the schedule (store.go). It knows
// nothing of masters or processes: the daemon (internal/fleet/minion)
// runs the jobs Eval returns.
package schedule

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"time"

	"brine/internal/pyops"
	"brine/internal/value"
)

// Hidden are the schedule's global settings, not jobs.
var Hidden = []string{"enabled", "skip_function", "skip_during_range", "splay"}

func isHidden(name string) bool {
	for _, h := range Hidden {
		if h == name {
			return true
		}
	}
	return false
}

// Run is a job Eval decided to run now.
type Run struct {
	Name   string
	Func   string
	Args   []any
	Kwargs *value.Map
	// Data is the job's settings (returner, return_job, metadata, ...)
	// with Salt's defaults filled in (jid_include, maxrunning).
	Data *value.Map
}

// jobState is what Salt keeps in the job's data between evaluations
// (_next_fire_time, _splay, _seconds, _run, _run_on_start, _last_run).
type jobState struct {
	conf          any // the job data the state belongs to
	nextFire      time.Time
	nextScheduled time.Time
	splay         time.Time
	seconds       int
	secondsSet    bool
	whenRun       *bool
	runOnStart    bool
	runOnStartSet bool
	lastRun       time.Time

	// Reset at every evaluation.
	cont        bool
	err         string
	skipped     bool
	skipReason  string
	skippedTime time.Time
}

// Engine evaluates a schedule. Its state (next fire times, splays) lives
// across evaluations and is reset for a job whose settings change.
type Engine struct {
	// LoopInterval is the minion's loop_interval (default one second):
	// how late a job may be found due and still run.
	LoopInterval time.Duration
	// Running returns how many runs of the named job are in progress
	// (for maxrunning); nil means none.
	Running func(name string) int
	// Rand returns a random integer in [lo, hi] (for splay); nil uses
	// math/rand.
	Rand func(lo, hi int) int
	// Functions reports whether an execution function exists (a missing
	// one is logged, as Salt does, and still run: it fails).
	Functions func(name string) bool
	// Pillar and Grains are read for named "whens".
	Pillar, Grains *value.Map
	Log            *slog.Logger

	state map[string]*jobState
}

func (e *Engine) loop() time.Duration {
	if e.LoopInterval <= 0 {
		return time.Second
	}
	return e.LoopInterval
}

func (e *Engine) log() *slog.Logger {
	if e.Log == nil {
		return slog.Default()
	}
	return e.Log
}

func (e *Engine) randInt(lo, hi int) int {
	if e.Rand != nil {
		return e.Rand(lo, hi)
	}
	if hi <= lo {
		return lo
	}
	return lo + rand.IntN(hi-lo+1)
}

// NextFireTime returns the next time job name is due, as Salt's
// _next_fire_time (zero when unknown).
func (e *Engine) NextFireTime(name string) time.Time {
	if st := e.state[name]; st != nil {
		return st.nextFire
	}
	return time.Time{}
}

// Status returns the runtime data Salt keeps in a job (the keys starting
// with '_'), for schedule.job_status.
func (e *Engine) Status(name string) *value.Map {
	st := e.state[name]
	out := value.NewMap(0)
	if st == nil {
		return out
	}
	ts := func(k string, t time.Time) {
		if !t.IsZero() {
			out.Set(k, pyops.Strftime(t, "%Y-%m-%dT%H:%M:%S"))
		}
	}
	ts("_next_fire_time", st.nextFire)
	ts("_next_scheduled_fire_time", st.nextScheduled)
	ts("_last_run", st.lastRun)
	if st.secondsSet {
		out.Set("_seconds", int64(st.seconds))
	}
	if st.skipped {
		out.Set("_skipped", true)
		out.Set("_skip_reason", st.skipReason)
		ts("_skipped_time", st.skippedTime)
	}
	if st.err != "" {
		out.Set("_error", st.err)
	}
	return out
}

// Merged returns the schedule Salt evaluates: the pillar's schedule
// updated by the options' (each may be nil).
func Merged(opts, pillar *value.Map) *value.Map {
	out := value.NewMap(0)
	if pillar != nil {
		out.Update(pillar)
	}
	if opts != nil {
		out.Update(opts)
	}
	return out
}

func funcOf(data *value.Map) string {
	for _, k := range []string{"function", "func", "fun"} {
		if v, ok := data.Get(k); ok {
			return value.Str(v)
		}
	}
	return ""
}

// toInt is Python's int() of a setting: numbers and numeric strings.
func toInt(v any) int {
	switch x := v.(type) {
	case int64:
		return int(x)
	case float64:
		return int(x)
	case bool:
		if x {
			return 1
		}
	case string:
		n, _ := strconv.Atoi(x)
		return n
	}
	return 0
}

func chopMS(t time.Time) time.Time { return t.Truncate(time.Second) }

var (
	timeElements       = []string{"seconds", "minutes", "hours", "days"}
	schedulingElements = []string{"when", "cron", "once"}
)

// Eval evaluates schedule (as Merged returns it) at now and returns the
// jobs to run, in the schedule's order.
func (e *Engine) Eval(schedule *value.Map, now time.Time) []Run {
	if e.state == nil {
		e.state = map[string]*jobState{}
	}
	enabled := true
	if v, ok := schedule.Get("enabled"); ok {
		enabled = value.Truthy(v)
	}
	skipFunction := ""
	if v, ok := schedule.Get("skip_function"); ok && v != nil {
		skipFunction = value.Str(v)
	}
	globalSkipRange, _ := schedule.Get("skip_during_range")
	globalSplay, _ := schedule.Get("splay")

	seen := map[string]bool{}
	var runs []Run
	schedule.Range(func(k, v any) bool {
		name := value.Str(k)
		if isHidden(name) {
			return true
		}
		data, ok := v.(*value.Map)
		if !ok {
			e.log().Error(fmt.Sprintf("Scheduled job %q should have a dict value, not %s", name, value.TypeName(v)))
			return true
		}
		seen[name] = true
		st := e.state[name]
		if st == nil || !value.Equal(st.conf, data) {
			st = &jobState{conf: value.DeepCopy(data)}
			e.state[name] = st
		}
		if r, ok := e.evalJob(name, data, st, now, enabled, skipFunction, globalSkipRange, globalSplay); ok {
			runs = append(runs, r)
		}
		return true
	})
	for name := range e.state {
		if !seen[name] {
			delete(e.state, name)
		}
	}
	return runs
}

func has(m *value.Map, k string) bool { return m.Has(k) }

func get(m *value.Map, k string) any { v, _ := m.Get(k); return v }

// evalJob is one job's turn of Salt's Schedule.eval.
func (e *Engine) evalJob(name string, data *value.Map, st *jobState, now time.Time, enabled bool, skipFunction string, globalSkipRange, globalSplay any) (Run, bool) {
	st.cont, st.err, st.skipped, st.skipReason, st.skippedTime = false, "", false, "", time.Time{}
	loop := e.loop()
	jobName := name
	if n, ok := data.Get("name"); ok {
		jobName = value.Str(n)
	}
	fn := funcOf(data)
	if e.Functions != nil && !e.Functions(fn) {
		e.log().Info(fmt.Sprintf("Invalid function: %s in scheduled job %s.", fn, jobName))
	}
	if value.Truthy(get(data, "run_on_start")) && !st.runOnStartSet {
		st.runOnStart, st.runOnStartSet = true, true
	}

	for i, a := range schedulingElements {
		for _, b := range schedulingElements[i+1:] {
			if has(data, a) && has(data, b) {
				e.log().Error(`Unable to use "when", "cron", "once" options together. Ignoring.`)
				return Run{}, false
			}
		}
	}
	for _, s := range schedulingElements {
		for _, t := range timeElements {
			if has(data, s) && has(data, t) {
				e.log().Error(`Unable to use "seconds", "minutes", "hours", "days" with "when", "cron", "once" options. Ignoring`)
				return Run{}, false
			}
		}
	}

	run := false
	if has(data, "run_explicit") {
		run = e.runExplicit(data, st, now)
	}
	timed := false
	for _, t := range timeElements {
		if has(data, t) {
			timed = true
		}
	}
	switch {
	case timed:
		e.handleTime(data, st, now)
	case has(data, "once"):
		e.handleOnce(jobName, data, st, now)
	case has(data, "when"):
		e.handleWhen(jobName, data, st, now, run)
	case has(data, "cron"):
		e.handleCron(jobName, data, st, now)
	default:
		return Run{}, false
	}
	if st.cont || st.err != "" {
		if st.err != "" {
			e.log().Error(st.err)
		}
		return Run{}, false
	}

	seconds := int(chopMS(st.nextFire).Sub(chopMS(now)) / time.Second)
	splay, hasSplay := data.Get("splay")
	if !hasSplay {
		splay = globalSplay
	}
	if value.Truthy(splay) {
		if st.splay.IsZero() {
			sp, ok := e.splaySeconds(splay)
			if ok && now.Before(st.nextFire.Add(time.Duration(sp)*time.Second)) {
				st.splay = st.nextFire.Add(time.Duration(sp) * time.Second)
				if has(data, "when") {
					t := true
					st.whenRun = &t
				}
			} else if ok {
				run = true
			}
		}
		if !st.splay.IsZero() {
			seconds = int(st.splay.Sub(now) / time.Second)
			if has(data, "when") {
				st.nextFire = st.splay
			}
		}
	}

	inWindow := func() bool {
		return !now.Before(st.nextFire) && !now.After(st.nextFire.Add(loop))
	}
	switch {
	case st.secondsSet:
		if seconds <= 0 {
			run = true
		}
	case has(data, "when") && st.whenRun != nil && *st.whenRun:
		if inWindow() {
			f := false
			st.whenRun = &f
			run = true
		}
	case has(data, "cron"):
		if seconds <= 0 {
			st.nextFire = time.Time{}
			run = true
		}
	case has(data, "once"):
		if inWindow() {
			run = true
		}
	case seconds == 0:
		run = true
	}

	if st.runOnStart {
		run = true
		st.runOnStart = false
	} else if run {
		run = e.runFilters(jobName, data, st, now, skipFunction, globalSkipRange, &fn)
		if st.err != "" {
			e.log().Error(st.err)
			return Run{}, false
		}
	}
	if st.cont {
		run = false
	}
	if !enabled || (has(data, "enabled") && !value.Truthy(get(data, "enabled"))) {
		st.skipped, st.skipReason, st.skippedTime = true, "disabled", now
		run = false
	}

	out := data.Copy()
	out.Set("name", jobName)
	if run {
		if v, ok := out.Get("jid_include"); !ok || value.Truthy(v) {
			out.Set("jid_include", true)
			if !out.Has("maxrunning") {
				e.log().Info(fmt.Sprintf("schedule: maxrunning parameter was not specified for job %s, defaulting to 1.", jobName))
				out.Set("maxrunning", int64(1))
			}
			if e.Running != nil && e.Running(jobName) >= toInt(get(out, "maxrunning")) {
				e.log().Debug(fmt.Sprintf("schedule.handle_func: The scheduled job %s was not started, %d already running", jobName, toInt(get(out, "maxrunning"))))
				st.skipped, st.skipReason, st.skippedTime = true, "maxrunning", now
				run = false
			}
		}
	}

	if run {
		st.lastRun = now
		st.splay = time.Time{}
	}
	if st.secondsSet {
		switch {
		case st.skipped:
			if !st.nextFire.After(now) {
				st.nextFire = now.Add(time.Duration(st.seconds) * time.Second)
			}
		case run:
			st.nextFire = now.Add(time.Duration(st.seconds) * time.Second)
		}
	}
	if !run {
		return Run{}, false
	}
	r := Run{Name: jobName, Func: fn, Kwargs: value.NewMap(0), Data: out}
	if a, ok := data.Get("args"); ok {
		if l, ok := a.(*value.List); ok {
			r.Args = value.DeepCopy(l).(*value.List).Items
		}
	}
	if kw, ok := data.Get("kwargs"); ok {
		if m, ok := kw.(*value.Map); ok {
			r.Kwargs = value.DeepCopy(m).(*value.Map)
		}
	}
	return r, true
}

// splaySeconds is Salt's _splay: a random number of seconds in [1, n],
// or in [start, end] for a {start, end} mapping.
func (e *Engine) splaySeconds(splay any) (int, bool) {
	if m, ok := splay.(*value.Map); ok {
		start, end := toInt(get(m, "start")), toInt(get(m, "end"))
		if end < start {
			e.log().Error("schedule.handle_func: Invalid Splay, end must be larger than start. Ignoring splay.")
			return 0, false
		}
		return e.randInt(start, end), true
	}
	return e.randInt(1, toInt(splay)), true
}

func (e *Engine) handleTime(data *value.Map, st *jobState, now time.Time) {
	if st.secondsSet {
		return
	}
	interval := toInt(get(data, "seconds")) + toInt(get(data, "minutes"))*60 + toInt(get(data, "hours"))*3600 + toInt(get(data, "days"))*86400
	st.seconds, st.secondsSet = interval, true
	if st.nextFire.IsZero() {
		st.nextFire = now.Add(time.Duration(interval) * time.Second)
	}
	st.nextScheduled = now.Add(time.Duration(interval) * time.Second)
}

func (e *Engine) handleOnce(jobName string, data *value.Map, st *jobState, now time.Time) {
	loop := e.loop()
	if !st.nextFire.IsZero() {
		if st.nextFire.Before(now.Add(-loop)) || (st.nextFire.After(now) && st.splay.IsZero()) {
			st.cont = true
		}
	}
	if st.nextFire.IsZero() && st.splay.IsZero() {
		format := "%Y-%m-%dT%H:%M:%S"
		if f, ok := data.Get("once_fmt"); ok {
			format = value.Str(f)
		}
		once, err := Strptime(value.Str(get(data, "once")), format, now.Location())
		if err != nil {
			st.err = fmt.Sprintf("Date string could not be parsed: %s, %s. Ignoring job %s.", value.Str(get(data, "once")), format, jobName)
			return
		}
		st.nextFire, st.nextScheduled = once, once
		if once.Before(now.Add(-loop)) {
			st.cont = true
		}
	}
}

// whenTimes resolves a job's when entries (named whens from pillar or
// grains, or date strings).
func (e *Engine) whenTimes(jobName string, data *value.Map, now time.Time) ([]time.Time, string) {
	var items []any
	if l, ok := get(data, "when").(*value.List); ok {
		items = l.Items
	} else {
		items = []any{get(data, "when")}
	}
	var out []time.Time
	for _, it := range items {
		w := it
		for _, src := range []struct {
			m    *value.Map
			what string
		}{{e.Pillar, `Pillar item "whens"`}, {e.Grains, `Grain "whens"`}} {
			if src.m == nil {
				continue
			}
			whens, ok := src.m.Get("whens")
			if !ok {
				continue
			}
			wm, ok := whens.(*value.Map)
			if !ok {
				return nil, fmt.Sprintf("%s must be a dict. Ignoring job %s.", src.what, jobName)
			}
			if x, ok := wm.Get(it); ok {
				w = x
				break
			}
		}
		t, err := ParseDate(value.Str(w), now)
		if err != nil {
			return nil, fmt.Sprintf("Invalid date string %s. Ignoring job %s.", value.Str(it), jobName)
		}
		out = append(out, t)
	}
	return out, ""
}

func (e *Engine) handleWhen(jobName string, data *value.Map, st *jobState, now time.Time, run bool) {
	loop := e.loop()
	whens, errMsg := e.whenTimes(jobName, data, now)
	if errMsg != "" {
		st.err = errMsg
		return
	}
	if !st.splay.IsZero() {
		whens = append(whens, st.splay)
	}
	sortTimes(whens)
	if len(whens) > 1 {
		// Drop the missed times but the latest, which tells whether the
		// job ran already.
		var kept []time.Time
		for i, w := range whens {
			if w.Before(now.Add(-loop)) && i < len(whens)-1 {
				continue
			}
			kept = append(kept, w)
		}
		whens = kept
	}
	if len(whens) == 0 {
		if st.whenRun == nil || !*st.whenRun {
			st.nextFire = time.Time{}
			st.cont = true
		}
		return
	}
	when := whens[0]
	if when.Before(now.Add(-loop)) && (st.whenRun == nil || !*st.whenRun) && !run && st.splay.IsZero() {
		st.nextFire = time.Time{}
		st.cont = true
		return
	}
	if st.whenRun == nil {
		b := !when.Before(now.Add(-loop))
		st.whenRun = &b
	}
	if st.nextFire.IsZero() {
		st.nextFire = when
	}
	st.nextScheduled = when
	if st.nextFire.Before(when) && !run && !*st.whenRun {
		st.nextFire = when
		t := true
		st.whenRun = &t
	}
}

func sortTimes(ts []time.Time) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].Before(ts[j-1]); j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

func (e *Engine) handleCron(jobName string, data *value.Map, st *jobState, now time.Time) {
	if !st.nextFire.IsZero() {
		return
	}
	sched, err := ParseCron(value.Str(get(data, "cron")))
	if err != nil {
		st.err = fmt.Sprintf("Invalid cron string. Ignoring job %s.", jobName)
		return
	}
	st.nextFire = sched.Next(now)
	st.nextScheduled = st.nextFire
}

// runExplicit is _handle_run_explicit: run at the listed times only.
func (e *Engine) runExplicit(data *value.Map, st *jobState, now time.Time) bool {
	loop := e.loop()
	times := explicitTimes(get(data, "run_explicit"), now.Location())
	if len(times) > 1 {
		var kept []time.Time
		for _, t := range times {
			if !t.Before(now.Add(-loop)) {
				kept = append(kept, t)
			}
		}
		times = kept
	}
	if len(times) > 0 && !now.Before(times[0]) && now.Before(times[0].Add(loop)) {
		st.nextFire = times[0]
		return true
	}
	return false
}

// explicitTimes reads run_explicit and skip_explicit: a list of
// {time, time_fmt} mappings (or date strings).
func explicitTimes(v any, loc *time.Location) []time.Time {
	l, ok := v.(*value.List)
	if !ok {
		return nil
	}
	var out []time.Time
	for _, it := range l.Items {
		switch x := it.(type) {
		case *value.Map:
			format := "%Y-%m-%dT%H:%M:%S"
			if f, ok := x.Get("time_fmt"); ok {
				format = value.Str(f)
			}
			if t, err := Strptime(value.Str(get(x, "time")), format, loc); err == nil {
				out = append(out, t)
			}
		case string:
			if t, err := Strptime(x, "%Y-%m-%dT%H:%M:%S", loc); err == nil {
				out = append(out, t)
			}
		}
	}
	return out
}

// runFilters applies range, skip_during_range, skip_explicit, until and
// after to a job found due; it may replace fn by the skip_function.
func (e *Engine) runFilters(jobName string, data *value.Map, st *jobState, now time.Time, skipFunction string, globalSkipRange any, fn *string) bool {
	run := true
	loop := e.loop()
	if r, ok := data.Get("range"); ok {
		rm, ok := r.(*value.Map)
		if !ok {
			st.err = fmt.Sprintf("schedule.handle_func: Invalid, range must be specified as a dictionary.Ignoring job %s.", jobName)
			return false
		}
		start, err := ParseDate(value.Str(get(rm, "start")), now)
		if err != nil {
			st.err = fmt.Sprintf("Invalid date string for start. Ignoring job %s.", jobName)
			return false
		}
		end, err := ParseDate(value.Str(get(rm, "end")), now)
		if err != nil {
			st.err = fmt.Sprintf("Invalid date string for end. Ignoring job %s.", jobName)
			return false
		}
		if !end.After(start) {
			st.err = fmt.Sprintf("schedule.handle_func: Invalid range, end must be larger than start. Ignoring job %s.", jobName)
			return false
		}
		inRange := !now.Before(start) && !now.After(end)
		switch {
		case value.Truthy(get(rm, "invert")):
			if !now.After(start) || !now.Before(end) {
				run = true
			} else {
				st.skipReason, run = "in_skip_range", false
			}
		case inRange:
			run = true
		case skipFunction != "":
			run, *fn = true, skipFunction
		default:
			st.skipReason, run = "not_in_range", false
		}
	}
	skipRange, hasSkip := data.Get("skip_during_range")
	if !hasSkip && value.Truthy(globalSkipRange) {
		skipRange, hasSkip = globalSkipRange, true
	}
	if hasSkip && value.Truthy(skipRange) {
		sm, ok := skipRange.(*value.Map)
		if !ok {
			st.err = fmt.Sprintf("schedule.handle_func: Invalid, range must be specified as a dictionary. Ignoring job %s.", jobName)
			return false
		}
		start, err := ParseDate(value.Str(get(sm, "start")), now)
		if err != nil {
			st.err = fmt.Sprintf("Invalid date string for start in skip_during_range. Ignoring job %s.", jobName)
			return false
		}
		end, err := ParseDate(value.Str(get(sm, "end")), now)
		if err != nil {
			st.err = fmt.Sprintf("Invalid date string for end in skip_during_range. Ignoring job %s.", jobName)
			return false
		}
		if !end.After(start) {
			st.err = fmt.Sprintf("schedule.handle_func: Invalid range, end must be larger than start. Ignoring job %s.", jobName)
			return false
		}
		if !now.Before(start) && !now.After(end) {
			if skipFunction != "" {
				run, *fn = true, skipFunction
			} else {
				st.skipped, st.skipReason, st.skippedTime, run = true, "in_skip_range", now, false
			}
		} else {
			run = true
		}
	}
	if v, ok := data.Get("skip_explicit"); ok {
		run = true
		var pending []time.Time
		for _, t := range explicitTimes(v, now.Location()) {
			if !t.Before(now.Add(-loop)) {
				pending = append(pending, t)
			}
		}
		if len(pending) > 0 && !now.Before(pending[0]) && !now.After(pending[0].Add(loop)) {
			if skipFunction != "" {
				*fn = skipFunction
			} else {
				st.skipped, st.skipReason, st.skippedTime, run = true, "skip_explicit", now, false
			}
		}
	}
	if v, ok := data.Get("until"); ok {
		until, err := ParseDate(value.Str(v), now)
		if err == nil && !until.After(now) {
			st.skipped, st.skipReason, st.skippedTime, run = true, "until_passed", now, false
		} else if err == nil {
			run = true
		}
	}
	if v, ok := data.Get("after"); ok {
		after, err := ParseDate(value.Str(v), now)
		if err == nil && !after.Before(now) {
			st.skipped, st.skipReason, st.skippedTime, run = true, "after_not_passed", now, false
		} else if err == nil {
			run = true
		}
	}
	return run
}
