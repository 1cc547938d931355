package states_test

// Differences found by tools/saltdiff/statediff.py (brine against Salt
// 3006 on a Debian 12 machine); each row pins what Salt returned there.

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"brine/internal/execmod"
	"brine/internal/states"
	"brine/internal/value"
)

func TestHostAbsentEditsInPlace(t *testing.T) {
	for _, tc := range []struct {
		name, before, ip, host, after string
	}{
		// The line keeps its other aliases, each followed by a space.
		{"other alias kept", "127.0.0.1   localhost\n10.0.0.7 a.example b.example\n", "10.0.0.7", "a.example",
			"127.0.0.1   localhost\n10.0.0.7\t\tb.example \n"},
		{"last alias drops the line", "127.0.0.1   localhost\n10.0.0.7 a.example\n\n# end\n", "10.0.0.7", "a.example",
			"127.0.0.1   localhost\n\n# end\n"},
		{"comment kept", "10.0.0.7 a.example b.example #  note\n", "10.0.0.7", "b.example",
			"10.0.0.7\t\ta.example # note\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hosts := filepath.Join(t.TempDir(), "hosts")
			if err := os.WriteFile(hosts, []byte(tc.before), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx := execmod.NewContext()
			ctx.Opts.Set("hosts.file", hosts)
			ret := sysRun(t, ctx, "host.absent", value.MapOf("name", tc.host, "ip", tc.ip), false)
			if want := "Removed host " + tc.host + " (" + tc.ip + ")"; str(ret, "comment") != want {
				t.Errorf("comment %q, want %q", str(ret, "comment"), want)
			}
			if data, _ := os.ReadFile(hosts); string(data) != tc.after {
				t.Errorf("hosts\n got %q\nwant %q", data, tc.after)
			}
		})
	}
}

func TestSysctlPresentSaltTexts(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "proc/sys/net/ipv4"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "proc/sys/net/ipv4/ip_forward"), []byte("0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, key, val string
		test           bool
		result         any
		comment        string
	}{
		{"missing config counts as empty", "net.ipv4.ip_forward", "0", true, nil,
			"Sysctl value is currently set on the running system but not in a config file. Sysctl option net.ipv4.ip_forward set to be changed to 0 in config file."},
		{"unknown key in test mode", "net.brine.nokey", "1", true, nil,
			"Sysctl option net.brine.nokey set to be changed to 1"},
		{"unknown key", "net.brine.nokey", "1", false, false,
			"Failed to set net.brine.nokey to 1: sysctl net.brine.nokey does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := execmod.NewContext()
			ctx.SetService(states.SysctlService, states.ProcSysctl{Root: root})
			conf := filepath.Join(t.TempDir(), "sysctl.conf")
			ret := sysRun(t, ctx, "sysctl.present", value.MapOf("name", tc.key, "value", tc.val, "config", conf), tc.test)
			if r, _ := ret.Get("result"); r != tc.result || str(ret, "comment") != tc.comment {
				t.Errorf("got %v %q\nwant %v %q", r, str(ret, "comment"), tc.result, tc.comment)
			}
		})
	}
}

func TestFileStatesMissingOwnerComment(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    *value.Map
		comment string
	}{
		// Salt ends the user message with a space.
		{"user", value.MapOf("contents", "x", "user", "brine-no-such-user"), "User brine-no-such-user is not available "},
		{"both", value.MapOf("contents", "x", "user", "brine-no-such-user", "group", "brine-no-such-group"),
			"User brine-no-such-user is not available Group brine-no-such-group is not available"},
		{"group", value.MapOf("contents", "x", "group", "brine-no-such-group"), "Group brine-no-such-group is not available"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args.Copy()
			args.Set("name", filepath.Join(t.TempDir(), "f"))
			ret := sysRun(t, execmod.NewContext(), "file.managed", args, false)
			if r, _ := ret.Get("result"); r != false || str(ret, "comment") != tc.comment {
				t.Errorf("got %v %q, want false %q", r, str(ret, "comment"), tc.comment)
			}
		})
	}
}

