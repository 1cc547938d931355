package minion

// schedule.go runs the minion's schedule (Salt's minion Schedule): the
// schedule option's jobs, the pillar's, and those schedule.* added, kept
// in internal/schedule's Store, evaluated every loop_interval. Each run
// is a job with a jid of its own, run as published jobs are (in a job
// process when the minion has one), recorded in the proc directory while
// it runs, and its return sent to the master's job cache (unless
// return_job is False) and to the job's returners.

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"brine/internal/execmod"
	"brine/internal/fleet/proto"
	"brine/internal/schedule"
	"brine/internal/value"
)

// schedulers holds each minion's scheduler (started once per minion,
// carried over reconnections, which only change its session).
var schedulers sync.Map // *Minion -> *scheduler

type scheduler struct {
	ctx    context.Context
	m      *Minion
	sess   atomic.Pointer[Session]
	store  schedule.Store
	engine *schedule.Engine

	mu      sync.Mutex
	running map[string]int // job name -> runs in progress
	lastSt  string         // the state last written
}

// startSchedule starts the minion's scheduler on its first connection,
// and hands it the new session on the next ones. It stops with ctx.
func (m *Minion) startSchedule(ctx context.Context, sess *Session) {
	if m.cachedir() == "" {
		m.log.Warn("no cachedir: the schedule does not run")
		return
	}
	s := &scheduler{ctx: ctx, m: m, store: schedule.Store{Opts: m.o.Opts}, running: map[string]int{}}
	v, loaded := schedulers.LoadOrStore(m, s)
	s = v.(*scheduler)
	s.sess.Store(sess)
	if loaded {
		return
	}
	loop := time.Duration(optFloat(m.o.Opts, "loop_interval", 1) * float64(time.Second))
	if loop <= 0 {
		loop = time.Second
	}
	s.engine = &schedule.Engine{
		LoopInterval: loop,
		Running:      s.runningCount,
		Functions: func(name string) bool {
			_, ok := execmod.Default.Lookup(name)
			return ok
		},
		Log: m.log,
	}
	if err := s.store.Init(s.initial()); err != nil {
		m.log.Error("starting the scheduler", "err", err)
		return
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer schedulers.Delete(m)
		t := time.NewTicker(loop)
		defer t.Stop()
		s.tick(time.Now())
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				s.tick(now)
			}
		}
	}()
}

// initial is the options' schedule with the mine's job, which Salt's
// minion adds when the mine is enabled, and removes when it is not. (Salt
// also persists it to _schedule.conf at every start; brine adds it at
// every start instead, so a minion's start never writes its config dir.)
func (s *scheduler) initial() *value.Map {
	sched := value.NewMap(0)
	if v, ok := s.m.o.Opts.Get("schedule"); ok {
		if sm, ok := v.(*value.Map); ok {
			sched = value.DeepCopy(sm).(*value.Map)
		}
	}
	_, hasMine := execmod.Default.Lookup("mine.update")
	mineOn := hasMine
	if v, ok := s.m.o.Opts.Get("mine_enabled"); ok && !value.Truthy(v) {
		mineOn = false
	}
	if mineOn {
		interval, _ := s.m.o.Opts.Get("mine_interval")
		if interval == nil {
			interval = int64(60)
		}
		returnJob, _ := s.m.o.Opts.Get("mine_return_job")
		if returnJob == nil {
			returnJob = false
		}
		sched.Set("__mine_interval", value.MapOf(
			"function", "mine.update", "minutes", interval, "jid_include", true,
			"maxrunning", int64(2), "run_on_start", true, "return_job", returnJob, "enabled", true,
		))
		s.m.log.Info("Added mine.update to scheduler")
	} else {
		sched.Delete("__mine_interval")
	}
	return sched
}

func (s *scheduler) runningCount(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running[name]
}

