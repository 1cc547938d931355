package highstate

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"brine/internal/config"
	"brine/internal/execmod"
	"brine/internal/pillar"
	"brine/internal/value"
)

// genTree runs shared/bench/gen_tree.py into a temp dir; the benchmark is
// skipped when python3 or the generator is missing.
func genTree(b *testing.B, kind string, sls, per int) string {
	b.Helper()
	gen, _ := filepath.Abs("../../../shared/bench/gen_tree.py")
	if _, err := os.Stat(gen); err != nil {
		b.Skip("gen_tree.py not found")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		b.Skip("python3 not found")
	}
	dir := filepath.Join(b.TempDir(), "tree")
	cmd := exec.Command(py, gen, dir, "--sls", itoa(sls), "--per-sls", itoa(per), "--kind", kind)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("gen_tree: %v\n%s", err, out)
	}
	return dir
}

func itoa(n int) string {
	return string(value.Str(int64(n)))
}

// benchContext builds a run context for a generated tree, its pillar
// compiled once (as salt-call does at start-up).
func benchContext(b *testing.B, dir string) *execmod.Context {
	opts := config.MinionDefaults()
	opts.Set("id", "minion")
	opts.Set("file_roots", value.MapOf("base", value.NewList(filepath.Join(dir, "states"))))
	opts.Set("pillar_roots", value.MapOf("base", value.NewList(filepath.Join(dir, "pillar"))))
	opts.Set("cachedir", filepath.Join(b.TempDir(), "cache"))
	g, _ := value.FromJSON([]byte(defaultGrains))
	grains := g.(*value.Map)
	grains.Set("id", "minion")
	grains.Set("scratch", b.TempDir())
	ctx := execmod.NewContext()
	ctx.Opts = opts
	ctx.Grains = grains
	pil, err := pillar.Compile(pillar.Options{Opts: opts, Grains: grains, MinionID: "minion", Render: pillar.Service{}.Renderers.Render()})
	if err != nil {
		b.Fatal(err)
	}
	ctx.Pillar = pil
	return ctx
}

