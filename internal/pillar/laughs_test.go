package pillar_test

import (
	"runtime"
	"strings"
	"testing"

	"brine/internal/pillar"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// laughs is a "billion laughs" document: nine levels of nine aliases of
// the level below, 9**9 strings once expanded.
func laughs() string {
	var b strings.Builder
	b.WriteString("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	prev := "a"
	for _, c := range "bcdefghi" {
		b.WriteString(string(c) + ": &" + string(c) + " [" + strings.Repeat("*"+prev+", ", 8) + "*" + prev + "]\n")
		prev = string(c)
	}
	b.WriteString("laughs: *i\n")
	return b.String()
}

// TestBillionLaughs: aliases shared by the YAML loader stay shared through
// pillar compilation (the deep copies of the command-line and previous
// pillar included), so the document costs what its anchors cost.
func TestBillionLaughs(t *testing.T) {
	doc := laughs()
	ov, err := yamlload.Load([]byte(doc), "override")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		cfg  string
		o    pillar.Options
	}{
		{name: "sls"},
		{name: "override", o: pillar.Options{Override: ov.(*value.Map)}},
		{name: "previous", o: pillar.Options{Previous: ov.(*value.Map)}},
		{name: "ext_pillar_first", cfg: `{"ext_pillar_first": true}`, o: pillar.Options{Override: ov.(*value.Map)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := tree(t, map[string]string{"pillar/top.sls": "base:\n  '*': [lol]\n", "pillar/lol.sls": doc})
			o := tt.o
			o.Opts = testOpts(t, dir, tt.cfg)
			o.Render = pillar.Renderers{}.Render()
			o.Decrypt = pillar.Renderers{}.Decrypt(o.Opts)
			o.MinionID = "minion"
			o.Grains = value.MapOf("id", "minion")
			var p *value.Map
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			p, err := pillar.Compile(o)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			l, _ := p.Get("laughs")
			for depth := 0; depth < 9; depth++ {
				list, ok := l.(*value.List)
				if !ok || len(list.Items) != 9 {
					t.Fatalf("laughs at depth %d: %v", depth, l)
				}
				l = list.Items[8]
			}
			if l != "lol" {
				t.Fatalf("leaf = %v", l)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
				t.Errorf("compiling allocated %d MiB, want < 64 MiB", n>>20)
			}
		})
	}
}
