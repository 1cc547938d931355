package modules

// file_ops.go is the metadata half of salt/modules/file.py: stats, owners
// and modes, links, copies, moves, removals and directories.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/value"
)

func init() {
	reg := func(name string, f execmod.Func, doc string) { execmod.Register("file."+name, f, doc) }
	reg("stats", fileStats, "Return a dict of information about path (inode, uid, gid, user, group, times, size, mode, type, target; sum with hash_type).")
	reg("get_uid", fileStatField("get_uid", "uid", int64(-1)), "Return the uid owning path.")
	reg("get_gid", fileStatField("get_gid", "gid", int64(-1)), "Return the gid owning path.")
	reg("get_group", fileStatField("get_group", "group", false), "Return the group owning path.")
	reg("get_mode", fileStatField("get_mode", "mode", ""), "Return the mode of path, like '0644'.")
	reg("uid_to_user", fileUIDToUser, "Convert a uid to a user name (the uid when no user has it).")
	reg("user_to_uid", fileUserToUID, "Convert a user name to its uid ('' when unknown).")
	reg("gid_to_group", fileGIDToGroup, "Convert a gid to a group name (the gid when no group has it).")
	reg("group_to_gid", fileGroupToGID, "Convert a group name to its gid ('' when unknown).")
	reg("set_mode", fileSetMode, "Set the mode of path; returns the new mode.")
	reg("chown", fileChown(false), "Set the user and group owning path.")
	reg("lchown", fileChown(true), "Set the user and group owning path without following symlinks.")
	reg("chgrp", fileChgrp, "Set the group owning path.")
	reg("lstat", fileLstat, "Return os.lstat of path as a dict (an empty dict when it fails).")
	reg("statvfs", fileStatvfs, "Return os.statvfs of path as a dict.")
	reg("access", fileAccess, "Whether path may be accessed in mode f, r, w or x.")
	reg("is_link", fileIsLink, "Whether path is a symbolic link.")
	reg("is_hardlink", fileIsHardlink, "Whether path has more than one hard link.")
	reg("is_chrdev", fileIsType("is_chrdev", syscall.S_IFCHR), "Whether name is a character device.")
	reg("is_blkdev", fileIsType("is_blkdev", syscall.S_IFBLK), "Whether name is a block device.")
	reg("is_fifo", fileIsType("is_fifo", syscall.S_IFIFO), "Whether name is a FIFO.")
	reg("get_devmm", fileGetDevmm, "Return (major, minor) of a device file, (0, 0) for anything else.")
	reg("readlink", fileReadlink, "Return the target of a symbolic link (realpath with canonicalize=True).")
	reg("symlink", fileSymlink, "Create a symbolic link path pointing to src (force, atomic).")
	reg("link", fileLink, "Create a hard link path to src.")
	reg("rename", fileRename, "Rename src to dst.")
	reg("copy", fileCopy, "Copy src to dst (recurse for directories, remove_existing to replace a tree), keeping owner and mode.")
	reg("move", fileMove, "Move src to dst as shutil.move does.")
	reg("remove", fileRemove, "Remove a file, symlink or directory tree.")
	reg("rmdir", fileRmdir, "Remove an empty directory (recurse: its empty subdirectories first; older_than days).")
	reg("mkdir", fileMkdir, "Create a directory and its parents with user, group and mode.")
	reg("makedirs", fileMakedirs, "Create the parent directories of path (path itself when it ends in a slash).")
	reg("makedirs_perms", fileMakedirsPerms, "Create a directory and its parents, setting user, group and mode on each.")
	reg("touch", fileTouch, "Create name or update its access and modification times.")
	reg("truncate", fileTruncate, "Truncate path to length bytes.")
	reg("seek_read", fileSeekRead, "Read size bytes of path from offset.")
	reg("seek_write", fileSeekWrite, "Write bytes data to path at offset; returns the count written.")
	reg("diskusage", fileDiskusage, "Return the total size of the files under path (hard links counted once).")
	reg("get_hash", fileGetHash, "Return the hex digest of path (form: md5, sha1, sha224, sha256, sha384, sha512).")
	reg("get_sum", fileGetSum, "Return the hex digest of path, or 'File not found'.")
	reg("path_exists_glob", filePathExistsGlob, "Whether a glob matches any path.")
	reg("normpath", fileNormpath, "Return os.path.normpath of path.")
	reg("pardir", filePardir, "Return the parent-directory name, '..'.")
}

