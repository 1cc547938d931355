package aptsrc

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// TestParseEntrySaltGolden compares ParseEntry and RepoLine with Salt
// 3006's own SourceEntry (python-apt hidden), recorded by
// testdata/record_parse.py in testdata/salt_noapt_parse.json.
func TestParseEntrySaltGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/salt_noapt_parse.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Line          string   `json:"line"`
		Invalid       bool     `json:"invalid"`
		Disabled      bool     `json:"disabled"`
		Type          string   `json:"type"`
		Architectures []string `json:"architectures"`
		SignedBy      string   `json:"signedby"`
		URI           string   `json:"uri"`
		Dist          string   `json:"dist"`
		Comps         []string `json:"comps"`
		Comment       string   `json:"comment"`
		RepoLine      string   `json:"repo_line"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	nonNil := func(xs []string) []string {
		if xs == nil {
			return []string{}
		}
		return xs
	}
	for _, c := range cases {
		e := ParseEntry(c.Line, "")
		got := []any{e.Invalid, e.Disabled, e.Type, nonNil(e.Architectures), e.SignedBy, e.URI, e.Dist, nonNil(e.Comps), e.Comment, e.RepoLine()}
		want := []any{c.Invalid, c.Disabled, c.Type, nonNil(c.Architectures), c.SignedBy, c.URI, c.Dist, nonNil(c.Comps), c.Comment, c.RepoLine}
		if c.Invalid {
			// Salt leaves the fields of an invalid line half read; only
			// its state and the line written back matter.
			got, want = []any{e.Invalid, e.RepoLine()}, []any{c.Invalid, c.RepoLine}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ParseEntry(%q)\n got %q\nwant %q", c.Line, got, want)
		}
	}
}
