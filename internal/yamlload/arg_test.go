package yamlload

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"brine/internal/value"
)

// TestLoadArgGolden compares LoadArg with Salt's yamlify_arg, recorded in
// testdata/arg_golden.json.
func TestLoadArgGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/arg_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Arg string `json:"arg"`
		Out any    `json:"out"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		got := LoadArg(c.Arg)
		gj, _ := json.Marshal(encodeTagged(got))
		var g any
		_ = json.Unmarshal(gj, &g)
		if !reflect.DeepEqual(g, c.Out) {
			wj, _ := json.Marshal(c.Out)
			t.Errorf("LoadArg(%q) = %s, want %s", c.Arg, gj, wj)
		}
	}
}

func TestParseKwarg(t *testing.T) {
	tests := []struct {
		in        string
		name, val string
		ok        bool
	}{
		{"test=True", "test", "True", true},
		{"pillar={\"a\": 1}", "pillar", "{\"a\": 1}", true},
		{"a.b-c=1", "a.b-c", "1", true},
		{"_x=", "_x", "", true},
		{"é=1", "é", "1", true},
		{"1a=2", "", "", false},
		{"a==b", "", "", false},
		{"=x", "", "", false},
		{"a b=c", "", "", false},
		{"a=b=c", "a", "b=c", true},
		{"a=b\n", "a", "b", true},
		{"a=b\nc", "", "", false},
		{"plain", "", "", false},
	}
	for _, tt := range tests {
		name, val, ok := ParseKwarg(tt.in)
		if name != tt.name || val != tt.val || ok != tt.ok {
			t.Errorf("ParseKwarg(%q) = %q, %q, %v; want %q, %q, %v", tt.in, name, val, ok, tt.name, tt.val, tt.ok)
		}
	}
}

func TestParseInput(t *testing.T) {
	pos, kw := ParseInput([]string{"web", "test=True", "mode=0644", "20230101123456789012", "pillar={a: 1}", "raw=yes"}, []string{"raw"})
	if want := "['web', '20230101123456789012']"; value.Repr(value.NewList(pos...)) != want {
		t.Errorf("pos = %s, want %s", value.Repr(value.NewList(pos...)), want)
	}
	if want := "{'test': True, 'mode': 644, 'pillar': {'a': 1}, 'raw': 'yes'}"; value.Repr(kw) != want {
		t.Errorf("kwargs = %s, want %s", value.Repr(kw), want)
	}
}
