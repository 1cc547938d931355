package modules

// file_misc.go is the rest of salt/modules/file.py: device nodes and
// FIFOs, the minion's file backups, and the files processes hold open.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/value"
)

func init() {
	reg := func(name string, f execmod.Func, doc string) { execmod.Register("file."+name, f, doc) }
	reg("mknod", fileMknod, "Create a character (c), block (b) device or FIFO (p) node with user, group and mode.")
	reg("mknod_chrdev", fileMknodDev("mknod_chrdev", 'c'), "Create a character device.")
	reg("mknod_blkdev", fileMknodDev("mknod_blkdev", 'b'), "Create a block device.")
	reg("mknod_fifo", fileMknodFifo, "Create a FIFO pipe.")
	reg("list_backups", fileListBackups, "List the minion's backups of path (newest first), limit for the newest n.")
	reg("list_backup", fileListBackups, "Alias of file.list_backups.")
	reg("restore_backup", fileBackupAction("restore_backup", true), "Restore path from the backup of that id (see list_backups).")
	reg("delete_backup", fileBackupAction("delete_backup", false), "Delete the backup of that id (see list_backups).")
	reg("remove_backup", fileBackupAction("remove_backup", false), "Alias of file.delete_backup.")
	reg("open_files", fileOpenFiles, "Return the files processes hold open, by file (or by pid with by_pid=True).")
}

// nodeKinds are mknod's node types: what Salt calls them and their S_IF bit.
var nodeKinds = map[byte]struct {
	label string
	bit   uint32
}{'c': {"Character device", syscall.S_IFCHR}, 'b': {"Block device", syscall.S_IFBLK}, 'p': {"Fifo pipe", syscall.S_IFIFO}}

// makeNode is mknod_chrdev, mknod_blkdev and mknod_fifo: the state-like
// return Salt gives, then check_perms on the node.
func makeNode(ctx *execmod.Context, name string, kind byte, major, minor int64, u, g, mode any) (any, error) {
	name = fileops.ExpandUser(name)
	k := nodeKinds[kind]
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "comment", "", "result", false)
	m, err := strconv.ParseUint(strings.TrimLeft(value.Str(mode), "0Oo"), 8, 32)
	if err != nil {
		return nil, &pyValueError{msg: fmt.Sprintf("invalid literal for int() with base 8: %s", value.Repr(strings.TrimLeft(value.Str(mode), "0Oo")))}
	}
	created := value.MapOf("new", fmt.Sprintf("%s %s created.", k.label, name))
	if testMode(ctx) {
		ret.Set("changes", created)
		ret.Set("result", nil)
	} else {
		dev := (minor & 0xff) | ((major & 0xfff) << 8) | ((minor &^ 0xff) << 12) | ((major &^ 0xfff) << 32)
		var err error
		if kind == 'p' {
			err = syscall.Mkfifo(name, uint32(m))
		} else {
			err = syscall.Mknod(name, uint32(m)|k.bit, int(dev))
		}
		switch {
		case err == nil:
			ret.Set("changes", created)
			ret.Set("result", true)
		case errors.Is(err, syscall.EEXIST):
			ret.Set("comment", fmt.Sprintf("File %s exists and cannot be overwritten", name))
		default:
			return nil, fileops.PyOSError(&os.PathError{Op: "mknod", Path: name, Err: err})
		}
	}
	var pm any
	if value.Truthy(mode) {
		pm = value.Str(mode)
	}
	fileops.CheckPerms(name, value.MapOf("changes", value.NewMap(0), "result", true, "comment", ""), u, g, pm, false, testMode(ctx))
	return ret, nil
}

func fileMknodDev(fun string, kind byte) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind(fun, args, kwargs, execmod.Req("name"), execmod.Req("major"), execmod.Req("minor"),
			execmod.Opt("user", nil), execmod.Opt("group", nil), execmod.Opt("mode", "0660"))
		if err != nil {
			return nil, err
		}
		major, err := pyInt(v[1])
		if err != nil {
			return nil, err
		}
		minor, err := pyInt(v[2])
		if err != nil {
			return nil, err
		}
		return makeNode(ctx, execmod.String(v[0]), kind, major, minor, v[3], v[4], v[5])
	}
}

func fileMknodFifo(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("mknod_fifo", args, kwargs, execmod.Req("name"), execmod.Opt("user", nil), execmod.Opt("group", nil), execmod.Opt("mode", "0660"))
	if err != nil {
		return nil, err
	}
	return makeNode(ctx, execmod.String(v[0]), 'p', 0, 0, v[1], v[2], v[3])
}

