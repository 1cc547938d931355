package outputters

import (
	"testing"

	"brine/internal/output"
	"brine/internal/value"
)

// FuzzOutputters feeds arbitrary JSON, as a state or execution function
// could return it, to every outputter under several state_output modes: a
// bad return must print something, never panic.
func FuzzOutputters(f *testing.F) {
	seeds := []string{
		`{"local": {"test_|-a_|-a_|-succeed_with_changes": {"name": "a", "result": true, "changes": {"x": 1}, "comment": "c", "__run_num__": 0, "__id__": "a", "__sls__": "s", "duration": 1.5, "start_time": "1"}}}`,
		`{"local": {"test_|-a_|-a_|-nop": {"changes": {"compressed changes": "x"}, "__id__": "a"}, "test_|-a_|-b_|-nop": {"changes": {"y": 1}, "__id__": "a"}}}`,
		`{"local": ["No matching sls found", 3]}`,
		`{"local": {"x": null}}`,
		`{"local": {"test_|-a_|-a_|-x": {"result": "maybe", "duration": "ten", "comment": ["a", {"b": 1}], "changes": {"diff": 5, "ret": [1]}, "warnings": "w"}}}`,
		`{"local": {"a": {"__run_num__": "z", "start_time": 7, "changes": [], "pchanges": {}}}}`,
		`[1, "a", null, {"b": [true, 2.5]}]`,
		`"just text"`,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	modes := []*value.Map{
		value.MapOf("state_verbose", true),
		value.MapOf("state_output", "terse", "state_verbose", false),
		value.MapOf("state_output", "mixed_id", "state_compress_ids", true),
		value.MapOf("state_output", "changes", "state_tabular", true, "state_output_pct", true),
		value.MapOf("state_output", "full_id", "state_output_diff", true, "state_output_profile", false),
	}
	f.Fuzz(func(t *testing.T, s string) {
		data, err := value.FromJSON([]byte(s))
		if err != nil {
			return
		}
		for _, name := range output.Default.Names() {
			for i, opts := range modes {
				o := &output.Options{Opts: opts.Copy(), Color: i%2 == 0, Retcode: i}
				_ = output.Default.Display(data, name, o)
			}
		}
	})
}
