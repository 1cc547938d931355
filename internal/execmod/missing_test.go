package execmod

import (
	"testing"

	"brine/internal/value"
)

func TestMissingMessage(t *testing.T) {
	r := NewRegistry()
	nop := func(*Context, []any, *value.Map) (any, error) { return nil, nil }
	for _, n := range []string{"test.ping", "file.find", "file.read"} {
		r.Register(n, nop)
	}
	for _, tc := range []struct{ name, want string }{
		// Neither brine nor Salt: Salt's sentence, the did-you-mean.
		{"test.pnig", "'test.pnig' is not available. Did you mean 'test.ping'?"},
		{"nosuch.thing", "'nosuch.thing' is not available."},
		// Salt has it, brine does not.
		{"file.touch", "'file.touch' is not available. file.touch is a Salt 3006 execution function that brine does not implement yet."},
		{"mysql.query", "'mysql.query' is not available. mysql.query is a Salt 3006 execution function that brine does not implement yet."},
		// A misspelling closest to a Salt function brine lacks.
		{"file.tuch", "'file.tuch' is not available. Did you mean 'file.touch'? file.touch is a Salt 3006 execution function that brine does not implement yet."},
		// A misspelling closest to a registered one.
		{"file.fnd", "'file.fnd' is not available. Did you mean 'file.find'?"},
	} {
		if got := r.MissingMessage(tc.name); got != tc.want {
			t.Errorf("MissingMessage(%q) = %q, want %q", tc.name, got, tc.want)
		}
		if got := r.MissingFunString(tc.name); got != "'"+tc.name+"' is not available." {
			t.Errorf("MissingFunString(%q) = %q: Salt's text must not change", tc.name, got)
		}
	}
	ctx := NewContext()
	ctx.Registry = r
	_, err := ctx.Call("file.touch", nil, nil)
	if u, ok := err.(*UnknownFunctionError); !ok || u.NotImplemented == "" {
		t.Errorf("Call(file.touch) = %#v, want an UnknownFunctionError saying brine lacks it", err)
	}
}
