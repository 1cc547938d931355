package modules

import (
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/system"
	"brine/internal/value"
)

func TestCmdRunAll(t *testing.T) {
	ctx := execmod.NewContext()
	out, err := ctx.Call("cmd.run_all", []any{"echo out; echo err >&2; exit 3"}, value.MapOf("python_shell", true))
	if err != nil {
		t.Fatal(err)
	}
	m := out.(*value.Map)
	var keys []string
	for _, k := range m.Keys() {
		keys = append(keys, k.(string))
	}
	if strings.Join(keys, ",") != "pid,retcode,stdout,stderr" {
		t.Errorf("keys %v", keys)
	}
	if rc, _ := m.Get("retcode"); rc != int64(3) {
		t.Errorf("retcode %v", rc)
	}
	if s, _ := m.Get("stdout"); s != "out" {
		t.Errorf("stdout %q", s)
	}
	if s, _ := m.Get("stderr"); s != "err" {
		t.Errorf("stderr %q", s)
	}
	if ctx.Retcode() != 3 {
		t.Errorf("context retcode %d", ctx.Retcode())
	}
}

func TestCmdFunctions(t *testing.T) {
	tests := []struct {
		fun    string
		args   []any
		kwargs *value.Map
		want   any
	}{
		{"cmd.run", []any{"echo a | wc -l"}, nil, "a | wc -l"}, // no shell for cross-module calls
		{"cmd.run", []any{"echo a | wc -l"}, value.MapOf("python_shell", true), "1"},
		{"cmd.run", []any{"echo a | wc -l"}, value.MapOf("__pub_jid", "1"), "1"},
		{"cmd.shell", []any{"echo a | wc -l"}, nil, "1"},
		{"cmd.run", []any{"echo out; echo err >&2"}, value.MapOf("python_shell", true), "out\nerr"},
		{"cmd.run_stdout", []any{"echo out; echo err >&2"}, value.MapOf("python_shell", true), "out"},
		{"cmd.run_stderr", []any{"echo out; echo err >&2"}, value.MapOf("python_shell", true), "err"},
		{"cmd.retcode", []any{"false"}, nil, int64(1)},
		{"cmd.retcode", []any{"exit 4"}, value.MapOf("python_shell", true, "success_retcodes", value.NewList(int64(4))), int64(0)},
		{"cmd.run", []any{`echo "$FOO"`}, value.MapOf("python_shell", true, "env", value.MapOf("FOO", "bar")), "bar"},
		{"cmd.run", []any{"pwd"}, value.MapOf("cwd", "/tmp"), "/tmp"},
		{"cmd.run", []any{"printf '%s|' 'a b' c"}, nil, "a b|c|"},
		{"cmd.has_exec", []any{"sh"}, nil, true},
	}
	for _, tt := range tests {
		ctx := execmod.NewContext()
		got, err := ctx.Call(tt.fun, tt.args, tt.kwargs)
		if err != nil {
			t.Errorf("%s %v: %v", tt.fun, tt.args, err)
			continue
		}
		if !value.Equal(got, tt.want) {
			t.Errorf("%s %v %v = %s, want %s", tt.fun, tt.args, value.Repr(tt.kwargs), value.Repr(got), value.Repr(tt.want))
		}
	}
}

func TestCmdErrors(t *testing.T) {
	ctx := execmod.NewContext()
	if _, err := ctx.Call("cmd.run", []any{"true"}, value.MapOf("cwd", "relative")); err == nil || !strings.Contains(err.Error(), "either not absolute or does not exist") {
		t.Errorf("cwd error: %v", err)
	}
	if _, err := ctx.Call("cmd.run", []any{"true"}, value.MapOf("runas", "no-such-user-brine")); err == nil || err.Error() != "User 'no-such-user-brine' is not available" {
		t.Errorf("runas error: %v", err)
	}
	if _, err := ctx.Call("cmd.run", nil, nil); err == nil {
		t.Error("missing cmd accepted")
	}
}

func TestShlexSplit(t *testing.T) {
	tests := map[string]string{
		`a b  c`:          "a|b|c",
		`'a b' "c d"`:     "a b|c d",
		`a\ b`:            "a b",
		`"a\"b"`:          `a"b`,
		`x # comment`:     "x",
		`a'b'c`:           "abc",
		`"$HOME" '$HOME'`: "$HOME|$HOME",
		`echo a | wc -l`:  "echo|a|||wc|-l",
		`  `:              "",
	}
	for in, want := range tests {
		got, err := system.ShlexSplit(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if s := strings.Join(got, "|"); s != want {
			t.Errorf("system.ShlexSplit(%q) = %q, want %q", in, s, want)
		}
	}
	if _, err := system.ShlexSplit(`"open`); err == nil {
		t.Error("unclosed quote accepted")
	}
}

func TestCmdMore(t *testing.T) {
	ctx := testContext()
	for _, tc := range []struct {
		fun  string
		args []any
		kw   []any
		want string // repr, or a prefix ending in "*"
	}{
		{"cmd.exec_code", []any{"sh", "echo hi $1"}, []any{"args", "there"}, "'hi there'"},
		{"cmd.exec_code", []any{"python3", "import sys; print(sys.argv[1:])"}, []any{"args", value.NewList("a", "b")}, "\"['a', 'b']\""},
		{"cmd.exec_code_all", []any{"sh", "echo out; echo err >&2; exit 3"}, nil, "{'pid': *"},
		{"cmd.which_bin", []any{value.NewList("brine-no-cmd", "sh")}, nil, "'/*"},
		{"cmd.which_bin", []any{value.NewList("brine-no-cmd")}, nil, "None"},
		{"cmd.tty", []any{"console0"}, nil, "{'Error': 'The specified device is not a valid TTY'}"},
	} {
		got := value.Repr(call(t, ctx, tc.fun, tc.args, tc.kw...))
		if p, ok := strings.CutSuffix(tc.want, "*"); !(got == tc.want || ok && strings.HasPrefix(got, p)) {
			t.Errorf("%s%v%v = %s, want %s", tc.fun, tc.args, tc.kw, got, tc.want)
		}
	}
	all := call(t, ctx, "cmd.exec_code_all", []any{"sh", "echo out; echo err >&2; exit 3"}).(*value.Map)
	if rc, _ := all.GetString("retcode"); !value.Equal(rc, int64(3)) {
		t.Errorf("exec_code_all retcode %v", rc)
	}
	if sh := value.Repr(call(t, ctx, "cmd.shells", nil)); !strings.Contains(sh, "'/bin/sh'") {
		t.Errorf("cmd.shells = %s", sh)
	}
}
