package compile

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"brine/internal/value"
)

func renderBoth(t *testing.T, files map[string]string, sls ...string) (fast, exact string, fastErrs, exactErrs []string) {
	t.Helper()
	dir := writeTree(t, files)
	c := newCompiler(dir)
	h, fastErrs := c.RenderHighstate(matchesOf("base", sls...))
	fast = toJSON(h)
	dir2 := writeTree(t, files)
	c2 := newCompiler(dir2)
	c2.Exact = true
	h2, exactErrs := c2.RenderHighstate(matchesOf("base", sls...))
	exact = toJSON(h2)
	return
}

func TestRenderErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		sls   []string
		want  []string
	}{
		{"missing", map[string]string{"a.sls": "a: {test.nop: []}\n"}, []string{"nope"},
			[]string{"No matching sls found for 'nope' in env 'base'"}},
		{"include not list", map[string]string{"a.sls": "include: b\nx: {test.nop: []}\n"}, []string{"a"},
			[]string{"Include Declaration in SLS a is not formed as a list", "ID include in SLS a is not a dictionary"}},
		{"extend not dict", map[string]string{"a.sls": "extend: [1]\n"}, []string{"a"},
			[]string{"Extension value in SLS 'a' is not a dictionary"}},
		{"extend name not dict", map[string]string{"a.sls": "extend: {x: 1}\n"}, []string{"a"},
			[]string{"Extension name 'x' in SLS 'a' is not a dictionary"}},
		{"exclude not list", map[string]string{"a.sls": "exclude: x\ny: {test.nop: []}\n"}, []string{"a"},
			[]string{"Exclude Declaration in SLS a is not formed as a list"}},
		{"id not dict", map[string]string{"a.sls": "x: 1\ny: plain\n"}, []string{"a"},
			[]string{"ID x in SLS a is not a dictionary", "ID y in SLS a is not a dictionary"}},
		{"same type twice", map[string]string{"a.sls": "x:\n  test: [nop]\n  test.fail: []\n"}, []string{"a"},
			[]string{"ID 'x' in SLS 'a' contains multiple state declarations of the same type"}},
		{"not dict", map[string]string{"a.sls": "- x\n- y\n"}, []string{"a"},
			[]string{"SLS a does not render to a dictionary", "Error when rendering state with contents: ['x', 'y']"}},
		{"include errors", map[string]string{"p/leaf.sls": "include:\n  - ...up\n  - nope: other\n  - gone\n  - .gone2\n  - _xenv: z\nl: {test.nop: []}\n"}, []string{"p.leaf"},
			[]string{
				"Attempted relative include of '...up' within SLS 'base:p.leaf' goes beyond top level package ",
				"Nonexistent saltenv 'nope' found in include of 'other' within SLS 'base:p.leaf'",
				"Specified SLS gone in saltenv base is not available on the salt master or through a configured fileserver",
				"Specified SLS p.gone2 in saltenv base is not available on the salt master or through a configured fileserver",
				"Nonexistent saltenv '_xenv' found in include of 'z' within SLS 'base:p.leaf'",
			}},
		{"conflict", map[string]string{"a.sls": "x: {test.nop: []}\n", "b.sls": "x: {test.nop: []}\n"}, []string{"a", "b"},
			[]string{"Detected conflicting IDs, SLS IDs need to be globally unique.\n    The conflicting ID is 'x' and is found in SLS 'base:a' and SLS 'base:b'"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fast, exact, fe, ee := renderBoth(t, tc.files, tc.sls...)
			if !reflect.DeepEqual(fe, tc.want) {
				t.Errorf("errors\ngot  %q\nwant %q", fe, tc.want)
			}
			if fast != exact || !reflect.DeepEqual(fe, ee) {
				t.Errorf("fast and exact differ:\n%s %q\n%s %q", fast, fe, exact, ee)
			}
		})
	}
}

// TestFastMatchesExact compiles trees with long include chains, extends,
// excludes and non-dict bodies both ways.
func TestFastMatchesExact(t *testing.T) {
	files := map[string]string{
		"top1.sls":    "include:\n  - mid\n  - other.*\nextend:\n  leaf: {test: [{x: 1}]}\nexclude:\n  - id: gone\nt1: {test.nop: []}\nt2: {test: [nop, {order: 3}]}\n",
		"mid.sls":     "include:\n  - .leaf\n  - base: leaf\nextend:\n  t1: {test: [{y: 2}]}\nm1:\n  test.nop: []\n  file.managed: []\n",
		"leaf.sls":    "leaf: {test.nop: []}\ngone: test.nop\n",
		"other/a.sls": "oa: {test.nop: []}\n",
		"other/b.sls": "include: [top1]\nob: {test.nop: []}\n",
		"solo.sls":    "s: {test.nop: []}\nbad: 5\nafter: {test.nop: []}\n",
	}
	fast, exact, fe, ee := renderBoth(t, files, "top1", "solo", "leaf")
	if fast != exact || !reflect.DeepEqual(fe, ee) {
		t.Errorf("fast and exact differ:\n%s %q\n%s %q", fast, fe, exact, ee)
	}
	h := value.NewMap(0)
	_ = h
}

// FuzzCompile feeds arbitrary YAML as an SLS file through the whole
// compile pipeline: it must never panic.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		"a: {test.nop: []}\n",
		"include: [b]\nextend: {a: {test: [{x: 1}]}}\nexclude: [{id: a}]\na: {test: [nop, {require_in: [a, {sls: b}]}, {names: [x, {y: [{z: 1}]}]}]}\n",
		"a: {test: [nop, {use: [{test: b}]}, {prereq: [b]}, {use_in: {test: b}}]}\nb: {test: [nop, {prereq_in: [a]}]}\n",
		"- 1\n- ab\n",
		"a: null\nb: 5\n",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	os.WriteFile(filepath.Join(dir, "b.sls"), []byte("b: {test.nop: []}\n"), 0o644)
	f.Fuzz(func(t *testing.T, src string) {
		if err := os.WriteFile(filepath.Join(dir, "a.sls"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, exact := range []bool{false, true} {
			c := newCompiler(dir)
			c.Exact = exact
			h, errs := c.RenderHighstate(matchesOf("base", "a", "b"))
			lowstate(h, errs)
		}
	})
}
