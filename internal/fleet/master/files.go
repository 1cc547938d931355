package master

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"brine/internal/fileserver"
	"brine/internal/fleet/proto"
)

// ErrRefused is returned for a file path the file server will not serve.
var ErrRefused = proto.ErrRefused

// CheckPath is proto.CheckPath.
func CheckPath(p string) error { return proto.CheckPath(p) }

// ValidEnv is proto.ValidEnv.
func ValidEnv(env string) bool { return proto.ValidEnv(env) }

// FileServer serves the files under the file roots to minions, confined
// to the roots (CheckPath, then fileserver.Roots.Find, which refuses
// symlinks resolving outside a root).
type FileServer struct {
	Roots *fileserver.Roots
	// Dirs are the root directories of each environment, when known:
	// Manifest then leaves out paths through directory links leading out
	// of a root before it resolves them.
	Dirs map[string][]string

	mu     sync.Mutex
	hashes map[string]fileHash // local path -> hash with the stat it was for
}

type fileHash struct {
	size  int64
	mtime time.Time
	sum   string
}

// Open returns the local file for rel in env, or an error when the path
// is refused or missing.
func (s *FileServer) Open(env, rel string) (string, error) {
	if !ValidEnv(env) {
		return "", fmt.Errorf("%w: bad saltenv %q", ErrRefused, env)
	}
	if err := CheckPath(rel); err != nil {
		return "", err
	}
	return s.Roots.Find(env, rel)
}

// Manifest lists the files of env with their SHA-256 sums.
func (s *FileServer) Manifest(env string) ([]proto.FileInfo, error) {
	if !ValidEnv(env) {
		return nil, fmt.Errorf("%w: bad saltenv %q", ErrRefused, env)
	}
	var out []proto.FileInfo
	check := &dirCheck{ok: map[string]bool{}, real: map[string]string{}}
	dirs := s.Dirs[env]
	for _, rel := range s.Roots.FileList(env) {
		if CheckPath(rel) != nil {
			continue
		}
		confined := true
		for _, root := range dirs {
			confined = confined && check.confinedDirs(root, rel)
		}
		if !confined {
			continue
		}
		full, err := s.Roots.Find(env, rel)
		if err != nil {
			continue
		}
		if dirs == nil && !check.confinedDirs(strings.TrimSuffix(full, filepath.FromSlash(rel)), rel) {
			continue
		}
		st, err := os.Stat(full)
		if err != nil {
			continue
		}
		sum, err := s.hash(full, st)
		if err != nil {
			continue
		}
		out = append(out, proto.FileInfo{Path: rel, SHA256: sum, Size: st.Size(), Mode: uint32(st.Mode().Perm())})
	}
	return out, nil
}

func (s *FileServer) hash(full string, st os.FileInfo) (string, error) {
	s.mu.Lock()
	h, ok := s.hashes[full]
	s.mu.Unlock()
	if ok && h.size == st.Size() && h.mtime.Equal(st.ModTime()) {
		return h.sum, nil
	}
	f, err := os.Open(full)
	if err != nil {
		return "", err
	}
	defer f.Close()
	d := sha256.New()
	if _, err := io.Copy(d, f); err != nil {
		return "", err
	}
	sum := hex.EncodeToString(d.Sum(nil))
	s.mu.Lock()
	if s.hashes == nil {
		s.hashes = map[string]fileHash{}
	}
	s.hashes[full] = fileHash{size: st.Size(), mtime: st.ModTime(), sum: sum}
	s.mu.Unlock()
	return sum, nil
}

// ChunkSize is the most file data one reply carries.
const ChunkSize = 512 << 10

// ReadChunk reads up to ChunkSize bytes of rel in env from offset; it
// returns the data and the file's size.
func (s *FileServer) ReadChunk(env, rel string, offset int64) ([]byte, int64, error) {
	full, err := s.Open(env, rel)
	if err != nil {
		return nil, 0, err
	}
	f, err := os.Open(full)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if offset < 0 || offset > st.Size() {
		return nil, 0, fmt.Errorf("bad offset %d", offset)
	}
	buf := make([]byte, min(int64(ChunkSize), st.Size()-offset))
	n, err := f.ReadAt(buf, offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, 0, err
	}
	return buf[:n], st.Size(), nil
}

// dirCheck caches confinedDirs' answers within one Manifest call.
type dirCheck struct {
	ok   map[string]bool   // directory -> it does not lead out of its root
	real map[string]string // root -> its resolved path
}

// confinedDirs reports whether no directory on rel's way below root is a
// link leading out of root (a directory missing from root is no way at
// all). The file list descends symlinked directories (Salt's
// fileserver_followsymlinks); a link to a parent of the root would
// otherwise list the root again and again under ever longer names.
func (c *dirCheck) confinedDirs(root, rel string) bool {
	real, ok := c.real[root]
	if !ok {
		r, err := filepath.EvalSymlinks(root)
		if err != nil {
			return true // no such root: no way through it (Find confines what it serves)
		}
		real = r
		c.real[root] = r
	}
	dir := root
	parts := strings.Split(rel, "/")
	for _, el := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, el)
		ok, seen := c.ok[dir]
		if !seen {
			ok = true
			if st, err := os.Lstat(dir); err == nil && st.Mode()&os.ModeSymlink != 0 {
				to, err := filepath.EvalSymlinks(dir)
				ok = err == nil && (to == real || strings.HasPrefix(to, real+string(filepath.Separator)))
			}
			c.ok[dir] = ok
		}
		if !ok {
			return false
		}
	}
	return true
}
