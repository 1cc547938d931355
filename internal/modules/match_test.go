package modules

import (
	"testing"

	"brine/internal/value"
)

func TestMatch(t *testing.T) {
	ctx := testContext() // id m1, grains os Debian, roles [web, db]; pillar app:port 80
	ctx.Opts.Set("cachedir", t.TempDir())
	ctx.Opts.Set("nodegroups", value.MapOf("webs", "G@roles:web"))
	ctx.Grains.Set("ipv4", value.NewList("10.1.2.3", "127.0.0.1"))
	call(t, ctx, "data.update", []any{"color", "blue"})
	lookup := value.MapOf("web*", value.MapOf("a", int64(1)), "m1", value.MapOf("b", int64(2)), "default", value.MapOf("c", int64(3)))
	for _, tc := range []struct {
		fun  string
		args []any
		kw   []any
		want string
	}{
		{"match.glob", []any{"m*"}, nil, "True"},
		{"match.glob", []any{"web*"}, nil, "False"},
		{"match.glob", []any{"web*", "web01"}, nil, "True"},
		{"match.pcre", []any{"m[0-9]"}, nil, "True"},
		{"match.list", []any{"a,m1,b"}, nil, "True"},
		{"match.list", []any{"a,b"}, nil, "False"},
		{"match.grain", []any{"os:Deb*"}, nil, "True"},
		{"match.grain", []any{"roles:db"}, nil, "True"},
		{"match.grain", []any{"site|dc|east"}, []any{"delimiter", "|"}, "True"},
		{"match.grain_pcre", []any{"os:^Deb"}, nil, "True"},
		{"match.pillar", []any{"app:port:80"}, nil, "True"},
		{"match.pillar_pcre", []any{"app:port:9.*"}, nil, "False"},
		{"match.ipcidr", []any{"10.1.0.0/16"}, nil, "True"},
		{"match.ipcidr", []any{"192.168.0.0/16"}, nil, "False"},
		{"match.data", []any{"color:bl*"}, nil, "True"},
		{"match.compound", []any{"m1 and G@os:Debian and not N@webs and not I@app:port:81"}, nil, "False"},
		{"match.compound", []any{"m1 and G@os:Debian and not I@app:port:81"}, nil, "True"},
		{"match.filter_by", []any{lookup}, nil, "{'b': 2}"},
		{"match.filter_by", []any{lookup}, []any{"tgt_type", "glob", "minion_id", "web01"}, "{'a': 1}"},
		{"match.filter_by", []any{value.MapOf("x*", int64(1), "default", int64(0))}, nil, "0"},
		{"match.filter_by", []any{value.MapOf("x*", int64(1))}, nil, "None"},
		{"match.filter_by", []any{value.MapOf("m1", value.MapOf("a", int64(1)))}, []any{"merge", value.MapOf("b", int64(2))}, "{'a': 1, 'b': 2}"},
		{"match.search_by", []any{value.MapOf("web", value.NewList("x*", "m1"), "db", value.NewList("y*"))}, nil, "['web']"},
		{"match.search_by", []any{value.MapOf("db", value.NewList("y*"))}, nil, "None"},
		{"match.ifelse", []any{"x*", "a", "G@os:Debian", "b", "c"}, nil, "'b'"},
		{"match.ifelse", []any{false, "a", "c"}, nil, "'c'"},
		{"match.ifelse", []any{true, "a", "c"}, nil, "'a'"},
		{"match.ifelse", []any{"only"}, nil, "'only'"},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, tc.args, tc.kw...)); got != tc.want {
			t.Errorf("%s%v%v = %s, want %s", tc.fun, tc.args, tc.kw, got, tc.want)
		}
	}
	if _, err := ctx.Call("match.ifelse", []any{"a", "b"}, nil); err == nil || err.Error() != "The ifelse function must have an odd number of arguments!" {
		t.Errorf("ifelse with two arguments: %v", err)
	}
	if _, err := ctx.Call("match.filter_by", []any{lookup}, value.MapOf("merge", "x")); err == nil || err.Error() != "filter_by merge argument must be a dictionary." {
		t.Errorf("filter_by merge string: %v", err)
	}
}
