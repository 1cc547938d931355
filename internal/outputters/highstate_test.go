package outputters

import (
	"os"
	"path/filepath"
	"testing"

	"brine/internal/output"
	"brine/internal/value"
)

// hsRun is a running dictionary as salt-call --out highstate receives it.
func hsRun() any {
	st := func(id, name, fun string, result any, comment string, changes *value.Map, run int64) *value.Map {
		return value.MapOf("name", name, "changes", changes, "result", result, "comment", comment,
			"__sls__", "main", "__run_num__", run, "start_time", "12:00:00.000100", "duration", 1.5, "__id__", id)
	}
	diff := value.MapOf("diff", "--- \n+++ \n@@ -1 +1 @@\n-a\n+b\n", "mode", "0644")
	warned := st("warn", "warn", "configurable_test_state", true, "careful", value.NewMap(0), 5)
	warned.Set("warnings", value.NewList("this is a warning that is long enough to be wrapped by the textwrap module at eighty columns wide"))
	running := value.MapOf(
		"test_|-changer_|-changer_|-succeed_with_changes", st("changer", "changer", "succeed_with_changes", true, "Success!",
			value.MapOf("testing", value.MapOf("old", "Unchanged", "new", "Something pretended to change")), 0),
		"test_|-quiet_|-quiet_|-succeed_without_changes", st("quiet", "quiet", "succeed_without_changes", true, "Success!", value.NewMap(0), 1),
		"test_|-broken_|-broken_|-fail_without_changes", st("broken", "broken", "fail_without_changes", false, "it broke\nsecond line", value.NewMap(0), 2),
		"file_|-conf_|-/etc/app.conf_|-managed", st("conf", "/etc/app.conf", "managed", true, "File /etc/app.conf updated", diff, 3),
		"test_|-dry_|-dry_|-succeed_with_changes", st("dry", "dry", "succeed_with_changes", nil, "would change",
			value.MapOf("testing", value.MapOf("old", "a", "new", "b")), 4),
		"test_|-warn_|-warn_|-configurable_test_state", warned,
	)
	return value.MapOf("local", running)
}

func TestHighstateGolden(t *testing.T) {
	tests := []struct {
		name string
		opts *value.Map
		col  bool
	}{
		{"highstate_full", value.MapOf("state_verbose", true), false},
		{"highstate_color", value.MapOf("state_verbose", true), true},
		{"highstate_terse", value.MapOf("state_output", "terse", "state_verbose", true), false},
		{"highstate_mixed", value.MapOf("state_output", "mixed", "state_verbose", true), false},
		{"highstate_changes", value.MapOf("state_output", "changes", "state_verbose", true), false},
		{"highstate_full_id", value.MapOf("state_output", "full_id", "state_verbose", true), false},
		{"highstate_terse_id", value.MapOf("state_output", "terse_id", "state_verbose", true), false},
		{"highstate_verbose_false", value.MapOf("state_verbose", false), false},
		{"highstate_tabular", value.MapOf("state_output", "terse", "state_tabular", true, "state_verbose", true), false},
		{"highstate_pct", value.MapOf("state_output_pct", true, "state_verbose", true), false},
		{"highstate_no_profile", value.MapOf("state_output_profile", false, "state_verbose", true), false},
		{"highstate_compile_errors", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := hsRun()
			if tt.name == "highstate_compile_errors" {
				data = value.MapOf("local", value.NewList("No matching sls found for 'nope' in env 'base'", "second error"))
				tt.opts = value.NewMap(0)
			}
			o := output.Options{Opts: tt.opts, Color: tt.col, Retcode: 1}
			got := output.Default.Display(data, "highstate", &o)
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
				t.Errorf("%s mismatch:\n--- got\n%s\n--- want\n%s", tt.name, got, want)
			}
		})
	}
}
