package jinja

import (
	"os"
	"strings"
	"testing"

	"brine/internal/value"
)

func benchVars() *value.Map {
	return value.MapOf(
		"pillar", value.NewMap(0),
		"grains", value.MapOf("os_family", "Debian", "osrelease", "12"),
	)
}

func readFile(t testing.TB, name string) string {
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBenchFormulaOutput checks the benchmark template against Python
// Jinja2's rendering of it (testdata/bench_formula.out).
func TestBenchFormulaOutput(t *testing.T) {
	src := readFile(t, "testdata/bench_formula.jinja")
	want := readFile(t, "testdata/bench_formula.out")
	out, err := New().RenderString("bench", src, benchVars())
	if err != nil {
		t.Fatal(err)
	}
	if out != want {
		t.Fatalf("output differs from Jinja2's:\n%s", firstDiff(out, want))
	}
}

func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(i-80, 0)
	return "got:  " + a[lo:min(i+80, len(a))] + "\nwant: " + b[lo:min(i+80, len(b))]
}

// BenchmarkFormulaParseRender parses and renders a ~550-line
// formula-style template, as Salt does on every render.
func BenchmarkFormulaParseRender(b *testing.B) {
	src := readFile(b, "testdata/bench_formula.jinja")
	env := New()
	vars := benchVars()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := env.RenderString("bench", src, vars); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFormulaRender renders the parsed template (a cache hit).
func BenchmarkFormulaRender(b *testing.B) {
	src := readFile(b, "testdata/bench_formula.jinja")
	t, err := New().Parse("bench", src)
	if err != nil {
		b.Fatal(err)
	}
	vars := benchVars()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := t.Render(vars); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoop10k renders a 10,000-iteration loop with arithmetic,
// a filter and a condition.
func BenchmarkLoop10k(b *testing.B) {
	src := `{% set ns = namespace(total=0) %}{% for i in range(10000) %}{% set ns.total = ns.total + i %}{% if i is even %}{{ i|string }}{% endif %},{% endfor %}{{ ns.total }}`
	t, err := New().Parse("loop", src)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		out, err := t.Render(nil)
		if err != nil {
			b.Fatal(err)
		}
		if !strings.HasSuffix(out, "49995000") {
			b.Fatal("bad output")
		}
	}
}
