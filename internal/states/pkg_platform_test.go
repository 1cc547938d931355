package states_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"brine/internal/engine"
	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

// platformGolden is Salt 3006's return for a case of
// testdata/platform_states/salt.json (written by record.sh there).
func platformGolden(t *testing.T, key string) string {
	t.Helper()
	return goldenJSON(t, "testdata/platform_states/salt.json", key)
}

// TestPlatformStatesGolden runs, on this Debian machine, the state
// functions Salt 3006 loads here but that only do something on other
// platforms, and apt.held, and compares them with what Salt returned.
func TestPlatformStatesGolden(t *testing.T) {
	cases := []struct {
		golden, fun string
		args        *value.Map
		test        bool
		dpkg        bool // changes dpkg's selection of "less"
	}{
		{"shortcut", "file.shortcut", value.MapOf("name", "/tmp/brine-h4.lnk", "target", "/bin/ls"), false, false},
		{"shortcut_owner", "file.shortcut", value.MapOf("name", "/tmp/brine-h4.url", "target", "http://x", "owner", "root", "makedirs", true), false, false},
		{"group_installed", "pkg.group_installed", value.MapOf("name", "Development Tools"), false, false},
		{"group_installed_skip", "pkg.group_installed", value.MapOf("name", "base", "skip", "notalist"), false, false},
		{"patch_installed", "pkg.patch_installed", value.MapOf("name", "SUSE-2023-1"), false, false},
		{"patch_installed_empty", "pkg.patch_installed", value.MapOf("name", "x", "advisory_ids", value.NewList()), false, false},
		{"patch_downloaded", "pkg.patch_downloaded", value.MapOf("name", "SUSE-2023-1", "downloadonly", false), false, false},
		{"migrated", "pkgrepo.migrated", value.MapOf("name", "/mnt"), false, false},
		{"migrated_method", "pkgrepo.migrated", value.MapOf("name", "/mnt", "keys", false, "method", "bogus"), false, false},
		{"apt_missing", "apt.held", value.MapOf("name", "brine-no-such-package"), false, true},
		{"apt_test", "apt.held", value.MapOf("name", "less"), true, true},
		{"apt_hold", "apt.held", value.MapOf("name", "less"), false, true},
		{"apt_already", "apt.held", value.MapOf("name", "less"), false, true},
		{"apt_already_test", "apt.held", value.MapOf("name", "less"), true, true},
	}
	dpkgOK := os.Geteuid() == 0
	if out, err := exec.Command("dpkg", "--get-selections", "less").Output(); err != nil || !strings.Contains(string(out), "\tinstall") {
		dpkgOK = false
	} else if dpkgOK {
		t.Cleanup(func() { setSelection(t, "less install") })
	}
	ctx := func() *execmod.Context {
		c := execmod.NewContext()
		c.Grains = value.MapOf("os_family", "Debian", "os", "Debian")
		return c
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			if tc.dpkg && !dpkgOK {
				t.Skip("needs root, dpkg and the package less installed and not held")
			}
			got := stateJSON(sysRun(t, ctx(), tc.fun, tc.args.Copy(), tc.test))
			if want := platformGolden(t, tc.golden); got != want {
				t.Errorf("%s\n got %s\nwant %s", tc.fun, got, want)
			}
		})
	}
	if dpkgOK {
		out, _ := exec.Command("dpkg", "--get-selections", "less").Output()
		if !strings.Contains(string(out), "\thold") {
			t.Errorf("less is not held after apt.held: %q", out)
		}
	}
}

func setSelection(t *testing.T, line string) {
	t.Helper()
	cmd := exec.Command("dpkg", "--set-selections")
	cmd.Stdin = strings.NewReader(line + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("dpkg --set-selections %q: %v %s", line, err, out)
	}
}

// fakeFuncs is a registry with the given execution functions added or
// replaced: they stand for the yum/zypper modules (pkg.group_diff,
// pkg.list_patches, ...) that Debian lacks, so the rest of the states'
// logic can run.
func fakeFuncs(funcs map[string]execmod.Func) func() *execmod.Context {
	reg := execmod.Default.Clone()
	for n, f := range funcs {
		reg.Replace(n, f, "")
	}
	return func() *execmod.Context {
		c := execmod.NewContext()
		c.Registry = reg
		c.Grains = value.MapOf("os_family", "Suse")
		return c
	}
}

func returns(v any) execmod.Func {
	return func(*execmod.Context, []any, *value.Map) (any, error) { return v, nil }
}

