package compile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"brine/internal/fileserver"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// yamlRenderer renders SLS files as plain YAML (no Jinja).
var yamlRenderer = RendererFunc(func(s fileserver.SLS) (any, error) {
	data, err := os.ReadFile(s.Path)
	if err != nil {
		return nil, err
	}
	return yamlload.Load(data, s.Path)
})

func writeTree(t *testing.T, files map[string]string) string {
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

func newCompiler(dir string) *Compiler {
	roots := fileserver.FromDirs(map[string][]string{"base": {dir}})
	return New(fileserver.NewAvail(roots, nil), yamlRenderer, true)
}

func matchesOf(env string, sls ...string) *value.Map {
	l := value.NewList()
	for _, s := range sls {
		l.Append(s)
	}
	return value.MapOf(env, l)
}

func toJSON(v any) string {
	return value.ToJSON(v, value.JSONOptions{Indent: -1})
}

// lowstate compiles like state.show_lowstate after render.
func lowstate(high *value.Map, errs []string) any {
	high, e := ReconcileExtend(high, false)
	errs = append(errs, e...)
	errs = append(errs, VerifyHigh(high)...)
	high, e = RequisiteIn(high, nil)
	errs = append(errs, e...)
	high = ApplyExclude(high)
	if len(errs) > 0 {
		return errs
	}
	chunks := CompileHighData(high)
	l := value.NewList()
	for _, c := range chunks {
		l.Append(c)
	}
	return l
}

func TestIncludeOrder(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a.sls": "include:\n  - b\nid_a:\n  test.nop: []\n",
		"b.sls": "include:\n  - c\nid_b:\n  test.nop: []\n",
		"c.sls": "include:\n  - a\nid_c:\n  test.nop: []\n",
	})
	c := newCompiler(dir)
	high, errs := c.RenderHighstate(matchesOf("base", "a"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := toJSON(high)
	want := `{"id_a": {"test": ["nop", {"order": 10002}], "__sls__": "a", "__env__": "base"}, "id_b": {"test": ["nop", {"order": 10001}], "__sls__": "b", "__env__": "base"}, "id_c": {"test": ["nop", {"order": 10000}], "__sls__": "c", "__env__": "base"}}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestJSONSanity(t *testing.T) {
	var v any
	if err := json.Unmarshal([]byte(toJSON(value.MapOf("a", int64(1)))), &v); err != nil {
		t.Fatal(err)
	}
}
