package yamlload

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
)

// temporary differential harness; removed before hand-off
func TestZZDiff(t *testing.T) {
	in := os.Getenv("YDIFF_IN")
	if in == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(in)
	var cases []string
	_ = json.Unmarshal(data, &cases)
	var out []map[string]any
	for _, c := range cases {
		v, err := Load([]byte(c), "x")
		r := map[string]any{}
		var e *Error
		if errors.As(err, &e) {
			if e.Kind == OtherError {
				r["exc"] = e.Problem
			} else {
				r["err"] = e.Error()
				r["type"] = e.Kind.String()
			}
		} else if err != nil {
			r["exc"] = err.Error()
		} else {
			r["ok"] = encodeTagged(v)
		}
		out = append(out, r)
	}
	b, _ := json.Marshal(out)
	_ = os.WriteFile(os.Getenv("YDIFF_OUT"), b, 0o644)
}
