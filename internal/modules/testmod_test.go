package modules

import (
	"errors"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

func TestTestModule(t *testing.T) {
	ctx := testContext()
	ctx.Opts.Set("hash_type", "sha256")
	for _, tc := range []struct {
		fun  string
		args []any
		kw   []any
		want string
	}{
		{"test.arg_type", []any{int64(1), "a", 1.5, nil, value.NewList()}, []any{"k", true},
			"{'args': [\"<class 'int'>\", \"<class 'str'>\", \"<class 'float'>\", \"<class 'NoneType'>\", \"<class 'list'>\"], 'kwargs': {'k': \"<class 'bool'>\"}}"},
		{"test.arg_repr", []any{int64(1), "a"}, []any{"k", nil}, "{'args': \"(1, 'a')\", 'kwargs': \"{'k': None}\"}"},
		{"test.arg_clean", []any{"x"}, []any{"k", int64(2), "__pub_fun", "test.arg_clean"}, "{'args': ('x',), 'kwargs': {'k': 2}}"},
		{"test.conf_test", nil, nil, "'unconfigured'"},
		{"test.cross_test", []any{"test.echo", value.NewList("hi")}, nil, "'hi'"},
		{"test.cross_test", []any{"test.ping"}, nil, "True"},
		{"test.try", nil, []any{"module", "test.echo", "text", "hi"}, "'hi'"},
		{"test.try", nil, []any{"module", "test.exception"}, "None"},
		{"test.try", nil, []any{"module", "test.exception", "message", "bad", "return_try_exception", true}, "'bad'"},
		{"test.assertion", []any{true}, nil, "None"},
		{"test.tty", []any{"a"}, []any{"b", int64(1)}, "'ERROR: This function has been moved to cmd.tty'"},
		{"test.provider", []any{"pkg"}, nil, "'aptpkg'"},
		{"test.provider", []any{"test"}, nil, "'test'"},
		{"test.provider", []any{"sys"}, nil, "'sysmod'"},
		{"test.provider", []any{"kmod"}, nil, "'kmod'"},          // Salt 3006 on Debian 12
		{"test.provider", []any{"lowpkg"}, nil, "'dpkg_lowpkg'"}, // likewise
		{"test.provider", []any{"nosuchmodule"}, nil, "''"},
		{"test.raise_exception", []any{"NoSuchError"}, nil, "False"},
		{"test.raise_exception", []any{"salt.exceptions.NoSuch"}, nil, "False"},
		{"test.deprecation_warning", nil, nil, "True"},
		{"test.fib", []any{"12"}, nil, ""},
		{"test.version", nil, nil, "'3006.9'"},
		{"test.rand_sleep", nil, []any{"max", int64(0)}, "True"},
	} {
		got := call(t, ctx, tc.fun, tc.args, tc.kw...)
		if tc.fun == "test.fib" {
			if tup, ok := got.(value.Tuple); !ok || tup[0] != int64(144) {
				t.Errorf("fib('12') = %s", value.Repr(got))
			}
			continue
		}
		if r := value.Repr(got); r != tc.want {
			t.Errorf("%s%v%v = %s, want %s", tc.fun, tc.args, tc.kw, r, tc.want)
		}
	}
	for _, tc := range []struct {
		fun   string
		args  []any
		kw    []any
		class string
		msg   string
	}{
		{"test.assertion", []any{int64(0)}, nil, "AssertionError", ""},
		{"test.fib", []any{int64(-1)}, nil, "ValueError", "Negative number is not allowed!"},
		{"test.fib", []any{"x"}, nil, "salt.exceptions.SaltInvocationError", "invalid literal for int() with base 10: 'x'"},
		{"test.raise_exception", []any{"ValueError", "a", int64(1)}, nil, "ValueError", "('a', 1)"},
		{"test.raise_exception", []any{"KeyError"}, nil, "KeyError", ""},
		{"test.raise_exception", []any{"salt.exceptions.CommandExecutionError", "failed"}, nil, "salt.exceptions.CommandExecutionError", "failed"},
		{"test.raise_exception", []any{"salt.exceptions.SaltRenderError"}, []any{"message", "m"}, "salt.exceptions.SaltRenderError", "m"},
		{"test.random_hash", nil, []any{"hash_type", "whirlpool"}, "AttributeError", "module 'hashlib' has no attribute 'whirlpool'"},
	} {
		_, err := ctx.Call(tc.fun, tc.args, value.MapOf(tc.kw...))
		var c interface{ SaltExceptionClass() string }
		if !errors.As(err, &c) || c.SaltExceptionClass() != tc.class || err.Error() != tc.msg {
			t.Errorf("%s%v: %#v, want %s(%q)", tc.fun, tc.args, err, tc.class, tc.msg)
		}
	}
	for _, tc := range []struct {
		kw  []any
		n   int
		hex bool
	}{{nil, 64, true}, {[]any{"hash_type", "md5", "size", int64(10)}, 32, true}, {[]any{"hash_type", "sha512"}, 128, true}} {
		h := call(t, ctx, "test.random_hash", nil, tc.kw...).(string)
		if len(h) != tc.n || strings.Trim(h, "0123456789abcdef") != "" {
			t.Errorf("random_hash%v = %q", tc.kw, h)
		}
	}
	if h := call(t, ctx, "test.rand_str", []any{int64(0)}, "hash_type", "md5"); h != "cfcd208495d565ef66e7dff9f98764da" {
		t.Errorf("rand_str(0) = %v, want md5('0')", h)
	}

	rep := call(t, ctx, "test.versions_report", nil).(string)
	if !strings.HasPrefix(rep, "Salt Version:\n") || strings.HasSuffix(rep, "\n") || call(t, ctx, "test.versions", nil) != rep {
		t.Errorf("versions_report = %q", rep)
	}
	info := call(t, ctx, "test.versions_information", nil).(*value.Map)
	if s := statusGet(t, info, "Salt Version", "Salt"); !strings.HasPrefix(value.Str(s), "3006") {
		t.Errorf("versions_information = %s", value.Repr(info))
	}
	if _, ok := statusGet(t, info, "System Versions", "system").(string); !ok {
		t.Errorf("versions_information System Versions = %s", value.Repr(statusGet(t, info, "System Versions")))
	}
	if got := call(t, ctx, "test.get_opts", nil); got != ctx.Opts {
		t.Error("get_opts is not the options")
	}
	pkg := call(t, ctx, "test.opts_pkg", nil).(*value.Map)
	if g, _ := pkg.Get("grains"); g != ctx.Grains {
		t.Error("opts_pkg lacks the grains")
	}
	if id, _ := pkg.Get("id"); id != "m1" {
		t.Error("opts_pkg lacks the options")
	}
	if got := call(t, ctx, "test.attr_call", nil); !value.Equal(got, ctx.Grains) {
		t.Errorf("attr_call = %s", value.Repr(got))
	}
	if s := call(t, ctx, "test.stack", nil).(string); !strings.Contains(s, "testStack") {
		t.Errorf("stack lacks its own frame: %q", s)
	}
	provs := call(t, ctx, "test.providers", nil).(*value.Map)
	if m, _ := provs.Get("aptpkg"); m != "pkg" {
		t.Errorf("providers = %s", value.Repr(provs))
	}
	nl := call(t, ctx, "test.not_loaded", nil).(*value.List)
	if !hostsContains(nl, "win_network") || hostsContains(nl, "aptpkg") || hostsContains(nl, "test") {
		t.Errorf("not_loaded = %s", value.Repr(nl))
	}
	rpt := call(t, ctx, "test.module_report", nil).(*value.Map)
	funs, _ := rpt.Get("functions")
	if !hostsContains(funs.(*value.List), "test.module_report") {
		t.Errorf("module_report functions lack test.module_report")
	}
	if c, _ := call(t, ctx, "test.collatz", []any{int64(3)}).(value.Tuple); value.Repr(c[0]) != "[3, 10, 5.0, 16.0, 8.0, 4.0, 2.0]" {
		t.Errorf("collatz(3) = %s", value.Repr(c[0]))
	}
	if _, err := ctx.Call("test.collatz", []any{int64(0)}, value.NewMap(0)); err == nil {
		t.Error("collatz(0) returned")
	}
	var ie *execmod.InvocationError
	if _, err := ctx.Call("test.cross_test", nil, value.NewMap(0)); !errors.As(err, &ie) {
		t.Errorf("cross_test without func: %v", err)
	}
}
