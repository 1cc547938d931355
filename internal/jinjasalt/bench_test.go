package jinjasalt

import (
	"fmt"
	"strings"
	"testing"

	"brine/internal/value"
)

func formulaSource(states int) []byte {
	var b strings.Builder
	b.WriteString("{% set pkgs = salt['pillar.get']('pkgs', ['vim', 'git']) %}\n")
	for i := 0; i < states; i++ {
		fmt.Fprintf(&b, "state_%d:\n  test.nop:\n    - name: {{ grains.os | lower }}-%d\n    - pkgs: {{ pkgs | tojson }}\n{%% if grains.os == 'Debian' %%}    - deb: true\n{%% endif %%}", i, i)
	}
	return []byte(b.String())
}

func BenchmarkRender100States(b *testing.B) {
	src := formulaSource(100)
	pillar := value.NewMap(0)
	grains := value.MapOf("os", "Debian")
	ctx := &Context{SLS: "x", Saltenv: "base", Grains: grains, Pillar: pillar, Opts: value.NewMap(0),
		Salt: fakeSalt(grains, pillar, value.NewMap(0))}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Render(src, ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRenderSmall(b *testing.B) {
	src := formulaSource(1)
	ctx := &Context{SLS: "x", Saltenv: "base", Grains: value.MapOf("os", "Debian"), Opts: value.NewMap(0),
		Salt: fakeSalt(value.NewMap(0), value.NewMap(0), value.NewMap(0))}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Render(src, ctx); err != nil {
			b.Fatal(err)
		}
	}
}
