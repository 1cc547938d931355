package modules

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

func needDpkg(t *testing.T) {
	t.Helper()
	for _, c := range []string{"dpkg", "dpkg-query", "dpkg-deb"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skip("needs " + c)
		}
	}
}

// buildDeb builds a package with only a control file into dir/file.
func buildDeb(t *testing.T, dir, file, control string) string {
	t.Helper()
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "DEBIAN"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "DEBIAN/control"), []byte(control), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, file)
	if b, err := exec.Command("dpkg-deb", "--root-owner-group", "--build", src, out).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb: %v: %s", err, b)
	}
	return out
}

// TestLowpkgDebFiles reads .deb files as Salt does (the returns were
// recorded from Salt 3006 for the same control files) and lists apt's
// cache of them.
func TestLowpkgDebFiles(t *testing.T) {
	needDpkg(t)
	root := t.TempDir()
	cache := filepath.Join(root, "var/cache/apt/archives")
	a := buildDeb(t, cache, "brine-test_1.0-1_all.deb", "Package: brine-test\nVersion: 1.0-1\nArchitecture: all\nMaintainer: Brine <brine@example.invalid>\nDescription: test\n")
	b := buildDeb(t, cache, "brine-test32_0.5_i386.deb", "Package: brine-test32\nVersion: 2:0.5\nArchitecture: i386\nMaintainer: Brine <brine@example.invalid>\nDescription: test\n")
	os.WriteFile(filepath.Join(root, "control"), []byte("Package: x\n"), 0o644)
	ctx := testContext()
	ctx.Grains.Set("cpuarch", "x86_64")
	ctx.Grains.Set("osarch", "amd64")
	for _, tc := range []struct {
		path, want string
	}{
		{a, "{'name': 'brine-test', 'version': '1.0-1', 'arch': 'all'}"},
		{b, "{'name': 'brine-test32:i386', 'version': '2:0.5', 'arch': 'i386'}"},
	} {
		if got := value.Repr(call(t, ctx, "lowpkg.bin_pkg_info", []any{tc.path})); got != tc.want {
			t.Errorf("bin_pkg_info(%s) = %s, want %s", tc.path, got, tc.want)
		}
	}
	for _, tc := range []struct {
		path, want string
	}{
		{"/nonexistent/brine.deb", "/nonexistent/brine.deb does not exist on minion"},
		{filepath.Join(root, "control"), "Unable to get info for " + filepath.Join(root, "control") + ": dpkg-deb: error: '" + filepath.Join(root, "control") + "' is not a Debian format archive"},
	} {
		if _, err := ctx.Call("lowpkg.bin_pkg_info", []any{tc.path}, nil); err == nil || err.Error() != tc.want {
			t.Errorf("bin_pkg_info(%s): %v, want %q", tc.path, err, tc.want)
		}
	}
	got := call(t, ctx, "pkg.list_downloaded", nil, "root", root).(*value.Map)
	if got.Len() != 2 {
		t.Fatalf("list_downloaded = %s", value.Repr(got))
	}
	st, _ := os.Stat(a)
	entry := mapGet(mapGet(got, "brine-test").(*value.Map), "1.0-1").(*value.Map)
	if mapGet(entry, "path") != a || !value.Equal(mapGet(entry, "size"), st.Size()) || len(value.Str(mapGet(entry, "creation_date_time"))) != 19 {
		t.Errorf("list_downloaded brine-test = %s", value.Repr(entry))
	}
	if _, ok := mapGet(got, "brine-test32:i386").(*value.Map).GetString("2:0.5"); !ok {
		t.Errorf("list_downloaded = %s", value.Repr(got))
	}
}

// TestLowpkgInstalled reads the installed bash from dpkg's database.
func TestLowpkgInstalled(t *testing.T) {
	needDpkg(t)
	ctx := testContext()
	ver := value.Str(call(t, ctx, "pkg.version", []any{"bash"}))
	if ver == "" {
		t.Skip("bash is not installed")
	}
	if got, want := value.Repr(call(t, ctx, "lowpkg.list_pkgs", []any{"bash"})), "{'bash': '"+ver+"'}"; got != want {
		t.Errorf("lowpkg.list_pkgs bash = %s, want %s", got, want)
	}
	if got := call(t, ctx, "lowpkg.list_pkgs", []any{"brine-no-such-pkg"}); got != "Error:  dpkg-query: no packages found matching brine-no-such-pkg" {
		t.Errorf("lowpkg.list_pkgs missing = %s", value.Repr(got))
	}
	info := call(t, ctx, "lowpkg.info", []any{"bash"}).(*value.Map)
	b := mapGet(info, "bash").(*value.Map)
	if mapGet(b, "version") != ver || mapGet(b, "package") != "bash" || !strings.Contains(value.Str(mapGet(b, "description")), "Bourne") {
		t.Errorf("lowpkg.info bash = %s", value.Repr(b))
	}
	if _, ok := b.GetString("installed_size"); ok {
		t.Errorf("lowpkg.info keeps installed_size: %s", value.Repr(b))
	}
	attr := call(t, ctx, "lowpkg.info", []any{"bash"}, "attr", "version,arch").(*value.Map)
	if got := value.Repr(value.NewList(mapGet(attr, "bash").(*value.Map).Keys()...)); got != "['arch', 'version']" {
		t.Errorf("lowpkg.info attr=version,arch keys = %s", got)
	}
	if _, err := ctx.Call("lowpkg.info", []any{"brine-no-such-pkg"}, nil); err == nil || !strings.HasPrefix(err.Error(), "Error getting packages information: dpkg-query: no packages found") {
		t.Errorf("lowpkg.info missing: %v", err)
	}
	if got := value.Repr(call(t, ctx, "lowpkg.info", []any{"brine-no-such-pkg"}, "failhard", false)); got != "{}" {
		t.Errorf("lowpkg.info failhard=False = %s", got)
	}
	if _, err := ctx.Call("lowpkg.info", []any{"bash"}, value.MapOf("bogus", int64(1))); err == nil || err.Error() != "The following keyword arguments are not valid: bogus=1" {
		t.Errorf("lowpkg.info bogus=1: %v", err)
	}
	files := value.Repr(call(t, ctx, "lowpkg.file_list", []any{"bash"}))
	if !strings.Contains(files, "'/bin/bash'") {
		t.Errorf("lowpkg.file_list bash = %.200s", files)
	}
	if got := value.Repr(call(t, ctx, "lowpkg.unpurge", nil)); got != "{}" {
		t.Errorf("lowpkg.unpurge() = %s", got)
	}
	ctx.Grains.Set("os_family", "RedHat")
	if _, err := ctx.Call("lowpkg.list_pkgs", nil, nil); err == nil || err.Error() != "'lowpkg.list_pkgs' is not available." {
		t.Errorf("lowpkg.list_pkgs on RedHat: %v", err)
	}
}

