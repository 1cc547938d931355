package modules

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/system/debconf"
	"brine/internal/value"
)

// TestDebconfReal sets answers of a made-up package in the real debconf
// database and purges them at the end.
func TestDebconfReal(t *testing.T) {
	if _, err := exec.LookPath("debconf-get-selections"); err != nil {
		t.Skip("debconf-utils is not installed")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to write the debconf database")
	}
	const pkg = "brinemodtest"
	purge := func() {
		cmd := exec.Command("debconf-communicate", pkg)
		cmd.Stdin = strings.NewReader("PURGE\n")
		cmd.Run()
	}
	purge()
	t.Cleanup(purge)
	ctx := testContext()
	file := filepath.Join(t.TempDir(), "answers")
	os.WriteFile(file, []byte(pkg+" "+pkg+"/size string large\n"), 0o644)
	for _, tc := range []struct {
		fun  string
		args []any
		want string
	}{
		{"debconf.show", []any{pkg}, "None"},
		{"debconf.set", []any{pkg, pkg + "/mode", "string", "fast"}, "True"},
		{"debconf.set", []any{pkg, pkg + "/motd", "string", "hello", "there"}, "True"},
		{"debconf.set_file", []any{file}, "True"},
		{"debconf.show", []any{pkg}, "[['" + pkg + "/mode', 'string', 'fast'], ['" + pkg + "/motd', 'string', 'hello there'], ['" + pkg + "/size', 'string', 'large']]"},
		{"debconf.set_file", []any{"salt://no/such/answers"}, "False"},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, tc.args)); got != tc.want {
			t.Errorf("%s%v = %s, want %s", tc.fun, tc.args, got, tc.want)
		}
	}
	all := call(t, ctx, "debconf.get_selections", []any{false}).(*value.Map)
	if l, ok := all.GetString(pkg); !ok || l.(*value.List).Len() != 3 {
		t.Errorf("get_selections[%s] = %v", pkg, value.Repr(l))
	}
}

// TestDebconfUnavailable: without debconf-get-selections (debconf-utils)
// Salt leaves the module out, and salt-call only says the function is not
// available (recorded from Salt 3006 on Debian 12).
func TestDebconfUnavailable(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	ctx := testContext()
	for _, fun := range []string{"debconf.show", "debconf.get_selections", "debconf.set", "debconf.set_file", "debconf.set_template"} {
		_, err := ctx.Call(fun, []any{"x"}, nil)
		var un *execmod.UnavailableError
		if !errors.As(err, &un) || err.Error() != "'"+fun+"' is not available." {
			t.Errorf("%s: %v", fun, err)
		}
	}
}

func TestDebconfParse(t *testing.T) {
	out := "# comment\nfoo\tfoo/a\tstring\tone two\nbar bar/b boolean true\nbaz\tbaz/c\tstring\t\n"
	got := debconf.Parse(out)
	want := []debconf.Selection{
		{Package: "foo", Question: "foo/a", Type: "string", Value: "one two"},
		{Package: "bar", Question: "bar/b", Type: "boolean", Value: "true"},
		{Package: "baz", Question: "baz/c", Type: "string"},
	}
	if len(got) != len(want) {
		t.Fatalf("Parse = %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Parse[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}
