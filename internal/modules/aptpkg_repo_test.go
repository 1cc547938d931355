package modules

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
	"brine/internal/yamlload"
)

func aptLoadJSON(t *testing.T, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := yamlload.SafeLoad(data, path)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func aptCopyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// snapshotApt maps each file under root/etc/apt (as a target path) to its
// content.
func snapshotApt(t *testing.T, root string) *value.Map {
	t.Helper()
	var paths []string
	filepath.WalkDir(filepath.Join(root, "etc/apt"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, p)
		}
		return nil
	})
	sort.Strings(paths)
	out := value.NewMap(0)
	for _, p := range paths {
		data, _ := os.ReadFile(p)
		out.Set("/"+strings.TrimPrefix(p, root+"/"), string(data))
	}
	return out
}

// TestAptRepoCasesGolden replays the repository cases recorded from Salt
// 3006's aptpkg (its SourcesList without python-apt, run against the same
// sources tree bind-mounted on /etc/apt): the return or error, the files
// afterwards and whether the package database was refreshed.
func TestAptRepoCasesGolden(t *testing.T) {
	cases := aptLoadJSON(t, "testdata/aptpkg/repo_cases.salt.json").(*value.List)
	for i, c := range cases.Items {
		cm := c.(*value.Map)
		fun := value.Str(mapGet(cm, "fun"))
		t.Run(fun+"/"+value.Str(int64(i)), func(t *testing.T) {
			root := t.TempDir()
			aptCopyTree(t, "testdata/aptpkg/sources", filepath.Join(root, "etc/apt"))
			if l, ok := mapGet(cm, "drop").(*value.List); ok {
				for _, d := range l.Items {
					os.Remove(filepath.Join(root, "etc/apt", value.Str(d)))
				}
			}
			ctx := testContext()
			ctx.Grains.Set("oscodename", "bookworm")
			ctx.SetService(SysRootService, root)
			ctx.Registry = execmod.Default.Clone()
			refreshed := false
			ctx.Registry.Replace("pkg.refresh_db", func(*execmod.Context, []any, *value.Map) (any, error) {
				refreshed = true
				return value.NewMap(0), nil
			}, "")
			var args []any
			if l, ok := mapGet(cm, "args").(*value.List); ok {
				args = l.Items
			}
			kw, _ := mapGet(cm, "kwargs").(*value.Map)
			if kw == nil {
				kw = value.NewMap(0)
			}
			got, err := ctx.Call(fun, args, value.DeepCopy(kw).(*value.Map))
			if want, ok := cm.GetString("error"); ok {
				_, msg, _ := strings.Cut(value.Str(want), ": ")
				if err == nil || err.Error() != msg {
					t.Errorf("%s%v%s: error %v, want %q", fun, args, value.Repr(kw), err, msg)
				}
			} else if err != nil {
				t.Fatalf("%s%v%s: %v", fun, args, value.Repr(kw), err)
			} else {
				// Salt lists sources.list.d in directory order, brine
				// sorted: list_repos compares as a mapping.
				opts := value.JSONOptions{Indent: 1}
				if fun == "pkg.list_repos" && value.Equal(got, mapGet(cm, "return")) {
					return
				}
				if g, w := value.ToJSON(got, opts), value.ToJSON(mapGet(cm, "return"), opts); g != w {
					t.Errorf("%s%v%s =\n%s\nwant\n%s", fun, args, value.Repr(kw), g, w)
				}
			}
			if fun != "pkg.expand_repo_def" {
				if g, w := value.Repr(snapshotApt(t, root)), value.Repr(mapGet(cm, "files")); g != w {
					t.Errorf("%s%v%s files:\n%s\nwant\n%s", fun, args, value.Repr(kw), g, w)
				}
			}
			if w := value.Truthy(mapGet(cm, "refreshed")); refreshed != w {
				t.Errorf("%s%v%s refreshed = %v, want %v", fun, args, value.Repr(kw), refreshed, w)
			}
		})
	}
}

// TestAptRepoParsersGolden checks the parsers against output recorded on
// Debian 12 and what Salt returned for it.
func TestAptRepoParsersGolden(t *testing.T) {
	keys, err := os.ReadFile("testdata/aptpkg/apt-key-list.txt")
	if err != nil {
		t.Fatal(err)
	}
	opts := value.JSONOptions{Indent: 2}
	if g, w := value.ToJSON(parseRepoKeys(strings.TrimRight(string(keys), "\n")), opts), value.ToJSON(aptLoadJSON(t, "testdata/aptpkg/get_repo_keys.salt.json"), opts); g != w {
		t.Errorf("parseRepoKeys =\n%s\nwant\n%s", g, w)
	}
	show, err := os.ReadFile("testdata/aptpkg/apt-cache-show.txt")
	if err != nil {
		t.Fatal(err)
	}
	if g, w := value.ToJSON(parseRepoPkgs(string(show)), opts), value.ToJSON(aptLoadJSON(t, "testdata/aptpkg/list_repo_pkgs.salt.json"), opts); g != w {
		t.Errorf("parseRepoPkgs =\n%s\nwant\n%s", g, w)
	}
}

