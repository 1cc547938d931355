package modules

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"brine/internal/pillar"
	"brine/internal/value"
)

// TestPillarExt compiles a real pillar tree with pillar.ext. The pillars
// and log lines wanted are what Salt 3006 gave for the same tree and
// calls on this machine.
func TestPillarExt(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"top.sls":    "base:\n  '*':\n    - common\n",
		"common.sls": "a: 1\nb:\n  c: 2\n",
	})
	for _, tc := range []struct {
		name string
		opts []any
		args []any
		kw   []any
		want string
		log  string // a line the call logs
	}{
		{name: "not on demand", args: []any{"{foo: bar}"}, want: "{'a': 1, 'b': {'c': 2}}",
			log: "The following ext_pillar modules are not allowed for on-demand pillar data: foo. Valid on-demand ext_pillar modules are: libvirt, virtkey. The valid modules can be adjusted by setting the 'on_demand_ext_pillar' config option."},
		{name: "not a dict", args: []any{"notadict"}, want: "{'a': 1, 'b': {'c': 2}}",
			log: "On-demand pillar notadict is not formatted as a dictionary"},
		{name: "list", args: []any{value.NewList(int64(1), int64(2))}, want: "{'a': 1, 'b': {'c': 2}}",
			log: "On-demand pillar [1, 2] is not formatted as a dictionary"},
		{name: "allowed", args: []any{value.MapOf("virtkey", "x")}, kw: []any{"pillar", value.MapOf("b", value.MapOf("d", int64(3)))},
			want: "{'a': 1, 'b': {'c': 2, 'd': 3}}", log: "Specified ext_pillar interface virtkey is unavailable"},
		{name: "own on demand list", opts: []any{"on_demand_ext_pillar", value.NewList("foo")}, args: []any{"{foo: bar}"},
			want: "{'a': 1, 'b': {'c': 2}}", log: "Specified ext_pillar interface foo is unavailable"},
		{name: "malformed on demand", opts: []any{"on_demand_ext_pillar", int64(3)}, args: []any{"{foo: bar}"},
			want: "{'a': 1, 'b': {'c': 2}}", log: "The 'on_demand_ext_pillar' configuration option is malformed, it should be a list of ext_pillar module names"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testContext()
			ctx.Opts = value.MapOf(append([]any{"id", "m1", "pillar_roots", value.MapOf("base", value.NewList(root)),
				"on_demand_ext_pillar", value.NewList("libvirt", "virtkey")}, tc.opts...)...)
			// The in-memory pillar, compiled from the same tree at start-up.
			ctx.Pillar = value.MapOf("a", int64(1), "b", value.MapOf("c", int64(2)))
			ctx.SetService(PillarServiceName, pillar.Service{})
			var logs bytes.Buffer
			prev := slog.Default()
			slog.SetDefault(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo})))
			defer slog.SetDefault(prev)
			got := call(t, ctx, "pillar.ext", tc.args, tc.kw...)
			if value.Repr(got) != tc.want {
				t.Errorf("got %s, want %s", value.Repr(got), tc.want)
			}
			if !strings.Contains(logs.String(), tc.log) {
				t.Errorf("log lacks %q:\n%s", tc.log, logs.String())
			}
		})
	}
}
