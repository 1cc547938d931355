package modules

// saltutil.go is the part of salt/modules/saltutil.py brine has:
// refresh_pillar, refresh_grains, the sync_* family and the job functions
// (running, find_job, signal_job and friends).

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"brine/internal/execmod"
	"brine/internal/grains"
	"brine/internal/pyext"
	"brine/internal/value"
)

func init() {
	execmod.Register("saltutil.refresh_pillar", saltutilRefreshPillar,
		"Ask the running minion to refresh its pillar; false when no minion listens (salt-call --local).")
}

// pillarRefresher is the service (execmod.Context.Service, under
// pillarRefreshService) a running minion attaches to its jobs: it
// refreshes the minion's in-memory pillar, which later jobs use.
type pillarRefresher interface {
	RefreshPillar() error
}

// pillarRefreshService is the name of the pillarRefresher service (the
// minion attaches it under this name; it cannot import this package).
const pillarRefreshService = "pillar_refresh"

// saltutilRefreshPillar is Salt's refresh_pillar, which fires the
// pillar_refresh event and returns whether firing worked. In a minion job
// the minion listens (here: its pillarRefresher service refreshes the
// pillar, before the function returns, so wait=True holds too) and the
// answer is True, even when the refresh fails (Salt only logs that). A
// local run has no minion listening, so firing fails and, as Salt does
// under salt-call --local, the function returns False.
func saltutilRefreshPillar(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("refresh_pillar", args, kwargs,
		execmod.Opt("wait", false),
		execmod.Opt("timeout", int64(30)),
		execmod.Opt("clean_cache", true),
	); err != nil {
		return nil, err
	}
	r, ok := ctx.Service(pillarRefreshService).(pillarRefresher)
	if !ok {
		return false, nil
	}
	if err := r.RefreshPillar(); err != nil {
		slog.Warn(fmt.Sprintf("Pillar refresh failed: %s", err))
	}
	return true, nil
}

func init() {
	execmod.Register("saltutil.refresh_grains", saltutilRefreshGrains,
		"Collect the grains again (and refresh pillar unless refresh_pillar=False); returns True.")
	execmod.Register("saltutil.sync_all", saltutilSyncAll,
		"Sync every kind of custom module from salt://_<kind> into the extension module cache; returns the '<kind>.<name>' entries copied, per kind.")
	for _, kind := range syncKinds {
		execmod.Register("saltutil.sync_"+kind, func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
			req, err := syncArgs("sync_"+kind, ctx, args, kwargs)
			if err != nil {
				return nil, err
			}
			names, err := syncKind(ctx, kind, req)
			if err != nil {
				return nil, err
			}
			if names.Len() > 0 {
				if err := pyext.Reload(ctx, kind); err != nil {
					return nil, err
				}
			}
			return names, nil
		}, "Sync custom "+kind+" from salt://_"+kind+" into the extension module cache (cachedir/extmods/"+kind+"); returns the '"+kind+".<name>' entries copied.")
	}
}

func init() {
	execmod.Register("saltutil.refresh_modules", saltutilRefreshModules,
		"Reload the custom modules of the extension module cache into the run; like refresh_pillar, false when no minion listens (salt-call --local).")
}

// saltutilRefreshModules is Salt's refresh_modules, which fires the
// module_refresh event and returns whether firing worked: the modules are
// loaded again here, and the answer is what refresh_pillar answers (a
// local run has no minion listening: False).
func saltutilRefreshModules(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if len(args) > 0 {
		return nil, execmod.TooManyPositional("refresh_modules", 0, 0, len(args))
	}
	if err := pyext.Reload(ctx, ""); err != nil {
		return nil, err
	}
	_, listening := ctx.Service(pillarRefreshService).(pillarRefresher)
	return listening, nil
}