// tick evaluates the schedule once and starts the runs due, and those
// schedule.run_job asked for.
func (s *scheduler) tick(now time.Time) {
	sess := s.sess.Load()
	if sess == nil {
		return
	}
	cur, _, err := s.store.Current()
	if err != nil {
		s.m.log.Error("reading the schedule", "err", err)
		return
	}
	pil := sess.CachedPillar()
	var pilSched *value.Map
	if v, ok := pil.Get("schedule"); ok {
		if pm, ok := v.(*value.Map); ok {
			pilSched = pm
		} else {
			s.m.log.Error("Schedule must be of type dict.")
		}
	}
	merged := schedule.Merged(cur, pilSched)
	s.engine.Pillar, s.engine.Grains = pil, sess.CurrentGrains()
	for _, r := range s.engine.Eval(merged, now) {
		s.start(sess, r)
	}
	for _, name := range s.store.TakeRuns() {
		if r, ok := runNow(merged, name); ok {
			ji, has := r.Data.Get("jid_include")
			if (!has || value.Truthy(ji)) && s.runningCount(name) >= int(optFloat(r.Data, "maxrunning", 1)) {
				s.m.log.Info("scheduled job not started: maxrunning reached", "job", name)
				continue
			}
			s.m.log.Info("Running Job: " + name)
			s.start(sess, r)
		}
	}
	s.writeState(merged)
}

// runNow is Salt's Schedule.run_job: job name as it is, now.
func runNow(merged *value.Map, name string) (schedule.Run, bool) {
	v, ok := merged.Get(name)
	data, isMap := v.(*value.Map)
	if !ok || !isMap {
		return schedule.Run{}, false
	}
	out := data.Copy()
	if !out.Has("name") {
		out.Set("name", name)
	}
	r := schedule.Run{Name: value.Str(mustGet(out, "name")), Kwargs: value.NewMap(0), Data: out}
	for _, k := range []string{"function", "func", "fun"} {
		if f, ok := data.Get(k); ok {
			r.Func = value.Str(f)
			break
		}
	}
	if l, ok := mustGet(data, "args").(*value.List); ok {
		r.Args = value.DeepCopy(l).(*value.List).Items
	}
	if kw, ok := mustGet(data, "kwargs").(*value.Map); ok {
		r.Kwargs = value.DeepCopy(kw).(*value.Map)
	}
	return r, true
}

// writeState publishes the next fire times for schedule.show_next_fire_time.
func (s *scheduler) writeState(merged *value.Map) {
	st := schedule.State{PID: os.Getpid(), Jobs: map[string]schedule.JobStatus{}}
	merged.Range(func(k, _ any) bool {
		name := value.Str(k)
		if t := s.engine.NextFireTime(name); !t.IsZero() {
			st.Jobs[name] = schedule.JobStatus{NextFireTime: t}
		}
		return true
	})
	b, _ := json.Marshal(st)
	if string(b) == s.lastSt {
		return
	}
	if err := s.store.WriteState(st); err != nil {
		s.m.log.Warn("writing the schedule state", "err", err)
		return
	}
	s.lastSt = string(b)
}

// start runs r in the background.
func (s *scheduler) start(sess *Session, r schedule.Run) {
	s.mu.Lock()
	s.running[r.Name]++
	s.mu.Unlock()
	s.m.wg.Add(1)
	go func() {
		defer s.m.wg.Done()
		defer func() {
			s.mu.Lock()
			if s.running[r.Name]--; s.running[r.Name] <= 0 {
				delete(s.running, r.Name)
			}
			s.mu.Unlock()
		}()
		s.run(sess, r)
	}()
}

