package states_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

// TestFileSerializeMergeSalt replays file.serialize with merge_if_exists
// over existing files of several shapes (mapping, nested, identical,
// empty, list, invalid, scalar, absent) for the json and yaml formatters,
// in test mode and for real, against the returns and files recorded from
// Salt 3006 (testdata/fileserialize_merge_salt.json): the recursive diff
// in place of the text diff, sorted keys in the written file, and the
// deserializers' messages. For a non-mapping existing file Salt reports
// the TypeError's traceback; only its last line is compared.
func TestFileSerializeMergeSalt(t *testing.T) {
	data, err := os.ReadFile("testdata/fileserialize_merge_salt.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := value.FromJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	get := func(m *value.Map, k string) any { v, _ := m.Get(k); return v }
	dataset := value.MapOf("zz", int64(1),
		"bb", value.MapOf("y", "new", "c", value.NewList(int64(3))),
		"aa", value.MapOf("k", int64(2)))
	compact := value.JSONOptions{Indent: -1}
	for _, c := range raw.(*value.List).Items {
		tc := c.(*value.Map)
		file, test := value.Str(get(tc, "file")), get(tc, "test") == true
		t.Run(file+map[bool]string{true: "/test", false: "/run"}[test], func(t *testing.T) {
			d := t.TempDir()
			path := filepath.Join(d, file)
			if ex, ok := get(tc, "existing").(string); ok {
				if err := os.WriteFile(path, []byte(ex), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ret := runIn(t, execmod.NewContext(), "file.serialize", value.MapOf("name", path,
				"formatter", get(tc, "format"), "merge_if_exists", true, "dataset", value.DeepCopy(dataset)), test)
			want := value.MapOf("changes", get(tc, "changes"), "result", get(tc, "result"))
			got := value.MapOf("changes", get(ret, "changes"), "result", get(ret, "result"))
			wj := strings.ReplaceAll(value.ToJSON(want, compact), "{d}", d)
			if gj := value.ToJSON(got, compact); gj != wj {
				t.Errorf("got  %s\nwant %s", gj, wj)
			}
			comment := value.Str(get(ret, "comment"))
			if exc, ok := get(tc, "exception").(string); ok {
				if !strings.HasPrefix(comment, "An exception occurred in this state: Traceback (most recent call last):\n") ||
					!strings.HasSuffix(comment, exc+"\n") {
					t.Errorf("comment %q, want a traceback ending in %q", comment, exc)
				}
			} else if wc := strings.ReplaceAll(value.Str(get(tc, "comment")), "{d}", d); comment != wc {
				t.Errorf("comment %q, want %q", comment, wc)
			}
			after, err := os.ReadFile(path)
			wantAfter, exists := get(tc, "after").(string)
			switch {
			case !exists && err == nil:
				t.Errorf("%s was created", file)
			case exists && string(after) != wantAfter:
				t.Errorf("file:\n%s\nwant:\n%s", after, wantAfter)
			}
		})
	}
}