// syncArgs binds Salt's sync_* arguments and returns the environments to
// sync: saltenv when given ("a,b" or a list), else the environments the
// top file matches (else base).
func syncArgs(fun string, ctx *execmod.Context, args []any, kwargs *value.Map) (syncRequest, error) {
	vals, _, err := execmod.Bind(fun, args, kwargs,
		execmod.Opt("saltenv", nil),
		execmod.Opt("refresh", true),
		execmod.Opt("extmod_whitelist", nil),
		execmod.Opt("extmod_blacklist", nil),
	)
	if err != nil {
		return syncRequest{}, err
	}
	req := syncRequest{allow: vals[2], deny: vals[3]}
	switch e := vals[0].(type) {
	case string:
		req.envs = strings.Split(e, ",")
	case *value.List:
		for _, x := range e.Items {
			req.envs = append(req.envs, execmod.String(x))
		}
	default:
		req.envs = topFileEnvs(ctx)
	}
	return req, nil
}

// syncRequest is what a saltutil.sync_* call asks for: the environments
// and the extmod_whitelist/extmod_blacklist arguments (nil: the options).
type syncRequest struct {
	envs        []string
	allow, deny any
}

// topFileEnvs is Salt's _get_top_file_envs: the environments the top file
// matches for this minion, else base (cached in __context__ for the run).
func topFileEnvs(ctx *execmod.Context) []string {
	const key = "saltutil._top_file_envs"
	if envs, ok := ctx.Cache().Get(key).([]string); ok {
		return envs
	}
	envs := []string{"base"}
	if top, err := ctx.Call("state.show_top", nil, nil); err == nil {
		if m, ok := top.(*value.Map); ok && m.Len() > 0 {
			envs = envs[:0]
			m.Range(func(k, _ any) bool {
				envs = append(envs, execmod.String(k))
				return true
			})
		}
	}
	ctx.Cache().Store(key, envs)
	return envs
}

// syncKind syncs one kind; kinds brine runs no Python for are still
// copied, as Salt does, so the cache looks the same.
func syncKind(ctx *execmod.Context, kind string, req syncRequest) (*value.List, error) {
	names, err := pyext.Sync(ctx.Opts, kind, req.envs, pyext.FilterOf(ctx.Opts, kind, req.allow, req.deny))
	if err != nil {
		return nil, err
	}
	out := value.NewList()
	for _, n := range names {
		out.Append(n)
	}
	return out, nil
}

// syncKinds are the extension kinds sync_all reports, in Salt's order.
var syncKinds = []string{"clouds", "beacons", "modules", "states", "sdb", "grains", "renderers",
	"returners", "output", "utils", "log_handlers", "executors", "proxymodules", "engines",
	"thorium", "serializers", "matchers"}

// saltutilRefreshGrains drops the cached grains and collects them again, so
// later calls in this run see grains written by grains.setval and friends.
func saltutilRefreshGrains(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("refresh_grains", args, kwargs,
		execmod.Opt("refresh_pillar", true),
		execmod.Opt("clean_pillar_cache", false),
	); err != nil {
		return nil, err
	}
	grains.Refresh()
	g, err := grains.Collect(ctx.Opts)
	if err != nil {
		slog.Warn(fmt.Sprintf("Bad syntax in grains file! Skipping. (%s)", err))
	}
	ctx.Grains = g
	return true, nil
}

// saltutilSyncAll syncs every kind in Salt's order and returns one list
// per kind (and pillar, as under file_client: local).
func saltutilSyncAll(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	req, err := syncArgs("sync_all", ctx, args, kwargs)
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(len(syncKinds) + 1)
	changed := false
	for _, kind := range syncKinds {
		names, err := syncKind(ctx, kind, req)
		if err != nil {
			return nil, err
		}
		changed = changed || names.Len() > 0
		ret.Set(kind, names)
	}
	if v, _ := ctx.Opts.Get("file_client"); v == "local" {
		names, err := syncKind(ctx, "pillar", req)
		if err != nil {
			return nil, err
		}
		ret.Set("pillar", names)
	}
	if changed {
		if err := pyext.Reload(ctx, ""); err != nil {
			return nil, err
		}
	}
	return ret, nil
}

