package modules

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

func writeScript(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestVirtualenvCreateArgs checks the command lines virtualenv.create
// builds, with stand-ins for virtualenv and pyvenv that echo their
// arguments (the texts are what Salt 3006 returned for the same calls).
func TestVirtualenvCreateArgs(t *testing.T) {
	dir := t.TempDir()
	venv := writeScript(t, filepath.Join(dir, "virtualenv-fake"), `if [ "$1" = --version ]; then echo "virtualenv 20.17.1+ds from /usr/lib/python3/dist-packages/virtualenv/__init__.py"; exit 0; fi
echo "args: $*"
`)
	old := writeScript(t, filepath.Join(dir, "virtualenv-old"), `if [ "$1" = --version ]; then echo "1.9.1"; exit 0; fi
echo "args: $*"
`)
	pyvenv := writeScript(t, filepath.Join(dir, "pyvenv-fake"), `echo "args: $*"
`)
	target := filepath.Join(dir, "v")
	ctx := testContext()
	for _, tc := range []struct {
		kw   []any
		want string // stdout, or the error
	}{
		{[]any{"venv_bin", venv}, "args: " + target},
		{[]any{"venv_bin", venv, "prompt", "hi", "never_download", true, "extra_search_dir", "a, b", "python", "sh",
			"clear", true, "system_site_packages", true},
			"args: --python=sh --extra-search-dir=a --extra-search-dir=b --never-download --prompt='hi' --clear --system-site-packages " + target},
		{[]any{"venv_bin", venv, "extra_search_dir", value.NewList("x", "y")}, "args: --extra-search-dir=x --extra-search-dir=y " + target},
		{[]any{"venv_bin", old, "distribute", false, "never_download", true}, "args: --never-download " + target},
		{[]any{"venv_bin", venv, "upgrade", true}, "The `upgrade`(`--upgrade`) option is not supported by '" + venv + "'"},
		{[]any{"venv_bin", venv, "symlinks", false}, "The `symlinks`(`--symlinks`) option is not supported by '" + venv + "'"},
		{[]any{"venv_bin", venv, "python", "nopython-brine"}, "Cannot find requested python (nopython-brine)."},
		{[]any{"venv_bin", pyvenv, "upgrade", true, "symlinks", true, "clear", true}, "args: --upgrade --symlinks --clear " + target},
		{[]any{"venv_bin", pyvenv, "python", "python3"}, "The `python`(`--python`) option is not supported by '" + pyvenv + "'"},
		{[]any{"venv_bin", pyvenv, "prompt", "x"}, "The `prompt`(`--prompt`) option is not supported by '" + pyvenv + "'"},
		{[]any{"venv_bin", pyvenv, "never_download", false}, "The `never_download`(`--never-download`) option is not supported by '" + pyvenv + "'"},
		{[]any{"venv_bin", pyvenv, "extra_search_dir", "a"}, "The `extra_search_dir`(`--extra-search-dir`) option is not supported by '" + pyvenv + "'"},
	} {
		got, err := ctx.Call("virtualenv.create", []any{target}, value.MapOf(tc.kw...))
		var s string
		if err != nil {
			s = err.Error()
		} else {
			s = value.Str(cmdGet(got.(*value.Map), "stdout"))
		}
		if s != tc.want {
			t.Errorf("create %v = %q, want %q", tc.kw, s, tc.want)
		}
	}
	if got := value.Repr(call(t, ctx, "virtualenv.virtualenv_ver", []any{venv})); got != "[20, 17, 1]" {
		t.Errorf("virtualenv_ver = %s", got)
	}
	_, err := ctx.Call("virtualenv.virtualenv_ver", []any{"/bin/false"}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "Unable to get the virtualenv version output using '['/bin/false', '--version']'. Returned data: {'pid': ") {
		t.Errorf("virtualenv_ver /bin/false: %v", err)
	}
}

// TestVirtualenvQueries creates a real environment (python3 -m venv,
// without pip, seeing the system's site-packages) and asks it for paths.
func TestVirtualenvQueries(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	if exec.Command(py, "-c", "import venv, pkg_resources").Run() != nil {
		t.Skip("python3 has no venv or pkg_resources")
	}
	dir := t.TempDir()
	env := filepath.Join(dir, "env")
	ctx := testContext()
	// With no venv_bin and no virtualenv on PATH, create falls back on
	// python3 -m venv; name a pyvenv stand-in so that the test does not
	// depend on what is installed.
	pyvenv := writeScript(t, filepath.Join(dir, "pyvenv-test"), "exec "+py+" -m venv --without-pip \"$@\"\n")
	res := call(t, ctx, "virtualenv.create", []any{env}, "venv_bin", pyvenv, "system_site_packages", true).(*value.Map)
	if rc := cmdGet(res, "retcode"); !value.Equal(rc, int64(0)) {
		t.Fatalf("create: %s", value.Repr(res))
	}
	site := value.Str(call(t, ctx, "virtualenv.get_site_packages", []any{env}))
	if !strings.HasPrefix(site, env+"/lib/python3") || !strings.HasSuffix(site, "/site-packages") {
		t.Errorf("get_site_packages = %q", site)
	}
	loc := value.Str(call(t, ctx, "virtualenv.get_distribution_path", []any{env, "setuptools"}))
	if _, err := os.Stat(filepath.Join(loc, "pkg_resources")); err != nil {
		t.Errorf("get_distribution_path setuptools = %q", loc)
	}
	if p := value.Str(call(t, ctx, "virtualenv.get_resource_path", []any{env, "pkg_resources", "__init__.py"})); p != filepath.Join(loc, "pkg_resources", "__init__.py") {
		t.Errorf("get_resource_path = %q", p)
	}
	os.MkdirAll(filepath.Join(dir, "work", "brinepkg"), 0o755)
	os.WriteFile(filepath.Join(dir, "work", "brinepkg", "__init__.py"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "work", "brinepkg", "data.txt"), []byte("hello\n"), 0o644)
	os.WriteFile(filepath.Join(site, "brinepkg.pth"), []byte(filepath.Join(dir, "work")+"\n"), 0o644)
	if c := value.Str(call(t, ctx, "virtualenv.get_resource_content", []any{env, "brinepkg", "data.txt"})); c != `b'hello\n'` {
		t.Errorf("get_resource_content = %q", c)
	}
	for _, tc := range []struct {
		fun  string
		args []any
		want string
	}{
		{"virtualenv.get_site_packages", []any{filepath.Join(dir, "nope")}, "Path '" + filepath.Join(dir, "nope") + "' does not appear to be a virtualenv: bin/python not found."},
		{"virtualenv.get_distribution_path", []any{env, "pip;import os"}, "Unsafe python code detected in 'pip;import os'"},
		{"virtualenv.get_resource_path", []any{env, "x", "open"}, "Unsafe python code detected in 'open'"},
		{"virtualenv.get_resource_content", []any{env}, "'NoneType' object has no attribute 'count'"},
	} {
		_, err := ctx.Call(tc.fun, tc.args, nil)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s%v: %v, want %q", tc.fun, tc.args, err, tc.want)
		}
	}
	_, err = ctx.Call("virtualenv.get_distribution_path", []any{env, "no-such-dist-brine"}, nil)
	if err == nil || !strings.Contains(err.Error(), "DistributionNotFound") {
		t.Errorf("missing distribution: %v", err)
	}
}