func fileMknod(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("mknod", args, kwargs, execmod.Req("name"), execmod.Req("ntype"), execmod.Opt("major", int64(0)),
		execmod.Opt("minor", int64(0)), execmod.Opt("user", nil), execmod.Opt("group", nil), execmod.Opt("mode", "0600"))
	if err != nil {
		return nil, err
	}
	name := execmod.String(v[0])
	ntype := value.Str(v[1])
	if ntype != "c" && ntype != "b" && ntype != "p" {
		return nil, invocationf("Node type unavailable: '%s'. Available node types are character ('c'), block ('b'), and pipe ('p').", ntype)
	}
	if dir := filepath.Clean(pyDirname(name)); !isDirPath(dir) && !existsPath(dir) {
		if err := fileops.Makedirs(name, v[4], v[5], nil); err != nil {
			return nil, fileops.PyOSError(err)
		}
	}
	major, err := pyInt(v[2])
	if err != nil {
		return nil, err
	}
	minor, err := pyInt(v[3])
	if err != nil {
		return nil, err
	}
	return makeNode(ctx, name, ntype[0], major, minor, v[4], v[5], v[6])
}

// backupRoot is file._get_bkroot: cachedir/file_backup.
func backupRoot(ctx *execmod.Context) string {
	cachedir := "/var/cache/salt/minion"
	if ctx != nil && ctx.Opts != nil {
		if c, ok := ctx.Opts.Get("cachedir"); ok && value.Truthy(c) {
			cachedir = value.Str(c)
		}
	}
	return filepath.Join(cachedir, "file_backup")
}

type backupEntry struct {
	when     time.Time
	size     int64
	location string
}

// backupsOf lists the backups of path, newest first.
func backupsOf(ctx *execmod.Context, path string) []backupEntry {
	dir, base := filepath.Split(path)
	bkdir := filepath.Join(backupRoot(ctx), strings.TrimPrefix(dir, "/"))
	entries, err := os.ReadDir(bkdir)
	if err != nil {
		return nil
	}
	var out []backupEntry
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), base+"_")
		if !ok {
			continue
		}
		when, ok := parseBackupStamp(rest)
		if !ok {
			continue
		}
		fi, err := os.Stat(filepath.Join(bkdir, e.Name()))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		out = append(out, backupEntry{when, fi.Size(), filepath.Join(bkdir, e.Name())})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].when.After(out[j].when) })
	return out
}

// parseBackupStamp parses "%a_%b_%d_%H:%M:%S_%f_%Y".
func parseBackupStamp(s string) (time.Time, bool) {
	parts := strings.Split(s, "_")
	if len(parts) != 6 || len(parts[4]) == 0 || len(parts[4]) > 6 {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation("Mon Jan 2 15:04:05 2006", strings.Join([]string{parts[0], parts[1], parts[2], parts[3], parts[5]}, " "), time.Local)
	if err != nil {
		return time.Time{}, false
	}
	us, err := strconv.Atoi(parts[4] + strings.Repeat("0", 6-len(parts[4])))
	if err != nil {
		return time.Time{}, false
	}
	return t.Add(time.Duration(us) * time.Microsecond), true
}

func backupMap(entries []backupEntry, limit int) *value.Map {
	out := value.NewMap(len(entries))
	for i, e := range entries {
		if limit >= 0 && i >= limit {
			break
		}
		stamp := e.when.Format("Mon Jan 02 2006 15:04:05.") + fmt.Sprintf("%06d", e.when.Nanosecond()/1000)
		out.Set(int64(i), value.MapOf("Backup Time", stamp, "Size", e.size, "Location", e.location))
	}
	return out
}

func fileListBackups(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("list_backups", args, kwargs, execmod.Req("path"), execmod.Opt("limit", nil))
	if err != nil {
		return nil, err
	}
	entries := backupsOf(ctx, p)
	limit := -1 // none
	if v[1] != nil {
		if n, err := pyInt(v[1]); err == nil {
			limit = int(n)
			if n < 0 { // Python's [:limit] counts a negative limit from the end
				limit = max(len(entries)+int(n), 0)
			}
		}
	}
	return backupMap(entries, limit), nil
}

func fileBackupAction(fun string, restore bool) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		p, v, err := bindPath(fun, args, kwargs, execmod.Req("path"), execmod.Req("backup_id"))
		if err != nil {
			return nil, err
		}
		idStr := value.Str(v[1])
		ret := value.MapOf("result", false, "comment", fmt.Sprintf("Invalid backup_id '%s'", idStr))
		id, err := strconv.Atoi(strings.TrimSpace(idStr))
		if err != nil || len(idStr) != len(strconv.Itoa(id)) {
			return ret, nil
		}
		entries := backupsOf(ctx, p)
		if id < 0 || id >= len(entries) {
			ret.Set("comment", fmt.Sprintf("backup_id '%s' does not exist for %s", idStr, p))
			return ret, nil
		}
		loc := entries[id].location
		if !restore {
			if err := os.Remove(loc); err != nil {
				ret.Set("comment", fmt.Sprintf("Unable to remove %s: %v", loc, fileops.PyOSError(err)))
				return ret, nil
			}
			ret.Set("result", true)
			ret.Set("comment", "Successfully removed "+loc)
			return ret, nil
		}
		_ = fileops.BackupMinion(p, filepath.Dir(backupRoot(ctx)))
		data, err := os.ReadFile(loc)
		if err == nil {
			err = writeText(p, string(data))
		}
		if err != nil {
			ret.Set("comment", fmt.Sprintf("Unable to restore %s to %s: %v", loc, p, fileops.PyOSError(err)))
			return ret, nil
		}
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("Successfully restored %s to %s", loc, p))
		return ret, nil
	}
}

