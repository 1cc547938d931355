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

// swapStrings returns v with old replaced by new in every string, keys
// included.
func swapStrings(v any, old, new string) any {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, old, new)
	case *value.List:
		l := value.NewList()
		for _, it := range x.Items {
			l.Append(swapStrings(it, old, new))
		}
		return l
	case *value.Map:
		m := value.NewMap(x.Len())
		x.Range(func(k, v any) bool {
			m.Set(swapStrings(k, old, new), swapStrings(v, old, new))
			return true
		})
		return m
	}
	return v
}

// TestGitRepoStates runs git.present, git.detached, git.cloned,
// git.config_set and git.config_unset against repositories built by the
// real git; testdata/git_states.json holds each case's setup (a shell
// script run in a fresh directory W) and what Salt 3006 returned for it.
func TestGitRepoStates(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	data, err := os.ReadFile(filepath.Join("testdata", "git_states.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := value.FromJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	prelude := str(doc.(*value.Map), "prelude")
	cases, _ := doc.(*value.Map).Get("cases")
	for _, cv := range cases.(*value.List).Items {
		c := cv.(*value.Map)
		t.Run(str(c, "name"), func(t *testing.T) {
			w := t.TempDir()
			setup := str(c, "setup")
			if setup == "" {
				setup = "true"
			}
			cmd := exec.Command("bash", "-ec", prelude+"\n"+setup)
			cmd.Dir = w
			cmd.Env = append(os.Environ(), "HOME="+w)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("setup: %v\n%s", err, out)
			}
			t.Setenv("HOME", w)
			args, _ := c.Get("args")
			test, _ := c.Get("test")
			ret := sysRun(t, execmod.NewContext(), str(c, "state"), swapStrings(args, "W/", w+"/").(*value.Map), test == true)
			got := value.NewMap(4)
			for _, k := range []string{"name", "result", "comment", "changes"} {
				v, _ := ret.Get(k)
				got.Set(k, swapStrings(v, w, "W"))
			}
			want, _ := c.Get("want")
			if !value.Equal(got, want) {
				t.Errorf("got  %s\nwant %s", value.Repr(got), value.Repr(want))
			}
		})
	}
}

// TestGitConfigUnsetWholeKey unsets every value of keys. Salt 3006 raises
// a KeyError here (it looks the removed key up in what is left); brine
// reports the removed values as changes, which is what the state means to
// do.
func TestGitConfigUnsetWholeKey(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := filepath.Join(t.TempDir(), "r")
	git(t, filepath.Dir(repo), "init", "-q", repo)
	git(t, repo, "config", "--add", "foo.bar", "a")
	git(t, repo, "config", "--add", "foo.bar", "b")
	git(t, repo, "config", "foo.baz", "c")
	ctx := execmod.NewContext()
	for _, tc := range []struct {
		args    *value.Map
		changes string
	}{
		{value.MapOf("name", "foo.baz", "repo", repo), "{'foo.baz': ['c']}"},
		{value.MapOf("name", "foo.bar", "repo", repo, "all", true), "{'foo.bar': ['a', 'b']}"},
	} {
		ret := sysRun(t, ctx, "git.config_unset", tc.args, false)
		if str(ret, "result") != "True" || str(ret, "comment") != "Value(s) successfully unset" || value.Repr(getMap(ret, "changes")) != tc.changes {
			t.Errorf("%s: %s", value.Repr(tc.args), value.Repr(ret))
		}
	}
	if out, err := exec.Command("git", "-C", repo, "config", "--get-regexp", "^foo").Output(); err == nil || len(out) > 0 {
		t.Errorf("keys left: %q", out)
	}
}