// saltErr turns a fileops error into the execmod exception it stands for.
func saltErr(err error) error {
	var fe *fileops.Error
	if errors.As(err, &fe) {
		if fe.Invocation {
			return &execmod.InvocationError{Msg: fe.Msg}
		}
		return &execmod.CommandExecutionError{Msg: fe.Msg}
	}
	return err
}

func invocationf(format string, a ...any) error {
	return &execmod.InvocationError{Msg: fmt.Sprintf(format, a...)}
}

// bindPath binds a function's arguments and returns the first (a path) with
// "~" expanded.
func bindPath(fun string, args []any, kwargs *value.Map, params ...execmod.Param) (string, []any, error) {
	v, _, err := execmod.Bind(fun, args, kwargs, params...)
	if err != nil {
		return "", nil, err
	}
	p, err := pathArg(v[0])
	if err != nil {
		return "", nil, err
	}
	return fileops.ExpandUser(p), v, nil
}

func lexistsPath(p string) bool { _, err := os.Lstat(p); return err == nil }
func existsPath(p string) bool  { _, err := os.Stat(p); return err == nil }
func isDirPath(p string) bool   { fi, err := os.Stat(p); return err == nil && fi.IsDir() }
func isLinkPath(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// pyTime is a stat time as Python's float seconds.
func pyTime(ts syscall.Timespec) float64 { return float64(ts.Sec) + float64(ts.Nsec)/1e9 }

// statMap is file.stats.
func statMap(path string, hashType any, follow bool) (*value.Map, error) {
	var st syscall.Stat_t
	var err error
	if !existsPath(path) {
		if err = syscall.Lstat(path, &st); err != nil {
			return nil, execmod.Errorf("Path not found: %s", path)
		}
	} else if follow {
		err = syscall.Stat(path, &st)
	} else {
		err = syscall.Lstat(path, &st)
	}
	if err != nil {
		return nil, execmod.Errorf("Path not found: %s", path)
	}
	m := value.MapOf("inode", int64(st.Ino), "uid", int64(st.Uid), "gid", int64(st.Gid),
		"group", gidToGroup(int64(st.Gid)), "user", uidToUser(int64(st.Uid)),
		"atime", pyTime(st.Atim), "mtime", pyTime(st.Mtim), "ctime", pyTime(st.Ctim),
		"size", st.Size, "mode", fileops.NormalizeMode(fmt.Sprintf("0o%o", st.Mode&0o7777)))
	if value.Truthy(hashType) {
		sum, err := fileHash(path, value.Str(hashType))
		if err != nil {
			return nil, err
		}
		m.Set("sum", sum)
	}
	typ := "file"
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		typ = "dir"
	case syscall.S_IFCHR:
		typ = "char"
	case syscall.S_IFBLK:
		typ = "block"
	case syscall.S_IFLNK:
		typ = "link"
	case syscall.S_IFIFO:
		typ = "pipe"
	case syscall.S_IFSOCK:
		typ = "socket"
	}
	m.Set("type", typ)
	m.Set("target", realPath(path))
	return m, nil
}

// realPath is os.path.realpath: symlinks resolved as far as they exist.
func realPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	// Resolve the longest existing prefix, keep the rest as written.
	dir, rest := abs, ""
	for dir != "/" {
		d, b := filepath.Split(dir)
		rest = filepath.Join(b, rest)
		dir = filepath.Clean(d)
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			if fi, err := os.Lstat(filepath.Join(r, strings.SplitN(rest, "/", 2)[0])); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				if t, err := os.Readlink(filepath.Join(r, strings.SplitN(rest, "/", 2)[0])); err == nil {
					if !filepath.IsAbs(t) {
						t = filepath.Join(r, t)
					}
					parts := strings.SplitN(rest, "/", 2)
					if len(parts) == 2 {
						return filepath.Join(realPath(t), parts[1])
					}
					return realPath(t)
				}
			}
			return filepath.Join(r, rest)
		}
	}
	return abs
}

