package fileserver

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"brine/internal/value"
)

// SymlinkList returns the symbolic links of env whose relative path
// starts with prefix, each with its target as written (Salt's roots
// symlink_list, for cp.list_master_symlinks): every root is walked top
// down, directories before files in each directory; a link pointing out
// of its root counts only when fileserver_followsymlinks is off, and
// fileserver_ignoresymlinks drops them all.
func (r *Roots) SymlinkList(env, prefix string) *value.Map {
	out := value.NewMap(0)
	if r.noLinks {
		return out
	}
	prefix = strings.Trim(prefix, "/")
	for _, root := range r.rootsOf(env) {
		realRoot := pyRealpath(root)
		var visit func(dir string, depth int)
		visit = func(dir string, depth int) {
			ents, err := os.ReadDir(dir)
			if err != nil || depth > 64 {
				return
			}
			var dirs, files []string
			for _, e := range ents {
				full := filepath.Join(dir, e.Name())
				if st, err := os.Stat(full); err == nil && st.IsDir() {
					dirs = append(dirs, e.Name())
				} else {
					files = append(files, e.Name())
				}
			}
			sort.Strings(dirs)
			sort.Strings(files)
			for _, name := range append(append([]string(nil), dirs...), files...) {
				full := filepath.Join(dir, name)
				rel, _ := filepath.Rel(root, full)
				rel = filepath.ToSlash(rel)
				if r.ignored(rel) {
					continue
				}
				st, err := os.Lstat(full)
				if err != nil || st.Mode()&os.ModeSymlink == 0 {
					continue
				}
				dest, err := os.Readlink(full)
				if err != nil {
					continue
				}
				// Salt resolves a relative target starting with ".." from
				// the link itself, any other from the link's directory.
				var joined string
				switch {
				case filepath.IsAbs(dest):
					joined = dest
				case strings.HasPrefix(dest, ".."):
					joined = filepath.Join(full, dest)
				default:
					joined = filepath.Join(filepath.Dir(full), dest)
				}
				relDest, err := filepath.Rel(realRoot, pyRealpath(joined))
				inside := err == nil && !strings.HasPrefix(relDest, "..")
				if (inside || r.noFollow) && strings.HasPrefix(rel, prefix) {
					out.Set(rel, dest)
				}
			}
			for _, d := range dirs {
				full := filepath.Join(dir, d)
				if st, err := os.Lstat(full); err == nil && st.Mode()&os.ModeSymlink != 0 && r.noFollow {
					continue
				}
				visit(full, depth+1)
			}
		}
		visit(root, 0)
	}
	return out
}

// pyRealpath is os.path.realpath: symlinks resolved as far as the path
// exists, the rest kept as written.
func pyRealpath(p string) string {
	p, _ = filepath.Abs(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, base := filepath.Split(p)
	if dir == "" || dir == p {
		return p
	}
	return filepath.Join(pyRealpath(filepath.Clean(dir)), base)
}
