package modules

import (
	"os"
	"path/filepath"
	"testing"

	"brine/internal/value"
)

func TestDataStore(t *testing.T) {
	ctx := testContext()
	dir := t.TempDir()
	ctx.Opts.Set("cachedir", dir)
	for _, tc := range []struct {
		fun  string
		args []any
		want string
	}{
		{"data.load", nil, "{}"},
		{"data.get", []any{"a"}, "None"},
		{"data.update", []any{"a", int64(1)}, "True"},
		{"data.update", []any{"b", value.NewList("x", "y")}, "True"},
		{"data.get", []any{"a"}, "1"},
		{"data.get", []any{value.NewList("a", "zz", "b")}, "[1, ['x', 'y']]"},
		{"data.get", []any{value.NewList("a", "zz"), "d"}, "[1, 'd']"},
		{"data.has_key", []any{"b"}, "True"},
		{"data.has_key", []any{"zz"}, "False"},
		{"data.cas", []any{"a", int64(2), int64(5)}, "False"},
		{"data.cas", []any{"a", int64(2), int64(1)}, "True"},
		{"data.cas", []any{"zz", int64(2), nil}, "False"},
		{"data.keys", nil, "['a', 'b']"},
		{"data.values", nil, "[2, ['x', 'y']]"},
		{"data.pop", []any{"b"}, "['x', 'y']"},
		{"data.pop", []any{"b", "gone"}, "'gone'"},
		{"data.items", nil, "{'a': 2}"},
		{"data.dump", []any{"{'k': 'v', 'n': 3}"}, "True"},
		{"data.load", nil, "{'k': 'v', 'n': 3}"},
		{"data.dump", []any{"[1, 2]"}, "False"},
		{"data.dump", []any{value.MapOf("z", true)}, "True"},
		{"data.load", nil, "{'z': True}"},
		{"data.clear", nil, "True"},
		{"data.load", nil, "{}"},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, tc.args)); got != tc.want {
			t.Errorf("%s%v = %s, want %s", tc.fun, tc.args, got, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "datastore")); !os.IsNotExist(err) {
		t.Errorf("datastore after clear: %v", err)
	}
}
