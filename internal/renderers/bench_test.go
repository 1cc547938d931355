package renderers

import (
	"fmt"
	"strings"
	"testing"

	"brine/internal/render"
	"brine/internal/value"
)

// formulaTemplate generates a formula-style SLS of about 500 lines: a map
// picked by grain, loops over pillar users and packages, conditionals and
// filters, the way real formulas are written.
func formulaTemplate() string {
	var b strings.Builder
	b.WriteString(`{% set osmap = {'Debian': {'pkg': 'apache2', 'svc': 'apache2'}, 'RedHat': {'pkg': 'httpd', 'svc': 'httpd'}} %}
{% set web = osmap.get(grains['os_family'], osmap['Debian']) %}
`)
	for i := 0; b.Len() < 500*40 && i < 60; i++ {
		fmt.Fprintf(&b, `
{%% for user in pillar.get('users', []) %%}
user_%[1]d_{{ user.name }}:
  test.nop:
    - name: {{ user.name | upper }}
    - uid: {{ user.uid + %[1]d }}
    - groups: {{ user.groups | join(',') }}
{%% if user.admin %%}
    - admin: true
{%% endif %%}
{%% endfor %%}
pkg_%[1]d:
  test.nop:
    - name: {{ web.pkg }}-{{ '%%03d' | format(%[1]d) }}
    - require:
      - test: svc_%[1]d
`, i)
	}
	return b.String()
}

func benchContext() *render.Context {
	users := value.NewList()
	for i := 0; i < 3; i++ {
		users.Append(value.MapOf("name", fmt.Sprintf("user%d", i), "uid", int64(1000+i),
			"groups", value.NewList("wheel", "web"), "admin", i == 0))
	}
	return &render.Context{
		Saltenv: "base", SLS: "formula", HasSLS: true, Path: "/srv/formula.sls",
		Grains: value.MapOf("os_family", "Debian", "os", "Debian"),
		Pillar: value.MapOf("users", users),
		Opts:   value.MapOf("renderer", "jinja|yaml"),
	}
}

func BenchmarkFormulaTemplate(b *testing.B) {
	src := []byte(formulaTemplate())
	rc := benchContext()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := render.Render(src, rc, render.Options{Default: "jinja|yaml"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSLS10k renders 10,000 states through jinja|yaml and reports the
// cost per state.
func BenchmarkSLS10k(b *testing.B) {
	const n = 10000
	var sb strings.Builder
	sb.WriteString("{% for i in range(" + fmt.Sprint(n) + ") %}\nstate_{{ i }}:\n  test.nop:\n    - name: item{{ i }}\n    - order: {{ i }}\n{% endfor %}\n")
	src := []byte(sb.String())
	rc := benchContext()
	b.ReportAllocs()
	for b.Loop() {
		out, err := render.Render(src, rc, render.Options{Default: "jinja|yaml"})
		if err != nil {
			b.Fatal(err)
		}
		if m := out.(*value.Map); m.Len() != n {
			b.Fatalf("rendered %d states", m.Len())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/state")
}

func TestFormulaTemplateRenders(t *testing.T) {
	out, err := render.Render([]byte(formulaTemplate()), benchContext(), render.Options{Default: "jinja|yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := out.(*value.Map); !ok || m.Len() < 100 {
		t.Fatalf("unexpected result %T", out)
	}
	if lines := strings.Count(formulaTemplate(), "\n"); lines < 450 {
		t.Errorf("template has %d lines, want about 500", lines)
	}
}
