package events

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"brine/internal/fleet/proto"
	"brine/internal/value"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestTags(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{JobNewTag("20261125195807123456"), "salt/job/20261125195807123456/new"},
		{JobRetTag("20261125195807123456", "web1"), "salt/job/20261125195807123456/ret/web1"},
		{MinionStartTag("web1.example.com"), "salt/minion/web1.example.com/start"},
		{Tagify("salt", "", "key"), "salt/key"},
		{Tagify("", "a", "", "b", ""), "a/b"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestSubjects(t *testing.T) {
	for _, tc := range []struct{ tag, subj string }{
		{"salt/job/20261125195807123456/new", "brine.ev.salt.job.20261125195807123456.new"},
		{"salt/minion/web1.example.com/start", "brine.ev.salt.minion.=d2ViMS5leGFtcGxlLmNvbQ.start"},
		{"minion_start", "brine.ev.minion_start"},
		{"myco/build/*/>", "brine.ev.myco.build.=Kg.=Pg"},
		{"/leading//empty/", "brine.ev.=.leading.=.empty.="},
		{"with space", "brine.ev.=d2l0aCBzcGFjZQ"},
	} {
		subj, err := Subject(tc.tag)
		if err != nil || subj != tc.subj {
			t.Errorf("Subject(%q) = %q, %v; want %q", tc.tag, subj, err, tc.subj)
			continue
		}
		back, err := TagFromSubject(subj)
		if err != nil || back != tc.tag {
			t.Errorf("TagFromSubject(%q) = %q, %v; want %q", subj, back, err, tc.tag)
		}
		ms, err := MinionSubject("m.1", tc.tag)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(ms, "brine.mev.=bS4x.") {
			t.Errorf("MinionSubject = %q", ms)
		}
		id, tag, err := ParseMinionSubject(ms)
		if err != nil || id != "m.1" || tag != tc.tag {
			t.Errorf("ParseMinionSubject(%q) = %q, %q, %v", ms, id, tag, err)
		}
	}
	for _, bad := range []string{"", strings.Repeat("x", MaxTagLen+1)} {
		if _, err := Subject(bad); err == nil {
			t.Errorf("Subject(%.10q...) succeeded", bad)
		}
	}
	for _, bad := range []string{"brine.ev", "brine.mev.web1", "other.ev.x", "brine.ev.=%%"} {
		if _, err := TagFromSubject(bad); err == nil && !strings.HasPrefix(bad, "brine.mev") {
			t.Errorf("TagFromSubject(%q) succeeded", bad)
		}
		if _, _, err := ParseMinionSubject(bad); err == nil {
			t.Errorf("ParseMinionSubject(%q) succeeded", bad)
		}
	}
	if got := MinionPublishAllow("web1"); got != "brine.mev.web1.>" {
		t.Errorf("MinionPublishAllow = %q", got)
	}
}

// Python's fnmatch.fnmatch on these pairs gives the want column.
func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pat, tag string
		want     bool
	}{
		{"salt/minion/*/start", "salt/minion/web1/start", true},
		{"salt/minion/*/start", "salt/minion/a/b/start", true}, // * crosses "/"
		{"salt/minion/*/start", "salt/minion/web1/stop", false},
		{"salt/job/*/ret/*", "salt/job/1/ret/m", true},
		{"salt/job/*", "salt/job/1/new", true},
		{"*", "", true},
		{"minion_start", "minion_start", true},
		{"Minion_start", "minion_start", false}, // case-sensitive on POSIX
		{"web?", "web1", true},
		{"web?", "web12", false},
		{"web[12]", "web2", true},
		{"web[!12]", "web2", false},
		{"web[!12]", "web3", true},
		{"web[1-3]", "web2", true},
		{"web[3-1]", "web2", false}, // a backwards range is dropped
		{"web[", "web[", true},      // an unclosed [ is literal
		{"web[]1]", "web]", true},   // ] first in a set is literal
		{"a.b", "a.b", true},
		{"a.b", "axb", false},
		{"a+b(c)", "a+b(c)", true},
		{"x/*", "x/line\nbreak", true},
		{"[\\]x", "\\x", true},
	} {
		if got := Match(tc.pat, tc.tag); got != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.pat, tc.tag, got, tc.want)
		}
	}
}

func TestExprMatch(t *testing.T) {
	for _, tc := range []struct {
		expr, tag string
		want      bool
	}{
		{"salt/auth", "salt/auth", true},
		{"salt/*", "salt/auth", true},
		{`salt/job/\d+/new`, "salt/job/20261125195807123456/new", true},
		{`salt/job/\d+`, "salt/job/20261125195807123456/new", false}, // the whole tag
		{"(", "(", true},
		{"(", "x", false},
	} {
		if got := ExprMatch(tc.expr, tc.tag); got != tc.want {
			t.Errorf("ExprMatch(%q, %q) = %v, want %v", tc.expr, tc.tag, got, tc.want)
		}
	}
}