// The job functions of saltutil.py: running, is_running, find_job and the
// signal_job family. They read Salt's proc directory, cachedir/proc, where
// a minion keeps one file per running job (named by its jid, holding the
// job's data and the pid of the process running it; brine writes JSON).
// Under `brine call --local` the directory is usually empty: every
// function then finds nothing.

func init() {
	execmod.Register("saltutil.running", saltutilRunning,
		"Return the data of the jobs running on the minion (but not of the calling job).")
	execmod.Register("saltutil.is_running", saltutilIsRunning,
		"Return the data of the running jobs whose function matches the glob fun.")
	execmod.Register("saltutil.find_job", saltutilFindJob,
		"Return the data of the running job jid, or {} when it is not running.")
	execmod.Register("saltutil.signal_job", saltutilSignalJob,
		"Send signal sig to the process of job jid, its process group and every process it started.")
	execmod.Register("saltutil.term_job", saltutilTermJob,
		"Send SIGTERM (15) to job jid (see signal_job).")
	execmod.Register("saltutil.kill_job", saltutilKillJob,
		"Send SIGKILL (9) to job jid and to every process it started: none survives.")
	execmod.Register("saltutil.term_all_jobs", saltutilTermAllJobs,
		"Send SIGTERM (15) to every running job.")
	execmod.Register("saltutil.kill_all_jobs", saltutilKillAllJobs,
		"Send SIGKILL (9) to every running job.")
}

// procInMinionKey marks a proc file whose job runs inside the minion
// process itself (multiprocessing: False, or a job still waiting for a
// free slot). Such a job cannot be signalled without signalling the
// minion, so signal_job refuses; the key is not part of the job data
// returned. The minion writes it (fleet/minion keeps its own copy of the
// name, as the two packages do not import each other).
const procInMinionKey = "__brine_in_minion"

// procJob is one running job read from the proc directory.
type procJob struct {
	path     string
	data     *value.Map // the job data plus pid, as Salt returns it
	jid      string
	pid      int
	inMinion bool
}

// procDir is Salt's proc directory of the minion options opts.
func procDir(opts *value.Map) string {
	v, _ := opts.Get("cachedir")
	return filepath.Join(execmod.String(v), "proc")
}

// runningJobs reads the proc directory as Salt's salt.utils.minion.running
// does, in jid order: entries of dead processes, empty or unreadable ones
// are removed; the calling job (opts["jid"]) is left out.
func runningJobs(ctx *execmod.Context) []procJob {
	dir := procDir(ctx.Opts)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	self, _ := ctx.Opts.Get("jid")
	var out []procJob
	for _, e := range ents {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		j, ok := readProcFile(filepath.Join(dir, e.Name()))
		if !ok || (self != nil && j.jid == execmod.String(self)) {
			continue
		}
		out = append(out, j)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].jid < out[b].jid })
	return out
}

// readProcFile reads one proc file, as Salt's _read_proc_file: an empty
// file or one whose process is gone is removed, and so is one whose pid
// now belongs to a process started after the file was written (a pid
// reused by the system, which Salt detects by its command line).
func readProcFile(path string) (procJob, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return procJob{}, false
	}
	buf, err := os.ReadFile(path)
	if err != nil {
		return procJob{}, false
	}
	if len(bytes.TrimSpace(buf)) == 0 {
		_ = os.Remove(path)
		return procJob{}, false
	}
	v, err := value.FromJSON(buf)
	if err != nil {
		return procJob{}, false
	}
	data, ok := v.(*value.Map)
	if !ok {
		return procJob{}, false
	}
	pidv, _ := data.Get("pid")
	pid64, ok := pidv.(int64)
	if !ok || pid64 <= 0 {
		return procJob{}, false
	}
	pid := int(pid64)
	if !processAlive(pid) {
		_ = os.Remove(path)
		return procJob{}, false
	}
	if startedAfter(pid, st.ModTime()) {
		slog.Warn(fmt.Sprintf("PID %d exists but does not appear to be a brine job process.", pid))
		_ = os.Remove(path)
		return procJob{}, false
	}
	j := procJob{path: path, data: data, pid: pid}
	if m, has := data.Get(procInMinionKey); has {
		j.inMinion = value.Truthy(m)
		data = data.Copy()
		data.Delete(procInMinionKey)
		j.data = data
	}
	jv, _ := data.Get("jid")
	j.jid = execmod.String(jv)
	return j, true
}

