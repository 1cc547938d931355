package states_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

func TestIniStates(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "app.ini")
	os.WriteFile(p, []byte("top = 1\n# a comment\n[main]\nkey = old\n#port = 80\n\n[extra]\nx = 1\n"), 0o644)
	ctx := execmod.NewContext()
	read := func() string { b, _ := os.ReadFile(p); return string(b) }

	ret := sysCase{"ini.options_present", value.MapOf("name", p, "sections", value.MapOf(
		"top", "2", "main", value.MapOf("key", "new", "port", int64(8080)), "added", value.MapOf("a", "b"))), true, "Changes take effect"}.check(t, ctx)
	want := "{'top': {'before': '1', 'after': '2'}, 'main': {'key': {'before': 'old', 'after': 'new'}, 'port': {'before': None, 'after': '8080'}}, 'added': {'before': None, 'after': {'a': 'b'}}}"
	if got := value.Repr(getMap(ret, "changes")); got != want {
		t.Errorf("changes\n got %s\nwant %s", got, want)
	}
	if got, want := read(), "top = 2\n# a comment\n\n[main]\nkey = new\nport = 8080\n\n[extra]\nx = 1\n\n[added]\na = b\n"; got != want {
		t.Errorf("file\n got %q\nwant %q", got, want)
	}
	tr := sysRun(t, ctx, "ini.options_present", value.MapOf("name", p, "sections", value.MapOf("main", value.MapOf("key", "new"))), true)
	if str(tr, "comment") != "Unchanged key key in section main.\n" || str(tr, "result") != "True" {
		t.Errorf("test mode unchanged: %s", value.Repr(tr))
	}
	sysCase{"ini.options_absent", value.MapOf("name", p, "sections", value.MapOf("main", value.NewList("port"))), true, "Changes take effect"}.check(t, ctx)
	sysCase{"ini.sections_absent", value.MapOf("name", p, "sections", value.NewList("extra")), true, "Changes take effect"}.check(t, ctx)
	sysCase{"ini.sections_present", value.MapOf("name", p, "sections", value.MapOf("new", value.MapOf("k", "v"))), true, "Changes take effect"}.check(t, ctx)
	if got, want := read(), "top = 2\n# a comment\n\n[main]\nkey = new\n\n[added]\na = b\n\n[new]\n"; got != want {
		t.Errorf("file at the end\n got %q\nwant %q", got, want)
	}
}

// TestIniStatesSaltGolden runs testdata/ini/cases.json in order on one copy
// of sample.ini and compares each return and the file after it with what
// Salt 3006 gave (golden.json, written by record.py).
func TestIniStatesSaltGolden(t *testing.T) {
	var cases []struct {
		Fun      string            `json:"fun"`
		Name     string            `json:"name"`
		Sections json.RawMessage   `json:"sections"`
		Kwargs   map[string]string `json:"kwargs"`
	}
	var golden []struct {
		Result  *bool           `json:"result"`
		Comment string          `json:"comment"`
		Changes json.RawMessage `json:"changes"`
		File    *string         `json:"file"`
	}
	for name, dst := range map[string]any{"cases.json": &cases, "golden.json": &golden} {
		data, err := os.ReadFile(filepath.Join("testdata/ini", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, dst); err != nil {
			t.Fatal(name, err)
		}
	}
	if len(cases) != len(golden) {
		t.Fatalf("%d cases, %d golden records: run record.py", len(cases), len(golden))
	}
	dir := t.TempDir()
	sample, err := os.ReadFile("testdata/ini/sample.ini")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "t.ini")
	if err := os.WriteFile(path, sample, 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(raw []byte) any {
		v, err := value.FromJSON([]byte(strings.ReplaceAll(string(raw), "@DIR@", dir)))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	ctx := execmod.NewContext()
	opts := value.JSONOptions{Indent: -1}
	for i, c := range cases {
		g := golden[i]
		args := value.MapOf("name", strings.ReplaceAll(c.Name, "@DIR@", dir))
		if c.Sections != nil {
			args.Set("sections", load(c.Sections))
		}
		test := c.Kwargs["test"] == "True"
		if c.Kwargs["strict"] == "True" {
			args.Set("strict", true)
		}
		ret := sysRun(t, ctx, c.Fun, args, test)
		want := value.MapOf("result", nil, "comment", strings.ReplaceAll(g.Comment, "@DIR@", dir), "changes", load(g.Changes))
		if g.Result != nil {
			want.Set("result", *g.Result)
		}
		got := value.MapOf("result", getv(ret, "result"), "comment", getv(ret, "comment"), "changes", getv(ret, "changes"))
		if gs, ws := value.ToJSON(got, opts), value.ToJSON(want, opts); gs != ws {
			t.Errorf("case %d %s:\n got %s\nwant %s", i, c.Fun, gs, ws)
		}
		if b, _ := os.ReadFile(path); g.File != nil && string(b) != *g.File {
			t.Errorf("case %d %s: file\n got %q\nwant %q", i, c.Fun, b, *g.File)
		}
	}
}

func getv(m *value.Map, k string) any {
	v, _ := m.Get(k)
	return v
}
