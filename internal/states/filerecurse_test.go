package states_test

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/fileserver"
	"brine/internal/value"
)

// recurseSources are the sources of the recorded states {dst}/1 ... {dst}/15;
// {dst}/multi has a list of two.
var recurseSources = []string{"salt://rec", "salt://rec/../other", "salt://rec/sub/..", "salt://../outside",
	"salt://rec/..", "salt://./rec", "salt://rec?saltenv=base", "salt://lnk", "salt://inlnk", "salt://rec/sub/../sub",
	"salt://other/../../outside", "salt://nosuch/../rec", "salt://rec/./sub", "salt:///rec", "salt://rec//sub"}

// TestFileRecurseSalt replays file.recurse with sources holding "..", ".",
// "//" and a saltenv query, and sources behind symlinks (a link in
// file_roots to a directory outside it, a link to a directory inside it, a
// file link pointing out), under fileserver_followsymlinks and
// fileserver_ignoresymlinks, in test mode and for real, against the returns
// recorded from Salt 3006 (testdata/filerecurse_salt.json). Salt builds the
// comment from sets, so the sections are compared sorted.
func TestFileRecurseSalt(t *testing.T) {
	data, err := os.ReadFile("testdata/filerecurse_salt.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := value.FromJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	get := func(m *value.Map, k string) any { v, _ := m.Get(k); return v }
	sorted := value.JSONOptions{Indent: -1, SortKeys: true}
	type tree struct{ dir, dst string }
	trees := map[string]tree{}
	for _, c := range raw.(*value.List).Items {
		tc := c.(*value.Map)
		opts := get(tc, "opts").(*value.Map)
		test := get(tc, "test") == true
		key := value.ToJSON(opts, sorted) + strconv.FormatBool(test)
		tr, ok := trees[key]
		if !ok {
			tr.dir = recurseTree(t)
			tr.dst = filepath.Join(tr.dir, "dst")
			trees[key] = tr
		}
		id := strings.ReplaceAll(value.Str(get(tc, "id")), "{dst}", tr.dst)
		var source any
		if n, err := strconv.Atoi(filepath.Base(id)); err == nil {
			source = recurseSources[n-1]
		} else {
			source = value.NewList("salt://nosuch", "salt://rec/../other")
		}
		t.Run(key+"/"+value.Str(source), func(t *testing.T) {
			roots := fileserver.FromDirs(map[string][]string{"base": {filepath.Join(tr.dir, "srv", "salt")}})
			follow, ignore := true, false
			if v, ok := opts.Get("fileserver_followsymlinks"); ok {
				follow = v == true
			}
			if v, ok := opts.Get("fileserver_ignoresymlinks"); ok {
				ignore = v == true
			}
			roots.SetSymlinks(follow, ignore)
			ctx := execmod.NewContext()
			ctx.Files = roots
			ret := runIn(t, ctx, "file.recurse", value.MapOf("name", id, "source", source), test)
			fix := func(s string) string { return strings.ReplaceAll(s, "{dst}", tr.dst) }
			if g, w := value.ToJSON(get(ret, "changes"), sorted), fix(value.ToJSON(get(tc, "changes"), sorted)); g != w {
				t.Errorf("changes:\n got %s\nwant %s", g, w)
			}
			if g, w := get(ret, "result"), get(tc, "result"); g != w {
				t.Errorf("result %v, want %v", g, w)
			}
			var want []string
			for _, s := range get(tc, "comment_sections").(*value.List).Items {
				want = append(want, fix(value.Str(s)))
			}
			if g, w := commentSections(value.Str(get(ret, "comment"))), want; strings.Join(g, "\x00") != strings.Join(w, "\x00") {
				t.Errorf("comment sections:\n got %q\nwant %q", g, w)
			}
		})
	}
}

// commentSections splits file.recurse's "#### path ####" comment into its
// sections, sorted.
func commentSections(c string) []string {
	if !strings.HasPrefix(c, "#### ") {
		return []string{c}
	}
	secs := strings.Split(c[len("#### "):], "\n\n#### ")
	sort.Strings(secs)
	return secs
}

// recurseTree builds the file roots of the recorded run: srv/salt holds
// rec/{a.txt,sub/b.txt,ext.txt -> outside/x.txt}, other/c.txt,
// lnk -> outside/od and inlnk -> srv/salt/other; outside/ is next to srv/.
func recurseTree(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	root := filepath.Join(d, "srv", "salt")
	for p, body := range map[string]string{"rec/a.txt": "a\n", "rec/sub/b.txt": "b\n", "other/c.txt": "c\n",
		"../../outside/x.txt": "x\n", "../../outside/od/y.txt": "y\n"} {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"rec/ext.txt": filepath.Join(d, "outside", "x.txt"),
		"lnk": filepath.Join(d, "outside", "od"), "inlnk": filepath.Join(root, "other")} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	return d
}
