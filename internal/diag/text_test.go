package diag

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestPrint(t *testing.T) {
	src := func(name string) (string, bool) {
		if name == "web.sls" {
			return "nginx:\n  pkg.instaled: []\n", true
		}
		return "", false
	}
	tests := []struct {
		name  string
		d     *Diagnostic
		color bool
		want  string
	}{
		{
			name: "range",
			d: &Diagnostic{
				Summary: `Unknown state function "pkg.instaled"`,
				Detail:  "Did you mean?",
				Subject: &Range{File: "web.sls", Start: Pos{2, 3}, End: Pos{2, 15}},
				Chain:   []Range{{File: "top.sls", Start: Pos{Line: 3}}},
			},
			want: "Error: Unknown state function \"pkg.instaled\"\n\n  on web.sls line 2:\n     2:   pkg.instaled: []\n          ^~~~~~~~~~~~\n\nDid you mean?\n\n  included from top.sls line 3\n",
		},
		{
			name: "warning without source",
			d:    &Diagnostic{Severity: Warning, Summary: "w", Subject: &Range{File: "x.sls", Start: Pos{Line: 1, Col: 1}}},
			want: "Warning: w\n\n  on x.sls line 1:\n",
		},
		{
			name: "file only",
			d:    &Diagnostic{Summary: "e", Subject: &Range{File: "x.sls"}},
			want: "Error: e\n\n  in x.sls\n",
		},
		{
			name:  "colour",
			d:     &Diagnostic{Summary: "e", Subject: &Range{File: "web.sls", Start: Pos{1, 1}, End: Pos{1, 6}}},
			color: true,
			want:  "\x1b[1;31mError:\x1b[0m \x1b[1me\x1b[0m\n\n  on web.sls line 1:\n     1: nginx:\n        \x1b[1;31m^~~~~\x1b[0m\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Print(&b, tt.d, src, TextOptions{Color: tt.color}); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestWriteJSON(t *testing.T) {
	ds := Diagnostics{
		{Summary: "e", Subject: &Range{File: "web.sls", Start: Pos{1, 1}, End: Pos{1, 6}}},
		{Severity: Warning, Summary: "w"},
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, ds, func(string) (string, bool) { return "nginx:\n", true }); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Valid        bool             `json:"valid"`
		ErrorCount   int              `json:"error_count"`
		WarningCount int              `json:"warning_count"`
		Diagnostics  []JSONDiagnostic `json:"diagnostics"`
	}
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if out.Valid || out.ErrorCount != 1 || out.WarningCount != 1 || len(out.Diagnostics) != 2 {
		t.Fatalf("bad summary: %+v", out)
	}
	d := out.Diagnostics[0]
	if d.Severity != "error" || d.Snippet == nil || d.Snippet.Code != "nginx:" || d.Snippet.HighlightEnd != 5 || d.Range.End.Column != 6 {
		t.Errorf("bad diagnostic: %+v %+v", d, d.Snippet)
	}
}
