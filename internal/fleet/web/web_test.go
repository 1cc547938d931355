package web

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"brine/internal/graph"
	"brine/internal/value"
	"brine/internal/yamlload"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestANSIHTML(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain <b>&", "plain &lt;b&gt;&amp;"},
		{"\x1b[0;32mok\x1b[0;0m rest", `<span class="c-green">ok</span> rest`},
		{"\x1b[0;1;33mwarn\x1b[0m", `<span class="b c-yellow">warn</span>`},
		{"\x1b[0;91mbright\x1b[0;36mcyan\x1b[0m", `<span class="c-red b">bright</span><span class="c-cyan">cyan</span>`},
		{"\x1b[32munclosed", `<span class="c-green">unclosed</span>`},
		{"broken \x1b[", "broken "},
	} {
		if got := ansiHTML(tc.in); got != tc.want {
			t.Errorf("ansiHTML(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSplitArgs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  bool
	}{
		{"", nil, false},
		{"a b  c", []string{"a", "b", "c"}, false},
		{`test=True pillar='{"a": 1}'`, []string{"test=True", `pillar={"a": 1}`}, false},
		{`"two words" ''`, []string{"two words", ""}, false},
		{`'open`, nil, true},
	} {
		got, err := splitArgs(tc.in)
		if (err != nil) != tc.err || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitArgs(%q) = %q, %v", tc.in, got, err)
		}
	}
}

func TestSafeNextAndGlobEscape(t *testing.T) {
	for in, want := range map[string]string{
		"/app/jobs?q=x":     "/app/jobs?q=x",
		"":                  "/app/minions",
		"https://evil/app/": "/app/minions",
		"//evil/app/":       "/app/minions",
		"/app/\\evil":       "/app/minions",
	} {
		if got := safeNext(in); got != want {
			t.Errorf("safeNext(%q) = %q", in, got)
		}
	}
	if got := globEscape("web*1?[x]"); got != "web[*]1[?][[]x]" {
		t.Errorf("globEscape: %q", got)
	}
}

// TestGraphSVG draws the graph of low chunks with requisites and a cycle
// and compares it with testdata/graph.svg.
func TestGraphSVG(t *testing.T) {
	low, err := yamlload.SafeLoad([]byte(`
- {__id__: pkg, state: pkg, fun: installed, name: nginx, __sls__: web, __env__: base, order: 10000}
- {__id__: conf, state: file, fun: managed, name: /etc/nginx.conf, __sls__: web, __env__: base, order: 10001, require: [{pkg: pkg}]}
- {__id__: svc, state: service, fun: running, name: nginx, __sls__: web, __env__: base, order: 10002, watch: [{file: conf}], require: [{pkg: pkg}]}
- {__id__: a, state: test, fun: nop, name: a, __sls__: loop, __env__: base, order: 10003, require: [{test: b}]}
- {__id__: b, state: test, fun: nop, name: b, __sls__: loop, __env__: base, order: 10004, require: [{test: a}]}
`), "low")
	if err != nil {
		t.Fatal(err)
	}
	var chunks []*value.Map
	for _, c := range low.(*value.List).Items {
		chunks = append(chunks, c.(*value.Map))
	}
	g := graph.Build(chunks, graph.Options{})
	results := map[string]any{"pkg_|-pkg_|-nginx_|-installed": true, "file_|-conf_|-/etc/nginx.conf_|-managed": nil, "service_|-svc_|-nginx_|-running": false}
	svg := graphSVG(g, results)
	for _, want := range []string{`class="node ok"`, `class="node pending"`, `class="node failed"`, `class="node cycle"`, `class="edge watch"`, "service: svc"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the SVG lacks %s", want)
		}
	}
	golden := filepath.Join("testdata", "graph.svg")
	if *update {
		if err := os.WriteFile(golden, []byte(svg+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if svg+"\n" != string(want) {
		t.Errorf("graph SVG differs from %s (go test -update to rewrite):\n%s", golden, svg)
	}
	if graphSVG(graph.Build(nil, graph.Options{}), nil) != "" {
		t.Error("an empty graph draws something")
	}
}
