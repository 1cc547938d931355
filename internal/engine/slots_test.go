package engine

import (
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

func TestParseFunction(t *testing.T) {
	tests := []struct {
		in     string
		ok     bool
		fun    string
		args   []any
		kwargs string // repr of the keyword map
	}{
		{"mod.fun(fun_arg, fun_key=fun_val)", true, "mod.fun", []any{"fun_arg"}, "{'fun_key': 'fun_val'}"},
		{"test.echo(hello world)", true, "test.echo", []any{"helloworld"}, "{}"},
		{"test.echo('hello world')", true, "test.echo", []any{"hello world"}, "{}"},
		{`test.echo("a \"q\" b")`, true, "test.echo", []any{`a "q" b`}, "{}"},
		{"test.arg([1, 2], k={a: b})", true, "test.arg", []any{"[1,2]"}, "{'k': '{a:b}'}"},
		{"grains.items()", true, "grains.items", nil, "{}"},
		{"grains.items().id", true, "grains.items", nil, "{}"},
		{"not.called(", false, "", nil, ""},
		{"", false, "", nil, ""},
		{"nofun", false, "", nil, ""},
		{"f(a]", false, "", nil, ""},
		{"f(a) ~ 'open", true, "f", []any{"a"}, "{}"},
	}
	for _, tt := range tests {
		fun, args, kwargs, ok, err := parseFunction(tt.in)
		if err != nil {
			t.Errorf("parseFunction(%q): %v", tt.in, err)
			continue
		}
		if ok != tt.ok || fun != tt.fun || !value.Equal(value.NewList(args...), value.NewList(tt.args...)) {
			t.Errorf("parseFunction(%q) = %q %v %v, want %q %v %v", tt.in, fun, args, ok, tt.fun, tt.args, tt.ok)
		}
		if ok && value.Repr(kwargs) != tt.kwargs {
			t.Errorf("parseFunction(%q) kwargs = %s, want %s", tt.in, value.Repr(kwargs), tt.kwargs)
		}
	}
	if _, _, _, _, err := parseFunction("f('open"); err == nil {
		t.Errorf("parseFunction with an open quote: no error")
	}
}

func TestFormatSlots(t *testing.T) {
	reg := execmod.NewRegistry()
	reg.Register("test.echo", func(_ *execmod.Context, args []any, _ *value.Map) (any, error) {
		return args[0], nil
	})
	reg.Register("mod.data", func(_ *execmod.Context, _ []any, kw *value.Map) (any, error) {
		return value.MapOf("key1", "value1", "list", value.NewList("a", "b"), "kw", kw), nil
	})
	reg.Register("mod.fail", func(*execmod.Context, []any, *value.Map) (any, error) {
		return nil, &execmod.CommandExecutionError{Msg: "boom"}
	})
	ex := execmod.NewContext()
	ex.Registry = reg
	r := newRunner(nil, RunOptions{Env: &statemod.Env{Exec: ex}})
	tests := []struct {
		in, want string // reprs of the argument value
		err      bool
	}{
		{"'plain'", "'plain'", false},
		{"'__slot__:salt:test.echo(hi)'", "'hi'", false},
		{"'__slot__:salt:test.echo(hi) ~ /tail'", "", true}, // Salt's IndexError: text after ")" without "."
		{"'__slot__:salt:test.echo(hi)~/tail'", "'hi/tail'", false},
		{"'__slot__:salt:mod.data().key1 ~ thing~'", "'value1thing~'", false},
		{"'__slot__:salt:mod.data(k=v).kw.k'", "'v'", false},
		{"'__slot__:salt:mod.data().list.1'", "'b'", false},
		{"'__slot__:salt:mod.data().missing'", "None", false},
		{"'__slot__:salt:mod.data() ~ x'", "", true},
		{"'__slot__:salt:mod.data().list ~ x'", "['a', 'b']", false},
		{"'__slot__:pillar:foo'", "'__slot__:pillar:foo'", false},
		{"'__slot__:salt:no.such()'", "'__slot__:salt:no.such()'", false},
		{"'__slot__:salt:not.called('", "'__slot__:salt:not.called('", false},
		{"'__slot__:salt'", "'__slot__:salt'", false},
		{"'__slot__:salt:mod.fail()'", "", true},
		{"{'a': '__slot__:salt:test.echo(x)', 'b': 1}", "{'a': 'x', 'b': 1}", false},
		{"['__slot__:salt:test.echo(x)', {'k': '__slot__:salt:test.echo(y)'}, ['__slot__:salt:test.echo(z)']]",
			"['x', {'k': 'y'}, ['__slot__:salt:test.echo(z)']]", false},
		{"{'a': {'b': '__slot__:salt:test.echo(x)'}}", "{'a': {'b': '__slot__:salt:test.echo(x)'}}", false},
	}
	for _, tt := range tests {
		// The inputs are Python reprs without quotes inside strings.
		in, err := value.FromJSON([]byte(strings.ReplaceAll(tt.in, "'", `"`)))
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		orig := value.DeepCopy(in)
		args := value.MapOf("arg", in)
		err = r.formatSlots(args)
		if tt.err {
			if err == nil {
				t.Errorf("formatSlots(%s): no error", tt.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("formatSlots(%s): %v", tt.in, err)
			continue
		}
		if got := value.Repr(get(args, "arg")); got != tt.want {
			t.Errorf("formatSlots(%s) = %s, want %s", tt.in, got, tt.want)
		}
		if !value.Equal(in, orig) {
			t.Errorf("formatSlots(%s) changed its input", tt.in)
		}
	}
}

func TestGlobalConditions(t *testing.T) {
	tests := []struct {
		conds string // JSON of global_state_conditions
		full  string
		skip  bool
	}{
		{`{}`, "test.nop", false},
		{`{"*": ["G@os:Debian"]}`, "test.nop", false},
		{`{"*": ["G@os:RedHat"]}`, "test.nop", true},
		{`{"*": "G@os:RedHat"}`, "test.nop", true},
		{`{"test": ["G@os:RedHat"]}`, "test.nop", true},
		{`{"test.nop": ["G@os:RedHat", "minion"]}`, "test.nop", false},
		{`{"test.nop": ["G@os:RedHat"]}`, "test.fail_without_changes", false},
		{`{"pkg": ["G@os:RedHat"]}`, "test.nop", false},
		{`{"*": []}`, "test.nop", false},
	}
	for _, tt := range tests {
		conds, err := value.FromJSON([]byte(tt.conds))
		if err != nil {
			t.Fatal(err)
		}
		ex := execmod.NewContext()
		ex.Opts = value.MapOf("id", "minion", "global_state_conditions", conds)
		ex.Grains = value.MapOf("os", "Debian")
		r := newRunner(nil, RunOptions{Env: &statemod.Env{Exec: ex}})
		state, _, _ := strings.Cut(tt.full, ".")
		got := r.globalConditions(tt.full, state, "n")
		if (got != nil) != tt.skip {
			t.Errorf("%s for %s: skip = %v, want %v", tt.conds, tt.full, got != nil, tt.skip)
		}
		if got != nil && get(got, "result") != nil {
			t.Errorf("result = %v, want None", get(got, "result"))
		}
	}
}