// TestAptRepoKeysDir adds, lists and deletes a key in a keyring directory
// with gpg (aptkey=False); get_repo_keys' answer was recorded from Salt
// 3006 for the same key.
func TestAptRepoKeysDir(t *testing.T) {
	if _, err := exec.LookPath("gpg"); err != nil {
		t.Skip("needs gpg")
	}
	work := t.TempDir()
	keydir := filepath.Join(work, "keys")
	os.Mkdir(keydir, 0o755)
	data, err := os.ReadFile("testdata/aptpkg/test-key.asc")
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(work, "brine-test.asc")
	os.WriteFile(key, data, 0o644)
	ctx := testContext()
	t.Setenv("GNUPGHOME", t.TempDir())
	if got := call(t, ctx, "pkg.add_repo_key", nil, "path", key, "aptkey", false, "keydir", keydir); got != true {
		t.Fatalf("add_repo_key = %s", value.Repr(got))
	}
	if _, err := os.Stat(filepath.Join(keydir, "brine-test.asc")); err != nil {
		t.Fatalf("key not saved: %v", err)
	}
	keys := call(t, ctx, "pkg.get_repo_keys", nil, "aptkey", false, "keydir", keydir)
	want := aptLoadJSON(t, "testdata/aptpkg/test-key.salt.json")
	opts := value.JSONOptions{Indent: 2}
	if g, w := value.ToJSON(keys, opts), value.ToJSON(want, opts); g != w {
		t.Errorf("get_repo_keys =\n%s\nwant\n%s", g, w)
	}
	for _, tc := range []struct {
		fun  string
		kw   []any
		want any
	}{
		{"pkg.add_repo_key", []any{"keyid", "0A056A75", "aptkey", false, "keydir", keydir}, true},
		{"pkg.add_repo_key", []any{"keyserver", "ks.invalid", "keyid", "1234", "aptkey", false, "keydir", keydir}, false},
		{"pkg.get_repo_keys", []any{"aptkey", false, "keydir", filepath.Join(work, "nodir")}, false},
		{"pkg.del_repo_key", []any{"keyid", "ABC", "aptkey", false, "keydir", keydir}, false},
		{"pkg.del_repo_key", []any{"keyid", "0A056A75", "aptkey", false, "keydir", keydir}, "0A056A75"},
		{"pkg.del_repo_key", []any{"keyid", "0A056A75", "aptkey", false, "keydir", keydir}, false},
	} {
		if got := call(t, ctx, tc.fun, nil, tc.kw...); !value.Equal(got, tc.want) {
			t.Errorf("%s%v = %s, want %s", tc.fun, tc.kw, value.Repr(got), value.Repr(tc.want))
		}
	}
	if ents, _ := os.ReadDir(keydir); len(ents) != 0 {
		t.Errorf("keydir after del_repo_key: %v", ents)
	}
	for _, tc := range []struct {
		fun  string
		kw   []any
		want string
	}{
		{"pkg.add_repo_key", nil, "add_repo_key() takes at least 1 argument (0 given)"},
		{"pkg.add_repo_key", []any{"keyid", "ABCD"}, "No keyserver specified for keyid: ABCD"},
		{"pkg.add_repo_key", []any{"keyserver", "ks.invalid", "aptkey", false, "keydir", keydir}, "No keyid or keyid too short for keyserver: ks.invalid"},
		{"pkg.del_repo_key", nil, "keyid or keyid_ppa and PPA name must be passed"},
	} {
		if _, err := ctx.Call(tc.fun, nil, value.MapOf(tc.kw...)); err == nil || err.Error() != tc.want {
			t.Errorf("%s%v: %v, want %q", tc.fun, tc.kw, err, tc.want)
		}
	}
}
