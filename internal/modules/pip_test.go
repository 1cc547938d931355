package modules

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

// TestPipVenv drives pip in a temp virtualenv, offline: setuptools is
// removed and installed again from the wheels bundled with Python.
func TestPipVenv(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	out, err := exec.Command(py, "-c", "import ensurepip, os; print(os.path.join(os.path.dirname(ensurepip.__file__), '_bundled'))").Output()
	if err != nil {
		t.Skip("python3 has no ensurepip")
	}
	wheels := strings.TrimSpace(string(out))
	venv := filepath.Join(t.TempDir(), "venv")
	if out, err := exec.Command(py, "-m", "venv", venv).CombinedOutput(); err != nil {
		t.Skipf("cannot make a virtualenv: %v: %s", err, out)
	}
	ctx := testContext()
	env := []any{"bin_env", venv}
	ver := value.Str(call(t, ctx, "pip.version", nil, env...))
	if ver == "" || ver == "None" {
		t.Fatalf("pip.version = %q", ver)
	}
	pkgs := call(t, ctx, "pip.list", nil, env...).(*value.Map)
	st, ok := pkgs.GetString("setuptools")
	if !ok {
		t.Skipf("the virtualenv has no setuptools: %s", value.Repr(pkgs))
	}
	for _, tc := range []struct {
		fun  string
		args []any
		kw   []any
		want string // repr; trailing "*" for a prefix; "" to skip
	}{
		{"pip.list", []any{"pi"}, env, "{'pip': '" + ver + "'}"},
		{"pip.list_freeze_parse", []any{"setup"}, env, "{'setuptools': '" + value.Str(st) + "'}"},
		{"pip.is_installed", []any{"SetupTools"}, env, "True"},
		{"pip.is_installed", []any{"nope-brine"}, env, "False"},
		{"pip.install", nil, env, "{'retcode': 0, 'stdout': 'No packages to install.'}"},
		{"pip.uninstall", []any{"setuptools"}, env, "{'pid': *"},
		{"pip.is_installed", []any{"setuptools"}, env, "False"},
		{"pip.install", []any{"setuptools"}, append([]any{"no_index", true, "find_links", wheels}, env...), "{'pid': *"},
		{"pip.is_installed", []any{"setuptools"}, env, "True"},
	} {
		got := value.Repr(call(t, ctx, tc.fun, tc.args, tc.kw...))
		p, prefix := strings.CutSuffix(tc.want, "*")
		if tc.want != "" && got != tc.want && !(prefix && strings.HasPrefix(got, p)) {
			t.Errorf("%s%v%v = %s, want %s", tc.fun, tc.args, tc.kw, got, tc.want)
		}
	}
	frozen := value.Repr(call(t, ctx, "pip.freeze", nil, env...))
	if !strings.Contains(frozen, "'setuptools==") || !strings.Contains(frozen, "'pip==") {
		t.Errorf("pip.freeze = %s", frozen)
	}
	for _, tc := range []struct {
		fun  string
		kw   []any
		want string
	}{
		{"pip.install", []any{"pkgs", "x", "no_index", true, "index_url", "https://example.com"}, "'no_index' and ('index_url' or 'extra_index_url') are mutually exclusive."},
		{"pip.install", []any{"pkgs", "x", "index_url", "example.com"}, "'example.com' is not a valid URL"},
		{"pip.install", []any{"editable", "git+https://example.com/x.git"}, "You must specify an egg for this editable"},
		{"pip.install", []any{"pkgs", "x", "exists_action", "q"}, "The exists_action pip option only supports the values s, i, w, and b. 'q' is not valid."},
		{"pip.install", []any{"pkgs", "x", "timeout", 1.5}, "'1.5' is not a valid timeout, must be an integer"},
		{"pip.version", []any{"bin_env", "/nonexistent/brine"}, "Access denied to /nonexistent/brine, could not find a pip binary"},
	} {
		_, err := ctx.Call(tc.fun, nil, value.MapOf(append(tc.kw, env[:0]...)...))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s%v: error %v, want %q", tc.fun, tc.kw, err, tc.want)
		}
	}
}