func benchLowstate(b *testing.B, kind string, sls, per int, workers ...int64) {
	dir := genTree(b, kind, sls, per)
	ctx := benchContext(b, dir)
	if len(workers) > 0 {
		ctx.Opts.Set("brine_render_workers", workers[0])
	}
	b.ReportAllocs()
	b.ResetTimer()
	var n int
	for i := 0; i < b.N; i++ {
		r := NewRun(ctx, value.NewMap(0))
		chunks, errs, err := r.CompileLowChunks()
		if err != nil || len(errs) > 0 {
			b.Fatalf("%v %v", err, errs)
		}
		n = len(chunks)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/state")
}

// Render + compile of generated trees (state.show_lowstate without output),
// reported per low chunk (ns/state) besides per compile; the pillar is
// compiled once before the timer starts. Run with:
//
//	go test ./internal/highstate -run XXX -bench 'Lowstate(Mix1k|Mix10k|Nop10k)$' -benchtime 3x
//	go test ./internal/highstate -run XXX -bench 'Mix100k' -benchtime 1x  # ~1 min
//
// (allocs/state is allocs/op divided by the states: 1,002, 10,002 or
// 100,002 for mix trees, 10,000 for nop.) Pillar alone: BenchmarkCompile1000
// and BenchmarkCompile5000 in internal/pillar; YAML alone: BenchmarkLoad in
// internal/yamlload; the JSON outputter: BenchmarkToJSON in internal/value.
func BenchmarkLowstateMix1k(b *testing.B)  { benchLowstate(b, "mix", 50, 20) }
func BenchmarkLowstateMix10k(b *testing.B) { benchLowstate(b, "mix", 500, 20) }
func BenchmarkLowstateNop10k(b *testing.B) { benchLowstate(b, "nop", 1000, 10) }

// The same with explicit render workers (the ones above use the default,
// defaultRenderWorkers): serial, and 2 and 4 goroutines.
//
//	go test ./internal/highstate -run XXX -bench 'Lowstate.*W[124]$' -benchtime 3x
func BenchmarkLowstateMix1kW1(b *testing.B)  { benchLowstate(b, "mix", 50, 20, 1) }
func BenchmarkLowstateMix1kW2(b *testing.B)  { benchLowstate(b, "mix", 50, 20, 2) }
func BenchmarkLowstateMix1kW4(b *testing.B)  { benchLowstate(b, "mix", 50, 20, 4) }
func BenchmarkLowstateMix10kW1(b *testing.B) { benchLowstate(b, "mix", 500, 20, 1) }
func BenchmarkLowstateMix10kW2(b *testing.B) { benchLowstate(b, "mix", 500, 20, 2) }
func BenchmarkLowstateMix10kW4(b *testing.B) { benchLowstate(b, "mix", 500, 20, 4) }
func BenchmarkLowstateNop10kW1(b *testing.B) { benchLowstate(b, "nop", 1000, 10, 1) }
func BenchmarkLowstateNop10kW2(b *testing.B) { benchLowstate(b, "nop", 1000, 10, 2) }
func BenchmarkLowstateNop10kW4(b *testing.B) { benchLowstate(b, "nop", 1000, 10, 4) }

// benchCompileOnly measures the compiler alone: every file is rendered
// once up front, and each iteration compiles deep copies of the results.
func benchCompileOnly(b *testing.B, kind string, sls, per int) {
	dir := genTree(b, kind, sls, per)
	ctx := benchContext(b, dir)
	cache := map[string]any{}
	r := NewRun(ctx, value.NewMap(0))
	r.Render = func(data []byte, path, source, saltenv, sls string) (any, error) {
		r.Render = nil
		out, err := r.renderFile(path, source, saltenv, sls)
		r.Render = nil
		return out, err
	}
	// Prime the cache through a recording renderer.
	rec := NewRun(ctx, value.NewMap(0))
	plain := NewRun(ctx, value.NewMap(0))
	rec.Render = func(data []byte, path, source, saltenv, sls string) (any, error) {
		out, err := plain.renderFile(path, source, saltenv, sls)
		if err == nil {
			cache[path] = value.DeepCopy(out)
		}
		return out, err
	}
	if _, errs, err := rec.CompileLowChunks(); err != nil || len(errs) > 0 {
		b.Fatalf("%v %v", err, errs)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var n int
	for i := 0; i < b.N; i++ {
		run := NewRun(ctx, value.NewMap(0))
		run.Render = func(data []byte, path, source, saltenv, sls string) (any, error) {
			return value.DeepCopy(cache[path]), nil
		}
		chunks, errs, err := run.CompileLowChunks()
		if err != nil || len(errs) > 0 {
			b.Fatalf("%v %v", err, errs)
		}
		n = len(chunks)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/state")
}

// Compile only (render results cached): top, includes, extend,
// requisite_in, names, ordering. Each iteration also deep-copies the cached
// render results, which the timer includes.
//
//	go test ./internal/highstate -run XXX -bench 'Compile(Mix1k|Mix10k|Nop10k)$' -benchtime 3x
func BenchmarkCompileMix1k(b *testing.B)  { benchCompileOnly(b, "mix", 50, 20) }
func BenchmarkCompileMix10k(b *testing.B) { benchCompileOnly(b, "mix", 500, 20) }
func BenchmarkCompileNop10k(b *testing.B) { benchCompileOnly(b, "nop", 1000, 10) }

// TestParallelRenderIdentical checks that rendering top-level SLS on
// several goroutines gives byte-identical low chunks.
func TestParallelRenderIdentical(t *testing.T) {
	b := &testing.B{}
	_ = b
	gen, _ := filepath.Abs("../../../shared/bench/gen_tree.py")
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	if _, err := os.Stat(gen); err != nil {
		t.Skip("gen_tree.py not found")
	}
	dir := filepath.Join(t.TempDir(), "tree")
	if out, err := exec.Command(py, gen, dir, "--sls", "12", "--per-sls", "10", "--kind", "mix").CombinedOutput(); err != nil {
		t.Fatalf("gen_tree: %v\n%s", err, out)
	}
	var outs []string
	for _, workers := range []int64{1, 4} {
		opts := config.MinionDefaults()
		opts.Set("id", "minion")
		opts.Set("file_roots", value.MapOf("base", value.NewList(filepath.Join(dir, "states"))))
		opts.Set("pillar_roots", value.MapOf("base", value.NewList(filepath.Join(dir, "pillar"))))
		opts.Set("cachedir", filepath.Join(t.TempDir(), "cache"))
		opts.Set("brine_render_workers", workers)
		g, _ := value.FromJSON([]byte(defaultGrains))
		grains := g.(*value.Map)
		grains.Set("id", "minion")
		grains.Set("scratch", "/scratch")
		ctx := execmod.NewContext()
		ctx.Opts = opts
		ctx.Grains = grains
		pil, err := pillar.Compile(pillar.Options{Opts: opts, Grains: grains, MinionID: "minion", Render: pillar.Service{}.Renderers.Render()})
		if err != nil {
			t.Fatal(err)
		}
		ctx.Pillar = pil
		chunks, errs, err := NewRun(ctx, value.NewMap(0)).CompileLowChunks()
		if err != nil || len(errs) > 0 {
			t.Fatalf("%v %v", err, errs)
		}
		outs = append(outs, value.ToJSON(chunkList(chunks), value.JSONOptions{Indent: 1}))
	}
	if outs[0] != outs[1] {
		t.Error("parallel render output differs from serial")
	}
}

// 100,000 states (5,000 SLS): long; run with -benchtime 1x.
func BenchmarkLowstateMix100k(b *testing.B) { benchLowstate(b, "mix", 5000, 20) }
func BenchmarkCompileMix100k(b *testing.B)  { benchCompileOnly(b, "mix", 5000, 20) }