func TestFileDirectoryCleanRemoved(t *testing.T) {
	for _, tc := range []struct {
		name    string
		test    bool
		removed string
	}{
		// A removed directory's contents are not listed: Salt's os.walk
		// lists a directory only when it gets there.
		{"real run", false, "['D/a', 'D/sub']"},
		// Test mode removes nothing; changes name every path, no "removed".
		{"test mode", true, "None"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "d")
			if err := os.MkdirAll(filepath.Join(d, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"a", "sub/b"} {
				if err := os.WriteFile(filepath.Join(d, f), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ret := sysRun(t, execmod.NewContext(), "file.directory", value.MapOf("name", d, "clean", true), tc.test)
			removed, _ := getMap(ret, "changes").Get("removed")
			got := value.Repr(removed)
			want := tc.removed
			for _, p := range []string{"D/a", "D/sub/b", "D/sub"} {
				want = strings.ReplaceAll(want, p, filepath.Join(d, p[2:]))
			}
			if got != want {
				t.Errorf("removed %s, want %s", got, want)
			}
		})
	}
}

func TestCronPresentUnknownUserComment(t *testing.T) {
	if _, err := exec.LookPath("crontab"); err != nil {
		t.Skip("no crontab command")
	}
	if os.Geteuid() != 0 {
		t.Skip("crontab -u needs root")
	}
	ret := sysRun(t, execmod.NewContext(), "cron.present", value.MapOf("name", "/bin/true brine", "user", "brine-no-such-user"), false)
	// crontab's stderr without its final newline (cmd.run_all rstrips it).
	want := "Cron /bin/true brine for user brine-no-such-user failed to commit with error \ncrontab:  user `brine-no-such-user' unknown"
	if r, _ := ret.Get("result"); r != false || str(ret, "comment") != want {
		t.Errorf("got %v %q\nwant false %q", r, str(ret, "comment"), want)
	}
}

func TestSSHAuthKeepsFileOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown needs root")
	}
	me, err := user.Current()
	if err != nil {
		t.Skip(err)
	}
	const k1, k2 = "AAAAC3NzaC1lZDI1NTE5AAAAIBrineOn", "AAAAC3NzaC1lZDI1NTE5AAAAIBrineTw"
	for _, tc := range []struct {
		name, fun, key, comment string
		before                  string // "" for no file
	}{
		{"add to existing", "ssh_auth.present", k2, "The authorized host key " + k2 + " for user " + me.Username + " was added", "ssh-ed25519 " + k1 + " one\n"},
		{"update existing", "ssh_auth.present", k1, "The authorized host key " + k1 + " for user " + me.Username + " was updated", "ssh-ed25519 " + k1 + " old\n"},
		{"remove from existing", "ssh_auth.absent", k1, "Key removed", "ssh-ed25519 " + k1 + " one\nssh-ed25519 " + k2 + " two\n"},
		// A missing file holds no key: success, as in Salt.
		{"remove without file", "ssh_auth.absent", k1, "Key not present", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := filepath.Join(t.TempDir(), "authorized_keys")
			if tc.before != "" {
				if err := os.WriteFile(cfg, []byte(tc.before), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chown(cfg, 48999, 48999); err != nil {
					t.Fatal(err)
				}
			}
			args := value.MapOf("name", tc.key, "user", me.Username, "config", cfg, "enc", "ssh-ed25519", "comment", "new")
			ret := sysRun(t, execmod.NewContext(), tc.fun, args, false)
			if r, _ := ret.Get("result"); r != true || str(ret, "comment") != tc.comment {
				t.Fatalf("got %v %q, want true %q", r, str(ret, "comment"), tc.comment)
			}
			if tc.before == "" {
				return
			}
			st, err := os.Stat(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if sys := st.Sys().(*syscall.Stat_t); sys.Uid != 48999 || sys.Gid != 48999 || st.Mode().Perm() != 0o644 {
				t.Errorf("owner %d:%d mode %v, want 48999:48999 0644", sys.Uid, sys.Gid, st.Mode().Perm())
			}
		})
	}
}