func fileStats(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("stats", args, kwargs, execmod.Req("path"), execmod.Opt("hash_type", nil), execmod.Opt("follow_symlinks", true))
	if err != nil {
		return nil, err
	}
	return statMap(p, v[1], value.Truthy(v[2]))
}

// fileStatField is get_uid, get_gid, get_group and get_mode: one field of
// file.stats.
func fileStatField(fun, key string, def any) execmod.Func {
	return func(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		p, v, err := bindPath(fun, args, kwargs, execmod.Req("path"), execmod.Opt("follow_symlinks", true))
		if err != nil {
			return nil, err
		}
		m, err := statMap(p, nil, value.Truthy(v[1]))
		if err != nil {
			return nil, err
		}
		if x, ok := m.Get(key); ok {
			return x, nil
		}
		return def, nil
	}
}

func fileUIDToUser(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("uid_to_user", args, kwargs, execmod.Req("uid"))
	if err != nil {
		return nil, err
	}
	uid, ok := v[0].(int64)
	if !ok {
		return nil, &pyTypeError{msg: fmt.Sprintf("'%s' object cannot be interpreted as an integer", value.TypeName(v[0]))}
	}
	return uidToUser(uid), nil
}

// userToUID is file.user_to_uid: "" for an unknown user.
func userToUID(u any) any {
	if u == nil {
		if cur, ok, _ := userDB(nil).User(currentUserName()); ok {
			return cur.UID
		}
		return ""
	}
	if n, ok := u.(int64); ok {
		return n
	}
	if usr, ok, _ := userDB(nil).User(value.Str(u)); ok {
		return usr.UID
	}
	return ""
}

// groupToGID is file.group_to_gid: "" for an unknown group or None.
func groupToGID(g any) any {
	if g == nil {
		return ""
	}
	if n, ok := g.(int64); ok {
		return n
	}
	if grp, ok, _ := userDB(nil).Group(value.Str(g)); ok {
		return grp.GID
	}
	return ""
}

func currentUserName() string {
	uid := int64(os.Getuid())
	if n, ok := uidToUser(uid).(string); ok {
		return n
	}
	return ""
}

func fileUserToUID(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("user_to_uid", args, kwargs, execmod.Req("user"))
	if err != nil {
		return nil, err
	}
	return userToUID(v[0]), nil
}

func fileGroupToGID(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("group_to_gid", args, kwargs, execmod.Req("group"))
	if err != nil {
		return nil, err
	}
	return groupToGID(v[0]), nil
}

func fileGIDToGroup(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("gid_to_group", args, kwargs, execmod.Req("gid"))
	if err != nil {
		return nil, err
	}
	var gid any
	switch x := v[0].(type) {
	case int64:
		gid = x
	case float64:
		gid = int64(x)
	default:
		if n, err := strconv.ParseInt(strings.TrimSpace(value.Str(x)), 10, 64); err == nil {
			gid = n
		} else {
			gid = groupToGID(x)
		}
	}
	n, ok := gid.(int64)
	if !ok {
		return "", nil
	}
	return gidToGroup(n), nil
}

func fileSetMode(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("set_mode", args, kwargs, execmod.Req("path"), execmod.Req("mode"))
	if err != nil {
		return nil, err
	}
	mode := strings.TrimLeft(value.Str(v[1]), "0Oo")
	if mode == "" {
		mode = "0"
	}
	if !existsPath(p) {
		return nil, execmod.Errorf("%s: File not found", p)
	}
	n, err := strconv.ParseUint(mode, 8, 32)
	if err != nil {
		return "Invalid Mode " + mode, nil
	}
	if err := syscall.Chmod(p, uint32(n)); err != nil {
		return "Invalid Mode " + mode, nil
	}
	m, err := statMap(p, nil, true)
	if err != nil {
		return nil, err
	}
	return mapValue(m, "mode", ""), nil
}

