package jinja

import (
	"encoding/json"
	"os"
	"testing"
)

// TestAdhoc renders the templates listed in $JINJA_ADHOC (a JSON list of
// strings) and writes {"out"|"err"} results to $JINJA_ADHOC.out; used by
// tools/jinjagolden/diff.py for quick differential checks.
func TestAdhoc(t *testing.T) {
	path := os.Getenv("JINJA_ADHOC")
	if path == "" {
		t.Skip("JINJA_ADHOC not set")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var srcs []struct {
		T    string   `json:"t"`
		Opts []string `json:"opts"`
	}
	if err := json.Unmarshal(data, &srcs); err != nil {
		t.Fatal(err)
	}
	type result struct {
		Out  *string `json:"out,omitempty"`
		Type string  `json:"type,omitempty"`
		Msg  string  `json:"msg,omitempty"`
	}
	var res []result
	for _, s := range srcs {
		out, err := renderGolden(goldenCase{template: s.T, options: s.Opts})
		if err != nil {
			e := asError(err)
			res = append(res, result{Type: e.Type, Msg: e.Msg})
		} else {
			res = append(res, result{Out: &out})
		}
	}
	b, _ := json.Marshal(res)
	if err := os.WriteFile(path+".out", b, 0o644); err != nil {
		t.Fatal(err)
	}
}
