package runners

import (
	"testing"

	"brine/internal/fleet/client"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

func TestFormatJob(t *testing.T) {
	job := proto.Job{JID: "20261125194512123456", Fun: "test.arg", Tgt: "web*", TgtType: "glob",
		Arg: proto.ValueJSON{V: value.NewList(int64(1))}, Kwarg: proto.ValueJSON{V: value.MapOf("a", "b")},
		Minions: []string{"web1", "web2"}}
	want := "{'Function': 'test.arg', 'Arguments': [1, {'__kwarg__': True, 'a': 'b'}], 'Target': 'web*', 'Target-type': 'glob', 'User': 'root', 'StartTime': '2026, Nov 25 19:45:12.123456'}"
	if got := value.Str(formatJob(job, false)); got != want {
		t.Errorf("formatJob:\n got %s\nwant %s", got, want)
	}
	if got := value.Str(mapGet(formatJob(job, true), "Minions")); got != "['web1', 'web2']" {
		t.Errorf("Minions: %s", got)
	}
	if got := value.Str(noJob("20261125194512123456")); got != "{'Error': 'Cannot contact returner or no job with this jid', 'StartTime': '2026, Nov 25 19:45:12.123456'}" {
		t.Errorf("noJob: %s", got)
	}
}

func TestJobFilter(t *testing.T) {
	rec := formatJob(proto.Job{JID: "20261125194512123456", Fun: "state.apply", Tgt: "web1", TgtType: "glob", User: "ops"}, false)
	cases := []struct {
		f    jobFilter
		want bool
	}{
		{jobFilter{}, true},
		{jobFilter{function: "state.*"}, true},
		{jobFilter{function: "test.ping, state.apply"}, true},
		{jobFilter{function: value.NewList("test.*", "cmd.*")}, false},
		{jobFilter{target: "web*"}, true},
		{jobFilter{target: "db*"}, false},
		{jobFilter{startTime: "2026-11-25 19:45:12"}, true},
		{jobFilter{startTime: "2026-11-25 19:46"}, false},
		{jobFilter{endTime: "2026, Nov 25 19:45:13.000000"}, true},
		{jobFilter{endTime: "2026-11-25"}, false},
		{jobFilter{startTime: "2026-11-25", endTime: "2026-11-26T00:00:00"}, true},
		// Jobs carry no metadata: a metadata search keeps none.
		{jobFilter{metadata: value.MapOf("k", "v")}, false},
	}
	for _, tc := range cases {
		got, err := tc.f.matches(rec)
		if err != nil || got != tc.want {
			t.Errorf("%+v: %v, %v; want %v", tc.f, got, err, tc.want)
		}
	}
	if _, err := (jobFilter{startTime: "next tuesday"}).matches(rec); err == nil {
		t.Error("an unreadable start_time: no error")
	}
}

func TestBatchSize(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want int
	}{{"2", 5, 2}, {"50%", 5, 2}, {"10%", 5, 1}, {"1.5", 5, 1}, {"100%", 3, 3}} {
		if got, err := batchSize(tc.s, tc.n); err != nil || got != tc.want {
			t.Errorf("batchSize(%q, %d) = %d, %v; want %d", tc.s, tc.n, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "x", "0", "-1", "%"} {
		if _, err := batchSize(bad, 5); err == nil {
			t.Errorf("batchSize(%q): no error", bad)
		}
	}
}

// TestCmdResult: saltutil.cmd's shape, minions in id order, the silent
// ones only with expect_minions.
func TestCmdResult(t *testing.T) {
	res := client.CmdResult{
		JID: "20261125194512123456", Minions: []string{"a", "b", "c"},
		Returns: map[string]proto.Return{
			"c": {ID: "c", Return: proto.ValueJSON{V: true}, Out: "nested"},
			"a": {ID: "a", Return: proto.ValueJSON{V: "x"}, Retcode: 2},
		},
		Failed: []client.Failed{{ID: "b", Why: client.NoResponse}},
	}
	for expect, want := range map[bool]string{
		false: "{'a': {'ret': 'x', 'retcode': 2, 'jid': '20261125194512123456'}, 'c': {'ret': True, 'out': 'nested', 'retcode': 0, 'jid': '20261125194512123456'}}",
		true:  "{'a': {'ret': 'x', 'retcode': 2, 'jid': '20261125194512123456'}, 'b': {'failed': True}, 'c': {'ret': True, 'out': 'nested', 'retcode': 0, 'jid': '20261125194512123456'}}",
	} {
		out := value.NewMap(0)
		addCmdResult(out, res, expect)
		if got := value.Str(out); got != want {
			t.Errorf("expect_minions=%v:\n got %s\nwant %s", expect, got, want)
		}
	}
	if !batchFailed(res) {
		t.Error("batchFailed: false with a silent minion")
	}
}

func TestVersionStatus(t *testing.T) {
	res := value.MapOf(
		"a", value.MapOf("ret", "3006.9", "retcode", int64(0)),
		"b", value.MapOf("ret", "3005.1", "retcode", int64(0)),
		"c", value.MapOf("ret", "3006.10", "retcode", int64(0)),
		"d", value.MapOf("ret", "'test.version' is not available.", "retcode", int64(254)),
		"e", value.MapOf("ret", "3006.9", "retcode", int64(0)),
	)
	want := "{'Up to date': {'a': '3006.9', 'e': '3006.9'}, 'Minion requires update': {'b': '3005.1'}, 'Minion newer than master': {'c': '3006.10'}, 'Minion offline': {'d': False}, 'Master': '3006.9'}"
	if got := value.Str(versionStatus(res, "3006.9")); got != want {
		t.Errorf("versions:\n got %s\nwant %s", got, want)
	}
}
