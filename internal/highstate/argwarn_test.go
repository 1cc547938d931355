package highstate

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"brine/internal/statemod"
	"brine/internal/value"
)

// captureWarnings runs f with slog's default logger writing to a buffer.
func captureWarnings(t testing.TB, f func()) string {
	t.Helper()
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == slog.LevelKey {
				return slog.Attr{}
			}
			return a
		},
	})))
	defer slog.SetDefault(old)
	f()
	return buf.String()
}

func testRegistry() *statemod.Registry {
	reg := statemod.NewRegistry()
	run := func(*statemod.Call) (*value.Map, error) { return nil, nil }
	reg.Register(&statemod.Function{Name: "file.touch", Run: run,
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("atime", nil), statemod.Opt("mtime", nil), statemod.Opt("makedirs", false)}})
	reg.Register(&statemod.Function{Name: "test.nop", Run: run, Params: []statemod.Param{statemod.Req("name")}, Kwargs: true})
	reg.Register(&statemod.Function{Name: "user.present", Run: run, Params: []statemod.Param{statemod.Req("name"), statemod.Opt("shell", nil)}})
	reg.Register(&statemod.Function{Name: "brineonly.thing", Run: run, Params: []statemod.Param{statemod.Req("name"), statemod.Opt("colour", nil)}})
	return reg
}

func chunk(state, fun string, kv ...any) *value.Map {
	m := value.MapOf("state", state, "name", "n", "__sls__", "web", "__env__", "base", "__id__", "i", "fun", fun, "order", int64(10000))
	for i := 0; i+1 < len(kv); i += 2 {
		m.Set(kv[i], kv[i+1])
	}
	return m
}

func TestWarnChunks(t *testing.T) {
	for _, tc := range []struct {
		name string
		low  *value.Map
		want string // "" for no warning
	}{
		{"known args", chunk("file", "touch", "makedirs", true, "require", value.NewList(), "onlyif", "true", "names", value.NewList()), ""},
		{"misspelt arg", chunk("file", "touch", "maketdirs", true), "SLS 'web', ID 'i': file.touch takes no argument 'maketdirs'. Did you mean 'makedirs'?"},
		{"far arg", chunk("file", "touch", "zzzzzzzz", true), "file.touch takes no argument 'zzzzzzzz'.\""},
		{"kwargs function", chunk("test", "nop", "anything", 1), ""},
		{"salt arg brine lacks", chunk("user", "present", "win_homedrive", "U:"), "argument 'win_homedrive' of user.present is a Salt 3006 argument that brine does not implement yet"},
		{"brine-only function", chunk("brineonly", "thing", "color", 1), "brineonly.thing takes no argument 'color'. Did you mean 'colour'?"},
		{"unimplemented function", chunk("file", "tidied"), "SLS 'web', ID 'i': file.tidied is a Salt 3006 state function that brine does not implement yet"},
		{"unknown function", chunk("file", "tidyed"), ""},
	} {
		got := captureWarnings(t, func() { warnChunks([]*value.Map{tc.low}, testRegistry()) })
		switch {
		case tc.want == "" && got != "":
			t.Errorf("%s: unexpected warning %q", tc.name, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%s: got %q, want it to contain %q", tc.name, got, tc.want)
		}
	}
}

func TestWarnCallKwargs(t *testing.T) {
	for _, tc := range []struct {
		fun    string
		kwargs *value.Map
		want   string
	}{
		{"state.apply", value.MapOf("test", true, "saltenv", "base", "pillar", value.NewMap(0), "__pub_fun", "state.apply"), ""},
		{"state.apply", value.MapOf("tset", true), "state.apply takes no keyword argument 'tset'; Salt 3006 ignores it. Did you mean 'test'?"},
		{"state.sls", value.MapOf("exclude", "x", "pillarenv", "base", "concurrent", true), ""},
		{"state.sls", value.MapOf("salten", "base"), "state.sls takes no keyword argument 'salten'; Salt 3006 ignores it. Did you mean 'saltenv'?"},
		{"state.highstate", value.MapOf("whitelist", "a", "queue", true), ""},
	} {
		got := captureWarnings(t, func() { warnCallKwargs(tc.fun, tc.kwargs) })
		switch {
		case tc.want == "" && got != "":
			t.Errorf("%s %v: unexpected warning %q", tc.fun, tc.kwargs, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%s %v: got %q, want it to contain %q", tc.fun, tc.kwargs, got, tc.want)
		}
	}
}

// BenchmarkWarnChunks is the cost the argument warnings add to a run of a
// generated tree whose states are all known (nothing is logged), reported
// per state next to the compile's own ns/state (BenchmarkLowstateMix10k).
func BenchmarkWarnChunks(b *testing.B) {
	dir := genTree(b, "mix", 500, 20)
	ctx := benchContext(b, dir)
	chunks, errs, err := NewRun(ctx, value.NewMap(0)).CompileLowChunks()
	if err != nil || len(errs) > 0 {
		b.Fatalf("%v %v", err, errs)
	}
	var logged string
	b.ReportAllocs()
	b.ResetTimer()
	logged = captureWarnings(b, func() {
		for b.Loop() {
			warnChunks(chunks, statemod.Default)
		}
	})
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(chunks)), "ns/state")
	if logged != "" {
		b.Logf("warnings: %.500s", logged)
	}
}
