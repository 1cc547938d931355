// Package depcheck holds the import policy of brine's packages as a test, so
// the dependency graph stays layered: data flows from config and files down
// to the runtime and the command line, and no package reaches upwards.
package depcheck_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// layer gives each internal package its place in the data flow. A package
// may import only packages of a strictly lower layer.
var layer = map[string]int{
	"value": 0, "diag": 0, "saltspec": 0, "version": 0,
	"yamlload": 1, "pyops": 1, "dag": 1,
	"catalog":   1, // the runner and returner registries as the sys.* execution functions list them
	"jinja":     2,
	"jinjasalt": 3, "fileserver": 3, "grains": 3, "config": 3, "render": 3, "match": 3, "state": 3,
	"system":  3,
	"execmod": 4, "output": 4, "sshkeys": 4,
	"statemod": 5, "top": 5,
	"pyext":     6, // Python extensions: registered into the execmod, statemod and render registries
	"fileops":   6, // the file operations the file execution functions and states share
	"schedule":  5, // the minion scheduler: evaluation and the store the daemon and schedule.* share
	"beacons":   6, // the beacon modules, the engine the minion daemon runs and the store beacons.* share (wtmp's time ranges read dates as schedule does)
	"renderers": 7, "modules": 7, "states": 7, "outputters": 7,
	"pillar": 8, "compile": 8, "engine": 8,
	"highstate": 9,
	"builtin":   10, "check": 10, "graph": 10,
	"fleet": 11, // the web console (fleet/web) draws the requisite graph of internal/graph
	"ssh":   10, // agentless (brine ssh): roster, transport, the run on targets
	"cli":   12,
	"e2e":   13, // tests only: they build and run cmd/brine
}

// plugins are imported only by builtin (which the binary blank-imports).
var plugins = map[string]bool{"renderers": true, "modules": true, "states": true, "outputters": true}

func TestImportPolicy(t *testing.T) {
	root := ".."
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "depcheck" {
			continue
		}
		pkg := d.Name()
		from, known := layer[pkg]
		if !known {
			t.Errorf("package internal/%s has no layer in depcheck: add it", pkg)
			continue
		}
		for _, imp := range internalImports(t, filepath.Join(root, pkg)) {
			if imp == pkg {
				continue // a package family's own subpackages
			}
			to, ok := layer[imp]
			switch {
			case !ok:
				t.Errorf("internal/%s imports unknown internal/%s", pkg, imp)
			case to >= from:
				t.Errorf("internal/%s (layer %d) imports internal/%s (layer %d): imports must point down the data flow", pkg, from, imp, to)
			case plugins[imp] && pkg != "builtin":
				t.Errorf("internal/%s imports the plugin package internal/%s: only builtin may", pkg, imp)
			}
		}
	}
	for _, cut := range [][2]string{{"compile", "engine"}, {"engine", "compile"}} {
		for _, imp := range internalImports(t, filepath.Join(root, cut[0])) {
			if imp == cut[1] {
				t.Errorf("internal/%s must not import internal/%s: low chunks are their only contract", cut[0], cut[1])
			}
		}
	}
	for _, imp := range internalImports(t, filepath.Join(root, "jinja")) {
		if imp != "value" && imp != "pyops" && imp != "diag" {
			t.Errorf("internal/jinja must know nothing of Salt: it imports internal/%s", imp)
		}
	}
}

// internalImports lists the brine/internal/... packages that the non-test
// files of dir (and its subdirectories' packages count as their own) import.
func internalImports(t *testing.T, dir string) []string {
	t.Helper()
	seen := map[string]bool{}
	var files []string
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			files = append(files, path)
		}
		return nil
	})
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, spec := range af.Imports {
			p := strings.Trim(spec.Path.Value, `"`)
			if rest, ok := strings.CutPrefix(p, "brine/internal/"); ok {
				seen[strings.SplitN(rest, "/", 2)[0]] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