// ownerIDs is the id resolution chown and lchown share: "" ids become -1
// when no name was given, else an error line.
func ownerIDs(u, g any) (int, int, string) {
	var errs string
	uid, gid := -1, -1
	switch x := userToUID(u).(type) {
	case int64:
		uid = int(x)
	default:
		if value.Truthy(u) {
			errs += "User does not exist\n"
		}
	}
	switch x := groupToGID(g).(type) {
	case int64:
		gid = int(x)
	default:
		if value.Truthy(g) {
			errs += "Group does not exist\n"
		}
	}
	return uid, gid, errs
}

func fileChown(noFollow bool) execmod.Func {
	fun := "chown"
	if noFollow {
		fun = "lchown"
	}
	return func(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		p, v, err := bindPath(fun, args, kwargs, execmod.Req("path"), execmod.Req("user"), execmod.Req("group"))
		if err != nil {
			return nil, err
		}
		return chownPath(p, v[1], v[2], noFollow)
	}
}

func chownPath(p string, u, g any, noFollow bool) (any, error) {
	uid, gid, errs := ownerIDs(u, g)
	if noFollow {
		if err := os.Lchown(p, uid, gid); err != nil {
			return nil, fileops.PyOSError(err)
		}
		return nil, nil
	}
	if !existsPath(p) {
		if err := os.Lchown(p, uid, gid); err == nil {
			return nil, nil
		}
		errs += "File not found"
	}
	if errs != "" {
		return errs, nil
	}
	if err := os.Chown(p, uid, gid); err != nil {
		return nil, fileops.PyOSError(err)
	}
	return nil, nil
}

func fileChgrp(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("chgrp", args, kwargs, execmod.Req("path"), execmod.Req("group"))
	if err != nil {
		return nil, err
	}
	m, err := statMap(p, nil, true)
	if err != nil {
		return nil, err
	}
	return chownPath(p, mapValue(m, "user", false), v[1], false)
}

func fileLstat(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, _, err := bindPath("lstat", args, kwargs, execmod.Req("path"))
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(p) {
		return nil, invocationf("Path to file must be absolute.")
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		return value.NewMap(0), nil
	}
	return lstatMap(&st), nil
}

func lstatMap(st *syscall.Stat_t) *value.Map {
	return value.MapOf("st_atime", pyTime(st.Atim), "st_ctime", pyTime(st.Ctim), "st_gid", int64(st.Gid),
		"st_mode", int64(st.Mode), "st_mtime", pyTime(st.Mtim), "st_nlink", int64(st.Nlink),
		"st_size", st.Size, "st_uid", int64(st.Uid))
}