// run runs one scheduled job and sends its return on.
func (s *scheduler) run(sess *Session, r schedule.Run) {
	now := time.Now()
	if value.Truthy(mustGet(r.Data, "dry_run")) {
		s.m.log.Debug("Job has 'dry_run' set to True. Not running it.", "job", r.Name)
		return
	}
	if r.Name == "__mine_interval" && !value.Truthy(mustGet(r.Data, "return_job")) && !hasMineFunctions(s.m.o.Opts, sess.CachedPillar()) {
		// mine.update would return None and send nothing: spare the
		// job (and its process).
		return
	}
	args := value.NewList(r.Args...)
	job := proto.Job{
		JID: proto.NewJID(now), Fun: r.Func, Arg: proto.ValueJSON{V: args}, Kwarg: proto.ValueJSON{V: r.Kwargs},
		Tgt: s.m.id, TgtType: "glob", User: "root", TS: now.UnixNano(),
	}
	s.m.log.Info("Running scheduled job: "+r.Name, "jid", job.JID)
	var ret proto.Return
	if len(s.m.o.JobProcess) == 0 {
		if err := writeProc(s.m.cachedir(), job, os.Getpid(), true); err != nil {
			s.m.log.Warn("recording a running job", "jid", job.JID, "err", err)
		}
		ret = sess.Execute(job)
		removeProc(s.m.cachedir(), job.JID)
	} else {
		ret = s.m.runProcess(sess, job) // records the job itself
	}
	// Salt's fun_args: the args, then the kwargs when the job has some.
	funArgs := value.NewList(r.Args...)
	if r.Data.Has("kwargs") {
		funArgs.Append(r.Kwargs)
	}
	ret.FunArgs = proto.ValueJSON{V: funArgs}
	ret.ID = s.m.id

	schedRet := value.MapOf(
		"id", s.m.id, "fun", r.Func, "fun_args", funArgs, "schedule", r.Name, "jid", job.JID,
		"pid", int64(os.Getpid()), "return", ret.Return.V, "retcode", int64(ret.Retcode), "success", ret.Success,
	)
	for _, k := range [][2]string{{"metadata", "metadata"}, {"return_config", "ret_config"}, {"return_kwargs", "ret_kwargs"}} {
		if v, ok := r.Data.Get(k[0]); ok {
			schedRet.Set(k[1], v)
		}
	}
	schedule.CallReturners(schedule.ReturnCall{
		Names: schedule.ReturnerNames(mustGet(r.Data, "returner"), mustGet(s.m.o.Opts, "schedule_returner")),
		Ret:   schedRet, Opts: s.m.o.Opts, Grains: sess.CurrentGrains(), Pillar: sess.CachedPillar(),
	})

	rj, hasRJ := r.Data.Get("return_job")
	if hasRJ && !value.Truthy(rj) {
		return
	}
	s.sendReturn(sess, proto.SchedReturn{Return: ret, Schedule: r.Name, NoCache: rj == "nocache"})
}

// sendReturn hands a scheduled job's return to the master, retrying a
// little while the master cannot be reached.
func (s *scheduler) sendReturn(sess *Session, sr proto.SchedReturn) {
	backoff := 500 * time.Millisecond
	for attempt := 0; attempt < 6; attempt++ {
		c, err := sess.conn()
		if err == nil {
			var rep proto.SchedReturnReply
			err = c.Request(proto.ReqSchedReturn, sr, &rep, 10*time.Second)
			if err == nil {
				s.m.log.Debug("scheduled job returned", "job", sr.Schedule, "jid", rep.JID)
				return
			}
			var me *MasterError
			if errors.As(err, &me) {
				s.m.log.Error("the master refused a scheduled job's return", "job", sr.Schedule, "err", err)
				return
			}
			if errors.Is(err, nats.ErrConnectionClosed) {
				return
			}
		}
		select {
		case <-s.ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff *= 2
	}
	s.m.log.Warn("could not send a scheduled job's return to the master", "job", sr.Schedule)
}

// hasMineFunctions reports whether mine_functions is set anywhere
// mine.update looks (options, the master's config in pillar, pillar).
func hasMineFunctions(opts, pillar *value.Map) bool {
	if value.Truthy(mustGet(opts, "mine_functions")) || value.Truthy(mustGet(pillar, "mine_functions")) {
		return true
	}
	if master, ok := mustGet(pillar, "master").(*value.Map); ok {
		return value.Truthy(mustGet(master, "mine_functions"))
	}
	return false
}
