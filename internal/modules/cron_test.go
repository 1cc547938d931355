package modules

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

// TestCronReal drives crontab(1) for a throwaway user through every
// cron function, checking each return and the crontab after it.
func TestCronReal(t *testing.T) {
	if _, err := exec.LookPath("crontab"); err != nil {
		t.Skip("crontab(1) is not installed")
	}
	const u = "brinecronmod"
	throwawayUser(t, u)
	ctx := testContext()
	src := filepath.Join(t.TempDir(), "tab")
	os.WriteFile(src, []byte("# pre\nMAILTO=root\n"), 0o644)
	tag := "# Lines below here are managed by Salt, do not edit\n"
	for _, tc := range []struct {
		fun  string
		args []any
		kw   []any
		want string // repr of the return
		tab  string // the crontab afterwards ("" to skip the check)
	}{
		{"cron.raw_cron", []any{u}, nil, "''", ""},
		{"cron.write_cron_file", []any{u, src}, nil, "True", "# pre\nMAILTO=root\n"},
		{"cron.list_tab", []any{u}, nil, "{'pre': ['# pre', 'MAILTO=root'], 'crons': [], 'special': [], 'env': []}", ""},
		{"cron.set_job", []any{u, int64(5), "2", "*", "*", "*", "/usr/bin/backup"}, []any{"identifier", "bk", "comment", "nightly"}, "'new'",
			"# pre\nMAILTO=root\n" + tag + "# nightly SALT_CRON_IDENTIFIER:bk\n5 2 * * * /usr/bin/backup\n"},
		{"cron.set_job", []any{u, "5", "2", "*", "*", "*", "/usr/bin/backup"}, []any{"identifier", "bk", "comment", "nightly"}, "'present'", ""},
		{"cron.set_job", []any{u, "7", "2", "*", "*", "*", "/usr/bin/backup"}, []any{"identifier", "bk"}, "'updated'",
			"# pre\nMAILTO=root\n" + tag + "# nightly SALT_CRON_IDENTIFIER:bk\n7 2 * * * /usr/bin/backup\n"},
		{"cron.get_entry", []any{u}, []any{"identifier", "bk"},
			"{'minute': '7', 'hour': '2', 'daymonth': '*', 'month': '*', 'dayweek': '*', 'identifier': 'bk', 'cmd': '/usr/bin/backup', 'comment': 'nightly', 'commented': False}", ""},
		{"cron.get_entry", []any{u}, []any{"cmd", "/nope"}, "False", ""},
		{"cron.set_special", []any{u, "@reboot", "/usr/bin/boot"}, nil, "'new'", ""},
		{"cron.set_env", []any{u, "SHELL", "/bin/sh"}, nil, "'new'", ""},
		{"cron.set_env", []any{u, "SHELL", "/bin/sh"}, nil, "'present'", ""},
		{"cron.ls", []any{u}, nil, "{'pre': ['# pre', 'MAILTO=root'], 'crons': [{'minute': '7', 'hour': '2', 'daymonth': '*', 'month': '*', 'dayweek': '*', " +
			"'identifier': 'bk', 'cmd': '/usr/bin/backup', 'comment': 'nightly', 'commented': False}], " +
			"'special': [{'spec': '@reboot', 'cmd': '/usr/bin/boot', 'identifier': None, 'comment': None, 'commented': False}], " +
			"'env': [{'name': 'SHELL', 'value': '/bin/sh'}]}", ""},
		{"cron.rm_job", []any{u, "/usr/bin/backup"}, []any{"identifier", "bk", "minute", "8"}, "'absent'", ""},
		{"cron.rm", []any{u, "/usr/bin/backup"}, []any{"identifier", "bk", "minute", "7"}, "'removed'", ""},
		{"cron.rm_special", []any{u, "/usr/bin/boot"}, nil, "'removed'", ""},
		{"cron.rm_env", []any{u, "SHELL"}, nil, "'removed'", "# pre\nMAILTO=root\n" + tag},
		{"cron.rm_env", []any{u, "SHELL"}, nil, "'absent'", ""},
	} {
		got := call(t, ctx, tc.fun, tc.args, tc.kw...)
		if r := value.Repr(got); r != tc.want {
			t.Errorf("%s%v = %s, want %s", tc.fun, tc.args, r, tc.want)
		}
		if tc.tab == "" {
			continue
		}
		out, err := exec.Command("crontab", "-u", u, "-l").Output()
		if err != nil {
			t.Fatalf("after %s: crontab -l: %v", tc.fun, err)
		}
		if s := string(out); s != tc.tab && !strings.HasSuffix(s, "\n"+tc.tab) {
			t.Errorf("after %s the crontab is\n%s\nwant\n%s", tc.fun, s, tc.tab)
		}
	}
	res := call(t, ctx, "cron.write_cron_file_verbose", []any{u, "/nonexistent/tab"}).(*value.Map)
	if rc, _ := res.GetString("retcode"); value.Equal(rc, int64(0)) {
		t.Errorf("installing a missing file succeeded: %s", value.Repr(res))
	}
}
