package check

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"brine/internal/diag"
	"brine/internal/execmod"
	"brine/internal/fileserver"
	_ "brine/internal/modules"
	_ "brine/internal/renderers"
	_ "brine/internal/states"
	"brine/internal/value"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// testGrains are the conformance cases' static grains (a subset).
var testGrains = value.MapOf(
	"os", "Debian", "os_family", "Debian", "osmajorrelease", int64(12),
	"kernel", "Linux", "id", "minion", "roles", value.NewList(),
)

// newContext returns a minion context for the tree under root (states/,
// pillar/ beside each other), with extra options set.
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
	ctx.Grains = value.DeepCopy(testGrains).(*value.Map)
	ctx.Pillar = value.NewMap(0)
	if fr, ok := opts.Get("file_roots"); ok {
		if m, ok := fr.(*value.Map); ok {
			ctx.Files = &execmod.CachedFiles{Src: fileserver.New(m), Cachedir: value.Str(mget(opts, "cachedir"))}
		}
	}
	return ctx
}

// format prints diagnostics as `brine check` does, without colour.
func format(ds diag.Diagnostics, src diag.Sources) string {
	var b bytes.Buffer
	for i, d := range ds {
		if i > 0 {
			b.WriteString("\n")
		}
		_ = diag.Print(&b, d, src, diag.TextOptions{})
	}
	return b.String()
}

// TestGolden runs each testdata/*.txtar: the files under states/ (and
// pillar/) form the tree, an optional "args" file lists SLS to check (one
// a line, "saltenv=ENV" selecting the environment), and "want" holds the
// exact diagnostics.
func TestGolden(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*.txtar")
	if len(paths) == 0 {
		t.Fatal("no golden files")
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			root := t.TempDir()
			var sls []string
			saltenv := ""
			highstate := false
			wantIdx := -1
			for i, f := range ar.Files {
				switch f.Name {
				case "want":
					wantIdx = i
					continue
				case "args":
					for _, l := range strings.Fields(string(f.Data)) {
						if l == "highstate" {
							highstate = true
							continue
						}
						if env, ok := strings.CutPrefix(l, "saltenv="); ok {
							saltenv = env
						} else {
							sls = append(sls, l)
						}
					}
					continue
				}
				dst := filepath.Join(root, filepath.FromSlash(f.Name))
				if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(dst, f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var extra *value.Map
			if _, err := os.Stat(filepath.Join(root, "dev")); err == nil {
				extra = value.MapOf("file_roots", value.MapOf(
					"base", value.NewList(filepath.Join(root, "states")),
					"dev", value.NewList(filepath.Join(root, "dev")),
				))
			}
			res := Run(Options{Ctx: newContext(t, root, extra), SLS: sls, Saltenv: saltenv, BaseDir: root, All: len(sls) == 0 && !highstate})
			got := format(res.Diags, res.Sources())
			if *update {
				if wantIdx < 0 {
					ar.Files = append(ar.Files, txtar.File{Name: "want"})
					wantIdx = len(ar.Files) - 1
				}
				ar.Files[wantIdx].Data = []byte(got)
				if err := os.WriteFile(p, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if wantIdx < 0 {
				t.Fatal("no want section (run with -update)")
			}
			if want := string(ar.Files[wantIdx].Data); got != want {
				t.Errorf("diagnostics differ\n--- got\n%s\n--- want\n%s", got, want)
			}
		})
	}
}