func TestMinionMayFire(t *testing.T) {
	for _, tc := range []struct {
		tag  string
		want bool
	}{
		{"salt/minion/web1/start", true},
		{"salt/minion/web1/custom/x", true},
		{"salt/beacon/web1/inotify//etc", true},
		{"minion_start", true},
		{"myco/build/done", true},
		{"_salt_error", true},
		{"salt/minion/web2/start", false},
		{"salt/minion/web1", false},
		{"salt/job/20261125195807123456/ret/web2", false},
		{"salt/job/20261125195807123456/ret/web1", false},
		// its own state run's progress and fire_event results
		{"salt/job/20261125195807123456/prog/web1/3", true},
		{"salt/state_result/20261125195807123456/web1/hello", true},
		{"salt/job/20261125195807123456/prog/web2/3", false},
		{"salt/job/20261125195807123456/prog/web1", false},
		{"salt/job/nojid/prog/web1/3", false},
		{"salt/state_result/20261125195807123456/web2/hello", false},
		{"salt/job/20261125195807123456/new/prog/web1/", false},
		{"salt/key", false},
		{"salt/auth", false},
		{"salt/presence/present", false},
		{"salt/wheel/1/new", false},
		{"new_job", false},
		{"20261125195807123456", false},
		{"", false},
	} {
		if got := MinionMayFire("web1", tc.tag); got != tc.want {
			t.Errorf("MinionMayFire(web1, %q) = %v, want %v", tc.tag, got, tc.want)
		}
	}
}

func TestStamp(t *testing.T) {
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{time.Date(2026, 11, 25, 19, 58, 7, 123456789, time.UTC), "2026-11-25T19:58:07.123456"},
		{time.Date(2026, 11, 25, 19, 58, 7, 0, time.UTC), "2026-11-25T19:58:07"},
		{time.Date(2026, 11, 25, 19, 58, 7, 999, time.UTC), "2026-11-25T19:58:07"},
		{time.Date(2026, 11, 25, 20, 58, 7, 1000, time.FixedZone("x", 3600)), "2026-11-25T19:58:07.000001"},
	} {
		if got := Stamp(tc.t); got != tc.want {
			t.Errorf("Stamp(%v) = %q, want %q", tc.t, got, tc.want)
		}
	}
}

// TestPayloads compares each payload with its golden JSON, keys in the
// order Salt builds them.
func TestPayloads(t *testing.T) {
	job := proto.Job{
		JID: "20261125195807123456", Fun: "state.apply", Tgt: "web1,web9", TgtType: "list", User: "root",
		Arg:     proto.ValueJSON{V: value.NewList("web")},
		Kwarg:   proto.ValueJSON{V: value.MapOf("test", true)},
		Minions: []string{"web1"},
	}
	ret := proto.Return{
		JID: job.JID, ID: "web1", Fun: "test.ping", FunArgs: proto.ValueJSON{V: value.NewList()},
		Return: proto.ValueJSON{V: true}, Success: true, Out: "nested",
	}
	cases := []struct {
		name string
		data *value.Map
	}{
		{"job_new", JobNew(job, Missing(job.Tgt, job.TgtType, job.Minions))},
		{"job_new_glob", JobNew(proto.Job{JID: job.JID, Fun: "test.ping", Tgt: "*", TgtType: "glob", Minions: []string{"a", "b"}}, Missing("*", "glob", []string{"a"}))},
		{"job_minions", JobMinions(job.Minions)},
		{"job_ret", JobRet(ret)},
		{"job_ret_failed", JobRet(proto.Return{JID: job.JID, ID: "web1", Fun: "cmd.run", FunArgs: proto.ValueJSON{V: value.NewList("false")}, Return: proto.ValueJSON{V: ""}, Retcode: 1})},
		{"auth_pend", Auth("pend", "web1", "UAXYZ", true)},
		{"auth_reject", Auth("reject", "web1", "UAXYZ", false)},
		{"key_accept", Key("accept", "web1", true)},
		{"presence_present", PresencePresent([]string{"a", "b"})},
		{"presence_change", PresenceChange([]string{"b"}, nil)},
		{"minion_start", MinionLoad("web1", "salt/minion/web1/start", MinionEvent{Data: proto.ValueJSON{V: "Minion web1 started at Wed Nov 25 19:58:07 2026"}})},
		{"minion_send", MinionLoad("web1", "myco/done", MinionEvent{Data: proto.ValueJSON{V: value.MapOf("id", "web2", "x", int64(1))}})},
		{"minion_call", MinionLoad("web1", "myco/done", MinionEvent{Direct: true, Data: proto.ValueJSON{V: value.MapOf("x", int64(1))},
			Preload: &proto.ValueJSON{V: value.MapOf("id", "forged", "tok", "t", "extra", "e")}})},
		{"minion_start_grains", MinionLoad("web1", "minion_start", MinionEvent{Data: proto.ValueJSON{V: "Minion web1 started"}, Grains: &proto.ValueJSON{V: value.MapOf("os", "Debian")}})},
	}
	var b strings.Builder
	for _, c := range cases {
		b.WriteString(c.name + "\t" + string(Encode(c.data)) + "\n")
	}
	golden := filepath.Join("testdata", "payloads.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("payloads differ from %s:\n%s", golden, b.String())
	}
}

func TestDecode(t *testing.T) {
	data := value.MapOf("a", int64(1), "_stamp", "x")
	ev, err := Decode("brine.ev.salt.key", Encode(data))
	if err != nil || ev.Tag != "salt/key" || !value.Equal(ev.Data, data) {
		t.Errorf("Decode = %+v, %v", ev, err)
	}
	for _, body := range []string{"[1]", "{", ""} {
		if _, err := Decode("brine.ev.salt.key", []byte(body)); err == nil {
			t.Errorf("Decode(%q) succeeded", body)
		}
	}
}