// posixPathRE matches how salt-call's JSON outputter shows the
// pathlib.Path that mod_repo returns as signedby (repr); brine returns the
// path as a string, which is what Salt's value stands for.
var posixPathRE = regexp.MustCompile(`"PosixPath\('([^']*)'\)"`)

// TestAptRepoOptionsGolden replays pkg.get_repo, pkg.list_repos,
// pkg.mod_repo and pkg.del_repo on sources with options (trusted=,
// arch=, signed-by=) and without components, recorded from Salt 3006
// without python-apt by internal/states/testdata/pkgrepo/record_apt.py:
// the file before, the return or error, and the file after.
func TestAptRepoOptionsGolden(t *testing.T) {
	cases := aptLoadJSON(t, "testdata/aptpkg/repo_options.salt.json").(*value.List)
	if len(cases.Items) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases.Items {
		cm := c.(*value.Map)
		fun := value.Str(mapGet(cm, "fun"))
		t.Run(value.Str(mapGet(cm, "title")), func(t *testing.T) {
			root := t.TempDir()
			os.MkdirAll(filepath.Join(root, "etc/apt/sources.list.d"), 0o755)
			mapGet(cm, "before").(*value.Map).Range(func(k, v any) bool {
				os.WriteFile(filepath.Join(root, value.Str(k)), []byte(value.Str(v)), 0o644)
				return true
			})
			ctx := testContext()
			ctx.Grains.Set("oscodename", "bookworm")
			ctx.SetService(SysRootService, root)
			args := mapGet(cm, "args").(*value.List).Items
			kw := value.DeepCopy(mapGet(cm, "kwargs")).(*value.Map)
			got, err := ctx.Call(fun, args, kw)
			if want, ok := cm.GetString("error"); ok {
				_, msg, _ := strings.Cut(value.Str(want), ": ")
				if err == nil || err.Error() != msg {
					t.Errorf("%s%v: error %v, want %q", fun, args, err, msg)
				}
			} else if err != nil {
				t.Fatalf("%s%v: %v", fun, args, err)
			} else if g, w := value.ToJSON(got, value.JSONOptions{Indent: 1}), posixPathRE.ReplaceAllString(value.ToJSON(mapGet(cm, "return"), value.JSONOptions{Indent: 1}), `"$1"`); g != w {
				t.Errorf("%s%v =\n%s\nwant\n%s", fun, args, g, w)
			}
			after := snapshotApt(t, root)
			if g, w := value.Repr(after), value.Repr(mapGet(cm, "after")); g != w {
				t.Errorf("%s%v files:\n%s\nwant\n%s", fun, args, g, w)
			}
		})
	}
}

// TestAptExpandRepoDefNoAptGolden compares pkg.expand_repo_def with Salt
// 3006's _expand_repo_def without python-apt (recorded by
// internal/system/aptsrc/testdata/record_parse.py): options other than
// arch= and signed-by= dropped, keyword arguments applied.
func TestAptExpandRepoDefNoAptGolden(t *testing.T) {
	cases := aptLoadJSON(t, "testdata/aptpkg/expand_noapt.salt.json").(*value.List)
	if len(cases.Items) == 0 {
		t.Fatal("no cases")
	}
	ctx := testContext()
	ctx.Grains.Set("os", "Debian")
	ctx.Grains.Set("oscodename", "bookworm")
	ctx.SetService(SysRootService, t.TempDir())
	for _, c := range cases.Items {
		cm := c.(*value.Map)
		kw := value.DeepCopy(mapGet(cm, "kwargs")).(*value.Map)
		got, err := ctx.Call("pkg.expand_repo_def", nil, kw)
		if err != nil {
			t.Fatalf("%s: %v", value.Repr(mapGet(cm, "kwargs")), err)
		}
		opts := value.JSONOptions{Indent: -1}
		if g, w := value.ToJSON(got, opts), value.ToJSON(mapGet(cm, "return"), opts); g != w {
			t.Errorf("%s\n got %s\nwant %s", value.Repr(mapGet(cm, "kwargs")), g, w)
		}
	}
}