// procStat is what /proc/<pid>/stat tells of a process.
type procStat struct {
	pid, ppid, pgid int
	state           byte
	start           uint64 // clock ticks after boot
}

// readStat parses /proc/<pid>/stat (the command name, in parentheses, may
// hold spaces and parentheses itself: the fields follow the last ')').
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || len(f[0]) == 0 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgid, err2 := strconv.Atoi(f[2])
	start, err3 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return procStat{}, false
	}
	return procStat{pid: pid, ppid: ppid, pgid: pgid, state: f[0][0], start: start}, true
}

// processAlive reports whether pid is a live process (a zombie is not).
func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if st, ok := readStat(pid); ok && (st.state == 'Z' || st.state == 'X') {
		return false
	}
	return true
}

// startedAfter reports whether process pid started clearly after t (so
// it cannot be the process a proc file written at t names). Without
// /proc it reports false.
func startedAfter(pid int, t time.Time) bool {
	st, ok := readStat(pid)
	if !ok {
		return false
	}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return false
	}
	var btime int64
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "btime "); ok {
			btime, _ = strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
		}
	}
	if btime == 0 {
		return false
	}
	const userHZ = 100 // USER_HZ, the unit of /proc/<pid>/stat times on Linux
	started := time.Unix(btime, 0).Add(time.Duration(st.start) * time.Second / userHZ)
	return started.After(t.Add(2 * time.Second)) // btime is rounded to the second
}

// saltutilRunning is saltutil.running: the data of every running job.
func saltutilRunning(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("running", args, kwargs); err != nil {
		return nil, err
	}
	out := value.NewList()
	for _, j := range runningJobs(ctx) {
		out.Append(j.data)
	}
	return out, nil
}

// saltutilIsRunning is saltutil.is_running: running jobs whose function
// matches the glob fun.
func saltutilIsRunning(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("is_running", args, kwargs, execmod.Req("fun"))
	if err != nil {
		return nil, err
	}
	pat := execmod.String(v[0])
	out := value.NewList()
	for _, j := range runningJobs(ctx) {
		f, _ := j.data.Get("fun")
		if ok, _ := path.Match(pat, execmod.String(f)); ok {
			out.Append(j.data)
		}
	}
	return out, nil
}

// saltutilFindJob is saltutil.find_job: the running job's data, or {}.
func saltutilFindJob(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("find_job", args, kwargs, execmod.Req("jid"))
	if err != nil {
		return nil, err
	}
	jid := execmod.String(v[0])
	for _, j := range runningJobs(ctx) {
		if j.jid == jid {
			return j.data, nil
		}
	}
	return value.NewMap(0), nil
}

func saltutilSignalJob(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("signal_job", args, kwargs, execmod.Req("jid"), execmod.Req("sig"))
	if err != nil {
		return nil, err
	}
	return signalJob(ctx, execmod.String(v[0]), v[1])
}

func saltutilTermJob(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("term_job", args, kwargs, execmod.Req("jid"))
	if err != nil {
		return nil, err
	}
	return signalJob(ctx, execmod.String(v[0]), int64(syscall.SIGTERM))
}

func saltutilKillJob(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("kill_job", args, kwargs, execmod.Req("jid"))
	if err != nil {
		return nil, err
	}
	return signalJob(ctx, execmod.String(v[0]), int64(syscall.SIGKILL))
}

func saltutilTermAllJobs(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("term_all_jobs", args, kwargs); err != nil {
		return nil, err
	}
	return signalAll(ctx, syscall.SIGTERM)
}

func saltutilKillAllJobs(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("kill_all_jobs", args, kwargs); err != nil {
		return nil, err
	}
	return signalAll(ctx, syscall.SIGKILL)
}

