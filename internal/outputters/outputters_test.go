package outputters

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"brine/internal/output"
	"brine/internal/value"
)

var update = flag.Bool("update", false, "rewrite golden files")

// sample is a salt-call return with the value kinds outputters handle.
func sample() any {
	return value.MapOf("local", value.MapOf(
		"zeta", "multi\nline",
		"alpha", value.NewList(int64(1), 2.5, true, nil, "é", value.MapOf("k", "v"), value.NewList("x")),
		"empty", value.NewMap(0),
		"mode", int64(644),
		"tuple", value.Tuple{int64(1), "two"},
	))
}

func TestGolden(t *testing.T) {
	tests := []struct {
		name, out string
		opts      output.Options
	}{
		{"json", "json", output.Options{}},
		{"json_indent2", "json", output.Options{Indent: 2, HasIndent: true}},
		{"json_oneline", "json", output.Options{Indent: -1, HasIndent: true}},
		{"nested", "nested", output.Options{}},
		{"nested_color", "nested", output.Options{Color: true}},
		{"nested_retcode", "nested", output.Options{Color: true, Retcode: 1}},
		{"txt", "txt", output.Options{}},
		{"yaml", "yaml", output.Options{}},
		{"yaml_indent4", "yaml", output.Options{Indent: 4, HasIndent: true}},
		{"yaml_flow", "yaml", output.Options{Indent: -1, HasIndent: true}},
		{"raw", "raw", output.Options{}},
		{"quiet", "quiet", output.Options{}},
		{"unknown_falls_back_to_nested", "nosuch", output.Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			got := output.Default.Display(sample(), tt.out, &o)
			path := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("%s output:\n%s\nwant:\n%s", tt.out, got, want)
			}
		})
	}
}