func fileStatvfs(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, _, err := bindPath("statvfs", args, kwargs, execmod.Req("path"))
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(p) {
		return nil, invocationf("File path must be absolute.")
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(p, &st); err != nil {
		return nil, execmod.Errorf("Could not statvfs '%s'", p)
	}
	// statvfs's f_favail equals f_ffree on Linux (glibc fills both from statfs).
	return value.MapOf("f_bavail", int64(st.Bavail), "f_bfree", int64(st.Bfree), "f_blocks", int64(st.Blocks),
		"f_bsize", st.Bsize, "f_favail", int64(st.Ffree), "f_ffree", int64(st.Ffree), "f_files", int64(st.Files),
		"f_flag", statvfsFlags(st.Flags), "f_frsize", st.Frsize, "f_namemax", st.Namelen), nil
}

// statvfsFlags keeps the ST_* bits statvfs(3) reports of statfs's f_flags.
func statvfsFlags(f int64) int64 {
	const valid = 0x0001 | 0x0002 | 0x0004 | 0x0008 | 0x0010 | 0x0040 | 0x0080 | 0x0100 | 0x0200 | 0x0400 | 0x0800 | 0x1000
	return f & valid
}

func fileAccess(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("access", args, kwargs, execmod.Req("path"), execmod.Req("mode"))
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(p) {
		return nil, invocationf("Path to link must be absolute.")
	}
	modes := map[string]uint32{"f": 0, "r": 4, "w": 2, "x": 1}
	var m uint32
	switch x := v[1].(type) {
	case string:
		n, ok := modes[x]
		if !ok {
			return nil, invocationf("Invalid mode specified.")
		}
		m = n
	case int64:
		if x != 0 && x != 1 && x != 2 && x != 4 {
			return nil, invocationf("Invalid mode specified.")
		}
		m = uint32(x)
	default:
		return nil, invocationf("Invalid mode specified.")
	}
	return syscall.Access(p, m) == nil, nil
}

func fileIsLink(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, _, err := bindPath("is_link", args, kwargs, execmod.Req("path"))
	if err != nil {
		return nil, err
	}
	return isLinkPath(p), nil
}

func fileIsHardlink(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, _, err := bindPath("is_hardlink", args, kwargs, execmod.Req("path"))
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(p) {
		return nil, invocationf("Path to file must be absolute.")
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		return value.NewMap(0), nil // Salt returns the empty lstat dict
	}
	return st.Nlink > 1, nil
}

func fileIsType(fun string, typ uint32) execmod.Func {
	return func(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		p, _, err := bindPath(fun, args, kwargs, execmod.Req("name"))
		if err != nil {
			return nil, err
		}
		var st syscall.Stat_t
		if err := syscall.Stat(p, &st); err != nil {
			if errors.Is(err, syscall.ENOENT) {
				return false, nil
			}
			return nil, fileops.PyOSError(&os.PathError{Op: "stat", Path: p, Err: err})
		}
		return st.Mode&syscall.S_IFMT == typ, nil
	}
}

func fileGetDevmm(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, _, err := bindPath("get_devmm", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err == nil {
		if t := st.Mode & syscall.S_IFMT; t == syscall.S_IFCHR || t == syscall.S_IFBLK {
			major := int64((st.Rdev>>8)&0xfff | (st.Rdev>>32)&^0xfff)
			minor := int64(st.Rdev&0xff | (st.Rdev>>12)&^0xff)
			return value.Tuple{major, minor}, nil
		}
	}
	return value.Tuple{int64(0), int64(0)}, nil
}

func fileReadlink(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("readlink", args, kwargs, execmod.Req("path"), execmod.Opt("canonicalize", false))
	if err != nil {
		return nil, err
	}
	p = os.ExpandEnv(p)
	if !filepath.IsAbs(p) {
		return nil, invocationf("Path to link must be absolute: %s", p)
	}
	if !isLinkPath(p) {
		return nil, invocationf("A valid link was not specified: %s", p)
	}
	if value.Truthy(v[1]) {
		return realPath(p), nil
	}
	t, err := os.Readlink(p)
	if err != nil {
		return nil, execmod.Errorf("%v", fileops.PyOSError(err))
	}
	return t, nil
}

func fileSymlink(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("symlink", args, kwargs, execmod.Req("src"), execmod.Req("path"), execmod.Opt("force", false), execmod.Opt("atomic", false))
	if err != nil {
		return nil, err
	}
	src := execmod.String(v[0])
	path := fileops.ExpandUser(execmod.String(v[1]))
	force, atomic := value.Truthy(v[2]), value.Truthy(v[3])
	if !filepath.IsAbs(path) {
		return nil, invocationf("Link path must be absolute: %s", path)
	}
	if isLinkPath(path) {
		if t, err := os.Readlink(path); err == nil && filepath.Clean(t) == filepath.Clean(src) {
			return true, nil
		}
		if !force && !atomic {
			return nil, execmod.Errorf("Found existing symlink: %s", path)
		}
	}
	if existsPath(path) && !force && !atomic {
		return nil, execmod.Errorf("Existing path is not a symlink: %s", path)
	}
	if atomic {
		tmp, err := os.CreateTemp(filepath.Dir(path), "tmp")
		if err != nil {
			return nil, execmod.Errorf("Could not create '%s'", path)
		}
		tmpName := tmp.Name()
		tmp.Close()
		os.Remove(tmpName)
		if err := os.Symlink(src, tmpName); err != nil {
			return nil, execmod.Errorf("Could not create '%s'", path)
		}
		if err := os.Rename(tmpName, path); err != nil {
			os.Remove(tmpName)
			return nil, execmod.Errorf("Could not create '%s'", path)
		}
		return true, nil
	}
	if lexistsPath(path) && force {
		if err := syscall.Unlink(path); err != nil {
			return nil, fileops.PyOSError(&os.PathError{Op: "unlink", Path: path, Err: err})
		}
	}
	if err := os.Symlink(src, path); err != nil {
		return nil, execmod.Errorf("Could not create '%s'", path)
	}
	return true, nil
}

// linkError words a failed os.link as Python's OSError with two names.
func linkError(err error) string {
	var le *os.LinkError
	var errno syscall.Errno
	if errors.As(err, &le) && errors.As(le.Err, &errno) {
		msg := errno.Error()
		return fmt.Sprintf("[Errno %d] %s: %s -> %s", int(errno), strings.ToUpper(msg[:1])+msg[1:], value.Repr(le.Old), value.Repr(le.New))
	}
	return err.Error()
}

func fileLink(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("link", args, kwargs, execmod.Req("src"), execmod.Req("path"))
	if err != nil {
		return nil, err
	}
	src, path := fileops.ExpandUser(execmod.String(v[0])), execmod.String(v[1])
	if !filepath.IsAbs(src) {
		return nil, invocationf("File path must be absolute.")
	}
	if err := os.Link(src, path); err != nil {
		return nil, execmod.Errorf("Could not create '%s': %s", path, linkError(err))
	}
	return true, nil
}

func fileRename(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("rename", args, kwargs, execmod.Req("src"), execmod.Req("dst"))
	if err != nil {
		return nil, err
	}
	src, dst := fileops.ExpandUser(execmod.String(v[0])), fileops.ExpandUser(execmod.String(v[1]))
	if !filepath.IsAbs(src) {
		return nil, invocationf("File path must be absolute.")
	}
	if err := os.Rename(src, dst); err != nil {
		return nil, execmod.Errorf("Could not rename '%s' to '%s'", src, dst)
	}
	return true, nil
}

func fileCopy(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("copy", args, kwargs, execmod.Req("src"), execmod.Req("dst"), execmod.Opt("recurse", false), execmod.Opt("remove_existing", false))
	if err != nil {
		return nil, err
	}
	src, dst := fileops.ExpandUser(execmod.String(v[0])), fileops.ExpandUser(execmod.String(v[1]))
	if !filepath.IsAbs(src) {
		return nil, invocationf("File path must be absolute.")
	}
	if !existsPath(src) {
		return nil, execmod.Errorf("No such file or directory '%s'", src)
	}
	pre, _ := fileops.Stat(src, true)
	if isDirPath(dst) || isDirPath(src) {
		if !value.Truthy(v[2]) {
			return nil, invocationf("Cannot copy overwriting a directory without recurse flag set to true!")
		}
		if value.Truthy(v[3]) && existsPath(dst) {
			if err := os.RemoveAll(dst); err != nil {
				return nil, execmod.Errorf("Could not copy '%s' to '%s'", src, dst)
			}
		}
		err = fileops.CopyTree(src, dst)
	} else {
		err = fileops.CopyFile(src, dst)
	}
	if err != nil {
		return nil, execmod.Errorf("Could not copy '%s' to '%s'", src, dst)
	}
	fileops.CheckPerms(dst, value.MapOf("changes", value.NewMap(0), "result", true, "comment", ""), pre.User, pre.Group, pre.Mode, true, false)
	return true, nil
}

func fileMove(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("move", args, kwargs, execmod.Req("src"), execmod.Req("dst"), execmod.Opt("disallow_copy_and_unlink", false))
	if err != nil {
		return nil, err
	}
	if value.Truthy(v[2]) {
		return fileRename(nil, []any{v[0], v[1]}, nil)
	}
	src, dst := fileops.ExpandUser(execmod.String(v[0])), fileops.ExpandUser(execmod.String(v[1]))
	if !filepath.IsAbs(src) {
		return nil, invocationf("Source path must be absolute.")
	}
	if !filepath.IsAbs(dst) {
		return nil, invocationf("Destination path must be absolute.")
	}
	if err := fileops.Move(src, dst); err != nil {
		return nil, execmod.Errorf("Unable to move '%s' to '%s': %v", src, dst, err)
	}
	return value.MapOf("result", true, "comment", fmt.Sprintf("'%s' moved to '%s'", src, dst)), nil
}

func fileRemove(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, _, err := bindPath("remove", args, kwargs, execmod.Req("path"))
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(p) {
		return nil, invocationf("File path must be absolute: %s", p)
	}
	switch {
	case isLinkPath(p) || (existsPath(p) && !isDirPath(p)):
		err = os.Remove(p)
	case isDirPath(p):
		err = os.RemoveAll(p)
	default:
		return false, nil
	}
	if err != nil {
		return nil, execmod.Errorf("Could not remove '%s': %v", p, fileops.PyOSError(err))
	}
	return true, nil
}

func fileRmdir(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("rmdir", args, kwargs, execmod.Req("path"), execmod.Opt("recurse", false), execmod.Opt("verbose", false), execmod.Opt("older_than", nil))
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(p) {
		return nil, invocationf("File path must be absolute.")
	}
	if !isDirPath(p) {
		return nil, invocationf("A valid directory was not specified.")
	}
	res := fileops.Rmdir(p, value.Truthy(v[1]), v[3])
	if value.Truthy(v[2]) {
		deleted, errs := value.NewList(), value.NewList()
		for _, d := range res.Deleted {
			deleted.Append(d)
		}
		for _, e := range res.Errors {
			errs.Append(value.NewList(e[0], e[1]))
		}
		return value.MapOf("deleted", deleted, "errors", errs, "result", res.OK), nil
	}
	return res.OK, nil
}

func fileMkdir(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("mkdir", args, kwargs, execmod.Req("dir_path"), execmod.Opt("user", nil), execmod.Opt("group", nil), execmod.Opt("mode", nil))
	if err != nil {
		return nil, err
	}
	p = filepath.Clean(p)
	if !isDirPath(p) {
		if err := fileops.MakedirsPerms(p, v[1], v[2], v[3]); err != nil {
			return nil, fileops.PyOSError(err)
		}
	}
	return true, nil
}

func fileMakedirsPerms(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("makedirs_perms", args, kwargs, execmod.Req("name"), execmod.Opt("user", nil), execmod.Opt("group", nil), execmod.Opt("mode", "0755"))
	if err != nil {
		return nil, err
	}
	if err := fileops.MakedirsPerms(p, v[1], v[2], v[3]); err != nil {
		return nil, fileops.PyOSError(err)
	}
	return nil, nil
}

func fileMakedirs(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("makedirs", args, kwargs, execmod.Req("path"), execmod.Opt("user", nil), execmod.Opt("group", nil), execmod.Opt("mode", nil))
	if err != nil {
		return nil, err
	}
	dir := filepath.Clean(pyDirname(p))
	if isDirPath(dir) {
		return fmt.Sprintf("Directory '%s' already exists", dir), nil
	}
	if existsPath(dir) {
		return fmt.Sprintf("The path '%s' already exists and is not a directory", dir), nil
	}
	if err := fileops.Makedirs(p, v[1], v[2], fileops.NormalizeMode(v[3])); err != nil {
		if strings.HasPrefix(err.Error(), "Recursive creation") {
			return nil, invocationf("%s", err.Error())
		}
		return nil, fileops.PyOSError(err)
	}
	return nil, nil
}

func fileTouch(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("touch", args, kwargs, execmod.Req("name"), execmod.Opt("atime", nil), execmod.Opt("mtime", nil))
	if err != nil {
		return nil, err
	}
	times := [2]any{v[1], v[2]}
	for i, t := range times {
		if s, ok := t.(string); ok && s != "" {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || strings.ContainsAny(s, "+- ") {
				return nil, invocationf("atime and mtime must be integers")
			}
			times[i] = n
		}
	}
	if err := fileops.Touch(p, times[0], times[1]); err != nil {
		return nil, execmod.Errorf("%s", strerror(err))
	}
	return existsPath(p), nil
}

// strerror is OSError.strerror: the errno text alone.
func strerror(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return err.Error()
}

func fileTruncate(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("truncate", args, kwargs, execmod.Req("path"), execmod.Req("length"))
	if err != nil {
		return nil, err
	}
	n, err := pyInt(v[1])
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return nil, fileops.PyOSError(err)
	}
	defer f.Close()
	if err := f.Truncate(n); err != nil {
		return nil, fileops.PyOSError(err)
	}
	return nil, nil
}

// pyInt is Python's int() of an argument.
func pyInt(v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case float64:
		return int64(x), nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case string:
		if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return n, nil
		}
		return 0, &pyValueError{msg: fmt.Sprintf("invalid literal for int() with base 10: %s", value.Repr(x))}
	}
	return 0, &pyTypeError{msg: fmt.Sprintf("int() argument must be a string, a bytes-like object or a real number, not '%s'", value.TypeName(v))}
}

