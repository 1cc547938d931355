package states_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

// TestVirtualenvManagedAndPipUptodate walks one environment through
// virtualenv.managed (and its alias virtualenv.manage) and pip.uptodate,
// offline: pip finds the test's wheels through PIP_NO_INDEX and
// PIP_FIND_LINKS. The comments and changes are those Salt 3006 gave for
// the same steps.
func TestVirtualenvManagedAndPipUptodate(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: creating a virtualenv takes several seconds (ensurepip)")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	if exec.Command(py, "-c", "import venv, ensurepip").Run() != nil {
		t.Skip("python3 has no venv/ensurepip module (Debian package python3-venv)")
	}
	dir := t.TempDir()
	wheels := filepath.Join(dir, "wheels")
	os.MkdirAll(wheels, 0o755)
	writeWheel(t, wheels)
	t.Setenv("PIP_NO_INDEX", "1")
	t.Setenv("PIP_FIND_LINKS", wheels)
	t.Setenv("PIP_DISABLE_PIP_VERSION_CHECK", "1")
	pyvenv := filepath.Join(dir, "pyvenv-test")
	os.WriteFile(pyvenv, []byte("#!/bin/sh\nexec "+py+" -m venv \"$@\"\n"), 0o755)
	env := filepath.Join(dir, "env")
	ctx := execmod.NewContext()
	args := func(kv ...any) *value.Map {
		return value.MapOf(append([]any{"name", env, "venv_bin", pyvenv}, kv...)...)
	}
	steps := []struct {
		fun    string
		args   *value.Map
		test   bool
		result any
		// comment, and changes as repr ("" for {}; a trailing "*" for a prefix)
		comment, changes string
	}{
		{"virtualenv.managed", args(), true, nil, "Virtualenv " + env + " is set to be created", ""},
		{"virtualenv.manage", args(), false, true, "Created new virtualenv", "{'new': ''}"},
		{"virtualenv.managed", args(), false, true, "virtualenv exists", ""},
		{"virtualenv.managed", args(), true, true, "Virtualenv " + env + " is already created", ""},
		{"virtualenv.managed", args("pip_pkgs", "brinedemo"), false, true, "virtualenv exists", "{'packages': {'new': ['brinedemo==1.0'], 'old': ''}}"},
		{"virtualenv.managed", args("pip_pkgs", "brinedemo"), false, true, "virtualenv exists", ""},
		{"virtualenv.managed", args("pip_pkgs", "brine-no-such-pkg"), false, false, "virtualenv exists\n*", ""},
		{"virtualenv.managed", args("use_wheel", true), false, false, "The 'use_wheel' option is only supported in pip between 1.4 and 9.0.3. The version of pip detected was *", ""},
		{"virtualenv.managed", args("clear", true), true, nil, "Virtualenv " + env + " is set to be cleared", "{'cleared_packages': ['brinedemo==1.0', *"},
		{"pip.uptodate", value.MapOf("name", "up", "bin_env", env), false, true, "System is already up-to-date.", ""},
		{"wheel 2.0", nil, false, nil, "", ""},
		{"pip.uptodate", value.MapOf("name", "up", "bin_env", env), true, nil, "System update will be performed", ""},
		{"pip.uptodate", value.MapOf("name", "up", "bin_env", env), false, true, "Upgrade successful.", "{'changes': {'brinedemo': {'old': '1.0', 'new': '2.0'}}, 'result': True, 'comment': ''}"},
		{"pip.uptodate", value.MapOf("name", "up", "bin_env", env), false, true, "System is already up-to-date.", ""},
		{"virtualenv.managed", args("clear", true), false, true, "Cleared existing virtualenv", "{'cleared_packages': ['brinedemo==2.0', *"},
		{"pip.uptodate", value.MapOf("name", "up", "bin_env", filepath.Join(dir, "nope")), false, false, "Access denied to " + filepath.Join(dir, "nope") + ", could not find a pip binary", ""},
	}
	match := func(got, want string) bool {
		if p, ok := strings.CutSuffix(want, "*"); ok {
			return strings.HasPrefix(got, p)
		}
		return got == want
	}
	for i, s := range steps {
		if s.args == nil {
			writeWheelVersion(t, wheels, "2.0")
			continue
		}
		ret := sysRun(t, ctx, s.fun, s.args, s.test)
		r, _ := ret.Get("result")
		changes := ""
		if ch := getMap(ret, "changes"); ch.Len() > 0 {
			changes = value.Repr(ch)
		}
		if r != s.result || !match(str(ret, "comment"), s.comment) || !match(changes, s.changes) {
			t.Errorf("step %d %s %s (test=%v): %v %q %s\nwant %v %q %s", i, s.fun, value.Repr(s.args), s.test,
				r, str(ret, "comment"), changes, s.result, s.comment, s.changes)
		}
	}
}
