package modules

import "testing"

// Expected messages come from Python 3.10's json.loads.
func TestPyJSONSyntaxError(t *testing.T) {
	tests := []struct{ doc, want string }{
		{"", "Expecting value: line 1 column 1 (char 0)"},
		{"{", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"},
		{"[1,]", "Expecting value: line 1 column 4 (char 3)"},
		{"{'a': 1}", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"},
		{"[1] x", "Extra data: line 1 column 5 (char 4)"},
		{"{\"a\" 1}", "Expecting ':' delimiter: line 1 column 6 (char 5)"},
		{"{\"a\": 1 \"b\": 2}", "Expecting ',' delimiter: line 1 column 9 (char 8)"},
		{"\"abc", "Unterminated string starting at: line 1 column 1 (char 0)"},
		{"\"a\\x\"", "Invalid \\escape: line 1 column 3 (char 2)"},
		{"\"a\\u12\"", "Invalid \\uXXXX escape: line 1 column 4 (char 3)"},
		{"\"a\\u12zz\"", "Invalid \\uXXXX escape: line 1 column 4 (char 3)"},
		{"[1,\n  tru]", "Expecting value: line 2 column 3 (char 6)"},
		{"\"a\tb\"", "Invalid control character at: line 1 column 3 (char 2)"},
		{"{\"a\": 1,}", "Expecting property name enclosed in double quotes: line 1 column 9 (char 8)"},
		{"nul", "Expecting value: line 1 column 1 (char 0)"},
		{"-", "Expecting value: line 1 column 1 (char 0)"},
		{"1.", "Extra data: line 1 column 2 (char 1)"},
		{"[1 2]", "Expecting ',' delimiter: line 1 column 4 (char 3)"},
		{"  \n  {\"k\": [1, {\"z\": }]}", "Expecting value: line 2 column 19 (char 21)"},
		{"\"é\" x", "Extra data: line 1 column 5 (char 4)"},
		{"{\"a\": [1, 2.5e3, -0, true, null, \"x\\u00e9\"]}", ""},
		{" [] ", ""},
	}
	for _, tt := range tests {
		if got := pyJSONSyntaxError(tt.doc); got != tt.want {
			t.Errorf("pyJSONSyntaxError(%q) = %q, want %q", tt.doc, got, tt.want)
		}
	}
}
