package crontab

import (
	"strings"
	"testing"
)

const sample = `MAILTO=root
# mine
0 * * * * /bin/true
` + Tag + `
PATH=/usr/bin
# nightly SALT_CRON_IDENTIFIER:backup
10 2 * * * /usr/bin/backup --all
#DISABLED#5 1 * * * /usr/bin/old
# SALT_CRON_IDENTIFIER:boot
@reboot /usr/bin/boot
`

func TestParseRender(t *testing.T) {
	tab := Parse(sample)
	if len(tab.Pre) != 3 || len(tab.Crons) != 2 || len(tab.Special) != 1 || len(tab.Env) != 1 {
		t.Fatalf("parsed %d pre, %d crons, %d special, %d env", len(tab.Pre), len(tab.Crons), len(tab.Special), len(tab.Env))
	}
	b := tab.Crons[0]
	if b.Cmd != "/usr/bin/backup --all" || *b.Identifier != "backup" || *b.Comment != "nightly" || b.Minute != "10" {
		t.Errorf("first job %+v", b)
	}
	if !tab.Crons[1].Commented || tab.Crons[1].Identifier != nil || tab.Crons[1].Comment != nil {
		t.Errorf("disabled job %+v", tab.Crons[1])
	}
	if got := tab.Render(); got != sample {
		t.Errorf("render:\n%s\nwant:\n%s", got, sample)
	}
	if got := Parse("").Render(); got != Tag+"\n" {
		t.Errorf("empty render %q", got)
	}
}

func TestSet(t *testing.T) {
	times := func(f ...string) [5]*string {
		var out [5]*string
		for i, s := range f {
			out[i] = Str(s)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		w    Want
		want string
		tail string // the last rendered line(s) after the change
	}{
		{"present", Want{Cmd: "/usr/bin/backup --all", Identifier: "backup", Comment: Str("nightly"), Times: times("10", "2", "*", "*", "*")}, "present", ""},
		{"new", Want{Cmd: "/usr/bin/new", Times: times("1", "2", "3", "4", "5")}, "new", "1 2 3 4 5 /usr/bin/new\n# SALT_CRON_IDENTIFIER:boot\n"},
		{"time change keeps the comment", Want{Cmd: "/usr/bin/backup --all", Identifier: "backup", Times: times("20", "2", "*", "*", "*")},
			"updated", "# nightly SALT_CRON_IDENTIFIER:backup\n20 2 * * * /usr/bin/backup --all\n# SALT_CRON_IDENTIFIER:boot\n"},
		{"same id, other command", Want{Cmd: "/usr/bin/backup2", Identifier: "backup", Comment: Str("nightly"), Times: times("10", "2", "*", "*", "*")},
			"updated", "# nightly SALT_CRON_IDENTIFIER:backup\n10 2 * * * /usr/bin/backup2\n"},
		{"special present", Want{Cmd: "/usr/bin/boot", Special: "@reboot", Identifier: "boot"}, "present", ""},
		{"special changed", Want{Cmd: "/usr/bin/boot", Special: "@daily", Identifier: "boot"}, "updated", "# SALT_CRON_IDENTIFIER:boot\n@daily /usr/bin/boot\n"},
		{"special becomes a timed job", Want{Cmd: "/usr/bin/boot", Identifier: "boot", Times: times("5", "1", "*", "*", "*")},
			"updated", "# SALT_CRON_IDENTIFIER:boot\n5 1 * * * /usr/bin/boot\n"},
		{"enable a disabled job", Want{Cmd: "/usr/bin/old", Times: times("5", "1", "*", "*", "*")}, "updated", "--all\n5 1 * * * /usr/bin/old\n# SALT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := Parse(sample)
			if got := Set(tab, tc.w); got != tc.want {
				t.Fatalf("Set = %q, want %q", got, tc.want)
			}
			out := tab.Render()
			if tc.want == "present" {
				if out != sample {
					t.Errorf("present changed the tab:\n%s", out)
				}
				return
			}
			if !strings.Contains(out, tc.tail) {
				t.Errorf("rendered:\n%s\nwant it to contain:\n%s", out, tc.tail)
			}
		})
	}
}

func TestRemove(t *testing.T) {
	for _, tc := range []struct {
		name string
		rm   func(*Tab) bool
		want bool
	}{
		{"job by id", func(t *Tab) bool { return RmJob(t, "/usr/bin/backup --all", "backup", [5]*string{}) }, true},
		{"job time mismatch", func(t *Tab) bool { return RmJob(t, "/usr/bin/backup --all", "backup", [5]*string{Str("11")}) }, false},
		{"job random matches a set minute", func(t *Tab) bool {
			return RmJob(t, "/usr/bin/backup --all", "backup", [5]*string{Str("random")})
		}, true},
		{"job by command", func(t *Tab) bool { return RmJob(t, "/usr/bin/old", "", [5]*string{}) }, true},
		{"job absent", func(t *Tab) bool { return RmJob(t, "/usr/bin/none", "", [5]*string{}) }, false},
		{"special", func(t *Tab) bool { return RmSpecial(t, "/usr/bin/boot", "@reboot", "boot") }, true},
		{"special of another spec", func(t *Tab) bool { return RmSpecial(t, "/usr/bin/boot", "@daily", "boot") }, false},
		{"env", func(t *Tab) bool { return RmEnv(t, "PATH") }, true},
		{"env absent", func(t *Tab) bool { return RmEnv(t, "SHELL") }, false},
	} {
		tab := Parse(sample)
		before := tab.Render()
		if got := tc.rm(tab); got != tc.want {
			t.Errorf("%s: removed = %v, want %v", tc.name, got, tc.want)
		}
		if changed := tab.Render() != before; changed != tc.want {
			t.Errorf("%s: tab changed = %v", tc.name, changed)
		}
	}
}

func TestSetEnv(t *testing.T) {
	tab := Parse(sample)
	for _, tc := range []struct{ name, val, want string }{
		{"PATH", "/usr/bin", "present"},
		{"PATH", "/bin", "updated"},
		{"SHELL", "/bin/sh", "new"},
	} {
		if got := SetEnv(tab, tc.name, tc.val); got != tc.want {
			t.Errorf("SetEnv(%s=%s) = %s, want %s", tc.name, tc.val, got, tc.want)
		}
	}
	if got := tab.Env; len(got) != 2 || got[0] != (Env{"PATH", "/bin"}) || got[1] != (Env{"SHELL", "/bin/sh"}) {
		t.Errorf("env %v", got)
	}
}

func TestTimeValue(t *testing.T) {
	for i := 0; i < 50; i++ {
		if v := TimeValue("daymonth", "random", "2"); len(v) == 0 || v > "9" && len(v) == 1 {
			t.Fatalf("daymonth %q", v)
		}
		if v := TimeValue("minute", "10:12", ""); v != "10" && v != "11" && v != "12" {
			t.Fatalf("range gave %q", v)
		}
	}
	if v := TimeValue("hour", "*/2", ""); v != "*/2" {
		t.Errorf("plain value %q", v)
	}
}
