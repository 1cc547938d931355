package modules

import (
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/fileserver"
	_ "brine/internal/renderers"
	"brine/internal/value"
)

func testContext() *execmod.Context {
	ctx := execmod.NewContext()
	ctx.Opts = value.MapOf("id", "m1", "state_output", "full", "renderer", "jinja|yaml",
		"nested", value.MapOf("opt", "from-opts"))
	ctx.Grains = value.MapOf("os", "Debian", "os_family", "Debian", "roles", value.NewList("web", "db"),
		"site", value.MapOf("dc", "east"))
	ctx.Pillar = value.MapOf("app", value.MapOf("port", int64(80)), "master", value.MapOf("mkey", "mval"))
	ctx.Files = &execmod.CachedFiles{
		Src:      fileserver.FromDirs(map[string][]string{"base": {"testdata/roots"}}),
		Cachedir: "/cache",
	}
	return ctx
}

func call(t *testing.T, ctx *execmod.Context, name string, args []any, kw ...any) any {
	t.Helper()
	got, err := ctx.Call(name, args, value.MapOf(kw...))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return got
}

func TestFunctions(t *testing.T) {
	ctx := testContext()
	ctx.Opts.Set("cachedir", t.TempDir()) // cp.get_file_str caches what it reads
	lookup := value.MapOf(
		"RedHat", value.MapOf("pkg", "httpd"),
		"Deb*", value.MapOf("pkg", "apache2", "conf", "/etc/apache2"),
		"default", value.MapOf("pkg", "web"),
		"base", value.MapOf("user", "www", "conf", "/etc/web"),
	)
	tests := []struct {
		name string
		args []any
		kw   []any
		want string
	}{
		{"test.ping", nil, nil, "True"},
		{"test.echo", []any{"hi"}, nil, "'hi'"},
		{"test.arg", []any{int64(1)}, []any{"a", true}, "{'args': (1,), 'kwargs': {'a': True}}"},
		{"grains.get", []any{"site:dc"}, nil, "'east'"},
		{"grains.get", []any{"roles:0"}, nil, "'web'"},
		{"grains.get", []any{"nope"}, nil, "''"},
		{"grains.get", []any{"nope", "dflt"}, nil, "'dflt'"},
		{"grains.get", []any{"site/dc"}, []any{"delimiter", "/"}, "'east'"},
		{"grains.item", []any{"os", "nope"}, nil, "{'os': 'Debian', 'nope': ''}"},
		{"grains.ls", nil, nil, "['os', 'os_family', 'roles', 'site']"},
		{"grains.filter_by", []any{lookup}, nil, "{'pkg': 'apache2', 'conf': '/etc/apache2'}"},
		{"grains.filter_by", []any{lookup, "os"}, []any{"base", "base"}, "{'user': 'www', 'conf': '/etc/apache2', 'pkg': 'apache2'}"},
		{"grains.filter_by", []any{lookup, "nope"}, nil, "{'pkg': 'web'}"},
		{"grains.filter_by", []any{lookup, "nope"}, []any{"default", "missing"}, "None"},
		{"grains.filter_by", []any{value.MapOf("db", "x", "web", "y"), "roles"}, nil, "'y'"},
		{"grains.filter_by", []any{lookup}, []any{"merge", value.MapOf("pkg", "nginx")}, "{'pkg': 'nginx', 'conf': '/etc/apache2'}"},
		{"config.get", []any{"state_output"}, nil, "'full'"},
		{"config.get", []any{"nested:opt"}, nil, "'from-opts'"},
		{"config.get", []any{"site:dc"}, nil, "'east'"},
		{"config.get", []any{"app:port"}, nil, "80"},
		{"config.get", []any{"mkey"}, nil, "'mval'"},
		{"config.get", []any{"nope", "d"}, nil, "'d'"},
		{"config.get", []any{"app"}, []any{"merge", "recurse"}, "{'port': 80}"},
		{"config.option", []any{"site:dc"}, nil, "''"},
		{"config.get", []any{"test.foo"}, nil, "'unconfigured'"},
		{"config.option", []any{"mongo.port"}, nil, "27017"},
		{"config.option", []any{"site"}, nil, "{'dc': 'east'}"},
		{"config.option", []any{"mkey"}, nil, "'mval'"},
		{"config.option", []any{"o*"}, []any{"wildcard", true}, "{'os': 'Debian', 'os_family': 'Debian'}"},
		{"cp.get_file_str", []any{"salt://empty.sls"}, nil, "''"},
		{"cp.get_file_str", []any{"salt://missing"}, nil, "False"},
		{"slsutil.renderer", []any{"salt://sub/t.sls"}, nil, "{'a': 'Debian', 'sls': '', 'tpldir': '.', 'tplfile': 't.sls', 'name': 'none'}"},
		{"slsutil.renderer", []any{"salt://sub/t.sls"}, []any{"name", "x"}, "{'a': 'Debian', 'sls': '', 'tpldir': '.', 'tplfile': 't.sls', 'name': 'x'}"},
		{"slsutil.renderer", []any{"salt://empty.sls"}, nil, "{}"},
		{"slsutil.renderer", nil, []any{"string", "{{ grains.os }} {{ tplfile }}", "default_renderer", "jinja"}, "'Debian :string:'"},
		{"slsutil.renderer", nil, []any{"string", "#!yaml\na: '{{ x }}'"}, "{'a': '{{ x }}'}"},
		{"sys.list_modules", []any{"gra*"}, nil, "['grains']"},
		{"saltutil.sync_modules", nil, nil, "[]"},
		{"saltutil.refresh_grains", nil, nil, "True"},
	}
	for _, tt := range tests {
		got := call(t, ctx, tt.name, tt.args, tt.kw...)
		if value.Repr(got) != tt.want {
			t.Errorf("%s %s %s = %s, want %s", tt.name, value.Repr(value.NewList(tt.args...)), value.Repr(value.MapOf(tt.kw...)), value.Repr(got), tt.want)
		}
	}
}

func TestFunctionErrors(t *testing.T) {
	ctx := testContext()
	tests := []struct {
		name string
		args []any
		kw   []any
		want string
	}{
		{"test.echo", nil, nil, "echo() missing 1 required positional argument: 'text'"},
		{"slsutil.renderer", nil, nil, "Must pass either path or string"},
		{"slsutil.renderer", []any{"rel/path"}, nil, "Path 'rel/path' is not absolute"},
		{"slsutil.renderer", nil, []any{"string", "a: {{ nope }}"}, "Jinja variable 'nope' is undefined"},
		{"slsutil.renderer", nil, []any{"string", "#!yaml\na: {{ x }}"}, "Invalid YAML, possible double curly-brace"},
		{"grains.filter_by", []any{"notadict"}, nil, "filter_by lookup_dict must be a dictionary, not str"},
		{"grains.filter_by", []any{value.MapOf("Debian", "x")}, []any{"merge", "notadict"}, "filter_by merge argument must be a dictionary."},
	}
	for _, tt := range tests {
		_, err := ctx.Call(tt.name, tt.args, value.MapOf(tt.kw...))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestRetcode(t *testing.T) {
	ctx := testContext()
	call(t, ctx, "test.retcode", []any{int64(5)})
	if ctx.Retcode() != 5 {
		t.Errorf("retcode = %d", ctx.Retcode())
	}
}
