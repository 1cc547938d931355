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
		{"missing", nil, nil, "", "", "get() missing required argument: 'key'"},
		{"twice", []any{"a"}, value.MapOf("key", "b"), "", "", "get() got multiple values for argument 'key'"},
		{"too many", []any{1, 2, 3, 4}, nil, "", "", "get() takes at most 3 positional arguments but 4 were given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vals, rest, err := Bind("get", tt.args, tt.kwargs, params...)
			if tt.err != "" {
				var ie *InvocationError
				if !errors.As(err, &ie) || err.Error() != tt.err {
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
