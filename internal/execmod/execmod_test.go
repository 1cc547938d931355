package execmod

import (
	"errors"
	"testing"

	"brine/internal/value"
)

func echo(_ *Context, args []any, _ *value.Map) (any, error) { return value.Tuple(args), nil }

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	r.Register("test.echo", echo, "doc")
	r.Register("grains.get", echo)
	if _, ok := r.Lookup("test.echo"); !ok {
		t.Fatal("test.echo not found")
	}
	if _, ok := r.Lookup("test.nope"); ok {
		t.Fatal("test.nope found")
	}
	if got := r.Suggest("test.ehco"); got != "test.echo" {
		t.Errorf("Suggest = %q", got)
	}
	if got := r.Suggest("zzzzzzzzzz.qqqqqqq"); got != "" {
		t.Errorf("Suggest of nonsense = %q", got)
	}
	if !r.HasModule("grains") || r.HasModule("gra") {
		t.Error("HasModule")
	}
	for _, bad := range []string{"test.echo", "noDot", ".x", "x.", "a b.c"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", bad)
				}
			}()
			r.Register(bad, echo)
		}()
	}
}

func TestContextCall(t *testing.T) {
	r := NewRegistry()
	r.Register("test.echo", echo)
	ctx := NewContext()
	ctx.Registry = r
	got, err := ctx.Call("test.echo", []any{"a"}, nil)
	if err != nil || value.Repr(got) != "('a',)" {
		t.Errorf("Call = %s, %v", value.Repr(got), err)
	}
	_, err = ctx.Call("test.ecoh", nil, nil)
	var ue *UnknownFunctionError
	if !errors.As(err, &ue) || err.Error() != "'test.ecoh' is not available. Did you mean 'test.echo'?" {
		t.Errorf("unknown: %v", err)
	}
	c, ok := ctx.Callable("test.echo")
	if !ok {
		t.Fatal("Callable")
	}
	if got, _ := c.Call([]any{int64(1)}, nil); value.Repr(got) != "(1,)" {
		t.Errorf("Callable.Call = %s", value.Repr(got))
	}
	ctx.SetRetcode(3)
	if ctx.Retcode() != 3 {
		t.Error("retcode")
	}
}

func TestBind(t *testing.T) {
	params := []Param{Req("key"), Opt("default", ""), Opt("delimiter", ":")}
	tests := []struct {
		name   string
		args   []any
		kwargs *value.Map
		want   string
		rest   string
		err    string
	}{
		{"positional", []any{"a", "d"}, nil, "['a', 'd', ':']", "{}", ""},
		{"keyword", []any{"a"}, value.MapOf("delimiter", "/", "other", 1, "__pub_fun", "x"), "['a', '', '/']", "{'other': 1}", ""},
		{"missing", nil, nil, "", "", "get() missing 1 required positional argument: 'key'"},
		{"twice", []any{"a"}, value.MapOf("key", "b"), "", "", "get() got multiple values for argument 'key'"},
		{"too many", []any{1, 2, 3, 4}, nil, "", "", "get() takes from 1 to 3 positional arguments but 4 were given"},
		// Python checks keywords given twice before counting positionals
		{"twice and too many", []any{1, 2, 3, 4}, value.MapOf("default", 0), "", "", "get() got multiple values for argument 'default'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vals, rest, err := Bind("config.get", tt.args, tt.kwargs, params...)
			if tt.err != "" {
				var te *TypeError
				var ie *InvocationError
				if !errors.As(err, &te) || err.Error() != tt.err || !errors.As(err, &ie) || ie.Msg != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := value.Repr(value.NewList(vals...)); got != tt.want {
				t.Errorf("vals = %s, want %s", got, tt.want)
			}
			if got := value.Repr(rest); got != tt.rest {
				t.Errorf("rest = %s, want %s", got, tt.rest)
			}
		})
	}
}

func TestSetups(t *testing.T) {
	saved := setups
	defer func() { setups = saved }()
	setups = nil
	var order []string
	RegisterSetup("b", 10, func(*Context) error { order = append(order, "b"); return nil })
	RegisterSetup("a", 10, func(*Context) error { order = append(order, "a"); return nil })
	RegisterSetup("first", 1, func(*Context) error { order = append(order, "first"); return nil })
	if err := RunSetups(NewContext()); err != nil {
		t.Fatal(err)
	}
	if got := value.Repr(order); len(order) != 3 || order[0] != "first" || order[1] != "a" || order[2] != "b" {
		t.Errorf("order = %v %s", order, got)
	}
}

// TestTypeErrorTexts pins Python 3's wording of argument errors.
func TestTypeErrorTexts(t *testing.T) {
	tests := []struct {
		name   string
		params []Param
		args   []any
		want   string
	}{
		{"one missing", []Param{Req("cmd"), Opt("cwd", nil)}, nil, "run() missing 1 required positional argument: 'cmd'"},
		{"two missing", []Param{Req("a"), Req("b")}, nil, "run() missing 2 required positional arguments: 'a' and 'b'"},
		{"three missing", []Param{Req("a"), Req("b"), Req("c")}, nil, "run() missing 3 required positional arguments: 'a', 'b', and 'c'"},
		{"last two missing", []Param{Req("a"), Req("b"), Req("c")}, []any{1}, "run() missing 2 required positional arguments: 'b' and 'c'"},
		{"takes one", []Param{Req("a")}, []any{1, 2}, "run() takes 1 positional argument but 2 were given"},
		{"takes none", nil, []any{1}, "run() takes 0 positional arguments but 1 was given"},
		{"takes two", []Param{Req("a"), Req("b")}, []any{1, 2, 3}, "run() takes 2 positional arguments but 3 were given"},
		{"takes from", []Param{Req("a"), Opt("b", nil), Opt("c", nil)}, []any{1, 2, 3, 4}, "run() takes from 1 to 3 positional arguments but 4 were given"},
		{"takes from zero", []Param{Opt("b", nil)}, []any{1, 2}, "run() takes from 0 to 1 positional arguments but 2 were given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Bind("cmd.run", tt.args, value.NewMap(0), tt.params...)
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