func TestPkgGroupInstalledLogic(t *testing.T) {
	diff := func() any {
		return value.MapOf(
			"mandatory", value.MapOf("installed", value.NewList("bash"), "not installed", value.NewList("gcc")),
			"optional", value.MapOf("installed", value.NewList(), "not installed", value.NewList("emacs")),
			"default", value.MapOf("installed", value.NewList(), "not installed", value.NewList("make", "gdb")))
	}
	var installed *value.Map
	ctx := fakeFuncs(map[string]execmod.Func{
		"pkg.group_diff": func(*execmod.Context, []any, *value.Map) (any, error) { return diff(), nil },
		"pkg.install": func(_ *execmod.Context, _ []any, kw *value.Map) (any, error) {
			installed = kw
			return value.MapOf("gcc", value.MapOf("old", "", "new", "12")), nil
		},
		"pkg.list_pkgs": returns(value.MapOf("bash", "5", "gcc", "12", "gdb", "13")),
	})
	runStateSteps(t, ctx(), "", []stateStep{
		{"pkg.group_installed", []any{"name", "devel", "skip", value.NewList("gcc", int64(3))}, false,
			"{'name': 'devel', 'changes': {}, 'result': False, 'comment': 'The following mandatory packages cannot be skipped: gcc'}", nil},
		{"pkg.group_installed", []any{"name", "devel", "include", "x"}, false,
			"{'name': 'devel', 'changes': {}, 'result': False, 'comment': 'include must be formatted as a list'}", nil},
		{"pkg.group_installed", []any{"name", "devel"}, true,
			"{'name': 'devel', 'changes': {}, 'result': None, 'comment': \"Group 'devel' is partially installed and will be updated\"}", nil},
		{"pkg.group_installed", []any{"name", "devel", "skip", value.NewList("make"), "include", value.NewList(int64(7))}, false,
			"{'name': 'devel', 'changes': {'gcc': {'old': '', 'new': '12'}}, 'result': False, 'comment': 'Failed to install the following packages: 7'}", nil},
	})
	if got := value.Repr(installed); got != "{'pkgs': ['gcc', 'gdb', '7']}" {
		t.Errorf("pkg.install got %s", got)
	}
}

func TestPkgPatchInstalledLogic(t *testing.T) {
	var got *value.Map
	ctx := fakeFuncs(map[string]execmod.Func{
		"pkg.list_patches":           returns(value.NewMap(0)),
		"pkg.list_installed_patches": returns(value.MapOf("SUSE-1", value.MapOf("installed", true))),
		"pkg.install": func(_ *execmod.Context, _ []any, kw *value.Map) (any, error) {
			got = kw
			return value.NewMap(0), nil
		},
	})
	runStateSteps(t, ctx(), "", []stateStep{
		{"pkg.patch_installed", []any{"name", "SUSE-1"}, false,
			"{'name': 'SUSE-1', 'changes': {}, 'result': True, 'comment': 'Advisory patch SUSE-1 is already installed'}", nil},
		{"pkg.patch_installed", []any{"name", "x", "advisory_ids", value.NewList("SUSE-1")}, false,
			"{'name': 'x', 'changes': {}, 'result': True, 'comment': 'All specified advisory patches are already installed'}", nil},
		{"pkg.patch_installed", []any{"name", "x", "advisory_ids", value.NewList("SUSE-1", "SUSE-2", "SUSE-3")}, true,
			"{'name': 'x', 'changes': {}, 'result': None, 'comment': 'The following advisory patches would be downloaded: SUSE-2, SUSE-3'}", nil},
		{"pkg.patch_downloaded", []any{"name", "SUSE-2", "downloadonly", false}, false,
			"{'name': 'SUSE-2', 'changes': {}, 'result': True, 'comment': 'Advisory patch is not needed or related packages are already downloaded'}", nil},
	})
	if s := value.Repr(got); s != "{'name': 'SUSE-2', 'advisory_ids': None, 'downloadonly': True}" {
		t.Errorf("pkg.install got %s", s)
	}
}

