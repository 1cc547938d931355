package aptsrc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestParsePyGolden compares ParsePy with python-apt 2.6's SourceEntry
// (Debian 12), recorded in testdata/python_apt_parse.json.
func TestParsePyGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/python_apt_parse.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Line          string   `json:"line"`
		Invalid       bool     `json:"invalid"`
		Disabled      bool     `json:"disabled"`
		Type          string   `json:"type"`
		Architectures []string `json:"architectures"`
		URI           string   `json:"uri"`
		Dist          string   `json:"dist"`
		Comps         []string `json:"comps"`
		Comment       string   `json:"comment"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		e := ParsePy(c.Line, DefaultFile)
		got := []any{e.Invalid, e.Disabled, e.Type, nonNil(e.Architectures), e.URI, e.Dist, nonNil(e.Comps), e.Comment}
		want := []any{c.Invalid, c.Disabled, c.Type, nonNil(c.Architectures), c.URI, c.Dist, nonNil(c.Comps), c.Comment}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ParsePy(%q)\n got %q\nwant %q", c.Line, got, want)
		}
	}
}

// TestExpand checks _expand_repo_def's derivations against the sources of
// a test root: an existing entry is reused (its line as written, enabled),
// a new one is built, and signed-by is put back into the line.
func TestExpand(t *testing.T) {
	root := t.TempDir()
	list := filepath.Join(root, "etc/apt/sources.list.d/a.list")
	os.MkdirAll(filepath.Dir(list), 0o755)
	os.WriteFile(list, []byte("# deb http://x/y bookworm main\ndeb [trusted=yes] file:/r ./\ndeb  http://z/w  stable main\n"), 0o644)
	for _, tc := range []struct {
		repo string
		mods ExpandMods
		want Expanded
	}{
		{"deb http://x/y bookworm main", ExpandMods{},
			Expanded{"/etc/apt/sources.list.d/a.list", []string{"main"}, false, "bookworm", "deb", "http://x/y", "deb http://x/y bookworm main", []string{}, ""}},
		{"deb [trusted=yes] file:/r ./", ExpandMods{},
			Expanded{"/etc/apt/sources.list.d/a.list", []string{}, false, "./", "deb", "file:/r", "deb [trusted=yes] file:/r ./", []string{}, ""}},
		{"deb http://z/w/ stable contrib", ExpandMods{},
			Expanded{"/etc/apt/sources.list.d/a.list", []string{"main", "contrib"}, false, "stable", "deb", "http://z/w", "deb  http://z/w  stable main", []string{}, ""}},
		{"deb [signed-by=/k.gpg] http://n/m stable main", ExpandMods{HasArchs: true, Archs: []string{"amd64"}},
			// Salt rebuilds the options from the definition alone: the
			// architectures given as an argument drop out of the line.
			Expanded{DefaultFile, []string{"main"}, false, "stable", "deb", "http://n/m", "deb [signed-by=/k.gpg] http://n/m stable main", []string{"amd64"}, "/k.gpg"}},
		{"deb [trusted=yes signed-by=/k.gpg] http://n/m stable", ExpandMods{},
			Expanded{DefaultFile, []string{}, false, "stable", "deb", "http://n/m", "deb [trusted=yes signed-by=/k.gpg] http://n/m stable", []string{}, "/k.gpg"}},
	} {
		if got := Expand(root, tc.repo, tc.mods); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Expand(%q)\n got %#v\nwant %#v", tc.repo, got, tc.want)
		}
	}
}
