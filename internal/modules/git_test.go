package modules

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

// TestGitReal drives the git functions over real repositories in a temp
// dir: an upstream repository and a clone of it.
func TestGitReal(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ctx := testContext()
	dir := t.TempDir()
	up, clone := filepath.Join(dir, "up"), filepath.Join(dir, "clone")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(dir, "gitconfig"))
	os.WriteFile(filepath.Join(dir, "gitconfig"), []byte("[user]\n\tname = Brine Test\n\temail = brine@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644)
	type step struct {
		fun  string
		args []any
		kw   []any
		want string // repr; a trailing "*" means a prefix; "" skips the check
	}
	run := func(steps []step) {
		t.Helper()
		for _, s := range steps {
			got := value.Repr(call(t, ctx, s.fun, s.args, s.kw...))
			p, prefix := strings.CutSuffix(s.want, "*")
			if s.want != "" && got != s.want && !(prefix && strings.HasPrefix(got, p)) {
				t.Errorf("%s%v%v = %s, want %s", s.fun, s.args, s.kw, got, s.want)
			}
		}
	}
	os.MkdirAll(up, 0o755)
	run([]step{
		{"git.init", []any{up}, nil, "'Initialized empty Git repository in " + up + "/.git/'"},
		{"git.config_set", []any{"brine.key"}, []any{"value", "one", "cwd", up}, "['one']"},
		{"git.config_set", []any{"brine.multi"}, []any{"multivar", "a,b", "cwd", up}, "['a', 'b']"},
		{"git.config_get", []any{"brine.multi"}, []any{"cwd", up}, "'b'"},
		{"git.config_get", []any{"brine.multi"}, []any{"cwd", up, "all", true}, "['a', 'b']"},
		{"git.config_get", []any{"brine.none"}, []any{"cwd", up}, "None"},
		{"git.config_get_regexp", []any{"^brine\\."}, []any{"cwd", up}, "{'brine.key': ['one'], 'brine.multi': ['a', 'b']}"},
		{"git.config_unset", []any{"brine.key"}, []any{"cwd", up}, "True"},
	})
	os.WriteFile(filepath.Join(up, "a.txt"), []byte("a\n"), 0o644)
	run([]step{
		{"git.status", []any{up}, nil, "{'untracked': ['a.txt']}"},
		{"git.add", []any{up, "a.txt"}, nil, "\"add 'a.txt'\""},
		{"git.status", []any{up}, nil, "{'new': ['a.txt']}"},
		{"git.commit", []any{up, "first"}, nil, "'[main (root-commit) *"},
		{"git.current_branch", []any{up}, nil, "'main'"},
		{"git.tag", []any{up, "v1"}, nil, "''"},
		{"git.list_tags", []any{up}, nil, "['v1']"},
		{"git.describe", []any{up}, nil, "'*"},
		{"git.branch", []any{up, "feature"}, nil, "True"},
		{"git.list_branches", []any{up}, nil, "['feature', 'main']"},
		{"git.clone", []any{clone}, []any{"url", up}, "True"},
		{"git.remotes", []any{clone}, nil, "{'origin': {'fetch': '" + up + "', 'push': '" + up + "'}}"},
		{"git.remote_get", []any{clone}, nil, "{'fetch': '" + up + "', 'push': '" + up + "'}"},
		{"git.ls_remote", []any{clone}, nil, ""},
		{"git.list_branches", []any{clone}, []any{"remote", true}, "['origin/HEAD', 'origin/feature', 'origin/main']"},
		{"git.is_worktree", []any{clone}, nil, "False"},
	})
	os.WriteFile(filepath.Join(up, "b.txt"), []byte("b\n"), 0o644)
	run([]step{
		{"git.add", []any{up, "b.txt"}, nil, ""},
		{"git.commit", []any{up, "second"}, nil, ""},
		{"git.tag", []any{up, "v2"}, nil, ""},
		{"git.fetch", []any{clone}, nil, "{'updated branches': {'main': {'old': *"},
		{"git.merge_base", []any{clone}, []any{"refs", "v1,origin/main", "is_ancestor", true}, "True"},
		{"git.merge_base", []any{clone}, []any{"refs", value.NewList("origin/main", "v1"), "is_ancestor", true}, "False"},
		{"git.pull", []any{clone}, nil, "'Updating *"},
		{"git.revision", []any{clone}, nil, ""},
		{"git.rev_parse", []any{clone, "HEAD"}, []any{"opts", "--abbrev-ref"}, "'main'"},
		{"git.diff", []any{clone, "v1", "v2"}, []any{"opts", "--stat"}, "' b.txt | 1 +\\n 1 file changed, 1 insertion(+)'"},
		{"git.checkout", []any{clone, "feature"}, nil, "\"Switched to a new branch 'feature'\\nbranch 'feature' set up to track 'origin/feature'.\""},
		{"git.checkout", []any{clone}, []any{"opts", "-b topic"}, "\"Switched to a new branch 'topic'\""},
		{"git.symbolic_ref", []any{clone, "HEAD"}, nil, "'refs/heads/topic'"},
		{"git.remote_set", []any{clone, "https://example.com/r.git"}, []any{"remote", "other", "https_user", "u", "https_pass", "p"},
			"{'fetch': 'https://<redacted>@example.com/r.git', 'push': 'https://<redacted>@example.com/r.git'}"},
		{"git.remote_get", []any{clone, "other"}, []any{"redact_auth", false}, "{'fetch': 'https://u:p@example.com/r.git', 'push': 'https://u:p@example.com/r.git'}"},
		{"git.rm", []any{clone, "a.txt"}, nil, "\"rm 'a.txt'\""},
		{"git.status", []any{clone}, nil, "{'deleted': ['a.txt']}"},
		{"git.reset", []any{clone}, []any{"opts", "--hard"}, "'HEAD is now at *"},
		{"git.discard_local_changes", []any{clone}, nil, ""},
		{"git.version", nil, nil, ""},
	})
	wt := filepath.Join(dir, "wt")
	tarball := filepath.Join(dir, "up.tar")
	run([]step{
		{"git.archive", []any{up, tarball}, []any{"format", "tar"}, "True"},
		{"git.merge_tree", []any{up, "v1", "v2"}, nil, ""},
		{"git.remote_refs", []any{up}, []any{"tags", true}, "{'refs/tags/v1': *"},
		{"git.submodule", []any{up, "status"}, nil, "''"},
		{"git.worktree_add", []any{up, wt}, nil, "\"Preparing worktree (new branch 'wt')\\nHEAD is now at *"},
		{"git.is_worktree", []any{wt}, nil, "True"},
		{"git.list_worktrees", []any{up}, nil, "{'" + up + "': {'stale': False, 'HEAD': *"},
		{"git.worktree_rm", []any{wt}, nil, "True"},
		{"git.list_worktrees", []any{up}, []any{"stale", true}, "{'" + wt + "': {'stale': True, *"},
		{"git.worktree_prune", []any{up}, nil, "'Removing worktrees/wt: *"},
		{"git.list_worktrees", []any{up}, []any{"stale", true}, "{}"},
	})
	if st, err := os.Stat(tarball); err != nil || st.Size() == 0 {
		t.Errorf("git.archive wrote %v %v", st, err)
	}
	if d, r := call(t, ctx, "git.describe", []any{up}), call(t, ctx, "git.revision", []any{up}, "short", true); d != r {
		t.Errorf("describe %v, short revision %v", d, r)
	}
	if v := call(t, ctx, "git.version", []any{true}).(*value.List); v.Len() < 2 {
		t.Errorf("versioninfo %s", value.Repr(v))
	}
	for _, tc := range []struct {
		fun  string
		args []any
		kw   []any
		want string
	}{
		{"git.rev_parse", []any{up, "nope"}, nil, "Command 'git rev-parse nope' failed: fatal: ambiguous argument 'nope'*"},
		{"git.checkout", []any{up}, nil, "'rev' argument is required unless -b or -B in opts"},
		{"git.config_get", []any{"x.y"}, nil, "'cwd' argument required unless global=True"},
		{"git.remote_get", []any{up, "nope"}, nil, "Remote 'nope' not present in git checkout located at " + up},
		{"git.config_unset", []any{"brine.nope"}, []any{"cwd", up}, "Key 'brine.nope' does not exist"},
		{"git.clone", []any{clone}, []any{"url", "http://x/y", "https_user", "u"}, "Basic Auth only supported for HTTPS"},
		{"git.rebase", []any{up}, []any{"opts", "-i"}, "Interactive rebases are not supported"},
		{"git.list_worktrees", []any{up}, []any{"all", true, "stale", true}, "'all' and 'stale' cannot both be set to True"},
		{"git.archive", []any{up, "x.tar"}, []any{"bogus", int64(1)}, "The following keyword arguments are not valid: bogus=1"},
		{"git.worktree_rm", []any{up}, nil, up + " is not a git worktree"},
	} {
		_, err := ctx.Call(tc.fun, tc.args, value.MapOf(tc.kw...))
		p, prefix := strings.CutSuffix(tc.want, "*")
		if err == nil || (err.Error() != tc.want && !(prefix && strings.HasPrefix(err.Error(), p))) {
			t.Errorf("%s%v: error %v, want %q", tc.fun, tc.args, err, tc.want)
		}
	}
}
