package top

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"brine/internal/fileserver"
	"brine/internal/match"
	"brine/internal/value"
	"brine/internal/yamlload"
)

var yamlRender = RendererFunc(func(path, source, saltenv, sls string) (any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v, err := yamlload.Load(data, path)
	if v == nil && err == nil {
		v = value.NewMap(0)
	}
	return v, err
})

func envTree(t *testing.T, envs map[string]map[string]string) *fileserver.Avail {
	t.Helper()
	dirs := map[string][]string{}
	for env, files := range envs {
		dir := filepath.Join(t.TempDir(), env)
		for name, body := range files {
			p := filepath.Join(dir, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(body), 0o644)
		}
		os.MkdirAll(dir, 0o755)
		dirs[env] = []string{dir}
	}
	return fileserver.NewAvail(fileserver.FromDirs(dirs), nil)
}

func jsonOf(v any) string { return value.ToJSON(v, value.JSONOptions{Indent: -1}) }

func TestMergeStrategies(t *testing.T) {
	envs := map[string]map[string]string{
		"base": {"top.sls": "base:\n  '*': [b_base]\nfoo:\n  '*': [b_foo]\n"},
		"foo":  {"top.sls": "foo:\n  '*': [f_foo]\n  'x*': [f_x]\nbar:\n  '*': [f_bar]\n"},
		"bar":  {"top.sls": "bar:\n  '*': [r_bar]\n"},
		"baz":  {"x.sls": ""},
	}
	avail := envTree(t, envs)
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{}, `{"base": {"*": ["b_base"]}, "foo": {"*": ["b_foo"]}, "bar": {"*": ["r_bar"]}}`},
		// Environments are read base first, then sorted: bar, baz, foo.
		{Options{Strategy: "same", DefaultTop: "base"}, `{"base": {"*": ["b_base"]}, "bar": {"*": ["r_bar"]}, "foo": {"*": ["f_foo"], "x*": ["f_x"]}}`},
		{Options{Strategy: "merge_all"}, `{"base": {"*": ["b_base"]}, "foo": {"*": ["b_foo", "f_foo"], "x*": ["f_x"]}, "bar": {"*": ["r_bar", "f_bar"]}}`},
		{Options{Saltenv: "foo"}, `{"foo": {"*": ["f_foo"], "x*": ["f_x"]}}`},
		{Options{StateTopSaltenv: "foo", Strategy: "merge"}, `{"foo": {"*": ["f_foo"], "x*": ["f_x"]}}`},
	} {
		got, err := Get(avail, yamlRender, tc.o)
		if err != nil {
			t.Fatal(err)
		}
		if g := jsonOf(got); g != tc.want {
			t.Errorf("%+v:\ngot  %s\nwant %s", tc.o, g, tc.want)
		}
	}
}

func TestNoTargets(t *testing.T) {
	avail := envTree(t, map[string]map[string]string{"base": {"top.sls": "base: [a, b]\n"}})
	if _, err := Get(avail, yamlRender, Options{}); err == nil {
		t.Error("want 'No targets found' error")
	}
}

func TestVerify(t *testing.T) {
	top, _ := yamlload.Load([]byte("base:\n  '*': [ok, '']\n  'web*': str\n  'db*': [{match: ''}]\n"), "t")
	want := []string{
		"Environment base contains an empty sls index",
		"Malformed topfile (state declarations not formed as a list)",
		"Improperly formatted top file matcher in saltenv {'match': ''}:  file",
	}
	if got := Verify(top); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := Verify(value.NewList()); !reflect.DeepEqual(got, []string{"Top data was not formed as a dict"}) {
		t.Errorf("got %q", got)
	}
}

func TestMatches(t *testing.T) {
	avail := envTree(t, map[string]map[string]string{"base": {}, "dev": {}})
	top, _ := yamlload.Load([]byte(`
base:
  '*':
    - core
    - dev: tools
    - nosuch: x
  'os:Debian':
    - match: grain
    - deb
  'db*':
    - nope
  'web*':
    - subfilter:
        'G@os:Debian':
          - sub_deb
        'G@os:RedHat':
          - sub_rh
    - web
  'only_match':
    - match: glob
dev:
  '*': dev_str
`), "t")
	c := &match.Context{ID: "web1", Grains: value.MapOf("os", "Debian")}
	m, err := Matches(c, top.(*value.Map), "", avail)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"base": ["core", "deb", "sub_deb", "web"], "dev": ["tools", "dev_str"]}`
	if g := jsonOf(m); g != want {
		t.Errorf("got  %s\nwant %s", g, want)
	}
	_, err = Matches(c, value.MapOf("base", value.MapOf("*", value.NewList(value.MapOf("match", "bogus")))), "", avail)
	if err == nil {
		t.Error("unknown matcher: no error")
	}
}
