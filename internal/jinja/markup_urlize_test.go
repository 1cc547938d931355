package jinja

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"brine/internal/value"
)

// TestMarkupUrlizeGolden checks join, escape, filesizeformat and urlize
// (rel, target, extra_schemes, trimming, parentheses, IP and IDNA hosts)
// (join also with autoescaping), the replace and format filters and the
// format, format_map, unescape and striptags methods on Markup, and type.mro
// in the sandbox against the outputs recorded from Python's
// Jinja2 3.1 (testdata/markup_urlize_golden.json).
func TestMarkupUrlizeGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/markup_urlize_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Src        string `json:"src"`
		Autoescape bool   `json:"autoescape"`
		Out        *string
		Err        string
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		env := New()
		env.Autoescape = tc.Autoescape
		got, err := env.RenderString("x", tc.Src, value.NewMap(0))
		switch {
		case tc.Out != nil && err != nil:
			t.Errorf("%s (autoescape %v): %v, want %q", tc.Src, tc.Autoescape, err, *tc.Out)
		case tc.Out != nil && got != *tc.Out:
			t.Errorf("%s (autoescape %v):\n got %q\nwant %q", tc.Src, tc.Autoescape, got, *tc.Out)
		case tc.Out == nil && (err == nil || !strings.Contains(err.Error(), tc.Err)):
			t.Errorf("%s (autoescape %v): %q, %v; want the error %q", tc.Src, tc.Autoescape, got, err, tc.Err)
		}
	}
}
