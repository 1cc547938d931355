package compile

import (
	"go/build"
	"strings"
	"testing"
)

// TestDeps pins the import policy of the compiler packages: they see the
// file server, the matchers and the value model, never the renderers or
// the runtime engine.
func TestDeps(t *testing.T) {
	allowed := map[string]map[string]bool{
		".":             {"brine/internal/fileserver": true, "brine/internal/match": true, "brine/internal/value": true},
		"../top":        {"brine/internal/fileserver": true, "brine/internal/match": true, "brine/internal/value": true},
		"../match":      {"brine/internal/value": true},
		"../fileserver": {"brine/internal/value": true},
	}
	for dir, ok := range allowed {
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range pkg.Imports {
			if strings.HasPrefix(imp, "brine/") && !ok[imp] {
				t.Errorf("%s imports %s", pkg.ImportPath, imp)
			}
		}
	}
}
