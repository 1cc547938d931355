package modules

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"brine/internal/execmod"
	"brine/internal/value"
)

// jobContext is a run whose cachedir is a fresh directory; jid is the
// calling job ("" for none).
func jobContext(t *testing.T, jid string) (*execmod.Context, string) {
	t.Helper()
	ctx := testContext()
	cache := t.TempDir()
	ctx.Opts = value.MapOf("id", "m1", "cachedir", cache)
	if jid != "" {
		ctx.Opts.Set("jid", jid)
	}
	return ctx, filepath.Join(cache, "proc")
}

// writeProcFile writes a proc file as a minion does.
func writeProcFile(t *testing.T, dir, jid string, pid int, extra ...any) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	data := value.MapOf("arg", value.NewList(int64(30)), "fun", "test.sleep", "jid", jid, "pid", int64(pid),
		"ret", "", "tgt", "m1", "tgt_type", "glob", "user", "root")
	for i := 0; i+1 < len(extra); i += 2 {
		data.Set(extra[i], extra[i+1])
	}
	p := filepath.Join(dir, jid)
	if err := os.WriteFile(p, []byte(value.ToJSON(data, value.JSONOptions{Indent: -1})), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// startJob starts sh -c script in a process group of its own, as a
// minion starts a job process, and reaps it when the test ends.
func startJob(t *testing.T, script string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	return cmd
}

// deadPid returns the pid of a process that has exited.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("/bin/true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestProcDirReading(t *testing.T) {
	live := startJob(t, "sleep 60").Process.Pid
	type file struct {
		jid   string
		pid   int
		raw   string        // written as is when set
		age   time.Duration // file mtime in the past
		extra []any
	}
	tests := []struct {
		name    string
		self    string
		files   []file
		running []string // jids listed
		kept    []string // files left in the proc dir
	}{
		{name: "no proc dir"},
		{name: "live job", files: []file{{jid: "20260101000000000001", pid: live}},
			running: []string{"20260101000000000001"}, kept: []string{"20260101000000000001"}},
		{name: "dead pid removed", files: []file{{jid: "20260101000000000002", pid: deadPid(t)}}},
		{name: "empty file removed", files: []file{{jid: "20260101000000000003", raw: " "}}},
		{name: "not a mapping ignored", files: []file{{jid: "20260101000000000004", raw: "[1]"}},
			kept: []string{"20260101000000000004"}},
		{name: "pid reused since removed", files: []file{{jid: "20260101000000000005", pid: live, age: time.Hour}}},
		{name: "calling job left out", self: "20260101000000000006",
			files:   []file{{jid: "20260101000000000006", pid: live}, {jid: "20260101000000000007", pid: live}},
			running: []string{"20260101000000000007"}, kept: []string{"20260101000000000006", "20260101000000000007"}},
		{name: "in-minion marker hidden", files: []file{{jid: "20260101000000000008", pid: os.Getpid(), extra: []any{procInMinionKey, true}}},
			running: []string{"20260101000000000008"}, kept: []string{"20260101000000000008"}},
		{name: "sorted by jid", files: []file{{jid: "20260101000000000010", pid: live}, {jid: "20260101000000000009", pid: live}},
			running: []string{"20260101000000000009", "20260101000000000010"}, kept: []string{"20260101000000000009", "20260101000000000010"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, dir := jobContext(t, tt.self)
			for _, f := range tt.files {
				p := filepath.Join(dir, f.jid)
				if f.raw != "" {
					_ = os.MkdirAll(dir, 0o700)
					if err := os.WriteFile(p, []byte(f.raw), 0o600); err != nil {
						t.Fatal(err)
					}
				} else {
					writeProcFile(t, dir, f.jid, f.pid, f.extra...)
				}
				if f.age > 0 {
					old := time.Now().Add(-f.age)
					_ = os.Chtimes(p, old, old)
				}
			}
			got := call(t, ctx, "saltutil.running", nil).(*value.List)
			var jids []string
			for _, d := range got.Items {
				m := d.(*value.Map)
				if _, has := m.Get(procInMinionKey); has {
					t.Errorf("running shows the in-minion marker: %s", value.Repr(m))
				}
				jid, _ := m.Get("jid")
				jids = append(jids, jid.(string))
			}
			if fmt.Sprint(jids) != fmt.Sprint(tt.running) {
				t.Errorf("running jids = %v, want %v", jids, tt.running)
			}
			ents, _ := os.ReadDir(dir)
			var kept []string
			for _, e := range ents {
				kept = append(kept, e.Name())
			}
			if fmt.Sprint(kept) != fmt.Sprint(tt.kept) {
				t.Errorf("proc dir = %v, want %v", kept, tt.kept)
			}
		})
	}
}

