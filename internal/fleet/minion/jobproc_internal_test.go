package minion

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nkeys"

	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// TestJobProcessWithoutReturn: a job process that ends without writing a
// return gives a failed return that says how it ended.
func TestJobProcessWithoutReturn(t *testing.T) {
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	tests := []struct {
		name, script, want string
	}{
		{"exit", "cat >/dev/null; echo 'something broke' >&2; exit 3", "ended without a return (exit status 3): something broke"},
		{"panic", "cat >/dev/null; printf 'panic: oops\\n\\ngoroutine 1\\n' >&2; exit 2", "ended without a return (exit status 2): panic: oops"},
		{"garbage", "cat >/dev/null; echo '{not json'", "ended without a return (exited)"},
		{"killed", "cat >/dev/null; kill -9 $$", "was terminated by signal 9 (SIGKILL) before it returned"},
		{"terminated", "cat >/dev/null; kill -15 $$", "was terminated by signal 15 (SIGTERM) before it returned"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := New(Options{
				Opts:       value.MapOf("id", "x1", "cachedir", cache),
				Key:        kp,
				Log:        slog.New(slog.NewTextHandler(io.Discard, nil)),
				JobProcess: []string{"/bin/sh", "-c", tt.script},
			})
			if err != nil {
				t.Fatal(err)
			}
			// A fixed jid: proto.NewJID would move the process's jid
			// clock past the times other tests give it.
			job := proto.Job{JID: fmt.Sprintf("2026112512000000%04d", i), Fun: "test.ping", Arg: proto.ValueJSON{V: value.NewList()}}
			ret := m.runProcess(&Session{Opts: m.o.Opts, Grains: value.NewMap(0)}, job)
			got := value.Str(ret.Return.V)
			if ret.Retcode != 1 || ret.Success || ret.JID != job.JID || ret.ID != "x1" || !strings.Contains(got, tt.want) {
				t.Errorf("return %q (retcode %d, jid %s, id %s), want %q", got, ret.Retcode, ret.JID, ret.ID, tt.want)
			}
			if _, err := os.Stat(filepath.Join(cache, "proc", job.JID)); !os.IsNotExist(err) {
				t.Errorf("proc file left: %v", err)
			}
		})
	}
}

func TestProcFiles(t *testing.T) {
	cache := t.TempDir()
	job := proto.Job{JID: "20261125120000000001", Fun: "test.arg", Tgt: "web*", TgtType: "glob", User: "root",
		Arg: proto.ValueJSON{V: value.NewList("a")}, Kwarg: proto.ValueJSON{V: value.MapOf("k", "v")}}
	if err := writeProc(cache, job, 42, false); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(cache, "proc", job.JID))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"arg": ["a", {"k": "v", "__kwarg__": true}], "fun": "test.arg", "jid": "20261125120000000001", "pid": 42, "ret": "", "tgt": "web*", "tgt_type": "glob", "user": "root"}`
	if string(b) != want {
		t.Errorf("proc file:\n%s\nwant\n%s", b, want)
	}
	if n := len(job.Arg.List()); n != 1 {
		t.Errorf("writeProc changed the job's args: %d", n)
	}
	// A starting minion drops the files of jobs its previous run ran
	// itself, and keeps those of job processes.
	inMinion := job
	inMinion.JID = "20261125120000000002"
	if err := writeProc(cache, inMinion, 43, true); err != nil {
		t.Fatal(err)
	}
	cleanProcs(cache)
	if _, err := os.Stat(filepath.Join(cache, "proc", inMinion.JID)); !os.IsNotExist(err) {
		t.Errorf("in-minion proc file kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cache, "proc", job.JID)); err != nil {
		t.Errorf("job process proc file removed: %v", err)
	}
	removeProc(cache, job.JID)
	if ents, _ := os.ReadDir(filepath.Join(cache, "proc")); len(ents) != 0 {
		t.Errorf("left: %v", ents)
	}
}
