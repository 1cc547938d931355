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

//go:embed python
var pyFS embed.FS

var (
	extractOnce sync.Once
	extractDir  string
	extractErr  error
)

// extract writes the embedded Python tree (the worker and the salt
// compatibility package) under base, once per process, and returns the
// directory that goes first on the worker's sys.path. The directory name
// carries a hash of the content, so a changed brine never runs stale files.
func extract(base string) (string, error) {
	extractOnce.Do(func() {
		h := sha256.New()
		_ = fs.WalkDir(pyFS, "python", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, _ := pyFS.ReadFile(p)
			fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
			h.Write(b)
			return nil
		})
		dir := filepath.Join(base, "brine-python-"+hex.EncodeToString(h.Sum(nil))[:16])
		if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
			extractDir = dir
			return
		}
		extractErr = fs.WalkDir(pyFS, "python", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
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
		if extractErr == nil {
			extractErr = os.WriteFile(filepath.Join(dir, ".complete"), nil, 0o644)
		}
		extractDir = dir
	})
	return extractDir, extractErr
}
