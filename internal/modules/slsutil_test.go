package modules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/fileserver"
	"brine/internal/value"
)

// treeContext is a run whose file server is a temp state tree.
func treeContext(t *testing.T, files map[string]string) *execmod.Context {
	t.Helper()
	d := t.TempDir()
	writeTree(t, filepath.Join(d, "srv"), files)
	ctx := testContext()
	ctx.Opts.Set("cachedir", filepath.Join(d, "cache"))
	ctx.Files = &execmod.CachedFiles{Src: fileserver.FromDirs(map[string][]string{"base": {filepath.Join(d, "srv")}}), Cachedir: filepath.Join(d, "cache")}
	return ctx
}

func TestSlsutilTree(t *testing.T) {
	ctx := treeContext(t, map[string]string{"a/b/c/init.sls": "x: 1\n", "a/map.jinja": "{}", "top.sls": "base: {}\n",
		"web/defaults.yaml": "web:\n  port: 80\n  names: [a, b]\n", "db/defaults.json": `{"db": {"port": 5432}}`})
	for _, tc := range []struct {
		fun  string
		args []any
		want string
	}{
		{"slsutil.file_exists", []any{"a/map.jinja"}, "True"},
		{"slsutil.file_exists", []any{"a/b"}, "False"},
		{"slsutil.dir_exists", []any{"a/b"}, "True"},
		{"slsutil.path_exists", []any{"a/b/c/init.sls"}, "True"},
		{"slsutil.path_exists", []any{"nope"}, "False"},
		{"slsutil.findup", []any{"a/b/c", "map.jinja"}, "'a/map.jinja'"},
		{"slsutil.findup", []any{"a/b/c", value.NewList("x.sls", "top.sls")}, "'top.sls'"},
		{"slsutil.findup", []any{nil, "top.sls"}, "'top.sls'"},
		{"slsutil.boolstr", []any{int64(1)}, "'true'"},
		{"slsutil.boolstr", []any{"", "yes", "no"}, "'no'"},
		{"defaults.get", []any{"web:web:port"}, "80"},
		{"defaults.get", []any{"web:web:names:1"}, "'b'"},
		{"defaults.get", []any{"web:web:none", "d"}, "'d'"},
		{"defaults.get", []any{"db"}, "{'db': {'port': 5432}}"},
		{"defaults.get", []any{"nothing"}, "None"},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, tc.args)); got != tc.want {
			t.Errorf("%s%v = %s, want %s", tc.fun, tc.args, got, tc.want)
		}
	}
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"x/y", "top.sls"}, "Starting path not found in the state tree: x/y"},
		{[]any{"a/b", "none.sls"}, "File pattern(s) not found in path ancestry"},
		{[]any{"a/b", int64(3)}, "Filenames argument must be a string or list of strings"},
	} {
		if _, err := ctx.Call("slsutil.findup", tc.args, nil); err == nil || err.Error() != tc.want {
			t.Errorf("findup%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

func TestSlsutilBanner(t *testing.T) {
	ctx := testContext()
	want := strings.Join([]string{
		"########################################################################",
		"#                                                                      #",
		"#              THIS FILE IS MANAGED BY SALT - DO NOT EDIT              #",
		"#                                                                      #",
		"# The contents of this file are managed by Salt. Any changes to this   #",
		"# file may be overwritten automatically and without warning.           #",
		"########################################################################",
	}, "\n")
	if got := call(t, ctx, "slsutil.banner", nil); got != want {
		t.Errorf("banner:\n%s\nwant:\n%s", got, want)
	}
	got := call(t, ctx, "slsutil.banner", nil, "width", int64(30), "commentchar", "//", "borderchar", "-", "title", "Hi", "text", "abc", "blockstart", "/*", "newline", true)
	// The expected text is what Salt's banner prints for these arguments.
	want = "/*\n//--------------------------//\n//                          //\n//            Hi            //\n//                          //\n// abc                      //\n//--------------------------//\n"
	if got != want {
		t.Errorf("custom banner:\n%q\nwant:\n%q", got, want)
	}
	if _, err := ctx.Call("slsutil.banner", nil, value.MapOf("width", int64(3))); err == nil || err.Error() != "Width is too small to render banner" {
		t.Errorf("narrow banner: %v", err)
	}
}

func TestConfigRandomEnvironLog(t *testing.T) {
	ctx := testContext()
	ctx.Opts.Set("backup_mode", "minion")
	ctx.Opts.Set("mine.interval", int64(5))
	ctx.Opts.Set("lst", value.NewList("o"))
	ctx.Pillar.Set("lst", value.NewList("p"))
	ctx.Pillar.Set("d", value.MapOf("p", int64(1), "x", int64(1)))
	ctx.Pillar.Set("master", value.MapOf("mine.functions", "m", "d", value.MapOf("m", int64(2), "x", int64(2))))
	os.Unsetenv("BRINE_TEST_ENV")
	t.Cleanup(func() { os.Unsetenv("BRINE_TEST_ENV"); os.Unsetenv("BRINE_TEST_ENV2") })
	for _, tc := range []struct {
		fun  string
		args []any
		kw   []any
		want string
	}{
		{"config.backup_mode", nil, nil, "'minion'"},
		{"config.backup_mode", []any{"x"}, nil, "'x'"},
		{"config.manage_mode", []any{int64(644)}, nil, "'0644'"},
		{"config.manage_mode", []any{"0755"}, nil, "'0755'"},
		{"config.valid_fileproto", []any{"salt://a"}, nil, "True"},
		{"config.valid_fileproto", []any{"gopher://a"}, nil, "False"},
		{"config.dot_vals", []any{"mine"}, nil, "{'mine.functions': 'm', 'mine.interval': 5}"},
		{"config.merge", []any{"lst"}, nil, "['o', 'p']"},
		{"config.merge", []any{"d"}, nil, "{'p': 1, 'x': 2, 'm': 2}"},
		{"config.merge", []any{"hosts.file"}, nil, "'/etc/hosts'"},
		{"config.merge", []any{"nope", "dflt"}, nil, "'dflt'"},
		{"random.hash", []any{"abc", "md5"}, nil, "'900150983cd24fb0d6963f7d28e17f72'"},
		{"random.hash", []any{"abc", "sha3_256"}, nil, "'3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532'"},
		{"random.str_encode", []any{"hello"}, nil, "'aGVsbG8='"},
		{"random.sample", []any{value.NewList("a", "b", "c", "d"), int64(2)}, []any{"seed", "x"}, ""},
		{"random.shuffle", []any{value.NewList("a")}, nil, "['a']"},
		{"environ.setval", []any{"BRINE_TEST_ENV", "v1"}, nil, "'v1'"},
		{"environ.get", []any{"BRINE_TEST_ENV"}, nil, "'v1'"},
		{"environ.setval", []any{"BRINE_TEST_ENV", false}, nil, "''"},
		{"environ.setval", []any{"BRINE_TEST_ENV", false}, []any{"false_unsets", true}, "None"},
		{"environ.has_value", []any{"BRINE_TEST_ENV"}, nil, "False"},
		{"environ.setval", []any{"BRINE_TEST_ENV", int64(3)}, nil, "False"},
		{"environ.setenv", []any{value.MapOf("BRINE_TEST_ENV", "a", "BRINE_TEST_ENV2", false)}, []any{"false_unsets", true}, "{'BRINE_TEST_ENV': 'a', 'BRINE_TEST_ENV2': None}"},
		{"environ.setenv", []any{value.MapOf("BRINE_TEST_ENV", int64(1))}, nil, "False"},
		{"environ.setenv", []any{"notadict"}, nil, "False"},
		{"log.exception", []any{"boom"}, nil, "None"},
	} {
		got := value.Repr(call(t, ctx, tc.fun, tc.args, tc.kw...))
		if tc.want != "" && got != tc.want {
			t.Errorf("%s%v%v = %s, want %s", tc.fun, tc.args, tc.kw, got, tc.want)
		}
	}
	a := call(t, ctx, "random.sample", []any{value.NewList("a", "b", "c", "d"), int64(2)}, "seed", "x")
	b := call(t, ctx, "random.sample", []any{value.NewList("a", "b", "c", "d"), int64(2)}, "seed", "x")
	if value.Repr(a) != value.Repr(b) || a.(*value.List).Len() != 2 {
		t.Errorf("seeded samples differ: %s %s", value.Repr(a), value.Repr(b))
	}
	for _, tc := range []struct {
		fun  string
		args []any
		want string
	}{
		{"random.hash", []any{"abc", "nope"}, "You must specify a valid algorithm."},
		{"random.str_encode", []any{"abc", "rot13"}, "Value must be an encode-able string"},
	} {
		if _, err := ctx.Call(tc.fun, tc.args, nil); err == nil || err.Error() != tc.want {
			t.Errorf("%s%v: %v, want %q", tc.fun, tc.args, err, tc.want)
		}
	}
}
