package renderers

import (
	"testing"

	"brine/internal/value"
)

// TestJSONRendererPython pins the json renderer to Python's json.loads:
// accepted extensions, values and the exact error texts.
func TestJSONRendererPython(t *testing.T) {
	tests := []struct{ src, want, err string }{
		{`{"a": 1, "b": [1.5, null, true], "a": 2}`, "{'a': 2, 'b': [1.5, None, True]}", ""},
		{`[NaN, Infinity, -Infinity, 12345678901234567890123, 1e400, -0]`, "[nan, inf, -inf, 12345678901234567890123, inf, 0]", ""},
		{`"\u00e9\ud83d\ude00\n"`, `'é😀\n'`, ""},
		{"#!json", "", "Expecting value: line 1 column 1 (char 0)"},
		{"#!json\n[]", "[]", ""},
		{`{"a": 1,}`, "", "Expecting property name enclosed in double quotes: line 1 column 9 (char 8)"},
		{`{"a" 1}`, "", "Expecting ':' delimiter: line 1 column 6 (char 5)"},
		{`{"a": 1 "b": 2}`, "", "Expecting ',' delimiter: line 1 column 9 (char 8)"},
		{"{\n  'a': 1\n}", "", "Expecting property name enclosed in double quotes: line 2 column 3 (char 4)"},
		{`[1, 2,]`, "", "Expecting value: line 1 column 7 (char 6)"},
		{`[1`, "", "Expecting ',' delimiter: line 1 column 3 (char 2)"},
		{`{`, "", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"},
		{`[`, "", "Expecting value: line 1 column 2 (char 1)"},
		{`"abc`, "", "Unterminated string starting at: line 1 column 1 (char 0)"},
		{"\"a\tb\"", "", "Invalid control character at: line 1 column 3 (char 2)"},
		{`"a\qb"`, "", `Invalid \escape: line 1 column 3 (char 2)`},
		{`"\u12x4"`, "", `Invalid \uXXXX escape: line 1 column 3 (char 2)`},
		{`{"a": 1} x`, "", "Extra data: line 1 column 10 (char 9)"},
		{`01`, "", "Extra data: line 1 column 2 (char 1)"},
		{`{"é": tru}`, "", "Expecting value: line 1 column 7 (char 6)"},
		{"\ufeff{}", "", "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)"},
	}
	for _, tt := range tests {
		got, err := renderJSON(tt.src, nil, "")
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%q: error %v, want %q", tt.src, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.src, err)
			continue
		}
		if r := value.Repr(got); r != tt.want {
			t.Errorf("%q = %s, want %s", tt.src, r, tt.want)
		}
	}
}