func signalAll(ctx *execmod.Context, sig syscall.Signal) (any, error) {
	out := value.NewList()
	for _, j := range runningJobs(ctx) {
		s, err := signalJob(ctx, j.jid, int64(sig))
		if err != nil {
			return nil, err
		}
		out.Append(s)
	}
	return out, nil
}

// signalNumber converts signal_job's sig as Python's os.kill takes it: an
// integer (a string of digits, as a command line may pass it, too).
func signalNumber(v any) (syscall.Signal, error) {
	switch x := v.(type) {
	case int64:
		if x >= 0 && x < 65 {
			return syscall.Signal(x), nil
		}
		return 0, &execmod.CommandExecutionError{Msg: "[Errno 22] Invalid argument"}
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case string:
		if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return signalNumber(n)
		}
	}
	return 0, &execmod.InvocationError{Msg: fmt.Sprintf("'%s' object cannot be interpreted as an integer", value.TypeName(v))}
}

// signalJob is Salt's signal_job: "" when no running job has that jid, a
// clean-up message when its process is gone, else the signal is sent to
// the job's process, its process group and its descendants.
func signalJob(ctx *execmod.Context, jid string, sigv any) (any, error) {
	for _, j := range runningJobs(ctx) {
		if j.jid != jid {
			continue
		}
		sig, err := signalNumber(sigv)
		if err != nil {
			return nil, err
		}
		if j.inMinion || j.pid == os.Getpid() {
			return fmt.Sprintf("Job %s runs inside the minion process (multiprocessing: False, or waiting for a free job slot); it was not signalled", jid), nil
		}
		if err := signalTree(j.pid, sig); err != nil {
			_ = os.Remove(j.path)
			return fmt.Sprintf("Job %s was not running and job data has been cleaned up", jid), nil
		}
		return fmt.Sprintf("Signal %d sent to job %s at pid %d", int(sig), jid, j.pid), nil
	}
	return "", nil
}

// signalTree sends sig to process pid, to the members of its process
// group and to all its descendants (found through /proc parent links).
// So that none of them can fork away while the tree is walked, each is
// stopped (SIGSTOP) as soon as it is found and the walk repeats until it
// finds nothing new; then all get sig, and SIGCONT unless sig kills or
// stops them. A daemon that left with setsid and was reparented to init
// is neither in the group nor a descendant: it is not the job's any more.
// The calling process and its own group are never signalled.
func signalTree(pid int, sig syscall.Signal) error {
	if sig == 0 {
		return syscall.Kill(pid, 0)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return err
	}
	self := os.Getpid()
	selfPgid, _ := syscall.Getpgid(self)
	pgid := 0
	if st, ok := readStat(pid); ok && st.pgid != selfPgid && st.pgid > 1 {
		pgid = st.pgid
	}
	tree := map[int]bool{pid: true}
	for round := 0; round < 100; round++ {
		found := false
		for _, st := range allStats() {
			if tree[st.pid] || st.pid == self {
				continue
			}
			if (pgid != 0 && st.pgid == pgid) || tree[st.ppid] {
				tree[st.pid] = true
				found = true
				_ = syscall.Kill(st.pid, syscall.SIGSTOP)
			}
		}
		if !found {
			break
		}
	}
	for p := range tree {
		_ = syscall.Kill(p, sig)
	}
	switch sig {
	case syscall.SIGKILL, syscall.SIGSTOP, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU:
	default:
		for p := range tree {
			_ = syscall.Kill(p, syscall.SIGCONT)
		}
	}
	return nil
}

// allStats reads /proc/<pid>/stat of every process.
func allStats() []procStat {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make([]procStat, 0, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok {
			out = append(out, st)
		}
	}
	return out
}

