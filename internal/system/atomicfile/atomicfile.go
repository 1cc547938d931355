// Package atomicfile replaces files through a temporary file beside them,
// so readers see the old content or the new one, never a part.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data, keeping the mode of the file it
// replaces (0644 for a new one).
func Write(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".brine-")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), mode)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
