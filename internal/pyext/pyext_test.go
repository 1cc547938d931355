package pyext

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"brine/internal/execmod"
	"brine/internal/render"
	"brine/internal/value"
)

// needPython skips the test when python3 is absent.
func needPython(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH: the Python extension tests need it")
	}
}

// tree writes files (path -> content) under a new directory and returns
// a context whose file root is dir/states and cachedir dir/cache.
func tree(t testing.TB, files map[string]string) (*execmod.Context, string) {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, "states", p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := execmod.NewContext()
	ctx.Registry = execmod.NewRegistry()
	ctx.Registry.Register("test.echo", func(_ *execmod.Context, args []any, _ *value.Map) (any, error) {
		return args[0], nil
	})
	ctx.Opts = value.MapOf(
		"id", "m",
		"cachedir", filepath.Join(dir, "cache"),
		"file_roots", value.MapOf("base", value.NewList(filepath.Join(dir, "states"))),
	)
	ctx.Grains = value.MapOf("os", "Debian")
	ctx.Pillar = value.MapOf("app", value.MapOf("port", int64(8080)))
	t.Cleanup(func() {
		if s, ok := ctx.Service(serviceName).(*session); ok && s.w != nil {
			_ = s.w.Close()
		}
	})
	return ctx, dir
}

