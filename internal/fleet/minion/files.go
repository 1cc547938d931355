package minion

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// fileCache mirrors the master's file roots into cachedir/files/<env>,
// the layout of Salt's minion file cache, fetching only what changed.
type fileCache struct {
	dir string // cachedir/files
	mu  sync.Mutex
	sum map[string]string // local path -> sha256 of what was written
}

func newFileCache(cachedir string) *fileCache {
	return &fileCache{dir: filepath.Join(cachedir, "files"), sum: map[string]string{}}
}

// Sync brings the cache up to date and returns file_roots pointing at it.
func (fc *fileCache) Sync(c *Conn) (*value.Map, error) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	// Job processes share the cache: one syncs at a time.
	unlock, err := fc.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	var man proto.FilesReply
	if err := c.Request(proto.ReqFiles, proto.FilesRequest{}, &man, 30*time.Second); err != nil {
		return nil, err
	}
	roots := value.NewMap(len(man.Envs))
	for _, env := range man.Envs {
		if !proto.ValidEnv(env) {
			continue
		}
		envDir := filepath.Join(fc.dir, env)
		if err := os.MkdirAll(envDir, 0o755); err != nil {
			return nil, err
		}
		want := map[string]bool{}
		for _, f := range man.Files[env] {
			if proto.CheckPath(f.Path) != nil {
				continue
			}
			local := filepath.Join(envDir, filepath.FromSlash(f.Path))
			want[local] = true
			if fc.current(local) == f.SHA256 {
				continue
			}
			if err := fc.fetch(c, env, f, local); err != nil {
				return nil, err
			}
		}
		// Remove what the master no longer has.
		_ = filepath.WalkDir(envDir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !want[p] {
				os.Remove(p)
				delete(fc.sum, p)
			}
			return nil
		})
		roots.Set(env, value.NewList(envDir))
	}
	return roots, nil
}

// lock takes the cache's file lock, which serialises syncs across the
// minion's job processes.
func (fc *fileCache) lock() (func(), error) {
	if err := os.MkdirAll(fc.dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(fc.dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking the file cache: %w", err)
	}
	return func() { f.Close() }, nil // closing releases the lock
}

// current returns the sha256 of the cached copy ("" when absent).
func (fc *fileCache) current(local string) string {
	if s, ok := fc.sum[local]; ok {
		if _, err := os.Lstat(local); err == nil {
			return s
		}
	}
	f, err := os.Open(local)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	s := hex.EncodeToString(h.Sum(nil))
	fc.sum[local] = s
	return s
}

func (fc *fileCache) fetch(c *Conn, env string, f proto.FileInfo, local string) error {
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(local), ".fetch-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	var off int64
	for {
		var rep proto.FileReply
		if err := c.Request(proto.ReqFile, proto.FileRequest{Saltenv: env, Path: f.Path, Offset: off}, &rep, 30*time.Second); err != nil {
			tmp.Close()
			return fmt.Errorf("salt://%s: %w", f.Path, err)
		}
		if _, err := tmp.Write(rep.Data); err != nil {
			tmp.Close()
			return err
		}
		h.Write(rep.Data)
		off += int64(len(rep.Data))
		if off >= rep.Size || len(rep.Data) == 0 {
			break
		}
	}
	mode := os.FileMode(f.Mode) & 0o777
	if mode == 0 {
		mode = 0o644
	}
	_ = tmp.Chmod(mode)
	if err := tmp.Close(); err != nil {
		return err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if !strings.EqualFold(sum, f.SHA256) {
		return fmt.Errorf("salt://%s changed while fetching", f.Path)
	}
	if err := os.Rename(tmp.Name(), local); err != nil {
		return err
	}
	fc.sum[local] = sum
	return nil
}
