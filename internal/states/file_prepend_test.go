package states_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

// TestFilePrependHeader: file.prepend searches for its text ignoring
// whitespace, and with header compares the file's first lines as they
// are instead (recorded from Salt 3006 on this machine).
func TestFilePrependHeader(t *testing.T) {
	const start = "a b\nc\nz\n"
	for _, tc := range []struct {
		name    string
		args    []any
		test    bool
		comment string
		diff    string
		after   string
	}{
		{"whitespace ignored", []any{"text", value.NewList("a  b", "c")}, false,
			"File %s is in correct state", "", start},
		{"header, same top lines", []any{"text", value.NewList("a b", "c"), "header", true}, false,
			"File %s is in correct state", "", start},
		{"header, other top lines", []any{"text", value.NewList("q", "a b"), "header", true}, false,
			"Prepended 2 lines", "--- \n+++ \n@@ -1,3 +1,5 @@\n+q\n+a b\n a b\n c\n z\n", "q\na b\n" + start},
		{"header, test mode", []any{"text", "a b", "header", true}, true,
			"File %s is set to be updated", "--- \n+++ \n@@ -1,3 +1,4 @@\n+a b\n a b\n c\n z\n", start},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "f")
			if err := os.WriteFile(f, []byte(start), 0o644); err != nil {
				t.Fatal(err)
			}
			ret := sysRun(t, execmod.NewContext(), "file.prepend", value.MapOf(append([]any{"name", f}, tc.args...)...), tc.test)
			want := tc.comment
			if want != "Prepended 2 lines" {
				want = fmt.Sprintf(want, f)
			}
			if got := value.Str(getOr(ret, "comment")); got != want {
				t.Errorf("comment %q, want %q", got, want)
			}
			diff, _ := getOr(ret, "changes").(*value.Map).Get("diff")
			if d, _ := diff.(string); d != tc.diff {
				t.Errorf("diff %q, want %q", d, tc.diff)
			}
			if b, _ := os.ReadFile(f); string(b) != tc.after {
				t.Errorf("file %q, want %q", b, tc.after)
			}
		})
	}
}
