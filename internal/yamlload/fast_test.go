package yamlload

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

// fastSamples are texts in (and just outside) the fast path's subset.
var fastSamples = []string{
	"a: 1\nb: [1, 2]\nc: {x: y}\n",
	"a:\n- 1\n- 2\nb: 3\n",
	"- a: 1\n  b: 2\n- c\n- - x\n  - y\n",
	"a: |\n  line 1\n\n    indented\n  end\n\n\nb: |-\n  strip\n",
	"a: |\n  no break at the end",
	"a: |\n  x\n     \n  y\n",
	"k: 'it''s'\nd: \"tab\\tq\\\"\\u00e9\\x41\"\n",
	"mode: 0644\nv: 1.0\nt: 2024-01-01\nn: ~\nb: yes\ns: 1:20\ne: 1e3\n",
	"1: a\ntrue: b\nnull: c\n",
	"1: a\nTrue: b\n",
	"a: b: c\n",
	"a: b\n  c\n",
	"a: 'x'#c\n",
	"a: x #c\nb: 'y' # c\n",
	"url: http://x/y\nk: a:b\n",
	"a:\n  # c\n  b: 1\n# end\n",
	"apps:\n  app0: {\"port\": 8000, \"packages\": [\"p-1\", \"p-2\"], \"settings\": {\"k0\": \"v0\"}, \"w\": [{\"name\": \"w00\", \"threads\": 3}]}\n",
	"a: [a b, c]\nb: {a: [1, {c: d}]}\n",
	"a: [a, ]\n", "a: {a: }\n", "a: [a: b]\n", "a: [x]y\n",
	"<<: {a: 1}\n", "=: 1\n", "a: !!str 1\n", "a: &x 1\nb: *x\n", "? a\n: b\n",
	"a: >\n  folded\n", "a: |2\n  x\n", "a: |\n\n  x\n",
	"---\na: 1\n", "a: 1\n...\n", "%YAML 1.1\n---\na: 1\n",
	"a:\n  - x\n  b: 1\n", "- a\nb: 1\n", "  a: 1\n  b: 2\n", "  a: 1\nb: 2\n",
	"a: - b\n", "a: -1\nb: -x\nc: -\n", "\"q k\": v\n'k2'  : v\n",
	"a: \"multi\n  line\"\n", "a: 'multi\n  line'\n", "-\n- a\n-\n  b: c\n",
	"a:\tb\n", "a: b\r\n", "caf\u00e9: th\u00e9\n", "a: \u2028\n", "\ufeffa: 1\n",
	"k: v # comment with: colon\n", "k: [a, b] # c\n", "k: [a, b]#c\n",
	"x", "", "# only\n", "a:\n", "a:\nb:\n", "- \n- # c\n",
	"a: 1\na: 2\n", "{a: 1}\n", "[1, 2]\n", "a: [1,2]\n", "a: {x: 1,y: 2}\n",
	"a: \"\\N\"\n", "a: \"\\ud800\"\n", "a: \"\\U0001F600\"\n", "a: ''\nb: \"\"\n",
	"a: 0b101\nb: 0x1F\nc: 1_000\nd: .inf\ne: -.NaN\nf: 190:20:30.15\n",
	"a: 0o17\nb: 09\nc: 1__0\nd: +12\n",
	strings.Repeat("k", 1100) + ": v\n",
}

// TestFastPathAgrees checks that whatever the fast path reads, the full
// path reads the same way.
func TestFastPathAgrees(t *testing.T) {
	inputs := append([]string(nil), fastSamples...)
	if data, err := os.ReadFile("testdata/load_golden.json"); err == nil {
		var cases []goldenCase
		if json.Unmarshal(data, &cases) == nil {
			for _, c := range cases {
				inputs = append(inputs, c.Input)
			}
		}
	}
	inputs = append(inputs, string(renderedSLS(200)))
	files, _ := filepath.Glob("../../../shared/conformance/cases/*/*/*/*.sls")
	more, _ := filepath.Glob("../../../shared/conformance/cases/*/*/*/*/*.sls")
	for _, f := range append(files, more...) {
		if data, err := os.ReadFile(f); err == nil && !strings.Contains(string(data), "{") {
			inputs = append(inputs, string(data))
		}
	}
	fast := 0
	for _, in := range inputs {
		if checkFast(t, []byte(in)) {
			fast++
		}
	}
	t.Logf("%d of %d inputs took the fast path", fast, len(inputs))
}

// checkFast compares the fast path with the full one for data, and reports
// whether the fast path took it.
func checkFast(t *testing.T, data []byte) bool {
	t.Helper()
	taken := false
	for _, plain := range []bool{false, true} {
		got, ok := fastLoad(data, plain)
		if !ok {
			continue
		}
		taken = true
		want, err := slowLoad(data, "x.sls", plain)
		if err != nil {
			t.Errorf("%q: fast path read %s, full path fails: %v", data, value.Repr(got), err)
			continue
		}
		if !sameValue(got, want) {
			t.Errorf("%q:\nfast %s\nfull %s", data, value.Repr(got), value.Repr(want))
		}
	}
	return taken
}

// sameValue is value.Equal that also compares types, map order and the
// OrderedDict mark.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case *value.Map:
		y, ok := b.(*value.Map)
		if !ok || x.Len() != y.Len() || x.Ordered() != y.Ordered() {
			return false
		}
		for i := 0; i < x.Len(); i++ {
			k1, v1 := x.At(i)
			k2, v2 := y.At(i)
			if !sameValue(k1, k2) || !sameValue(v1, v2) {
				return false
			}
		}
		return true
	case *value.List:
		y, ok := b.(*value.List)
		if !ok || len(x.Items) != len(y.Items) {
			return false
		}
		for i := range x.Items {
			if !sameValue(x.Items[i], y.Items[i]) {
				return false
			}
		}
		return true
	}
	return value.TypeName(a) == value.TypeName(b) && value.Repr(a) == value.Repr(b)
}

// FuzzFastPath checks the fast path against the full one.
func FuzzFastPath(f *testing.F) {
	for _, s := range fastSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkFast(t, data) })
}
