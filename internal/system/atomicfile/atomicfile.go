// Package atomicfile replaces files through a temporary file beside them,
// so readers see the old content or the new one, never a part.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Files are replaced through a temporary file beside the target, renamed
// over it. A process killed between the two (kill -9, power loss) leaves
// the temporary file behind; its name says what it is and which process
// wrote it, so the next write to that directory removes the leftovers of
// processes that are gone:
//
//	.brine-tmp.<pid>.<random>.<target name>
const tempPrefix = ".brine-tmp."

// cleanedDirs holds the directories already swept by this process:
// leftovers come from processes that died, so one sweep is enough.
var cleanedDirs sync.Map

// CreateTemp creates the temporary file that will replace dir/base, after
// removing the leftovers of dead processes from dir.
func CreateTemp(dir, base string) (*os.File, error) {
	cleanTemps(dir)
	if len(base) > 100 { // keep the name under NAME_MAX
		base = base[:100]
	}
	return os.CreateTemp(dir, tempPrefix+strconv.Itoa(os.Getpid())+".*."+base)
}

// cleanTemps removes dir's temporary files whose writer is no longer
// running (the files of live processes, this one included, are kept).
func cleanTemps(dir string) {
	if _, done := cleanedDirs.LoadOrStore(dir, true); done {
		return
	}
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	defer d.Close()
	for {
		names, err := d.Readdirnames(256)
		for _, name := range names {
			if pid, ok := tempOwner(name); ok && pid != os.Getpid() && !processAlive(pid) {
				_ = os.Remove(filepath.Join(dir, name))
			}
		}
		if err != nil {
			return
		}
	}
}

// tempOwner is the process id in a temporary file's name.
func tempOwner(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, tempPrefix)
	if !ok {
		return 0, false
	}
	pid, _, ok := strings.Cut(rest, ".")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(pid)
	return n, err == nil && n > 0
}

// processAlive reports whether a process of that id exists (EPERM means it
// exists but belongs to another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// SyncDir flushes a directory's entries (a rename into it) to disk.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// Write replaces path with data, keeping the mode of the file it replaces
// (0644 for a new one). The data and the rename reach the disk before it
// returns; on failure the target is untouched and no temporary file stays.
func Write(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	dir := filepath.Dir(path)
	f, err := CreateTemp(dir, filepath.Base(path))
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	SyncDir(dir)
	return nil
}