// pyValueError is a Python ValueError.
type pyValueError struct{ msg string }

func (e *pyValueError) Error() string { return e.msg }

// SaltExceptionClass names the Python exception this error stands for.
func (e *pyValueError) SaltExceptionClass() string { return "ValueError" }

func fileSeekRead(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("seek_read", args, kwargs, execmod.Req("path"), execmod.Req("size"), execmod.Req("offset"))
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fileops.PyOSError(err)
	}
	defer f.Close()
	off, err := pyInt(v[2])
	if err != nil {
		return nil, err
	}
	size, err := pyInt(v[1])
	if err != nil {
		return nil, err
	}
	buf := make([]byte, max(size, 0))
	n, err := f.ReadAt(buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fileops.PyOSError(err)
	}
	return buf[:n], nil
}

func fileSeekWrite(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("seek_write", args, kwargs, execmod.Req("path"), execmod.Req("data"), execmod.Req("offset"))
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		return nil, fileops.PyOSError(err)
	}
	defer f.Close()
	off, err := pyInt(v[2])
	if err != nil {
		return nil, err
	}
	data, ok := v[1].([]byte)
	if !ok {
		return nil, &pyTypeError{msg: fmt.Sprintf("a bytes-like object is required, not '%s'", value.TypeName(v[1]))}
	}
	n, err := f.WriteAt(data, off)
	if err != nil {
		return nil, fileops.PyOSError(err)
	}
	if err := f.Sync(); err != nil {
		return nil, fileops.PyOSError(err)
	}
	return int64(n), nil
}

