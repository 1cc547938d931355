package pyext

import (
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

// TestLoaderFileMapping checks which files of a module directory Salt's
// loader makes modules of, and which functions of a module it exposes.
func TestLoaderFileMapping(t *testing.T) {
	needPython(t)
	ctx, dir := tree(t, map[string]string{
		// a subdirectory is synced but loaded only when it is a package
		"_modules/sub/inner.py":     "def f():\n    return 'inner'\n",
		"_modules/pack/__init__.py": "def f():\n    return 'package'\n",
		"_modules/_private.py":      "def f():\n    return 'private'\n",
		"_modules/off.py":           "def f():\n    return 'disabled'\n",
		// imported functions stay hidden; __all__ limits what is exposed
		"_modules/imp.py":  "from os.path import join\n\n\ndef f():\n    return join('a', 'b')\n",
		"_modules/only.py": "__all__ = ['shown']\n\n\ndef shown():\n    return 1\n\n\ndef hidden():\n    return 2\n",
		// __virtual_aliases__ exposes the functions under a second name
		"_modules/al.py": "__virtual_aliases__ = ('other',)\n\n\ndef f():\n    return 'alias'\n",
		// a partial's __module__ is functools': hidden outside utils
		"_modules/part.py": "import functools\n\n\ndef _g(x):\n    return x\n\n\nf = functools.partial(_g, 1)\n\n\ndef plain():\n    return 2\n",
	})
	ctx.Opts.Set("disable_modules", value.NewList("off"))
	syncAndLoad(t, ctx)
	_ = dir
	for name, want := range map[string]any{
		"pack.f": "package", "imp.f": "a/b", "only.shown": int64(1),
		"al.f": "alias", "other.f": "alias", "part.plain": int64(2),
	} {
		got, err := ctx.Call(name, nil, nil)
		if err != nil || !value.Equal(got, want) {
			t.Errorf("%s() = %v, %v; want %v", name, got, err, want)
		}
	}
	for _, name := range []string{"inner.f", "sub.inner.f", "sub.f", "_private.f", "private.f", "off.f", "imp.join", "only.hidden", "part.f"} {
		if _, ok := ctx.Registry.Lookup(name); ok {
			t.Errorf("%s is registered; Salt's loader does not expose it", name)
		}
	}
}

// TestLoaderBytecode loads a module shipped only as bytecode in
// __pycache__, as Salt's loader does.
func TestLoaderBytecode(t *testing.T) {
	needPython(t)
	ctx, dir := tree(t, map[string]string{})
	mods := filepath.Join(ExtmodsDir(ctx.Opts), "modules")
	if err := os.MkdirAll(mods, 0o700); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "byte.py")
	if err := os.WriteFile(src, []byte("def f():\n    return 'from bytecode'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `import py_compile, sys, sysconfig
tag = sys.implementation.cache_tag
py_compile.compile(sys.argv[1], cfile=sys.argv[2] + "/__pycache__/byte." + tag + ".pyc")`
	if out, err := exec.Command("python3", "-c", script, src, mods).CombinedOutput(); err != nil {
		t.Fatalf("compiling: %v\n%s", err, out)
	}
	if err := Load(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := ctx.Call("byte.f", nil, nil); err != nil || got != "from bytecode" {
		t.Errorf("byte.f() = %v, %v", got, err)
	}
}

// TestLoaderExtensionModule builds a C extension module with gcc and the
// interpreter's own headers and loads it from the module cache.
func TestLoaderExtensionModule(t *testing.T) {
	needPython(t)
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not on PATH")
	}
	out, err := exec.Command("python3", "-c", `import sysconfig, os
inc = sysconfig.get_paths()["include"]
print(inc if os.path.exists(os.path.join(inc, "Python.h")) else "")
print(sysconfig.get_config_var("EXT_SUFFIX"))`).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || lines[0] == "" {
		t.Skip("python3's headers (Python.h) are not installed: .ci/run installs python3-dev")
	}
	ctx, _ := tree(t, map[string]string{})
	mods := filepath.Join(ExtmodsDir(ctx.Opts), "modules")
	if err := os.MkdirAll(mods, 0o700); err != nil {
		t.Fatal(err)
	}
	so := filepath.Join(mods, "cext"+lines[1])
	cmd := exec.Command("gcc", "-shared", "-fPIC", "-I", lines[0], "-o", so, filepath.Join("testdata", "cext.c"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	if err := Load(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := ctx.Call("cext.hello", []any{"brine"}, nil); err != nil || got != "hello from C, brine Debian" {
		t.Errorf("cext.hello() = %v, %v", got, err)
	}
}

// TestLoaderZip loads .zip modules (enable_zip_modules). Salt imports them
// under their bare name, so only utils expose their functions; an
// execution module in a zip loads but exposes nothing, as in Salt.
func TestLoaderZip(t *testing.T) {
	needPython(t)
	ctx, _ := tree(t, map[string]string{
		"_modules/useszip.py": "def f():\n    return __utils__['zipped.hello']('x')\n",
	})
	ctx.Opts.Set("enable_zip_modules", true)
	for kind, body := range map[string]string{
		"utils":   "def hello(name):\n    return 'zipped ' + name\n",
		"modules": "def hello(name):\n    return 'module ' + name\n",
	} {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		f, _ := zw.Create("zipped/__init__.py")
		_, _ = f.Write([]byte(body))
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		src := filepath.Join(fileRoots(ctx.Opts, "base")[0], "_"+kind, "zipped.zip")
		if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(src, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	syncAndLoad(t, ctx)
	if got, err := ctx.Call("useszip.f", nil, nil); err != nil || got != "zipped x" {
		t.Errorf("useszip.f() = %v, %v; want the zipped util's answer", got, err)
	}
	if _, ok := ctx.Registry.Lookup("zipped.hello"); ok {
		t.Errorf("zipped.hello is registered; Salt exposes no function of a zipped execution module")
	}
}

// TestLoaderCython compiles a .pyx util with pyximport (cython_enable).
// It needs Cython for the interpreter: .ci/run installs Debian's cython3
// for /usr/bin/python3.
func TestLoaderCython(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import pyximport, sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))").Run(); err != nil {
		t.Skip("no Cython (pyximport) and Python headers for /usr/bin/python3: .ci/run installs cython3 and python3-dev")
	}
	t.Setenv("BRINE_PYTHON", py)
	ctx, dir := tree(t, map[string]string{
		"_utils/fast.pyx": "# cython: language_level=3\nimport functools\n\n\ndef _add(a, b):\n    return a + b\n\n\nadd = functools.partial(_add, 40)\n",
		"_modules/m.py":   "def f():\n    return __utils__['fast.add'](2)\n",
	})
	t.Setenv("HOME", dir) // pyximport builds under ~/.pyxbld
	ctx.Opts.Set("cython_enable", true)
	syncAndLoad(t, ctx)
	if got, err := ctx.Call("m.f", nil, nil); err != nil || got != int64(42) {
		t.Errorf("m.f() = %v, %v; want 42 from the compiled util", got, err)
	}
}

// TestInstalledSalt checks pyext_salt: a module importing salt gets
// brine's compatibility package by default, and the Salt installed for
// the interpreter (here a stand-in package on PYTHONPATH) when the user
// opts in; an opt-in without an importable Salt falls back with a
// warning.
func TestInstalledSalt(t *testing.T) {
	needPython(t)
	site := t.TempDir()
	for p, c := range map[string]string{
		"salt/__init__.py":   "WHO = 'installed'\n",
		"salt/exceptions.py": "class SaltException(Exception):\n    pass\n\n\nclass CommandExecutionError(SaltException):\n    pass\n",
	} {
		full := filepath.Join(site, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mod := map[string]string{"_modules/who.py": "import salt\n\n\ndef f():\n    return getattr(salt, 'WHO', 'brine')\n"}
	for _, tc := range []struct {
		name, option, pythonpath, want string
	}{
		{"default", "", site, "brine"},
		{"brine", "brine", site, "brine"},
		{"installed", "installed", site, "installed"},
		{"installed but absent", "installed", "", "brine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PYTHONPATH", tc.pythonpath)
			ctx, _ := tree(t, mod)
			if tc.option != "" {
				ctx.Opts.Set("pyext_salt", tc.option)
			}
			syncAndLoad(t, ctx)
			if got, err := ctx.Call("who.f", nil, nil); err != nil || got != tc.want {
				t.Errorf("who.f() = %v, %v; want %s", got, err, tc.want)
			}
		})
	}
}

// TestSyncFilter checks extmod_whitelist and extmod_blacklist, from the
// options and from a sync's arguments.
func TestSyncFilter(t *testing.T) {
	files := map[string]string{"_modules/a.py": "", "_modules/b.py": "", "_modules/pkg/inner.py": "", "_states/s.py": ""}
	for _, tc := range []struct {
		name        string
		opts        *value.Map
		allow, deny any
		kind, want  string
	}{
		{"none", nil, nil, nil, "modules", "modules.a modules.b modules.pkg.inner"},
		{"whitelist option", value.MapOf("extmod_whitelist", value.MapOf("modules", value.NewList("a", "pkg.inner"))), nil, nil, "modules", "modules.a modules.pkg.inner"},
		{"whitelist of another kind", value.MapOf("extmod_whitelist", value.MapOf("states", value.NewList("x"))), nil, nil, "modules", "modules.a modules.b modules.pkg.inner"},
		{"blacklist option", value.MapOf("extmod_blacklist", value.MapOf("modules", value.NewList("b"))), nil, nil, "modules", "modules.a modules.pkg.inner"},
		{"argument string", value.MapOf("extmod_whitelist", value.MapOf("modules", value.NewList("a"))), "b", nil, "modules", "modules.b"},
		{"argument blacklist", nil, nil, "a,b", "modules", "modules.pkg.inner"},
		{"both", nil, "a,b", value.MapOf("modules", value.NewList("a")), "modules", "modules.b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, _ := tree(t, files)
			if tc.opts != nil {
				tc.opts.Range(func(k, v any) bool { ctx.Opts.Set(k, v); return true })
			}
			got, err := Sync(ctx.Opts, tc.kind, []string{"base"}, FilterOf(ctx.Opts, tc.kind, tc.allow, tc.deny))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("sync = %v, want %s", got, tc.want)
			}
		})
	}
}
