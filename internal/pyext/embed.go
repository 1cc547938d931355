// Package pyext runs the Python that Salt trees carry: `#!py` SLS and
// pillar files, and the custom execution modules, states, grains,
// renderers and utils synced from salt://_modules, _states, _grains,
// _renderers and _utils.
//
// One python3 worker process per run (started on first need, never when
// the tree has no Python) loads the files from the minion's extension
// module cache (cachedir/extmods/<kind>) as Salt's loader does and speaks
// a framed JSON protocol with brine over its stdin and stdout. The
// adapters in this package register the Python functions into the run's
// execmod registry, so nothing above the registries knows a function is
// Python.
package pyext

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// The worker and the salt compatibility package ("all:" keeps the
// __init__.py files; __pycache__ directories are skipped when extracting).
//
//go:embed python/brine_worker.py all:python/salt
var pyFS embed.FS

// skipped reports whether an embedded path is left out of the extracted
// tree (byte-code caches).
func skipped(d fs.DirEntry) bool { return d.IsDir() && d.Name() == "__pycache__" }

var (
	extractMu   sync.Mutex
	extractHash string
	extracted   = map[string]bool{} // directories written by this process
)

// contentHash names the embedded tree's version.
func contentHash() string {
	if extractHash != "" {
		return extractHash
	}
	h := sha256.New()
	_ = fs.WalkDir(pyFS, "python", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if skipped(d) {
			return fs.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		b, _ := pyFS.ReadFile(p)
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
		h.Write(b)
		return nil
	})
	extractHash = hex.EncodeToString(h.Sum(nil))[:16]
	return extractHash
}

// extract writes the embedded Python tree (the worker and the salt
// compatibility package) under base, once per run, and returns the
// directory that goes first on the worker's sys.path. The directory name
// carries a hash of the content, so a changed brine never runs stale files.
func extract(base string) (string, error) {
	extractMu.Lock()
	defer extractMu.Unlock()
	dir := filepath.Join(base, "brine-python-"+contentHash())
	if extracted[dir] {
		return dir, nil
	}
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		extracted[dir] = true
		return dir, nil
	}
	err := fs.WalkDir(pyFS, "python", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if skipped(d) {
			return fs.SkipDir
		}
		rel, _ := filepath.Rel("python", p)
		dst := filepath.Join(dir, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := pyFS.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, ".complete"), nil, 0o644)
	}
	if err != nil {
		return "", err
	}
	extracted[dir] = true
	return dir, nil
}
