package fileserver

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"brine/internal/value"
)

func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestResolveSLS(t *testing.T) {
	one := tree(t, map[string]string{"a/b.sls": "1", "a/b/init.sls": "2", "a.sls": "3", "a/init.sls": "4", "only1.sls": "x", "pkg/init.sls": "p"})
	two := tree(t, map[string]string{"a/b.sls": "other", "only2/init.sls": "y"})
	r := FromDirs(map[string][]string{"base": {one, two}})
	for _, tc := range []struct {
		name, source, root string
		ok                 bool
	}{
		{"a.b", "a/b.sls", one, true},
		{"a", "a.sls", one, true},
		{"only1", "only1.sls", one, true},
		{"only2", "only2/init.sls", two, true},
		{"pkg.", "pkg//init.sls", one, true},
		{"missing", "", "", false},
	} {
		s, ok := r.ResolveSLS("base", tc.name)
		if ok != tc.ok {
			t.Errorf("%s: ok=%v", tc.name, ok)
			continue
		}
		if ok && (s.Source != tc.source || filepath.Dir(s.Path) == "" || !strings.HasPrefix(s.Path, tc.root)) {
			t.Errorf("%s: got %+v", tc.name, s)
		}
	}
	want := []string{"a", "a.b", "only1", "only2", "pkg"}
	if got := r.ListStates("base"); !reflect.DeepEqual(got, want) {
		t.Errorf("ListStates = %v", got)
	}
}

func TestConfinement(t *testing.T) {
	outside := tree(t, map[string]string{"secret.sls": "s", "dir/x.sls": "x"})
	root := tree(t, map[string]string{"ok.sls": "o"})
	if err := os.Symlink(filepath.Join(outside, "secret.sls"), filepath.Join(root, "link.sls")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "dir"), filepath.Join(root, "ldir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "ok.sls"), filepath.Join(root, "inside.sls")); err != nil {
		t.Fatal(err)
	}
	r := FromDirs(map[string][]string{"base": {root}})
	for _, tc := range []struct {
		rel string
		ok  bool
	}{
		{"ok.sls", true},
		{"inside.sls", true},
		{"link.sls", false},
		{"ldir/x.sls", false},
		{"../" + filepath.Base(outside) + "/secret.sls", false},
		{filepath.Join(outside, "secret.sls"), false},
		{"", false},
		// Salt's file server refuses any "../" even when it stays inside
		{"ldir/../ok.sls", false},
		{"./ok.sls", true},
	} {
		_, err := r.Find("base", tc.rel)
		if (err == nil) != tc.ok {
			t.Errorf("Find(%q) err=%v, want ok=%v", tc.rel, err, tc.ok)
		}
	}
	// Listings show links wherever they point, as Salt's os.walk does;
	// only Find refuses the outside ones.
	if err := os.Symlink(filepath.Join(root, "missing"), filepath.Join(root, "broken.sls")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		follow, ignore bool
		want           []string
	}{
		{true, false, []string{"broken", "inside", "ldir.x", "link", "ok"}},
		{false, false, []string{"broken", "inside", "link", "ok"}},
		{true, true, []string{"ok"}},
	} {
		r := FromDirs(map[string][]string{"base": {root}})
		r.SetSymlinks(tc.follow, tc.ignore)
		if got := r.ListStates("base"); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("follow=%v ignore=%v: ListStates = %v, want %v", tc.follow, tc.ignore, got, tc.want)
		}
	}
}

func TestParseURL(t *testing.T) {
	for _, tc := range []struct{ in, rel, env string }{
		{"salt://a/b.txt", "a/b.txt", ""},
		{"salt://a/b.txt?saltenv=dev", "a/b.txt", "dev"},
		{"salt://x?env=old", "x", "old"},
	} {
		rel, env, ok := ParseURL(tc.in)
		if !ok || rel != tc.rel || env != tc.env {
			t.Errorf("ParseURL(%q) = %q %q %v", tc.in, rel, env, ok)
		}
	}
	if _, _, ok := ParseURL("/etc/x"); ok {
		t.Error("plain path parsed as salt://")
	}
}

func TestEnvList(t *testing.T) {
	r := New(value.MapOf("dev", value.NewList("/d"), "base", value.NewList("/b"), "prod", value.NewList("/p")))
	if got := r.EnvList(nil); !reflect.DeepEqual(got, []string{"base", "dev", "prod"}) {
		t.Errorf("EnvList = %v", got)
	}
	if got := r.EnvList([]string{"prod", "nope", "base", "prod"}); !reflect.DeepEqual(got, []string{"prod", "base"}) {
		t.Errorf("EnvList(order) = %v", got)
	}
	a := NewAvail(r, []string{"prod"})
	if !a.Has("base") || !a.Has("prod") || a.Has("dev") {
		t.Errorf("Avail = %v", a.Envs())
	}
}

func FuzzConfinement(f *testing.F) {
	root := f.TempDir()
	os.WriteFile(filepath.Join(root, "ok.sls"), []byte("x"), 0o644)
	r := FromDirs(map[string][]string{"base": {root}})
	for _, s := range []string{"ok.sls", "../x", "/etc/passwd", "a/../../b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		p, err := r.Find("base", rel)
		if err == nil && !strings.HasPrefix(p, root) {
			t.Fatalf("%q escaped to %q", rel, p)
		}
	})
}

// TestIgnore pins file_ignore_regex/file_ignore_glob: lookups test the full
// local path, listings the root-relative one.
func TestIgnore(t *testing.T) {
	root := tree(t, map[string]string{"keep.sls": "k", "sub/a.sls": "a", "sub/b.sls": "b", "old.bak.sls": "o"})
	r := FromDirs(map[string][]string{"base": {root}})
	r.SetIgnore(func(p string) bool {
		return strings.HasSuffix(p, "/b.sls") || strings.Contains(p, "bak")
	})
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"keep", true},
		{"sub.a", true},
		{"sub.b", false},
		{"old.bak", false},
	} {
		if _, ok := r.ResolveSLS("base", tc.name); ok != tc.ok {
			t.Errorf("ResolveSLS(%s) ok=%v, want %v", tc.name, ok, tc.ok)
		}
	}
	if got, want := r.ListStates("base"), []string{"keep", "sub.a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ListStates = %v, want %v", got, want)
	}
}