// TestGitLatestLikeSalt pins git.latest returns recorded from Salt 3006:
// the clone starts on the remote's default branch and is reset to rev; no
// fetch when the checkout already has the remote revision.
func TestGitLatestLikeSalt(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, tc := range []struct {
		name    string
		args    []any
		prepare func(t *testing.T, up, target string)
		result  bool
		comment string // {up}, {target}, {first}, {second} replaced
		branch  string // checked out branch and its upstream afterwards
	}{
		{name: "clone at a tag", args: []any{"rev", "v1"}, result: true,
			comment: "{up} cloned to {target}. Repository was reset to v1 ({first}). Tracking branch was unset.",
			branch:  "main\n"},
		{name: "clone at a branch", args: []any{"rev", "dev"}, result: true,
			comment: "{up} cloned to {target}. Repository was reset to origin/dev ({first}). Tracking branch was updated to origin/dev.",
			branch:  "main\norigin/dev"},
		{name: "clone at a branch with branch", args: []any{"rev", "dev", "branch", "dev"}, result: true,
			comment: "{up} cloned to {target}. Branch 'dev' checked out, with origin/dev ({first}) as a starting point.",
			branch:  "dev\norigin/dev"},
		{name: "behind without fetch", result: true,
			prepare: func(t *testing.T, up, target string) {
				git(t, filepath.Dir(up), "clone", "-q", up, target)
				git(t, target, "reset", "-q", "--hard", "HEAD~1")
			},
			comment: "Repository was fast-forwarded to remote HEAD ({second})",
			branch:  "main\norigin/main"},
		{name: "uncommitted changes", result: false,
			prepare: func(t *testing.T, up, target string) {
				git(t, filepath.Dir(up), "clone", "-q", up, target)
				git(t, target, "reset", "-q", "--hard", "HEAD~1")
				os.WriteFile(filepath.Join(target, "a"), []byte("dirty"), 0o644)
			},
			comment: "Repository would be updated from {first} to {second}, but there are uncommitted changes. Set 'force_reset' to True (or 'remote-changes') to force this update and discard these changes.",
			branch:  "main\norigin/main"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			up := filepath.Join(dir, "upstream")
			os.MkdirAll(up, 0o755)
			git(t, up, "init", "-q", "-b", "main")
			first := commit(t, up, "a", "1")
			git(t, up, "tag", "v1")
			git(t, up, "branch", "dev")
			second := commit(t, up, "b", "2")
			target := filepath.Join(dir, "clone")
			if tc.prepare != nil {
				tc.prepare(t, up, target)
			}
			args := value.MapOf("name", up, "target", target)
			for i := 0; i+1 < len(tc.args); i += 2 {
				args.Set(tc.args[i], tc.args[i+1])
			}
			ret := sysRun(t, execmod.NewContext(), "git.latest", args, false)
			want := strings.NewReplacer("{up}", up, "{target}", target, "{first}", first[:7], "{second}", second[:7]).Replace(tc.comment)
			if r, _ := ret.Get("result"); r != tc.result || str(ret, "comment") != want {
				t.Errorf("got %v %q\nwant %v %q", r, str(ret, "comment"), tc.result, want)
			}
			cmd := exec.Command("sh", "-c", "git rev-parse --abbrev-ref HEAD; git rev-parse --abbrev-ref '@{upstream}' 2>/dev/null; true")
			cmd.Dir = target
			out, _ := cmd.Output()
			if string(out) != tc.branch+"\n" && string(out) != tc.branch {
				t.Errorf("branch %q, want %q", out, tc.branch)
			}
		})
	}
}

func TestFileStatesSaltReturns(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(d string)
		fun   string
		args  *value.Map // "D" in strings is the temp dir
		want  string     // value.Repr of the return without timing keys, D for the temp dir
	}{
		{"replace without show_changes", func(d string) { os.WriteFile(d+"/f", []byte("a\nb\n"), 0o644) },
			"file.replace", value.MapOf("name", "D/f", "pattern", "b", "repl", "B", "show_changes", false),
			"{'name': 'D/f', 'changes': {'diff': True}, 'result': True, 'comment': 'Changes were made'}"},
		{"blockreplace without show_changes", func(d string) { os.WriteFile(d+"/f", []byte("# S\nold\n# E\n"), 0o644) },
			"file.blockreplace", value.MapOf("name", "D/f", "marker_start", "# S", "marker_end", "# E", "content", "new", "show_changes", false),
			"{'name': 'D/f', 'changes': {'diff': True}, 'result': True, 'comment': 'Changes were made'}"},
		{"directory replacing a symlink keeps forced", func(d string) { os.Mkdir(d+"/real", 0o755); os.Symlink("real", d+"/dd") },
			"file.directory", value.MapOf("name", "D/dd", "force", true),
			"{'name': 'D/dd', 'changes': {'forced': 'Symlink was forcibly replaced', 'D/dd': {'directory': 'new'}}, 'result': True, 'comment': ''}"},
		{"symlink with force over a directory", func(d string) { os.MkdirAll(d+"/ln/x", 0o755) },
			"file.symlink", value.MapOf("name", "D/ln", "target", "D/tgt", "force", true),
			"{'name': 'D/ln', 'changes': {}, 'result': False, 'comment': \"Unable to create new symlink D/ln -> D/tgt: [Errno 21] Is a directory: 'D/ln'\"}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			tc.setup(d)
			args := value.NewMap(0)
			tc.args.Range(func(k, v any) bool {
				if s, ok := v.(string); ok {
					v = strings.ReplaceAll(s, "D/", d+"/")
				}
				args.Set(k, v)
				return true
			})
			ret := sysRun(t, execmod.NewContext(), tc.fun, args, false)
			for _, k := range []string{"__sls__", "__run_num__", "start_time", "duration", "__id__"} {
				ret.Delete(k)
			}
			if got := strings.ReplaceAll(value.Repr(ret), d+"/", "D/"); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}
