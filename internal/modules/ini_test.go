package modules

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

// TestIniSaltGolden runs the cases of testdata/ini/cases.json in order on
// one copy of sample.ini and compares the returns, errors and files with
// what Salt 3006 gave for them (golden.json, written by record.py).
func TestIniSaltGolden(t *testing.T) {
	var cases []struct {
		Args   []json.RawMessage          `json:"args"`
		Kwargs map[string]json.RawMessage `json:"kwargs"`
		CLI    []string                   `json:"cli"`
		File   string                     `json:"file"`
	}
	var golden []struct {
		CLI   []string        `json:"cli"`
		Ret   json.RawMessage `json:"ret"`
		Error *string         `json:"error"`
		File  *string         `json:"file"`
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
	if err := os.WriteFile(filepath.Join(dir, "t.ini"), sample, 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(raw json.RawMessage) any {
		v, err := value.FromJSON([]byte(strings.ReplaceAll(string(raw), "@DIR@", dir)))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	ctx := testContext()
	for i, c := range cases {
		g := golden[i]
		fun := c.CLI[0]
		args := make([]any, len(c.Args))
		for j, a := range c.Args {
			args[j] = load(a)
		}
		kw := value.NewMap(0)
		for k, v := range c.Kwargs {
			kw.Set(k, load(v))
		}
		got, err := ctx.Call(fun, args, kw)
		switch {
		case g.Error != nil:
			want := strings.ReplaceAll(*g.Error, "@DIR@", dir)
			if err == nil || err.Error() != want {
				t.Errorf("case %d %v: err %v, want %q", i, g.CLI, err, want)
			}
		case err != nil:
			t.Errorf("case %d %v: %v", i, g.CLI, err)
		default:
			opts := value.JSONOptions{Indent: -1}
			if gs, ws := value.ToJSON(got, opts), value.ToJSON(load(g.Ret), opts); gs != ws {
				t.Errorf("case %d %v:\n got %s\nwant %s", i, g.CLI, gs, ws)
			}
		}
		name := c.File
		if name == "" {
			name = "t.ini"
		}
		data, ferr := os.ReadFile(filepath.Join(dir, name))
		if g.File == nil {
			if ferr == nil {
				t.Errorf("case %d %v: %s exists", i, g.CLI, name)
			}
			continue
		}
		if string(data) != *g.File {
			t.Errorf("case %d %v: file %s\n got %q\nwant %q", i, g.CLI, name, data, *g.File)
		}
	}
}