func TestPkgrepoMigratedLogic(t *testing.T) {
	root := map[string]*value.Map{"/": value.MapOf("repo-oss", value.MapOf("name", "OSS", "enabled", true, "alias", "x")),
		"/chroot": value.MapOf("old", value.MapOf("name", "Old"))}
	var calls []string
	ctx := fakeFuncs(map[string]execmod.Func{
		"pkg.list_repos": func(_ *execmod.Context, _ []any, kw *value.Map) (any, error) {
			r := "/"
			if v, ok := kw.Get("root"); ok {
				r = value.Str(v)
			}
			return root[r].Copy(), nil
		},
		"pkg.mod_repo": func(_ *execmod.Context, args []any, kw *value.Map) (any, error) {
			calls = append(calls, "mod_repo "+value.Str(args[0])+" "+value.Repr(kw))
			root["/chroot"].Set(args[0], value.MapOf("name", getOr(kw, "humanname"), "enabled", getOr(kw, "enabled")))
			return nil, nil
		},
		"pkg.del_repo": func(_ *execmod.Context, args []any, kw *value.Map) (any, error) {
			calls = append(calls, "del_repo "+value.Str(args[0]))
			root["/chroot"].Delete(args[0])
			return nil, nil
		},
	})
	runStateSteps(t, ctx(), "", []stateStep{
		{"pkgrepo.migrated", []any{"name", "/chroot"}, false,
			"{'name': '/chroot', 'changes': {}, 'result': False, 'comment': 'Keys cannot be migrated for this platform'}", nil},
		{"pkgrepo.migrated", []any{"name", "/chroot", "keys", false, "method", "rsync"}, false,
			"{'name': '/chroot', 'changes': {}, 'result': False, 'comment': 'Migration method not supported'}", nil},
		{"pkgrepo.migrated", []any{"name", "/chroot", "keys", false, "drop", true}, true,
			"{'name': '/chroot', 'changes': {'repos to migrate': ['repo-oss'], 'repos to drop': ['old'], 'keys to migrate': [], 'keys to drop': []}, 'result': None, 'comment': 'There are keys or repositories to migrate or drop'}", nil},
		{"pkgrepo.migrated", []any{"name", "/chroot", "keys", false, "drop", true}, false,
			"{'name': '/chroot', 'changes': {'repos migrated': ['repo-oss'], 'repos dropped': ['old'], 'keys migrated': [], 'keys dropped': []}, 'result': True, 'comment': 'Repositories synchronized'}", nil},
		{"pkgrepo.migrated", []any{"name", "/chroot", "keys", false, "drop", true}, false,
			"{'name': '/chroot', 'changes': {}, 'result': True, 'comment': 'Repositories are already migrated'}", nil},
	})
	want := []string{"mod_repo repo-oss {'enabled': True, 'humanname': 'OSS', 'root': '/chroot'}", "del_repo old"}
	if strings.Join(calls, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(calls, "\n"), strings.Join(want, "\n"))
	}
}

func getOr(m *value.Map, k string) any {
	v, _ := m.Get(k)
	return v
}

// TestPlatformHelperStates: Salt's helpers exposed as state functions fail
// on their arguments, as in Salt: a keyword the function does not take
// stops the whole run (format_call raises), a missing one is the state's
// result.
func TestPlatformHelperStates(t *testing.T) {
	for _, tc := range []struct {
		fun     string
		args    *value.Map
		runErr  string // the run stops with this error
		comment string // else the state's comment holds this
	}{
		{"grains.make_hashable", value.MapOf("name", "x", "list_grain", value.NewList()), "'name' is an invalid keyword argument for 'grains.make_hashable'", ""},
		{"pip.purge_pip", value.MapOf("name", "x"), "'name' is an invalid keyword argument for 'pip.purge_pip'", ""},
		{"pip.pip_has_exceptions_mod", value.MapOf("name", "x"), "", "Missing parameter ver for state pip.pip_has_exceptions_mod"},
		{"pip.pip_has_internal_exceptions_mod", value.MapOf("name", "x", "ver", "21.0"), "'name' is an invalid keyword argument for 'pip.pip_has_internal_exceptions_mod'", ""},
	} {
		mod, fun, _ := strings.Cut(tc.fun, ".")
		low := value.MapOf("state", mod, "__id__", "x", "__sls__", "main", "__env__", "base", "fun", fun, "order", int64(10000))
		low.Update(tc.args)
		ctx := execmod.NewContext()
		ret, err := engine.Run([]*value.Map{low}, engine.RunOptions{Env: &statemod.Env{Exec: ctx, Shared: statemod.NewShared()}})
		var inv *execmod.InvocationError
		if tc.runErr != "" {
			if !errors.As(err, &inv) || inv.Msg != tc.runErr {
				t.Errorf("%s: run error %v, want InvocationError %q", tc.fun, err, tc.runErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.fun, err)
		}
		_, v := ret.At(0)
		r := v.(*value.Map)
		if c := value.Str(getOr(r, "comment")); getOr(r, "result") != false || !strings.Contains(c, tc.comment) {
			t.Errorf("%s: %s", tc.fun, value.Repr(r))
		}
	}
}
