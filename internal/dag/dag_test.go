package dag

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func build(n int, edges [][2]int) *Graph {
	g := &Graph{}
	for i := 0; i < n; i++ {
		g.AddNode(Node{})
	}
	for _, e := range edges {
		if _, err := g.Connect(Edge{From: e[0], To: e[1]}); err != nil {
			panic(err)
		}
	}
	return g
}

func TestCycles(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		edges [][2]int
		want  [][]int
	}{
		{"empty", 0, nil, nil},
		{"chain", 3, [][2]int{{0, 1}, {1, 2}}, nil},
		{"self", 2, [][2]int{{1, 1}}, [][]int{{1}}},
		{"pair", 2, [][2]int{{0, 1}, {1, 0}}, [][]int{{0, 1}}},
		{"three and two", 6, [][2]int{{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 3}, {2, 5}}, [][]int{{0, 1, 2}, {3, 4}}},
		{"diamond", 4, [][2]int{{0, 1}, {0, 2}, {1, 3}, {2, 3}}, nil},
		{"late back edge", 4, [][2]int{{3, 2}, {2, 1}, {1, 3}, {0, 3}}, [][]int{{1, 2, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := build(tt.n, tt.edges).Cycles(nil)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Cycles() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCyclesFiltered(t *testing.T) {
	g := &Graph{}
	a, b := g.AddNode(Node{}), g.AddNode(Node{})
	g.Connect(Edge{From: a, To: b, Label: "require"})
	g.Connect(Edge{From: b, To: a, Label: "listen"})
	if c := g.Cycles(nil); len(c) != 1 {
		t.Errorf("unfiltered: %v", c)
	}
	if c := g.Cycles(func(e Edge) bool { return e.Label != "listen" }); len(c) != 0 {
		t.Errorf("filtered: %v", c)
	}
}

func TestCyclesDeep(t *testing.T) {
	const n = 200000
	g := &Graph{}
	for i := 0; i < n; i++ {
		g.AddNode(Node{})
	}
	for i := 0; i+1 < n; i++ {
		g.Connect(Edge{From: i, To: i + 1})
	}
	g.Connect(Edge{From: n - 1, To: 0})
	if c := g.Cycles(nil); len(c) != 1 || len(c[0]) != n {
		t.Errorf("got %d groups", len(c))
	}
}

func TestConnectBadNode(t *testing.T) {
	g := build(1, nil)
	if _, err := g.Connect(Edge{From: 0, To: 3}); err == nil {
		t.Error("no error for a missing node")
	}
}

func TestSuccessors(t *testing.T) {
	g := build(3, [][2]int{{0, 2}, {0, 1}, {0, 2}})
	if got := g.Successors(0); !reflect.DeepEqual(got, []int{2, 1}) {
		t.Errorf("Successors = %v", got)
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		``:           `""`,
		`a"b`:        `"a\"b"`,
		"x\ny":       `"x\ny"`,
		`back\slash`: `"back\\slash"`,
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestWriteDot(t *testing.T) {
	g := &Graph{}
	a := g.AddNode(Node{Label: "a\nfirst", Group: "one"})
	b := g.AddNode(Node{Name: "bee", Label: `b "quoted"`, Group: "two", Attrs: []Attr{{"shape", "box"}}})
	c := g.AddNode(Node{Label: "c", Group: "one"})
	d := g.AddNode(Node{Label: "loose"})
	g.Connect(Edge{From: a, To: b, Label: "require"})
	g.Connect(Edge{From: c, To: a, Attrs: []Attr{{"style", "dashed"}}})
	g.Connect(Edge{From: d, To: c})
	var sb strings.Builder
	err := g.WriteDot(&sb, DotOptions{
		Name:       "test",
		Attrs:      []Attr{{"rankdir", "BT"}},
		NodeAttrs:  []Attr{{"shape", "box"}},
		GroupLabel: func(s string) string { return "group " + s },
	})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "graph.dot", sb.String())
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}