func TestFindJobAndIsRunning(t *testing.T) {
	live := startJob(t, "sleep 60").Process.Pid
	ctx, dir := jobContext(t, "")
	writeProcFile(t, dir, "20260101000000000001", live)
	tests := []struct {
		fun  string
		args []any
		want string
	}{
		{"saltutil.find_job", []any{"20260101000000000001"}, fmt.Sprintf("{'arg': [30], 'fun': 'test.sleep', 'jid': '20260101000000000001', 'pid': %d, 'ret': '', 'tgt': 'm1', 'tgt_type': 'glob', 'user': 'root'}", live)},
		{"saltutil.find_job", []any{"20260101000000000002"}, "{}"},
		{"saltutil.is_running", []any{"test.*"}, fmt.Sprintf("[{'arg': [30], 'fun': 'test.sleep', 'jid': '20260101000000000001', 'pid': %d, 'ret': '', 'tgt': 'm1', 'tgt_type': 'glob', 'user': 'root'}]", live)},
		{"saltutil.is_running", []any{"state.*"}, "[]"},
		{"saltutil.kill_job", []any{"20260101000000000002"}, "''"},
		{"saltutil.term_job", []any{"20260101000000000002"}, "''"},
		{"saltutil.signal_job", []any{"20260101000000000002", int64(1)}, "''"},
	}
	for _, tt := range tests {
		t.Run(tt.fun, func(t *testing.T) {
			if got := value.Repr(call(t, ctx, tt.fun, tt.args)); got != tt.want {
				t.Errorf("%s%v = %s, want %s", tt.fun, tt.args, got, tt.want)
			}
		})
	}
	// Under brine call --local, with nothing in the proc dir.
	local, _ := jobContext(t, "")
	for _, fun := range []string{"saltutil.running", "saltutil.kill_all_jobs", "saltutil.term_all_jobs"} {
		if got := value.Repr(call(t, local, fun, nil)); got != "[]" {
			t.Errorf("%s = %s, want []", fun, got)
		}
	}
}

// pidAlive reports whether pid is a live process (not a zombie).
func pidAlive(pid int) bool {
	return processAlive(pid)
}

// readPids reads the pids a job script wrote to file, one a line.
func readPids(t *testing.T, file string, n int) []int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(file)
		var pids []int
		for _, f := range strings.Fields(string(b)) {
			if p, err := strconv.Atoi(f); err == nil {
				pids = append(pids, p)
			}
		}
		if len(pids) >= n {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %q, want %d pids", file, b, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSignalJob(t *testing.T) {
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	daemon := filepath.Join(dir, "daemon")
	// A child, a grandchild in a group of its own, and a daemon that left
	// with setsid and was reparented (its parent shell exits) before the
	// kill: it is not the job's any more.
	script := fmt.Sprintf(`sleep 60 & echo $! >> %[1]s
sh -c 'setsid sleep 60 & echo $! > %[2]s'
setsid sh -c 'sleep 60 & echo $! >> %[1]s; wait' & echo $! >> %[1]s
sleep 60`, pids, daemon)
	tests := []struct {
		name string
		fun  string
		args []any
		want string // %s: jid, %d: pid
	}{
		{"kill_job", "saltutil.kill_job", nil, "Signal 9 sent to job %s at pid %d"},
		{"term_job", "saltutil.term_job", nil, "Signal 15 sent to job %s at pid %d"},
		{"signal_job", "saltutil.signal_job", []any{int64(15)}, "Signal 15 sent to job %s at pid %d"},
		{"signal_job string", "saltutil.signal_job", []any{"9"}, "Signal 9 sent to job %s at pid %d"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_ = os.Remove(pids)
			_ = os.Remove(daemon)
			job := startJob(t, script)
			jid := fmt.Sprintf("202601010000000001%02d", i)
			ctx, pdir := jobContext(t, "")
			writeProcFile(t, pdir, jid, job.Process.Pid)
			tree := append(readPids(t, pids, 3), job.Process.Pid)
			dpid := readPids(t, daemon, 1)[0]
			t.Cleanup(func() { _ = syscall.Kill(dpid, syscall.SIGKILL) })

			got := call(t, ctx, tt.fun, append([]any{jid}, tt.args...))
			if want := fmt.Sprintf(tt.want, jid, job.Process.Pid); got != want {
				t.Fatalf("%s = %v, want %q", tt.fun, got, want)
			}
			_ = job.Wait()
			deadline := time.Now().Add(10 * time.Second)
			for _, p := range tree {
				for pidAlive(p) && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if pidAlive(p) {
					t.Errorf("pid %d alive after %s", p, tt.fun)
				}
			}
			if !pidAlive(dpid) {
				t.Errorf("the daemon that left the job (pid %d) was signalled", dpid)
			}
			if got := value.Repr(call(t, ctx, "saltutil.find_job", []any{jid})); got != "{}" {
				t.Errorf("find_job after %s = %s", tt.fun, got)
			}
		})
	}
}