func init() {
	execmod.Register("saltutil.pillar_refresh", saltutilRefreshPillar, "Alias of saltutil.refresh_pillar.")
	execmod.Register("saltutil.sync_outputters", func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		return ctx.Call("saltutil.sync_output", args, kwargs)
	}, "Alias of saltutil.sync_output.")
	execmod.Register("saltutil.refresh_beacons", saltutilFire("refresh_beacons", "beacons_refresh"), "Ask the minion to reload its beacons (the beacons_refresh event); whether the event could be fired.")
	execmod.Register("saltutil.refresh_matchers", saltutilFire("refresh_matchers", "matchers_refresh"), "Ask the minion to reload its matchers (the matchers_refresh event); whether the event could be fired.")
	execmod.Register("saltutil.list_extmods", saltutilListExtmods, "Return the custom modules in the extension module cache, by kind.")
	execmod.Register("saltutil.clear_cache", saltutilClearCache, "Remove every file of the minion cache (cachedir); True.")
	execmod.Register("saltutil.clear_job_cache", saltutilClearJobCache, "Remove the cached jobs (cachedir/minion_jobs) older than hours (24); True.")
	execmod.Register("saltutil.find_cached_job", saltutilFindCachedJob, "Return the cached return of job jid (cache_jobs), or a message when there is none.")
}

func saltutilFire(fun, tag string) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		if _, _, err := execmod.Bind(fun, args, kwargs); err != nil {
			return nil, err
		}
		return ctx.Call("event.fire", []any{value.NewMap(0), tag}, nil)
	}
}

func saltutilCachedir(ctx *execmod.Context) string {
	d, _ := ctx.Opts.GetString("cachedir")
	return execmod.String(d)
}

func saltutilListExtmods(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("list_extmods", args, kwargs); err != nil {
		return nil, err
	}
	dir := filepath.Join(saltutilCachedir(ctx), "extmods")
	kinds, err := os.ReadDir(dir)
	if err != nil {
		return nil, execmod.Errorf("[Errno 2] No such file or directory: '%s'", dir)
	}
	ret := value.NewMap(0)
	for _, k := range kinds {
		names := map[string]bool{}
		filepath.WalkDir(filepath.Join(dir, k.Name()), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				n, _, _ := strings.Cut(d.Name(), ".")
				names[n] = true
			}
			return nil
		})
		ret.Set(k.Name(), sysStrList(kmodSorted(names)))
	}
	return ret, nil
}

func saltutilClearCache(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("clear_cache", args, kwargs); err != nil {
		return nil, err
	}
	ok := true
	filepath.WalkDir(saltutilCachedir(ctx), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if err := os.Remove(p); err != nil {
			slog.Error(fmt.Sprintf("Attempt to clear cache with saltutil.clear_cache FAILED with: %s", err))
			ok = false
			return filepath.SkipAll
		}
		return nil
	})
	return ok, nil
}

func saltutilClearJobCache(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("clear_job_cache", args, kwargs, execmod.Opt("hours", int64(24)))
	if err != nil {
		return nil, err
	}
	threshold := time.Now().Add(-time.Duration(value.ToFloat(v[0]) * float64(time.Hour)))
	root := filepath.Join(saltutilCachedir(ctx), "minion_jobs")
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		info, err := e.Info()
		if err == nil && info.ModTime().Before(threshold) {
			if err := os.RemoveAll(filepath.Join(root, e.Name())); err != nil {
				slog.Error(fmt.Sprintf("Attempt to clear cache with saltutil.clear_job_cache FAILED with: %s", err))
				return false, nil
			}
		}
	}
	return true, nil
}

func saltutilFindCachedJob(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("find_cached_job", args, kwargs, execmod.Req("jid"))
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(saltutilCachedir(ctx), "minion_jobs", value.Str(v[0]))
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		if cj, _ := ctx.Opts.GetString("cache_jobs"); !value.Truthy(cj) {
			return "Local jobs cache directory not found; you may need to enable cache_jobs on this minion", nil
		}
		return "Local jobs cache directory " + dir + " not found", nil
	}
	buf, err := os.ReadFile(filepath.Join(dir, "return.p"))
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	if len(buf) > 0 {
		if data, _, err := msgpackDecode(buf, 0); err == nil {
			if m, ok := data.(*value.Map); ok {
				return m, nil
			}
		}
	}
	return nil, nil
}
