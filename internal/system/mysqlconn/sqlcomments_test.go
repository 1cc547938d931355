package mysqlconn

import (
	"encoding/json"
	"os"
	"testing"
)

// TestStripComments compares StripComments with what sqlparse 0.4.2
// (Debian 12's python3-sqlparse, which Salt's mysql.file_query uses)
// returned for the same scripts (testdata/strip_comments_sqlparse.json).
func TestStripComments(t *testing.T) {
	data, err := os.ReadFile("testdata/strip_comments_sqlparse.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct{ In, Out string }
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if got := StripComments(c.In); got != c.Out {
			t.Errorf("StripComments(%q)\n got %q\nwant %q", c.In, got, c.Out)
		}
	}
}