func TestSignalJobRefusals(t *testing.T) {
	live := startJob(t, "sleep 60").Process.Pid
	ctx, dir := jobContext(t, "")
	writeProcFile(t, dir, "20260101000000000001", live)
	writeProcFile(t, dir, "20260101000000000002", os.Getpid(), procInMinionKey, true)
	got := call(t, ctx, "saltutil.kill_job", []any{"20260101000000000002"})
	if want := "Job 20260101000000000002 runs inside the minion process (multiprocessing: False, or waiting for a free job slot); it was not signalled"; got != want {
		t.Errorf("kill_job of an in-minion job = %v", got)
	}
	_, err := ctx.Call("saltutil.signal_job", []any{"20260101000000000001", "TERM"}, nil)
	var inv *execmod.InvocationError
	if !errors.As(err, &inv) || inv.Msg != "'str' object cannot be interpreted as an integer" {
		t.Errorf("signal_job with a name: %v", err)
	}
	if _, err := ctx.Call("saltutil.kill_job", nil, nil); err == nil {
		t.Errorf("kill_job without a jid: no error")
	}
	if !pidAlive(live) {
		t.Errorf("the job was signalled")
	}
}

// fakeMinion is a minion's pillar refresh service.
type fakeMinion struct {
	n   int
	err error
}

func (f *fakeMinion) RefreshPillar() error { f.n++; return f.err }

func TestRefreshPillarService(t *testing.T) {
	tests := []struct {
		name  string
		svc   *fakeMinion
		want  any
		calls int
	}{
		{"local run", nil, false, 0},
		{"minion job", &fakeMinion{}, true, 1},
		{"refresh failed", &fakeMinion{err: errors.New("master away")}, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext()
			if tt.svc != nil {
				ctx.SetService(pillarRefreshService, tt.svc)
			}
			if got := call(t, ctx, "saltutil.refresh_pillar", nil, "wait", true); got != tt.want {
				t.Errorf("refresh_pillar = %v, want %v", got, tt.want)
			}
			if tt.svc != nil && tt.svc.n != tt.calls {
				t.Errorf("refreshes = %d, want %d", tt.svc.n, tt.calls)
			}
		})
	}
}

func TestTestSleep(t *testing.T) {
	ctx := testContext()
	for _, arg := range []any{int64(0), "0", 0.4, false} {
		if got := call(t, ctx, "test.sleep", []any{arg}); got != true {
			t.Errorf("test.sleep %v = %v", arg, got)
		}
	}
	for _, arg := range []any{"soon", value.NewList(), int64(-1)} {
		if _, err := ctx.Call("test.sleep", []any{arg}, nil); err == nil {
			t.Errorf("test.sleep %v: no error", arg)
		}
	}
}

func TestSaltutilCaches(t *testing.T) {
	ctx := testContext()
	dir := t.TempDir()
	ctx.Opts.Set("cachedir", dir)
	writeTree(t, dir, map[string]string{
		"extmods/modules/foo.py": "", "extmods/modules/bar.pyc": "", "extmods/states/baz.py": "",
		"minion_jobs/old/return.p": "", "minion_jobs/new/return.p": "", "files/base/top.sls": "x",
	})
	old := time.Now().Add(-48 * time.Hour)
	os.Chtimes(filepath.Join(dir, "minion_jobs/old"), old, old)
	ret, err := msgpackEncode(nil, value.MapOf("fun", "test.ping", "return", true))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "minion_jobs/new/return.p"), ret, 0o644)
	for _, tc := range []struct {
		fun  string
		args []any
		want string
	}{
		{"saltutil.list_extmods", nil, "{'modules': ['bar', 'foo'], 'states': ['baz']}"},
		{"saltutil.find_cached_job", []any{"new"}, "{'fun': 'test.ping', 'return': True}"},
		{"saltutil.find_cached_job", []any{"none"}, "'Local jobs cache directory not found; you may need to enable cache_jobs on this minion'"},
		{"saltutil.clear_job_cache", nil, "True"},
		{"saltutil.find_cached_job", []any{"old"}, "'Local jobs cache directory not found; you may need to enable cache_jobs on this minion'"},
		{"saltutil.find_cached_job", []any{"new"}, "{'fun': 'test.ping', 'return': True}"},
		{"saltutil.refresh_matchers", nil, "False"},
		{"saltutil.refresh_beacons", nil, "False"},
		{"saltutil.pillar_refresh", nil, "False"},
		{"saltutil.clear_cache", nil, "True"},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, tc.args)); got != tc.want {
			t.Errorf("%s%v = %s, want %s", tc.fun, tc.args, got, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "files/base/top.sls")); !os.IsNotExist(err) {
		t.Errorf("clear_cache left files: %v", err)
	}
}
