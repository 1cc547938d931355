package minion_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"brine/internal/fleet/master"
	"brine/internal/fleet/minion"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// jobFlag makes the test binary a job process, as `brine minion
// --run-job` is one.
const jobFlag = "--brine-test-run-job"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == jobFlag {
		os.Exit(minion.RunJobProcess())
	}
	os.Exit(m.Run())
}

// startProcMinion runs minion id with each job in a job process (this
// test binary) and at most parallel jobs at once.
func startProcMinion(t *testing.T, m *master.Master, mdir, id string, parallel int) *value.Map {
	t.Helper()
	opts := minionOpts(t, m, mdir, id)
	ready := make(chan struct{})
	var once sync.Once
	mn, err := minion.New(minion.Options{Opts: opts, Log: logger(t), Parallel: parallel,
		JobProcess: []string{os.Args[0], jobFlag},
		Ready:      func() { once.Do(func() { close(ready) }) }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mn.Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		t.Fatal("minion not ready after 60s")
	}
	return opts
}

// TestJobProcesses runs jobs in job processes: plain functions, a
// pillar refresh reaching the minion's in-memory pillar, and job control
// (find_job, kill_job) while the only slot is taken.
func TestJobProcesses(t *testing.T) {
	m, dir := startMaster(t, nil)
	pillarDir := filepath.Join(dir, "srv", "pillar")
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(pillarDir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("top.sls", "base:\n  '*': [p]\n")
	write("p.sls", "color: red\n")
	startProcMinion(t, m, dir, "p1", 1)
	c := adminClient(t, m)
	one := func(fun string, args ...any) proto.Return {
		t.Helper()
		return returns(t, c, publish(t, c, "p1", fun, args...), "p1")["p1"]
	}

	if r := one("test.arg", "a", int64(1)); !strings.HasPrefix(value.Repr(r.Return.V), "{'args': ['a', 1], 'kwargs': {'__pub_user'") || r.Retcode != 0 {
		t.Errorf("test.arg: %s (retcode %d)", value.Repr(r.Return.V), r.Retcode)
	}
	if r := one("no.such"); r.Retcode == 0 || !strings.Contains(value.Str(r.Return.V), "'no.such' is not available.") {
		t.Errorf("no.such: %v", r.Return.V)
	}
	if r := one("pillar.get", "color"); r.Return.V != "red" {
		t.Errorf("pillar.get color = %v", r.Return.V)
	}
	write("p.sls", "color: blue\n")
	if r := one("saltutil.refresh_pillar"); r.Return.V != true {
		t.Errorf("refresh_pillar = %v", r.Return.V)
	}
	if r := one("pillar.get", "color"); r.Return.V != "blue" {
		t.Errorf("pillar.get color after a refresh = %v", r.Return.V)
	}

	// The only slot is taken; job control still answers.
	sleep := publish(t, c, "p1", "test.sleep", int64(120))
	var data *value.Map
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := one("saltutil.find_job", sleep)
		if d, ok := r.Return.V.(*value.Map); ok && d.Len() > 0 {
			if pid, _ := d.Get("pid"); pid != int64(os.Getpid()) {
				data = d
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("test.sleep never ran in a job process: %v", r.Return.V)
		}
		time.Sleep(50 * time.Millisecond)
	}
	pid, _ := data.Get("pid")
	r := one("saltutil.kill_job", sleep)
	if want := "Signal 9 sent to job " + sleep + " at pid " + value.Str(pid); r.Return.V != want {
		t.Fatalf("kill_job = %v, want %q", r.Return.V, want)
	}
	killed := returns(t, c, sleep, "p1")["p1"]
	if killed.Retcode != 1 || !strings.Contains(value.Str(killed.Return.V), "signal 9 (SIGKILL)") {
		t.Errorf("killed job's return: %v (retcode %d)", killed.Return.V, killed.Retcode)
	}
	if r := one("saltutil.find_job", sleep); value.Repr(r.Return.V) != "{}" {
		t.Errorf("find_job after kill_job = %s", value.Repr(r.Return.V))
	}
}

// TestInMinionJobs: with no job process (multiprocessing: False) jobs
// run in the minion; they are found but not signalled (that would
// signal the minion), and a pillar refresh reaches the minion too.
func TestInMinionJobs(t *testing.T) {
	m, dir := startMaster(t, nil)
	pillarDir := filepath.Join(dir, "srv", "pillar")
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(pillarDir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("top.sls", "base:\n  '*': [p]\n")
	write("p.sls", "color: red\n")
	startMinions(t, m, dir, []string{"i1"}, nil)
	c := adminClient(t, m)
	one := func(fun string, args ...any) proto.Return {
		t.Helper()
		return returns(t, c, publish(t, c, "i1", fun, args...), "i1")["i1"]
	}
	write("p.sls", "color: blue\n")
	if r := one("pillar.get", "color"); r.Return.V != "red" {
		t.Errorf("pillar.get color = %v", r.Return.V)
	}
	if r := one("saltutil.refresh_pillar"); r.Return.V != true {
		t.Errorf("refresh_pillar = %v", r.Return.V)
	}
	if r := one("pillar.get", "color"); r.Return.V != "blue" {
		t.Errorf("pillar.get color after a refresh = %v", r.Return.V)
	}

	sleep := publish(t, c, "i1", "test.sleep", int64(4))
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := one("saltutil.find_job", sleep)
		if d, ok := r.Return.V.(*value.Map); ok && d.Len() > 0 {
			if pid, _ := d.Get("pid"); pid != int64(os.Getpid()) {
				t.Errorf("in-minion job's pid = %v, want the minion's %d", pid, os.Getpid())
			}
			if _, has := d.Get("__brine_in_minion"); has {
				t.Errorf("find_job shows the in-minion marker: %s", value.Repr(d))
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("test.sleep never found: %v", r.Return.V)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := one("saltutil.kill_job", sleep); !strings.Contains(value.Str(r.Return.V), "it was not signalled") {
		t.Errorf("kill_job of an in-minion job = %v", r.Return.V)
	}
	if r := returns(t, c, sleep, "i1")["i1"]; r.Return.V != true {
		t.Errorf("test.sleep = %v", r.Return.V)
	}
}
