package yamlload

import (
	"bytes"
	"math"
	"testing"

	"brine/internal/value"
)

// FuzzLoad checks that no input makes Load panic, that every error is an
// *Error, and that what loads survives a Dump and a second Load.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		"mode: 0644", "a: [1, {b: c}]", "x: &a {k: v}\ny:\n  <<: *a\n", "- !!binary aGk=", "a: b: c",
		"'q': \"\\u00e9\"", "? [a]\n: 1", "a: |\n  text\n", "1:20: 2024-01-01", "{{ x }}", "%YAML 1.1\n---\na",
		"a:\n\t- b", "- - - x\n  - y", "a: *b", "a: 1\n---\nb: 2", "!!set {a, b}", "!!pairs [a: 1]",
		"d: &d\n  u: r\n  <<: *d", "a: &x {b: {<<: *x}}", "a: &a {x: 1}\nb: &b {<<: *a, y: 2}\nc: {<<: [*b, *a], z: 3}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Load(data, "fuzz.sls")
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		for _, flow := range []*bool{nil, FlowStyle(true), FlowStyle(false)} {
			text, err := Dump(v, DumpOptions{DefaultFlowStyle: flow, AllowUnicode: true, SortKeys: true})
			if err != nil {
				t.Fatalf("Dump: %v", err)
			}
			if hasNaN(v, 0) || HasMapKey(v) || bytes.ContainsAny(data, "*<") {
				continue
			}
			back, err := Load([]byte(text), "dump.yaml")
			if err != nil {
				t.Fatalf("reloading %q: %v\nfrom %q", text, err, data)
			}
			if !value.Equal(back, v) {
				t.Fatalf("round trip of %q\nloaded %s\ndumped %q\nreloaded %s", data, value.Repr(v), text, value.Repr(back))
			}
		}
	})
}

// hasNaN reports values that do not compare equal after a round trip:
// NaN, and tuples (which come back as lists).
func hasNaN(v any, depth int) bool {
	if depth > 100 {
		return true
	}
	switch x := v.(type) {
	case float64:
		return math.IsNaN(x)
	case *value.Map:
		found := false
		x.Range(func(k, v any) bool {
			found = hasNaN(k, depth+1) || hasNaN(v, depth+1)
			return !found
		})
		return found
	case *value.List:
		for _, e := range x.Items {
			if hasNaN(e, depth+1) {
				return true
			}
		}
	case value.Tuple:
		return true // dumps as a list
	}
	return false
}