// syncAndLoad syncs the kinds and loads them into ctx.
func syncAndLoad(t testing.TB, ctx *execmod.Context) {
	t.Helper()
	for _, k := range Kinds {
		if _, err := Sync(ctx.Opts, k, []string{"base"}, Filter{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := Load(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestSync(t *testing.T) {
	ctx, dir := tree(t, map[string]string{
		"_modules/b.py":         "",
		"_modules/A.py":         "",
		"_modules/x.txt":        "",
		"_modules/fast.pyx":     "",
		"_modules/pkg/inner.py": "",
		"_grains/g.py":          "",
	})
	got, err := Sync(ctx.Opts, "modules", []string{"base"}, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	want := "modules.A modules.b modules.fast modules.pkg.inner"
	if strings.Join(got, " ") != want {
		t.Errorf("first sync = %v, want %s", got, want)
	}
	if got, _ := Sync(ctx.Opts, "modules", []string{"base"}, Filter{}); len(got) != 0 {
		t.Errorf("second sync = %v, want nothing (unchanged)", got)
	}
	// a file gone from the source leaves the cache (clean_dynamic_modules)
	if err := os.RemoveAll(filepath.Join(dir, "states", "_modules", "pkg")); err != nil {
		t.Fatal(err)
	}
	if _, err := Sync(ctx.Opts, "modules", []string{"base"}, Filter{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cache", "extmods", "modules", "pkg")); !os.IsNotExist(err) {
		t.Errorf("extmods/modules/pkg still there after its source went: %v", err)
	}
}

const probeModule = `
import collections
from salt.exceptions import CommandExecutionError

__func_alias__ = {"list_": "list"}


def list_(*items):
    """Sorted items."""
    return sorted(items)


def _hidden():
    return 1


def types():
    return collections.OrderedDict([("t", (1, "a")), ("s", {3}), ("b", b"x"),
                                    ("big", 2 ** 70), ("f", 1.0), ("n", None)])


def via_salt(word):
    return __salt__["test.echo"](word) + "/" + __salt__["probe.list"]("b", "a")[0]


def count():
    __context__["n"] = __context__.get("n", 0) + 1
    return __context__["n"]


def grain():
    return __grains__["os"], __pillar__["app"]["port"], __opts__["id"], __name__


def cee():
    raise CommandExecutionError("bad thing")


def die():
    import os
    os._exit(3)


def hang():
    import time
    time.sleep(60)
`

func TestExecModules(t *testing.T) {
	needPython(t)
	ctx, _ := tree(t, map[string]string{
		"_modules/probe.py":  probeModule,
		"_modules/off.py":    "def __virtual__():\n    return (False, 'no')\n\ndef f():\n    return 1\n",
		"_modules/impl.py":   "__virtualname__ = 'virt'\n\ndef __virtual__():\n    return __virtualname__\n\ndef f():\n    return 1\n",
		"_modules/bad.py":    "def f(:\n",
		"_modules/raises.py": "def __virtual__():\n    raise RuntimeError('x')\n",
	})
	syncAndLoad(t, ctx)
	for _, name := range []string{"probe.list", "probe.types", "virt.f"} {
		if _, ok := ctx.Lookup(name); !ok {
			t.Errorf("%s is not registered", name)
		}
	}
	for _, name := range []string{"probe.list_", "probe._hidden", "off.f", "impl.f", "bad.f"} {
		if _, ok := ctx.Lookup(name); ok {
			t.Errorf("%s is registered, want it hidden", name)
		}
	}
	tests := []struct {
		fun  string
		args []any
		want string // JSON of the return
		err  string
	}{
		{"probe.list", []any{"b", "a"}, `["a", "b"]`, ""},
		{"probe.types", nil, `{"t": [1, "a"], "s": "{3}", "b": "b'x'", "big": 1180591620717411303424, "f": 1.0, "n": null}`, ""},
		{"probe.via_salt", []any{"hi"}, `"hi/a"`, ""},
		{"probe.count", nil, `1`, ""},
		{"probe.count", nil, `2`, ""},
		{"probe.grain", nil, `["Debian", 8080, "m", "salt.loaded.ext.module.probe"]`, ""},
		{"probe.cee", nil, "", "bad thing"},
	}
	for _, tc := range tests {
		got, err := ctx.Call(tc.fun, tc.args, nil)
		if tc.err != "" {
			var pe *PyError
			if !errors.As(err, &pe) || pe.Msg != tc.err || !pe.IsCommandExecutionError() {
				t.Errorf("%s: error %v, want CommandExecutionError %q", tc.fun, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.fun, err)
			continue
		}
		if js := value.ToJSON(got, value.JSONOptions{Indent: -1}); js != tc.want {
			t.Errorf("%s = %s, want %s", tc.fun, js, tc.want)
		}
	}
}

func TestWorkerFailures(t *testing.T) {
	needPython(t)
	ctx, _ := tree(t, map[string]string{"_modules/probe.py": probeModule})
	ctx.Opts.Set("pyext_timeout", 0.5)
	syncAndLoad(t, ctx)
	start := time.Now()
	_, err := ctx.Call("probe.hang", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "probe.hang") || !strings.Contains(err.Error(), "did not answer") {
		t.Errorf("hang: %v, want a timeout naming probe.hang", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("hang took %s, want about the 0.5s timeout", d)
	}
	// the killed worker stays dead: later calls fail at once
	if _, err := ctx.Call("probe.list", nil, nil); err == nil {
		t.Errorf("call after the timeout worked, want the worker reported dead")
	}

	ctx2, _ := tree(t, map[string]string{"_modules/probe.py": probeModule})
	syncAndLoad(t, ctx2)
	_, err = ctx2.Call("probe.die", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "probe.die") || !strings.Contains(err.Error(), "died") {
		t.Errorf("die: %v, want the worker's death naming probe.die", err)
	}
}

func TestRenderPy(t *testing.T) {
	needPython(t)
	tests := []struct {
		name, src, want, err string
	}{
		{"order", "#!py\ndef run():\n    return {'z': {'test.nop': []}, 'a': {'test.nop': [{'sls': __sls__}]}}\n",
			`{"z": {"test.nop": []}, "a": {"test.nop": [{"sls": "web"}]}}`, ""},
		{"dunders", "#!py\ndef run():\n    return {'x': [grains['os'], __pillar__['app']['port'], saltenv, __salt__['test.echo'](1)]}\n",
			`{"x": ["Debian", 8080, "base", 1]}`, ""},
		{"raises", "#!py\ndef run():\n    raise ValueError('boom')\n", "", "ValueError: boom"},
		{"import", "#!py\nx = __grains__\n", "", "name '__grains__' is not defined"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, dir := tree(t, map[string]string{"web.sls": tc.src})
			rc := ctx.RenderContext("base")
			rc.Path = filepath.Join(dir, "states", "web.sls")
			rc.SLS = "web"
			got, err := render.Render([]byte(tc.src), rc, render.Options{Default: "jinja|yaml"})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if js := value.ToJSON(got, value.JSONOptions{Indent: -1}); js != tc.want {
				t.Errorf("got %s, want %s", js, tc.want)
			}
		})
	}
}

func TestNoPython(t *testing.T) {
	ctx, dir := tree(t, map[string]string{"web.sls": "#!py\ndef run():\n    return {}\n"})
	t.Setenv("BRINE_PYTHON", filepath.Join(dir, "no-such-python"))
	rc := ctx.RenderContext("base")
	rc.Path = filepath.Join(dir, "states", "web.sls")
	_, err := render.Render([]byte("#!py\n"), rc, render.Options{Default: "jinja|yaml"})
	if err == nil || !strings.Contains(err.Error(), "web.sls needs Python") {
		t.Errorf("error %v, want one naming web.sls", err)
	}
}

func TestZeroCostWithoutPython(t *testing.T) {
	ctx, _ := tree(t, map[string]string{"top.sls": "base: {}\n"})
	if err := Setup(ctx); err != nil {
		t.Fatal(err)
	}
	if ctx.Service(serviceName) != nil {
		t.Errorf("a tree without Python started a python session")
	}
}

// BenchmarkSaltCall measures one call from brine into a Python function
// that calls back into a Go function through __salt__ (two round trips).
func BenchmarkSaltCall(b *testing.B) {
	needPython(b)
	ctx, _ := tree(b, map[string]string{"_modules/probe.py": probeModule})
	syncAndLoad(b, ctx)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ctx.Call("probe.via_salt", []any{"x"}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPythonCall measures one call of a Python function from Go
// (what a Jinja salt['mod.fun']() of a custom module costs).
func BenchmarkPythonCall(b *testing.B) {
	needPython(b)
	ctx, _ := tree(b, map[string]string{"_modules/probe.py": probeModule})
	syncAndLoad(b, ctx)
	f, _ := ctx.Callable("probe.list")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := f.Call([]any{"b", "a"}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStart measures starting the worker (the embedded files are
// extracted once per process, so this is the python3 start).
func BenchmarkStart(b *testing.B) {
	needPython(b)
	dir := b.TempDir()
	for i := 0; i < b.N; i++ {
		w, err := Start(dir, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := w.Request(value.MapOf("op", "ping")); err != nil {
			b.Fatal(err)
		}
		_ = w.Close()
	}
}

// BenchmarkPing measures the bare protocol round trip.
func BenchmarkPing(b *testing.B) {
	needPython(b)
	w, err := Start(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	msg := value.MapOf("op", "ping")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := w.Request(msg); err != nil {
			b.Fatal(err)
		}
	}
}
