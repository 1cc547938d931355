package states_test

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"brine/internal/engine"
	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

// atTagged lists the queued at jobs whose script carries Salt's tag line.
func atTagged(t *testing.T, tag string) []string {
	t.Helper()
	out, err := exec.Command("atq").Output()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if id, _, ok := strings.Cut(line, "\t"); ok {
			if script, _ := exec.Command("at", "-c", id).Output(); strings.Contains(string(script), "\n### SALT: "+tag+"\n") {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// atRet is the {name, changes, result, comment} of a state return, with
// the job number of changes replaced by N.
func atRet(m *value.Map) string {
	out := value.NewMap(4)
	for _, k := range []string{"name", "changes", "result", "comment"} {
		v, _ := m.Get(k)
		if ch, ok := v.(*value.Map); ok && ch.Has("job") {
			ch = ch.Copy()
			ch.Set("job", "N")
			v = ch
		}
		out.Set(k, v)
	}
	return value.Repr(out)
}

// TestAtStates queues and removes real jobs years ahead (tagged for this
// test only). The comments are Salt 3006's, as it answered the same
// states on this machine.
func TestAtStates(t *testing.T) {
	for _, c := range []string{"at", "atq"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("%s not installed", c)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to use at(1)")
	}
	tag := "brinest" + strconv.Itoa(os.Getpid())
	t.Cleanup(func() {
		if ids := atTagged(t, tag); len(ids) > 0 {
			_ = exec.Command("at", append([]string{"-d"}, ids...)...).Run()
		}
	})
	ctx := execmod.NewContext()
	ctx.Grains = value.MapOf("os", "Debian", "os_family", "Debian")
	job := "{'job': 'N', 'date': '2040-12-25', 'time': '10:00:00', 'queue': 'a', 'user': 'root', 'tag': '" + tag + "'}"
	for _, tc := range []struct {
		fun  string
		args []any
		test bool
		want string
	}{
		{"at.present", []any{"name", "echo hi", "timespec", "10:00 12/25/2040", "tag", tag}, true,
			"{'name': 'echo hi', 'changes': {}, 'result': None, 'comment': 'job echo hi added and will run on 10:00 12/25/2040'}"},
		{"at.present", []any{"name", "first", "job", "echo hi", "timespec", "10:00 12/25/2040", "tag", tag, "user", "root"}, false,
			"{'name': 'first', 'changes': " + job + ", 'result': True, 'comment': 'job echo hi added and will run as root on 10:00 12/25/2040'}"},
		{"at.present", []any{"name", "echo again", "timespec", "10:00 12/25/2040", "tag", tag, "unique_tag", true}, false,
			"{'name': 'echo again', 'changes': {}, 'result': True, 'comment': 'atleast one job with tag " + tag + " exists.'}"},
		{"at.present", []any{"name", "echo again", "timespec", "10:00 12/25/2040", "unique_tag", true}, false,
			"{'name': 'echo again', 'changes': {}, 'result': False, 'comment': 'no tag provided and unique_tag is set to True'}"},
		{"at.present", []any{"name", "echo bad", "timespec", "garbage", "tag", tag}, false,
			"{'name': 'echo bad', 'changes': {}, 'result': False, 'comment': 'invalid timespec'}"},
		{"at.present", []any{"name", "echo x", "timespec", "10:00 12/25/2040", "user", "brine-no-such-user"}, false,
			"{'name': 'echo x', 'changes': {}, 'result': False, 'comment': 'user brine-no-such-user does not exists'}"},
		{"at.present", []any{"name", "echo second", "timespec", "10:00 12/25/2040", "tag", tag}, false,
			"{'name': 'echo second', 'changes': " + job + ", 'result': True, 'comment': 'job echo second added and will run on 10:00 12/25/2040'}"},
		{"at.watch", []any{"name", "echo w", "timespec", "10:00 12/25/2040", "tag", tag}, false,
			"{'name': 'echo w', 'changes': {}, 'result': True, 'comment': ''}"},
		{"at.absent", []any{"name", "gone", "tag", tag}, true,
			"{'name': 'gone', 'changes': {}, 'result': None, 'comment': 'removed ? job(s)'}"},
		{"at.absent", []any{"name", "lim", "limit", int64(3)}, false,
			"{'name': 'lim', 'changes': {}, 'result': False, 'comment': 'limit parameter not supported lim'}"},
		{"at.absent", []any{"name", "nojob", "jobid", int64(987654321)}, false,
			"{'name': 'nojob', 'changes': {}, 'result': True, 'comment': 'job with id 987654321 not present'}"},
		{"at.absent", []any{"name", "none", "tag", "brine_no_such_tag"}, false,
			"{'name': 'none', 'changes': {}, 'result': True, 'comment': 'removed 0 job(s)'}"},
	} {
		got := atRet(sysRun(t, ctx, tc.fun, value.MapOf(tc.args...), tc.test))
		if got != tc.want {
			t.Errorf("%s %v (test=%v):\n got %s\nwant %s", tc.fun, tc.args, tc.test, got, tc.want)
		}
	}

	ids := atTagged(t, tag)
	if len(ids) != 2 {
		t.Fatalf("jobs tagged %s: %v, want 2", tag, ids)
	}
	// A jobid from YAML is an integer and Salt looks for it among the
	// removed job numbers, which are strings: the job goes, the result is
	// False. A jobid string is compared with the tags only.
	n, _ := strconv.ParseInt(ids[0], 10, 64)
	if got, want := atRet(sysRun(t, ctx, "at.absent", value.MapOf("name", "byid", "jobid", ids[1]), false)),
		"{'name': 'byid', 'changes': {}, 'result': True, 'comment': 'job with id "+ids[1]+" not present'}"; got != want {
		t.Errorf("at.absent jobid '%s':\n got %s\nwant %s", ids[1], got, want)
	}
	if got, want := atRet(sysRun(t, ctx, "at.absent", value.MapOf("name", "byid", "jobid", n), false)),
		"{'name': 'byid', 'changes': {'removed': ['"+ids[0]+"']}, 'result': False, 'comment': 'failed to remove job with id "+ids[0]+"'}"; got != want {
		t.Errorf("at.absent jobid %d:\n got %s\nwant %s", n, got, want)
	}
	if got, want := atRet(sysRun(t, ctx, "at.absent", value.MapOf("name", "bytag", "tag", tag), false)),
		"{'name': 'bytag', 'changes': {'removed': ['"+ids[1]+"']}, 'result': True, 'comment': 'removed 1 job(s)'}"; got != want {
		t.Errorf("at.absent tag:\n got %s\nwant %s", got, want)
	}
	if left := atTagged(t, tag); len(left) > 0 {
		t.Errorf("jobs left: %v", left)
	}

	// at.watch queues its job through mod_watch when a watched state
	// changes, and not otherwise.
	for _, fun := range []string{"succeed_with_changes", "succeed_without_changes"} {
		chunks := []*value.Map{
			value.MapOf("state", "test", "__id__", "a", "name", "a", "__sls__", "s", "__env__", "base", "fun", fun, "order", int64(1)),
			value.MapOf("state", "at", "__id__", "w", "name", "echo watched", "timespec", "10:00 12/25/2040", "tag", tag,
				"__sls__", "s", "__env__", "base", "fun", "watch", "watch", value.NewList(value.MapOf("test", "a")), "order", int64(2)),
		}
		run, err := engine.Run(chunks, engine.RunOptions{Env: &statemod.Env{Exec: ctx, Shared: statemod.NewShared()}})
		if err != nil {
			t.Fatal(err)
		}
		_, v := run.At(1)
		want := "{'name': 'echo watched', 'changes': {}, 'result': True, 'comment': ''}"
		if fun == "succeed_with_changes" {
			want = "{'name': 'echo watched', 'changes': " + job + ", 'result': True, 'comment': 'job echo watched added and will run on 10:00 12/25/2040'}"
		}
		if got := atRet(v.(*value.Map)); got != want {
			t.Errorf("at.watch after %s:\n got %s\nwant %s", fun, got, want)
		}
	}
	if left := atTagged(t, tag); len(left) != 1 {
		t.Errorf("jobs queued by at.watch: %v, want 1", left)
	}
}
