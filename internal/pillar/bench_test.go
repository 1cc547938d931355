package pillar_test

import (
	"fmt"
	"strings"
	"testing"

	"brine/internal/pillar"
	"brine/internal/value"
)

// benchTree generates a pillar of nfiles SLS files with about 50 leaf keys
// each, all below a few shared top-level keys, so that every file merges
// deeply into what the files before it built.
func benchTree(b testing.TB, nfiles int) string {
	files := map[string]string{}
	var top strings.Builder
	top.WriteString("base:\n  '*':\n")
	for i := 0; i < nfiles; i++ {
		name := fmt.Sprintf("s%04d", i)
		fmt.Fprintf(&top, "    - gen.%s\n", name)
		var sls strings.Builder
		fmt.Fprintf(&sls, "shared:\n  group%d:\n", i%20)
		for j := 0; j < 5; j++ {
			fmt.Fprintf(&sls, "    sub%d:\n      file%d:\n", j, i)
			for k := 0; k < 8; k++ {
				fmt.Fprintf(&sls, "        key%d: value-%d-%d\n", k, i, k)
			}
		}
		fmt.Fprintf(&sls, "own%d:\n", i)
		for k := 0; k < 8; k++ {
			fmt.Fprintf(&sls, "  k%d: [%d, %d]\n", k, i, k)
		}
		files["pillar/gen/"+name+".sls"] = sls.String()
	}
	files["pillar/top.sls"] = top.String()
	return tree(b, files)
}

// BenchmarkCompile1000 compiles 1,000 generated SLS files (about 50,000
// keys) with the yaml renderer and the default (smart) merge strategy.
//
//	go test ./internal/pillar -run XXX -bench 'Compile(1000|5000)$' -benchtime 3x
func BenchmarkCompile1000(b *testing.B) { benchCompile(b, 1000) }

// BenchmarkCompile5000 is the same with 5,000 files (about 250,000 keys):
// the cost per file must not grow with the number of files.
func BenchmarkCompile5000(b *testing.B) { benchCompile(b, 5000) }

func benchCompile(b *testing.B, nfiles int) {
	dir := benchTree(b, nfiles)
	opts := testOpts(b, dir, "")
	o := pillar.Options{Opts: opts, MinionID: "minion", Grains: value.MapOf("id", "minion"), Render: pillar.Renderers{}.Render()}
	b.ReportAllocs()
	b.ResetTimer()
	var p *value.Map
	for i := 0; i < b.N; i++ {
		var err error
		p, err = pillar.Compile(o)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(nfiles), "ns/file")
	if n := countKeys(p); n < 45*nfiles {
		b.Fatalf("only %d keys", n)
	}
}

func countKeys(v any) int {
	n := 0
	if m, ok := v.(*value.Map); ok {
		m.Range(func(_, e any) bool { n += 1 + countKeys(e); return true })
	}
	return n
}

// BenchmarkCompile1000Parallel is BenchmarkCompile1000 rendering on two
// goroutines.
func BenchmarkCompile1000Parallel(b *testing.B) {
	dir := benchTree(b, 1000)
	opts := testOpts(b, dir, "")
	o := pillar.Options{Opts: opts, MinionID: "minion", Grains: value.MapOf("id", "minion"), Render: pillar.Renderers{}.Render(), Workers: 2}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := pillar.Compile(o); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParallelSameResult(t *testing.T) {
	dir := benchTree(t, 60)
	extra := tree(t, map[string]string{
		"pillar/top.sls": "base:\n  '*': [a, b, a, missing, c]\n",
		"pillar/a.sls":   "include: [b, c]\na: {x: 1}\n",
		"pillar/b.sls":   "b: {x: 2}\na: {y: 2}\n",
		"pillar/c.sls":   "- not a dict\n",
	})
	for _, d := range []string{dir, extra} {
		opts := testOpts(t, d, "")
		serial := compileWith(t, pillar.Options{Opts: opts})
		par := compileWith(t, pillar.Options{Opts: opts, Workers: 4})
		if serial != par {
			t.Errorf("parallel result differs\n--- serial\n%s\n--- parallel\n%s", serial, par)
		}
	}
}
