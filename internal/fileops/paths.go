package fileops

// paths.go: copies, moves, directory creation and removal as the file
// module does them (shutil.copyfile, shutil.move, os.rmdir, makedirs_perms).

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"brine/internal/value"
)

// CopyFile copies src's content and permission bits to dst, replacing dst
// atomically.
func CopyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	if err := WriteAtomic(dst, data, false); err != nil {
		return err
	}
	return os.Chmod(dst, st.Mode().Perm())
}

// CopyTree copies the tree under src into dst, keeping symlinks as links.
func CopyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		switch {
		case d.Type()&os.ModeSymlink != 0:
			l, err := os.Readlink(path)
			if err != nil {
				return err
			}
			if lt, err := os.Lstat(target); err == nil && lt.Mode()&os.ModeSymlink != 0 {
				os.Remove(target)
			}
			return os.Symlink(l, target)
		case d.IsDir():
			st, _ := os.Stat(path)
			return os.MkdirAll(target, st.Mode().Perm())
		}
		return CopyFile(path, target)
	})
}

// Move is shutil.move: into dst when dst is a directory, by rename when
// possible, else by copying and removing the source.
func Move(src, dst string) error {
	real := dst
	if isDir(dst) {
		if sameFile(src, dst) {
			return os.Rename(src, dst)
		}
		real = filepath.Join(dst, filepath.Base(strings.TrimRight(src, "/")))
		if lexists(real) {
			return fmt.Errorf("Destination path '%s' already exists", real)
		}
	}
	err := os.Rename(src, real)
	if err == nil {
		return nil
	}
	if !errors.Is(err, syscall.EXDEV) {
		return PyOSError(err)
	}
	if isLink(src) {
		t, err := os.Readlink(src)
		if err != nil {
			return PyOSError(err)
		}
		if err := os.Symlink(t, real); err != nil {
			return PyOSError(err)
		}
		return os.Remove(src)
	}
	if isDir(src) {
		if strings.HasPrefix(real+"/", strings.TrimRight(src, "/")+"/") {
			return fmt.Errorf("Cannot move a directory '%s' into itself '%s'.", src, real)
		}
		if err := CopyTree(src, real); err != nil {
			return PyOSError(err)
		}
		return PyOSError(os.RemoveAll(src))
	}
	if err := CopyFile(src, real); err != nil {
		return PyOSError(err)
	}
	return PyOSError(os.Remove(src))
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

func lexists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// RmdirResult is file.rmdir's verbose return.
type RmdirResult struct {
	Deleted []string
	Errors  [][2]string
	OK      bool
}

// Rmdir is file.rmdir: remove the empty directory path (with recurse, its
// empty subdirectories first, bottom up); olderThan in days keeps the
// directories modified more recently.
func Rmdir(path string, recurse bool, olderThan any) RmdirResult {
	var res RmdirResult
	var cutoff float64
	if value.Truthy(olderThan) {
		days := value.ToFloat(olderThan)
		cutoff = float64(time.Now().Unix()) - float64(int64(days))*86400
	}
	old := func(p string) bool {
		if cutoff == 0 {
			return true
		}
		fi, err := os.Stat(p)
		return err == nil && float64(fi.ModTime().Unix()) < cutoff
	}
	remove := func(p string) bool {
		if err := syscall.Rmdir(p); err != nil {
			res.Errors = append(res.Errors, [2]string{p, PyOSError(&os.PathError{Op: "rmdir", Path: p, Err: err}).Error()})
			return false
		}
		res.Deleted = append(res.Deleted, p)
		return true
	}
	if recurse {
		var dirs []string
		_ = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() && p != path {
				dirs = append(dirs, p)
			}
			return nil
		})
		// Bottom up: deeper directories before their parents.
		for i := len(dirs) - 1; i >= 0; i-- {
			if old(dirs[i]) {
				remove(dirs[i])
			}
		}
		res.OK = len(res.Errors) == 0
	}
	if old(path) {
		if remove(path) {
			res.OK = res.OK || !recurse
		} else {
			res.OK = false
		}
	}
	return res
}

// MakedirsPerms is file.makedirs_perms: create name and its missing
// parents, setting user, group and mode on each directory created.
func MakedirsPerms(name string, u, g, mode any) error {
	head, tail := filepath.Split(name)
	head = strings.TrimRight(head, "/")
	if tail == "" {
		head, tail = filepath.Split(head)
		head = strings.TrimRight(head, "/")
	}
	if head != "" && tail != "" && !exists(head) {
		if err := MakedirsPerms(head, u, g, mode); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if tail == "." {
			return nil
		}
	}
	if err := os.Mkdir(name, 0o777); err != nil {
		return err
	}
	var m any
	if value.Truthy(mode) {
		m = value.Str(mode)
	}
	CheckPerms(name, value.MapOf("changes", value.NewMap(0), "result", true, "comment", ""), u, g, m, false, false)
	return nil
}

// Normpath is os.path.normpath.
func Normpath(p string) string {
	if p == "" {
		return "."
	}
	lead := ""
	if strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "///") {
		lead = "/"
	}
	return lead + filepath.Clean(p)
}

// Glob is glob.glob: like filepath.Glob, but a wildcard does not match a
// leading dot.
func Glob(pattern string) ([]string, error) {
	ms, err := filepath.Glob(pattern)
	if err != nil {
		return nil, err
	}
	pparts := strings.Split(pattern, "/")
	out := ms[:0]
	for _, m := range ms {
		mparts := strings.Split(m, "/")
		ok := len(mparts) == len(pparts)
		for i := 0; ok && i < len(mparts); i++ {
			if strings.HasPrefix(mparts[i], ".") && !strings.HasPrefix(pparts[i], ".") {
				ok = false
			}
		}
		if ok {
			out = append(out, m)
		}
	}
	return out, nil
}
