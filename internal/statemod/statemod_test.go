package statemod

import (
	"testing"

	"brine/internal/value"
)

func TestRegisterPanics(t *testing.T) {
	r := NewRegistry()
	ok := &Function{Name: "m.f", Run: func(*Call) (*value.Map, error) { return nil, nil }}
	r.Register(ok)
	for _, f := range []*Function{
		{Name: "m.f", Run: ok.Run},   // duplicate
		{Name: "mf", Run: ok.Run},    // no module
		{Name: "m.f.g", Run: ok.Run}, // too many dots
		{Name: "m.g"},                // no body
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", f.Name)
				}
			}()
			r.Register(f)
		}()
	}
	if !r.Has("m.f") || r.Has("m.g") {
		t.Error("Has")
	}
	if s := r.Suggest("m.g"); s != "m.f" {
		t.Errorf("Suggest = %q", s)
	}
}

func TestBindArgs(t *testing.T) {
	f := &Function{Name: "m.f", Params: []Param{Req("name"), Opt("mode", nil), Opt("list", value.NewList())}, Kwargs: true}
	low := value.MapOf("state", "m", "__id__", "x", "name", "n", "fun", "f", "extra", int64(1), "require", value.NewList(), "mode", "0644")
	args, extra := f.BindArgs(low)
	if len(extra) != 0 {
		t.Errorf("extra %v", extra)
	}
	if got := value.Repr(args); got != "{'name': 'n', 'mode': '0644', 'list': [], 'extra': 1}" {
		t.Errorf("args = %s", got)
	}
	f.Kwargs = false
	if _, extra := f.BindArgs(low); len(extra) != 1 || extra[0] != "extra" {
		t.Errorf("extra = %v", extra)
	}
	if m := f.MissingParams(value.MapOf("mode", "x")); len(m) != 1 || m[0] != "name" {
		t.Errorf("missing = %v", m)
	}
	if got := InvalidKwargsMessage([]string{"a", "b", "c"}, "m.f"); got != "'a', 'b' and 'c' are invalid keyword arguments for 'm.f'" {
		t.Errorf("message %q", got)
	}
	if got := InvalidKwargsMessage([]string{"a"}, "m.f"); got != "'a' is an invalid keyword argument for 'm.f'" {
		t.Errorf("message %q", got)
	}
}

func TestTag(t *testing.T) {
	low := value.MapOf("state", "file", "__id__", "id", "name", int64(5), "fun", "managed")
	if got := Tag(low); got != "file_|-id_|-5_|-managed" {
		t.Errorf("Tag = %q", got)
	}
}
