package states_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "safe.directory=*"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func commit(t *testing.T, repo, file, body string) string {
	os.WriteFile(filepath.Join(repo, file), []byte(body), 0o644)
	git(t, repo, "add", file)
	git(t, repo, "commit", "-q", "-m", file)
	return git(t, repo, "rev-parse", "HEAD")
}

// TestGitLatest drives the real git against a local upstream repository.
func TestGitLatest(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	up := filepath.Join(dir, "upstream")
	os.MkdirAll(up, 0o755)
	git(t, up, "init", "-q", "-b", "main")
	first := commit(t, up, "a", "1")
	target := filepath.Join(dir, "clone")
	ctx := execmod.NewContext()

	ret := sysCase{"git.latest", value.MapOf("name", up, "target", target), true, up + " cloned to " + target}.check(t, ctx)
	if got := value.Repr(getMap(ret, "changes")); got != "{'new': '"+up+" => "+target+"', 'revision': {'old': None, 'new': '"+first+"'}}" {
		t.Errorf("clone changes %s", got)
	}
	second := commit(t, up, "b", "2")
	ret = sysCase{"git.latest", value.MapOf("name", up, "target", target), true, up + " was fetched, resulting in updated refs. Repository was fast-forwarded to remote HEAD (" + second[:7] + ")."}.check(t, ctx)
	if got := value.Repr(getMap(ret, "changes")); got != "{'revision': {'old': '"+first+"', 'new': '"+second+"'}}" {
		t.Errorf("update changes %s", got)
	}
	// A rewritten upstream is not a fast-forward: it needs force_reset.
	git(t, up, "reset", "-q", "--hard", first)
	third := commit(t, up, "c", "3")
	// Without force_fetch the fetch itself is rejected (as in Salt).
	ret = sysRun(t, ctx, "git.latest", value.MapOf("name", up, "target", target), false)
	if str(ret, "result") != "False" || !strings.Contains(str(ret, "comment"), "Fetch failed. Set 'force_fetch' to True") {
		t.Errorf("rejected fetch: %s", value.Repr(ret))
	}
	ret = sysRun(t, ctx, "git.latest", value.MapOf("name", up, "target", target, "force_fetch", true), false)
	if str(ret, "result") != "False" || !strings.Contains(str(ret, "comment"), "not a fast-forward merge") {
		t.Errorf("non fast-forward: %s", value.Repr(ret))
	}
	sysCase{"git.latest", value.MapOf("name", up, "target", target, "force_reset", true, "force_fetch", true), true, "Repository was hard-reset to remote HEAD (" + third[:7] + ")"}.check(t, ctx)
	// A branch and a tag.
	git(t, up, "checkout", "-q", "-b", "dev")
	dev := commit(t, up, "d", "4")
	git(t, up, "checkout", "-q", "main")
	git(t, up, "tag", "v1", first)
	sysCase{"git.latest", value.MapOf("name", up, "target", target, "rev", "dev", "force_reset", true, "force_fetch", true), true, up + " was fetched"}.check(t, ctx)
	if got := git(t, target, "rev-parse", "HEAD"); got != dev {
		t.Errorf("dev checkout at %s, want %s", got, dev)
	}
	tagTarget := filepath.Join(dir, "tagged")
	sysCase{"git.latest", value.MapOf("name", up, "target", tagTarget, "rev", "v1"), true, up + " cloned to " + tagTarget}.check(t, ctx)
	if got := git(t, tagTarget, "rev-parse", "HEAD"); got != first {
		t.Errorf("tag checkout at %s, want %s", got, first)
	}
	// A non-empty target that is not a repository.
	busy := filepath.Join(dir, "busy")
	os.MkdirAll(busy, 0o755)
	os.WriteFile(filepath.Join(busy, "x"), nil, 0o644)
	ret = sysRun(t, ctx, "git.latest", value.MapOf("name", up, "target", busy), false)
	if str(ret, "result") != "False" || !strings.Contains(str(ret, "comment"), "force_clone") {
		t.Errorf("busy target: %s", value.Repr(ret))
	}
	sysCase{"git.latest", value.MapOf("name", up, "target", busy, "force_clone", true), true, up + " cloned to " + busy}.check(t, ctx)
}

// TestGitLatestAsUser clones and updates as a dedicated test user, the
// way `user:` is used in real trees.
func TestGitLatestAsUser(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	needRootTools(t, "useradd", "userdel")
	cleanUsers(t)
	t.Cleanup(func() { cleanUsers(t) })
	if err := exec.Command("useradd", "-M", testUser).Run(); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "brine-git-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	up := filepath.Join(dir, "upstream")
	os.MkdirAll(up, 0o755)
	git(t, up, "init", "-q", "-b", "main")
	commit(t, up, "a", "1")
	exec.Command("chown", "-R", testUser, up).Run()
	work := filepath.Join(dir, "work")
	os.MkdirAll(work, 0o755)
	exec.Command("chown", testUser, work).Run()
	target := filepath.Join(work, "clone")
	ctx := execmod.NewContext()
	ret := sysRun(t, ctx, "git.latest", value.MapOf("name", up, "target", target, "user", testUser), false)
	if str(ret, "result") != "True" {
		t.Skipf("git cannot read a repository owned by root as another user here: %s", str(ret, "comment"))
	}
	st, _ := os.Stat(filepath.Join(target, ".git"))
	if owner := fileOwner(st); owner != testUser {
		t.Errorf(".git owned by %s", owner)
	}
	second := commit(t, up, "b", "2")
	sysCase{"git.latest", value.MapOf("name", up, "target", target, "user", testUser), true, up + " was fetched, resulting in updated refs. Repository was fast-forwarded to remote HEAD (" + second[:7] + ")."}.check(t, ctx)
}