func fileDiskusage(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("diskusage", args, kwargs, execmod.Req("path"))
	if err != nil {
		return nil, err
	}
	p, err := pathArg(v[0])
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
		return fi.Size(), nil
	}
	var total int64
	seen := map[uint64]bool{}
	_ = filepath.WalkDir(p, func(fp string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		var st syscall.Stat_t
		if syscall.Stat(fp, &st) != nil || seen[st.Ino] || st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
			return nil
		}
		seen[st.Ino] = true
		total += st.Size
		return nil
	})
	return total, nil
}

func fileGetHash(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("get_hash", args, kwargs, execmod.Req("path"), execmod.Opt("form", "sha256"), execmod.Opt("chunk_size", int64(65536)))
	if err != nil {
		return nil, err
	}
	return fileHash(p, execmod.String(v[1]))
}

func fileGetSum(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("get_sum", args, kwargs, execmod.Req("path"), execmod.Opt("form", "sha256"))
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return "File not found", nil
	}
	return fileHash(p, execmod.String(v[1]))
}

func filePathExistsGlob(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, _, err := bindPath("path_exists_glob", args, kwargs, execmod.Req("path"))
	if err != nil {
		return nil, err
	}
	m, _ := fileops.Glob(p)
	return len(m) > 0, nil
}

func fileNormpath(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("file.normpath", args, kwargs, execmod.Req("path"))
	if err != nil {
		return nil, err
	}
	p, err := pathArg(v[0])
	if err != nil {
		return nil, err
	}
	return fileops.Normpath(p), nil
}

func filePardir(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("pardir", args, kwargs); err != nil {
		return nil, err
	}
	return "..", nil
}

// mapValue is dict.get(k, def).
func mapValue(m *value.Map, k string, def any) any {
	if v, ok := m.Get(k); ok {
		return v
	}
	return def
}
