package graph

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"brine/internal/execmod"
	"brine/internal/fileserver"
	"brine/internal/highstate"
	_ "brine/internal/modules"
	_ "brine/internal/renderers"
	_ "brine/internal/states"
	"brine/internal/value"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// newContext returns a minion context for the tree under root/states.
func newContext(t testing.TB, root string, extra *value.Map) *execmod.Context {
	t.Helper()
	opts := value.MapOf(
		"id", "minion",
		"file_client", "local",
		"file_roots", value.MapOf("base", value.NewList(filepath.Join(root, "states"))),
		"pillar_roots", value.MapOf("base", value.NewList(filepath.Join(root, "pillar"))),
		"cachedir", filepath.Join(t.TempDir(), "cache"),
		"renderer", "jinja|yaml",
		"state_top", "salt://top.sls",
	)
	if extra != nil {
		opts.Update(extra)
	}
	ctx := execmod.NewContext()
	ctx.Opts = opts
	ctx.Grains = value.MapOf("os", "Debian", "os_family", "Debian", "id", "minion")
	ctx.Pillar = value.NewMap(0)
	ctx.Files = &execmod.CachedFiles{Src: fileserver.New(value.MapOf("base", value.NewList(filepath.Join(root, "states")))), Cachedir: filepath.Join(t.TempDir(), "cache")}
	return ctx
}

// TestGolden builds the graph of each testdata/*.txtar tree (files under
// states/; an "args" file lists the SLS, none meaning the highstate) and
// compares the three outputs with testdata/NAME.{dot,txt,json}.
func TestGolden(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*.txtar")
	if len(paths) == 0 {
		t.Fatal("no golden trees")
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			root := t.TempDir()
			var sls []string
			for _, f := range ar.Files {
				if f.Name == "args" {
					sls = strings.Fields(string(f.Data))
					continue
				}
				dst := filepath.Join(root, f.Name)
				if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(dst, f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := highstate.NewRun(newContext(t, root, nil), value.NewMap(0))
			if len(sls) > 0 {
				r.Saltenv = "base"
			}
			chunks, notes, err := Compile(r, sls)
			if err != nil {
				t.Fatal(err)
			}
			g := Build(chunks, Options{})
			g.Notes = notes
			for _, out := range []struct {
				ext   string
				write func(*bytes.Buffer) error
			}{
				{"dot", func(b *bytes.Buffer) error { return g.WriteDot(b) }},
				{"txt", func(b *bytes.Buffer) error { return g.WriteText(b) }},
				{"json", func(b *bytes.Buffer) error { return g.WriteJSON(b) }},
			} {
				var b bytes.Buffer
				if err := out.write(&b); err != nil {
					t.Fatal(err)
				}
				golden(t, name+"."+out.ext, strings.ReplaceAll(b.String(), root, "{root}"))
			}
		})
	}
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

func TestKindsFilter(t *testing.T) {
	chunks := []*value.Map{
		value.MapOf("state", "test", "__id__", "a", "name", "a", "fun", "nop", "__sls__", "s", "__env__", "base", "order", int64(10000)),
		value.MapOf("state", "test", "__id__", "b", "name", "b", "fun", "nop", "__sls__", "s", "__env__", "base", "order", int64(10001),
			"require", value.NewList(value.MapOf("test", "a")), "watch", value.NewList(value.MapOf("test", "a"))),
	}
	g := Build(chunks, Options{Kinds: []string{"watch"}})
	if len(g.Edges) != 1 || g.Edges[0].Kind != "watch" {
		t.Errorf("edges = %+v", g.Edges)
	}
	// The filter changes what is shown, not the predicted run.
	if len(g.Order) != 2 || g.Order[0].Chunk != 0 || g.Order[1].Chunk != 1 {
		t.Errorf("order = %+v", g.Order)
	}
}