func fileOpenFiles(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("open_files", args, kwargs, execmod.Opt("by_pid", false))
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fileops.PyOSError(err)
	}
	var pids []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, n)
		}
	}
	byPid := map[int][]string{}
	files := map[string][]int{}
	var fileOrder []string
	for _, pid := range pids {
		byPid[pid] = nil
		ppath := fmt.Sprintf("/proc/%d", pid)
		tids, err := os.ReadDir(ppath + "/task")
		if err != nil {
			continue
		}
		var fds []string
		fdEnts, _ := os.ReadDir(ppath + "/fd")
		for _, f := range fdEnts {
			fds = append(fds, ppath+"/fd/"+f.Name())
		}
		for _, t := range tids {
			tp := ppath + "/task/" + t.Name()
			fds = append(fds, realPath(tp+"/exe"))
			tfds, _ := os.ReadDir(tp + "/fd")
			for _, f := range tfds {
				fds = append(fds, tp+"/fd/"+f.Name())
			}
		}
		sort.Strings(fds)
		seen := map[string]bool{}
		for _, fd := range fds {
			if seen[fd] {
				continue
			}
			seen[fd] = true
			name := realPath(fd)
			if _, err := os.Stat(name); err != nil {
				continue
			}
			if _, ok := files[name]; !ok {
				fileOrder = append(fileOrder, name)
			}
			files[name] = sortedUniqueInts(append(files[name], pid))
			byPid[pid] = sortedUniqueStrings(append(byPid[pid], name))
		}
	}
	if value.Truthy(v[0]) {
		out := value.NewMap(len(pids))
		for _, pid := range pids {
			l := value.NewList()
			for _, f := range byPid[pid] {
				l.Append(f)
			}
			out.Set(int64(pid), l)
		}
		return out, nil
	}
	out := value.NewMap(len(fileOrder))
	for _, f := range fileOrder {
		l := value.NewList()
		for _, pid := range files[f] {
			l.Append(int64(pid))
		}
		out.Set(f, l)
	}
	return out, nil
}

func sortedUniqueInts(xs []int) []int {
	sort.Ints(xs)
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func sortedUniqueStrings(xs []string) []string {
	sort.Strings(xs)
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func init() {
	execmod.Register("file.extract_hash", fileExtractHash, "Find the checksum of file_name (or source, or source_hash_name) in the hash file hash_fn: {'hsum': ..., 'hash_type': ...}.")
}

func fileExtractHash(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("extract_hash", args, kwargs, execmod.Req("hash_fn"), execmod.Opt("hash_type", "sha256"),
		execmod.Opt("file_name", ""), execmod.Opt("source", ""), execmod.Opt("source_hash_name", nil))
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(execmod.String(v[0]))
	if err != nil {
		return nil, fileops.PyOSError(err)
	}
	hsum, typ, ok := fileops.ExtractHash(string(data), execmod.String(v[1]), execmod.String(v[2]), execmod.String(v[3]), execmod.String(v[4]))
	if !ok {
		return nil, nil
	}
	return value.MapOf("hsum", hsum, "hash_type", typ), nil
}

func init() {
	execmod.Register("file.list_backups_dir", fileListBackupsDir, "List the minion's backups of the files in path's directory, by file name (newest first).")
}

func fileListBackupsDir(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("list_backups_dir", args, kwargs, execmod.Req("path"), execmod.Opt("limit", nil))
	if err != nil {
		return nil, err
	}
	dir, _ := filepath.Split(p)
	bkdir := filepath.Join(backupRoot(ctx), strings.TrimPrefix(dir, "/"))
	ents, err := os.ReadDir(bkdir) // sorted by name
	if err != nil {
		return value.NewMap(0), nil
	}
	// Python's groupby over the sorted prefixes, then a dict of counts.
	var order []string
	count := map[string]int{}
	for _, e := range ents {
		pre, _, _ := strings.Cut(e.Name(), "_")
		if _, seen := count[pre]; !seen {
			order = append(order, pre)
		}
		count[pre]++
	}
	out := value.NewMap(len(order))
	for _, pre := range order {
		var entries []backupEntry
		for _, e := range ents {
			name := e.Name()
			if p2, rest, _ := strings.Cut(name, "_"); p2 != pre {
				continue
			} else if when, ok := parseBackupStamp(rest); ok {
				fi, err := os.Stat(filepath.Join(bkdir, name))
				if err != nil {
					return nil, fileops.PyOSError(err)
				}
				entries = append(entries, backupEntry{when, fi.Size(), filepath.Join(bkdir, name)})
			}
		}
		sort.SliceStable(entries, func(i, j int) bool { return entries[i].when.After(entries[j].when) })
		limit := count[pre]
		if v[1] != nil {
			if n, err := pyInt(v[1]); err == nil {
				if n < 0 {
					n = max(int64(len(entries))+n, 0)
				}
				limit = min(limit, int(n))
			}
		}
		out.Set(pre, backupMap(entries, limit))
	}
	return out, nil
}
