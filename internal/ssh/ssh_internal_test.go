package ssh

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/ssh/roster"
	"brine/internal/ssh/transport"
	"brine/internal/value"
)

func TestFqdnUUID(t *testing.T) {
	// uuid.uuid3(uuid.NAMESPACE_DNS, host).hex[:6], as Python computes it.
	for host, want := range map[string]string{"example.com": "907392", "web1.local": "a0f440"} {
		if got := fqdnUUID(host); got != want {
			t.Errorf("fqdnUUID(%q) = %q, want %q", host, got, want)
		}
	}
	if got := thinDir(&roster.Target{User: "deploy", ThinDir: "/opt/x"}); got != "/opt/x" {
		t.Errorf("roster thin_dir: %q", got)
	}
	if got := thinDir(&roster.Target{User: "deploy"}); !strings.HasPrefix(got, "/var/tmp/.deploy_") || !strings.HasSuffix(got, "_salt") {
		t.Errorf("default thin_dir: %q", got)
	}
}

func TestShellQuote(t *testing.T) {
	for _, s := range []string{"plain", "", "it's", "a b", "$HOME", "`x`", "new\nline", "test=True", `pillar={"a": 1}`} {
		out, err := exec.Command("sh", "-c", "printf %s "+shellQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("shellQuote(%q) = %s: sh printed %q (%v)", s, shellQuote(s), out, err)
		}
	}
}

func TestParseLocal(t *testing.T) {
	tests := []struct {
		stdout string
		want   string // JSON of the return; "" for none
	}{
		{`{"local": {"a": 1}}`, `{"a": 1}`},
		{"noise before\n{\n \"local\": true\n}\n", "true"},
		{`{"local": null}`, "{}"},
		{`{"other": 1}`, ""},
		{"Function nope.nope is not available", ""},
	}
	for _, tc := range tests {
		ret, fail := parseLocal(&transport.Result{Stdout: []byte(tc.stdout), Stderr: []byte(" err \n"), Code: 3})
		got := ""
		if ret != nil {
			got = value.ToJSON(ret, value.JSONOptions{Indent: -1})
		}
		if got != tc.want {
			t.Errorf("parseLocal(%q) = %s, want %s", tc.stdout, got, tc.want)
		}
		if fail.stderr != "err" || fail.code != 3 || fail.stdout != tc.stdout {
			t.Errorf("failure of %q: %+v", tc.stdout, fail)
		}
	}
}

func TestSudoFailure(t *testing.T) {
	sudo := &roster.Target{Sudo: true, User: "deploy"}
	withPw := &roster.Target{Sudo: true, User: "deploy", Passwd: "x"}
	tests := []struct {
		t      *roster.Target
		stderr string
		want   string
	}{
		{sudo, "sudo: a password is required\n", "Sudo password is required but not provided"},
		{withPw, "sudo: a password is required\n", "sudo expected a password, NOPASSWD required"},
		{withPw, "Sorry, try again.\nsudo: 3 incorrect password attempts\n", "Sudo password was not accepted: Sorry, try again."},
		{sudo, "deploy is not in the sudoers file.  This incident will be reported.\n", "Permissions problem, user deploy may not use sudo on the target:\n deploy is not in the sudoers file.  This incident will be reported."},
		{sudo, "sh: 1: sudo: not found\n", "sudo is not installed on the target (roster sudo: True): sh: 1: sudo: not found"},
		{sudo, "something else\n", ""},
		{&roster.Target{}, "sudo: a password is required\n", ""},
	}
	for _, tc := range tests {
		err := sudoFailure(tc.t, &transport.Result{Stderr: []byte(tc.stderr), Code: 1})
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("sudoFailure(%q) = %q, want %q", tc.stderr, got, tc.want)
		}
	}
}

// TestBundle unpacks a run bundle with tar, as the target does: the file
// roots (first root wins), the config, the pillar per environment.
func TestBundle(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) {
		p = filepath.Join(dir, p)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/top.sls", "first")
	write("b/top.sls", "second")
	write("b/web/init.sls", "web")
	write("a/.git/config", "hidden")
	write("dev/x.sls", "x")
	opts := value.MapOf("file_roots", value.MapOf(
		"base", value.NewList(filepath.Join(dir, "a"), filepath.Join(dir, "b")),
		"dev", value.NewList(filepath.Join(dir, "dev"))))
	tree, err := packRoots(opts)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := packRoots(opts)
	if tree.Hash != again.Hash || tree.n != 3 {
		t.Errorf("hash %s then %s, %d files", tree.Hash, again.Hash, tree.n)
	}
	pil := value.MapOf("greeting", "hi")
	b, err := runBundle("id: web1\n", []string{"base", "prod"}, pil, tree)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cmd := exec.Command("tar", "xzf", "-", "-C", out)
	cmd.Stdin = bytes.NewReader(b)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tar: %v %s", err, msg)
	}
	for p, want := range map[string]string{
		"files/base/top.sls":      "first",
		"files/base/web/init.sls": "web",
		"files/dev/x.sls":         "x",
		"conf/minion":             "id: web1\n",
		"pillar/prod/top.sls":     "#!json\n{\"prod\": {\"*\": [\"data\"]}}\n",
		"pillar/base/data.sls":    "#!json\n{\"greeting\": \"hi\"}\n",
	} {
		got, err := os.ReadFile(filepath.Join(out, p))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q (%v), want %q", p, got, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "files/base/.git")); err == nil {
		t.Error("hidden directories were packed")
	}
	// Without the tree: only the run.
	b, _ = runBundle("id: web1\n", []string{"base"}, pil, nil)
	cmd = exec.Command("tar", "tzf", "-")
	cmd.Stdin = bytes.NewReader(b)
	list, _ := cmd.Output()
	if got := strings.Fields(string(list)); strings.Join(got, " ") != "conf/minion pillar/base/top.sls pillar/base/data.sls" {
		t.Errorf("run-only bundle holds %v", got)
	}
}

func TestMinionConfig(t *testing.T) {
	opts := value.MapOf("renderer", "jinja|yaml", "state_output", "terse", "cachedir", "/var/cache/salt/master",
		"ssh_minion_opts", value.MapOf("log_level", "info"), "ssh_grains", value.MapOf("dc", "east"))
	tg := &roster.Target{ID: "web1", MinionOpts: value.MapOf("log_level", "debug"), Grains: value.MapOf("role", "web")}
	got := minionConfig(opts, tg, "/thin", "/thin/run-1", &fileTree{Envs: []string{"base"}, Hash: "abc"}, []string{"base"})
	want := `{"renderer": "jinja|yaml", "state_output": "terse", "grains_cache": true, "log_level": "debug", "id": "web1", "file_client": "local", "file_roots": {"base": ["/thin/files-abc/base"]}, "pillar_roots": {"base": ["/thin/run-1/pillar/base"]}, "cachedir": "/thin/running_data/cache", "log_file": "/thin/running_data/log/brine-call.log", "grains": {"dc": "east", "role": "web"}}`
	v, _ := value.FromJSON([]byte(got))
	if g := value.ToJSON(v, value.JSONOptions{Indent: -1}); g != want {
		t.Errorf("minion config:\n got %s\nwant %s", g, want)
	}
}
