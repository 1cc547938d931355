package highstate

import (
	"archive/tar"
	"compress/gzip"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/pillar"
	"brine/internal/value"
)

// pkgMember is one member of a test package; link is a symlink target.
type pkgMember struct{ name, data, link string }

func writePkg(t *testing.T, p string, members []pkgMember) (md5sum, sha string) {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for _, m := range members {
		h := &tar.Header{Name: m.name, Mode: 0o644, Size: int64(len(m.data)), Typeflag: tar.TypeReg}
		if m.link != "" {
			h = &tar.Header{Name: m.name, Mode: 0o777, Linkname: m.link, Typeflag: tar.TypeSymlink}
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(m.data)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []interface{ Close() error }{tw, gz, f} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	m, s := md5.Sum(data), sha256.Sum256(data)
	return hex.EncodeToString(m[:]), hex.EncodeToString(s[:])
}

// TestStatePkg runs packaged state runs as salt-ssh builds them. The
// returns are those Salt 3006 gave for packages of the same shape on this
// machine: the running dict of the chunks, {} for a wrong sum, a missing
// package or a member outside the root, the packed errors as they are.
func TestStatePkg(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	pillarRoot := filepath.Join(dir, "pillar")
	if err := os.MkdirAll(pillarRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"top.sls":   "base:\n  'role:pkg':\n    - match: grain\n    - rolep\n",
		"rolep.sls": "fromgrain: role pillar\n",
	} {
		if err := os.WriteFile(filepath.Join(pillarRoot, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	low := `[
 {"state": "file", "__id__": "hello", "name": "` + out + `/hello", "source": "salt://files/hello.txt", "makedirs": true, "__sls__": "pkgtest", "__env__": "base", "fun": "managed", "order": 10000},
 {"state": "file", "__id__": "fromp", "name": "` + out + `/fromp", "contents_pillar": "x", "__sls__": "pkgtest", "__env__": "base", "fun": "managed", "order": 10001, "require": [{"file": "hello"}]},
 {"state": "file", "__id__": "fromg", "name": "` + out + `/fromg", "contents_pillar": "fromgrain", "__sls__": "pkgtest", "__env__": "base", "fun": "managed", "order": 10002},
 {"state": "test", "__id__": "g", "name": "grain", "__sls__": "pkgtest", "__env__": "base", "fun": "succeed_without_changes", "order": 10003}
]`
	good := filepath.Join(dir, "good.tgz")
	goodMD5, goodSHA := writePkg(t, good, []pkgMember{
		{name: "lowstate.json", data: low},
		{name: "pillar.json", data: `{"x": "pillar text"}`},
		{name: "roster_grains.json", data: `{"id": "minion", "role": "pkg", "osrelease_info": [12, 5]}`},
		{name: "base/files/hello.txt", data: "hello from pkg\n"},
	})
	up := filepath.Join(dir, "up.tgz")
	upMD5, _ := writePkg(t, up, []pkgMember{{name: "lowstate.json", data: low}, {name: "base/../../escaped", data: "x"}})
	link := filepath.Join(dir, "link.tgz")
	linkMD5, _ := writePkg(t, link, []pkgMember{{name: "lowstate.json", data: low}, {name: "base/etc", link: dir}, {name: "base/etc/escaped", data: "x"}})
	errs := filepath.Join(dir, "errs.tgz")
	errsMD5, _ := writePkg(t, errs, []pkgMember{{name: "lowstate.json", data: `["Rendering SLS 'base:x' failed"]`}})

	newCtx := func() (ctxPillar *value.Map, call func(args ...any) (any, int, error)) {
		ctx := entryContext(t)
		ctx.Opts.Set("pillar_roots", value.MapOf("base", value.NewList(pillarRoot)))
		ctx.SetService("pillar", pillar.Service{})
		return ctx.Pillar, func(args ...any) (any, int, error) {
			var kwargs *value.Map
			if n := len(args); n > 3 {
				kwargs, args = value.MapOf(args[3:]...), args[:3]
			}
			if kwargs == nil {
				kwargs = value.NewMap(0)
			}
			got, err := ctx.Call("state.pkg", args, kwargs)
			return got, ctx.Retcode(), err
		}
	}
	_, call := newCtx()
	for _, tc := range []struct {
		name string
		args []any
		want string
	}{
		{"wrong sum", []any{good, "0000", "md5"}, "{}"},
		{"missing", []any{filepath.Join(dir, "nope.tgz"), goodMD5, "md5"}, "{}"},
		{"member going up", []any{up, upMD5, "md5"}, "{}"},
		{"member through a link out", []any{link, linkMD5, "md5"}, "{}"},
		{"packed errors", []any{errs, errsMD5, "md5"}, `["Rendering SLS 'base:x' failed"]`},
		{"test mode", []any{good, goodSHA, "sha256", "test", true},
			"file_|-hello_|-" + out + "/hello_|-managed=None file_|-fromp_|-" + out + "/fromp_|-managed=None " +
				"file_|-fromg_|-" + out + "/fromg_|-managed=None test_|-g_|-grain_|-succeed_without_changes=True"},
		{"run", []any{good, goodMD5, "md5"},
			"file_|-hello_|-" + out + "/hello_|-managed=True file_|-fromp_|-" + out + "/fromp_|-managed=True " +
				"file_|-fromg_|-" + out + "/fromg_|-managed=True test_|-g_|-grain_|-succeed_without_changes=True"},
	} {
		got, _, err := call(tc.args...)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		s := summary(got)
		if m, ok := got.(*value.Map); ok && m.Len() == 0 {
			s = "{}"
		}
		if s != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, s, tc.want)
		}
		if tc.name == "test mode" {
			if _, err := os.Stat(out); err == nil {
				t.Errorf("test mode wrote %s", out)
			}
		}
	}
	for name, want := range map[string]string{"hello": "hello from pkg\n", "fromp": "pillar text", "fromg": "role pillar"} {
		if data, err := os.ReadFile(filepath.Join(out, name)); err != nil || strings.TrimSpace(string(data)) != strings.TrimSpace(want) {
			t.Errorf("%s: %q, %v", name, data, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "escaped")); err == nil {
		t.Error("a member was written outside the extraction root")
	}
	if _, _, err := call(good, goodMD5, "foo"); err == nil || err.Error() != "Invalid hash type: foo" {
		t.Errorf("hash type foo: %v", err)
	}
	// A failing state sets the failure retcode, as _set_retcode does.
	failing := filepath.Join(dir, "fail.tgz")
	failMD5, _ := writePkg(t, failing, []pkgMember{{name: "lowstate.json", data: `[{"state": "test", "__id__": "f", "name": "f", "__sls__": "s", "__env__": "base", "fun": "fail_without_changes", "order": 1}]`}})
	_, call = newCtx()
	if got, rc, err := call(failing, failMD5, "md5"); err != nil || rc != 2 || summary(got) != "test_|-f_|-f_|-fail_without_changes=False" {
		t.Errorf("failing package: %s rc %d %v", summary(got), rc, err)
	}
}
