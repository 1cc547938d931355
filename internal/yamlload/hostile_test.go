package yamlload

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"brine/internal/value"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// nested returns n levels of open+close around inner.
func nested(open, inner, close string, n int) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

// blockMap is n mappings "a:" each indented one more space, then the
// mapping "b: 1" (n+1 collections).
func blockMap(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i) + "a:\n")
	}
	b.WriteString(strings.Repeat(" ", n) + "b: 1\n")
	return b.String()
}

// indentless is a mapping holding an indentless sequence holding a
// mapping ..., 2n collections.
func indentless(n int) string {
	var b strings.Builder
	b.WriteString("a:\n")
	for i := 1; i < n; i++ {
		b.WriteString(strings.Repeat(" ", 2*(i-1)) + "- a:\n")
	}
	b.WriteString(strings.Repeat(" ", 2*(n-1)) + "- 1\n")
	return b.String()
}

// aliasChain is a mapping of n anchors, each nesting the one before in per
// more lists (the first in per-1): depth n*per.
func aliasChain(n, per int) string {
	var b strings.Builder
	prev := "1"
	for i := range n {
		k := per
		if i == 0 {
			k--
		}
		fmt.Fprintf(&b, "a%d: &a%d %s\n", i, i, nested("[", prev, "]", k))
		prev = fmt.Sprintf("*a%d", i)
	}
	return b.String()
}

// TestHostileDepth: documents nested deeper than value.MaxDepth are
// refused on both load paths, with a ParserError at the collection that
// crossed the limit, wrapping a *value.DepthError, and cost little memory
// however deep they go; value.MaxDepth levels load (and dump back).
func TestHostileDepth(t *testing.T) {
	max := value.MaxDepth
	for _, tt := range []struct {
		name      string
		doc       string
		ok        bool
		line, col int
	}{
		{"flow seq 10000", nested("[", "", "]", 10000), false, 1, max + 1},
		{"flow seq 501", nested("[", "", "]", max+1), false, 1, max + 1},
		{"flow seq 500", nested("[", "", "]", max), true, 0, 0},
		{"flow map 10000", nested("{a: ", "1", "}", 10000), false, 1, 4*max + 1},
		{"flow map 500", nested("{a: ", "1", "}", max), true, 0, 0},
		{"block map 2000", blockMap(2000), false, max + 1, max + 1},
		{"block map 501", blockMap(max), false, max + 1, max + 1},
		{"block map 500", blockMap(max - 1), true, 0, 0},
		{"compact seq 10000", strings.Repeat("- ", 10000) + "1\n", false, 1, 2*max + 1},
		{"compact seq 500", strings.Repeat("- ", max) + "1\n", true, 0, 0},
		{"indentless 251", indentless(251), false, 251, max + 1},
		{"indentless 250", indentless(250), true, 0, 0},
		{"block then flow 501", "a:\n  b: " + nested("[", "", "]", max-1) + "\n", false, 2, 6 + max - 2},
		{"block then flow 500", "a:\n  b: " + nested("[", "", "]", max-2) + "\n", true, 0, 0},
		{"alias chain 600", aliasChain(3, 200), false, 3, 8 + 200 + 1},
		{"alias chain 500", aliasChain(5, 100), true, 0, 0},
		{"merged alias 501", "a: &a " + nested("{b: ", "1", "}", max-1) + "\nc: {d: {<<: *a}}\n", false, 2, 13},
		{"merged alias 500", "a: &a " + nested("{b: ", "1", "}", max-1) + "\nc: {<<: *a}\n", true, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, safe := range []bool{false, true} {
				var (
					v   any
					err error
				)
				n := allocated(func() {
					if safe {
						v, err = SafeLoad([]byte(tt.doc), "deep.sls")
					} else {
						v, err = Load([]byte(tt.doc), "deep.sls")
					}
				})
				if limit := uint64(8<<20 + 4*len(tt.doc)); n > limit {
					t.Errorf("allocated %d KiB, want < %d KiB", n>>10, limit>>10)
				}
				if tt.ok {
					if err != nil {
						t.Fatalf("err = %v", err)
					}
					if _, err := Dump(v, DumpOptions{}); err != nil {
						t.Errorf("Dump of the loaded value: %v", err)
					}
					continue
				}
				var ye *Error
				var de *value.DepthError
				if !errors.As(err, &ye) || !errors.As(err, &de) {
					t.Fatalf("err = %v (%T), want *Error wrapping *value.DepthError", err, err)
				}
				if ye.Kind != ParserError || ye.Name != "deep.sls" || ye.Line() != tt.line || ye.Column() != tt.col {
					t.Errorf("got %v %q line %d column %d, want ParserError \"deep.sls\" line %d column %d",
						ye.Kind, ye.Name, ye.Line(), ye.Column(), tt.line, tt.col)
				}
				want := fmt.Sprintf("found a collection nested deeper than %d levels\n  in \"<unicode string>\", line %d, column %d", max, tt.line, tt.col)
				if err.Error() != want {
					t.Errorf("message:\n%s\nwant:\n%s", err, want)
				}
			}
		})
	}
}

// TestAliasBomb: aliases share what they point at ("billion laughs"
// stays a few kilobytes), and merge keys cannot multiply keys without
// bound.
func TestAliasBomb(t *testing.T) {
	// nine levels of ten aliases each: 10^9 strings if expanded
	var lol strings.Builder
	lol.WriteString(`a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for c := 'b'; c <= 'i'; c++ {
		p := string(c - 1)
		fmt.Fprintf(&lol, "%c: &%c [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", c, c, p, p, p, p, p, p, p, p, p, p)
	}
	// thirty levels of a mapping merged twice: 2^30 pairs if expanded
	var merge strings.Builder
	merge.WriteString("m0: &m0 {k: v}\n")
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&merge, "m%d: &m%d {<<: [*m%d, *m%d]}\n", i, i, i-1, i-1)
	}
	// many mappings merging one big one, past the merge budget
	var wide strings.Builder
	wide.WriteString("big: &big {")
	for i := range 100 {
		fmt.Fprintf(&wide, "k%d: %d, ", i, i)
	}
	wide.WriteString("}\nlist:\n")
	for range 50 {
		wide.WriteString("- <<: *big\n")
	}
	defer func(n int) { maxMergedPairs = n }(maxMergedPairs)
	maxMergedPairs = 4000

	for _, tt := range []struct {
		name    string
		doc     string
		problem string // "" for no error
		line    int
	}{
		{"billion laughs", lol.String(), "", 0},
		{"merge doubling", merge.String(), "found conflicting ID 'k'", 1},
		{"merge budget", wide.String(), "found more than 4000 merged keys", 43},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var (
				v   any
				err error
			)
			n := allocated(func() { v, err = Load([]byte(tt.doc), "bomb.sls") })
			if n > 4<<20 {
				t.Errorf("allocated %d KiB, want < 4096 KiB", n>>10)
			}
			if tt.problem == "" {
				if err != nil {
					t.Fatal(err)
				}
				m := v.(*value.Map)
				i, _ := m.Get("i")
				items := i.(*value.List).Items
				if len(items) != 10 || items[0] != items[9] {
					t.Errorf("aliases were copied, not shared")
				}
				return
			}
			var ye *Error
			if !errors.As(err, &ye) || ye.Problem != tt.problem || ye.Line() != tt.line {
				t.Fatalf("err = %v, want %q on line %d", err, tt.problem, tt.line)
			}
		})
	}
}
