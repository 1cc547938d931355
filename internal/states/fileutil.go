package states

// Helpers shared by the file state functions: Salt's file.stats,
// file.check_perms, salt.utils.files.copyfile (atomic replace),
// file.makedirs_ and normalize_mode.

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"brine/internal/match"
	"brine/internal/value"
)

// normalizeMode is salt.utils.files.normalize_mode: a string with a
// leading zero, padded to four digits; nil stays nil.
func normalizeMode(v any) any {
	if v == nil {
		return nil
	}
	s := value.Str(v)
	s = strings.ReplaceAll(s, "0o", "0")
	s = strings.Trim(s, `"`)
	s = strings.Trim(s, `'`)
	s = strings.TrimLeft(s, "0")
	for len(s) < 4 {
		s = "0" + s
	}
	return s
}

type fileStats struct {
	uid, gid    int
	user, group string
	mode        string // "0644"
	isLink      bool
	isDir       bool
	size        int64
}

// User and group names are looked up once per process: each lookup reads
// /etc/passwd or /etc/group, and a run asks for the same few ids again and
// again.
var userNames, groupNames sync.Map // int -> string

func lookupUser(uid int) string {
	if v, ok := userNames.Load(uid); ok {
		return v.(string)
	}
	name := strconv.Itoa(uid)
	if u, err := user.LookupId(name); err == nil {
		name = u.Username
	}
	userNames.Store(uid, name)
	return name
}

func lookupGroup(gid int) string {
	if v, ok := groupNames.Load(gid); ok {
		return v.(string)
	}
	name := strconv.Itoa(gid)
	if g, err := user.LookupGroupId(name); err == nil {
		name = g.Name
	}
	groupNames.Store(gid, name)
	return name
}

// statPath is file.stats; ok is false when the path does not exist.
func statPath(path string, follow bool) (fileStats, bool) {
	var fi os.FileInfo
	var err error
	if follow {
		fi, err = os.Stat(path)
	} else {
		fi, err = os.Lstat(path)
	}
	if err != nil {
		return fileStats{}, false
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	s := fileStats{
		mode:   fmt.Sprintf("%04o", fi.Mode().Perm()|modeSpecial(fi.Mode())),
		isLink: fi.Mode()&os.ModeSymlink != 0,
		isDir:  fi.IsDir(),
		size:   fi.Size(),
	}
	if st != nil {
		s.uid, s.gid = int(st.Uid), int(st.Gid)
		s.user, s.group = lookupUser(s.uid), lookupGroup(s.gid)
	}
	return s, true
}

func modeSpecial(m os.FileMode) os.FileMode {
	var out os.FileMode
	if m&os.ModeSetuid != 0 {
		out |= 0o4000
	}
	if m&os.ModeSetgid != 0 {
		out |= 0o2000
	}
	if m&os.ModeSticky != 0 {
		out |= 0o1000
	}
	return out
}

func parseMode(mode string) (os.FileMode, error) {
	n, err := strconv.ParseUint(mode, 8, 32)
	if err != nil {
		return 0, err
	}
	m := os.FileMode(n & 0o777)
	if n&0o4000 != 0 {
		m |= os.ModeSetuid
	}
	if n&0o2000 != 0 {
		m |= os.ModeSetgid
	}
	if n&0o1000 != 0 {
		m |= os.ModeSticky
	}
	return m, nil
}

func resolveUID(u any) (int, bool) {
	switch x := u.(type) {
	case int64:
		return int(x), true
	case string:
		if usr, err := user.Lookup(x); err == nil {
			n, _ := strconv.Atoi(usr.Uid)
			return n, true
		}
		if n, err := strconv.Atoi(x); err == nil {
			return n, true
		}
	}
	return 0, false
}

func resolveGID(g any) (int, bool) {
	switch x := g.(type) {
	case int64:
		return int(x), true
	case string:
		if grp, err := user.LookupGroup(x); err == nil {
			n, _ := strconv.Atoi(grp.Gid)
			return n, true
		}
		if n, err := strconv.Atoi(x); err == nil {
			return n, true
		}
	}
	return 0, false
}

// checkUser is the file states' _check_user: "" when user and group exist,
// and always "" in test mode, where a user or group that an earlier state
// would create may be missing yet.
func checkUser(u, g any, test bool) string {
	if test {
		return ""
	}
	var errs []string
	if value.Truthy(u) {
		if _, ok := resolveUID(u); !ok {
			errs = append(errs, fmt.Sprintf("User %s is not available", value.Str(u)))
		}
	}
	if value.Truthy(g) {
		if _, ok := resolveGID(g); !ok {
			errs = append(errs, fmt.Sprintf("Group %s is not available", value.Str(g)))
		}
	}
	return strings.Join(errs, " ")
}

func ownerDiffers(want any, name string, id int) bool {
	if !value.Truthy(want) {
		return false
	}
	if n, ok := want.(int64); ok {
		return int(n) != id
	}
	return value.Str(want) != name
}

// checkPerms is file.check_perms for POSIX: it sets user, group and mode
// as asked and records the changes in ret. It returns the path's modes
// before the change (Salt's perms["lmode"]).
func checkPerms(name string, ret *value.Map, u, g, mode any, follow, test bool) string {
	mode = normalizeMode(mode)
	var origComment any
	hasComment := ret.Has("comment")
	if hasComment {
		origComment = mapGet(ret, "comment")
	}
	var comments []string
	cur, ok := statPath(name, follow)
	if !ok {
		ret.Set("result", false)
		comments = append(comments, fmt.Sprintf("%s does not exist", name))
		joinPermsComment(ret, origComment, hasComment, comments)
		return ""
	}
	lmode := cur.mode
	changes, _ := mapGet(ret, "changes").(*value.Map)
	if changes == nil {
		changes = value.NewMap(0)
		ret.Set("changes", changes)
	}
	cuser := ownerDiffers(u, cur.user, cur.uid)
	cgroup := ownerDiffers(g, cur.group, cur.gid)
	if (cuser || cgroup) && !test {
		uid, gid := cur.uid, cur.gid
		if value.Truthy(u) {
			if n, ok := resolveUID(u); ok {
				uid = n
			}
		}
		if value.Truthy(g) {
			if n, ok := resolveGID(g); ok {
				gid = n
			}
		}
		var err error
		if cur.isLink && !follow {
			err = os.Lchown(name, uid, gid)
		} else {
			err = os.Chown(name, uid, gid)
		}
		if err != nil {
			ret.Set("result", false)
		} else if pm, err := parseMode(cur.mode); err == nil && !(cur.isLink && !follow) {
			_ = os.Chmod(name, pm)
		}
	}
	cmode := false
	if mode != nil && !test && !(cur.isLink && !follow) && mode != cur.mode {
		cmode = true
		if pm, err := parseMode(mode.(string)); err == nil {
			_ = os.Chmod(name, pm)
		}
	}
	post := cur
	if cuser || cgroup || cmode {
		post, _ = statPath(name, follow)
	}
	if value.Truthy(u) {
		if ownerDiffers(u, post.user, post.uid) {
			if test {
				changes.Set("user", u)
			} else {
				ret.Set("result", false)
				comments = append(comments, fmt.Sprintf("Failed to change user to %s", value.Str(u)))
			}
		} else if cuser {
			changes.Set("user", u)
		}
	}
	if value.Truthy(g) {
		if ownerDiffers(g, post.group, post.gid) {
			if test {
				changes.Set("group", g)
			} else {
				ret.Set("result", false)
				comments = append(comments, fmt.Sprintf("Failed to change group to %s", value.Str(g)))
			}
		} else if cgroup {
			changes.Set("group", g)
		}
	}
	if mode != nil && !(cur.isLink && !follow) {
		if mode != post.mode {
			if test {
				changes.Set("mode", mode)
			} else {
				ret.Set("result", false)
				comments = append(comments, fmt.Sprintf("Failed to change mode to %s", value.Str(mode)))
			}
		} else if cmode {
			changes.Set("mode", mode)
		}
	}
	joinPermsComment(ret, origComment, hasComment, comments)
	if test && changes.Len() > 0 {
		ret.Set("result", nil)
	}
	return lmode
}

func joinPermsComment(ret *value.Map, orig any, had bool, comments []string) {
	if s, ok := orig.(string); ok || !had {
		if s != "" {
			comments = append([]string{s}, comments...)
		}
		ret.Set("comment", strings.Join(comments, "; "))
		return
	}
	ret.Set("comment", strings.Join(comments, "; "))
}

// currentUmask reads the process umask.
func currentUmask() int {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return m
}

// writeAtomic replaces path with data as salt.utils.files.copyfile does:
// a temporary file in the same directory renamed over the target, which
// keeps the old file's owner and mode (a new file gets 0666 &^ umask, or
// 0600 when private is set). A failure leaves the target untouched.
func writeAtomic(path string, data []byte, private bool) error {
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("[Errno 2] No such file or directory: %s", path)
	}
	tmp, err := createTemp(dir, filepath.Base(path))
	if err != nil {
		return err
	}
	tmpName := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			os.Remove(tmpName)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	// The data reaches the disk before the rename makes it the target's.
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			_ = os.Chown(tmpName, int(st.Uid), int(st.Gid))
		}
		_ = os.Chmod(tmpName, fi.Mode().Perm()|fi.Mode()&(os.ModeSetuid|os.ModeSetgid|os.ModeSticky))
	} else {
		perm := os.FileMode(0o666 &^ currentUmask())
		if private {
			perm = 0o600
		}
		_ = os.Chmod(tmpName, perm)
	}
	if err := os.Rename(tmpName, path); err != nil {
		return err
	}
	ok = true
	syncDir(dir)
	if slog.Default().Enabled(context.Background(), slog.LevelDebug) {
		slog.Debug(fmt.Sprintf("Wrote file %s (%d bytes)", path, len(data)))
	}
	return nil
}

// makedirs is file.makedirs_: create the missing parents of path (not path
// itself) with user, group and mode.
func makedirs(path string, u, g, mode any) error {
	dir := filepath.Clean(filepath.Dir(path))
	if st, err := os.Stat(dir); err == nil {
		if st.IsDir() {
			return nil
		}
		return nil
	}
	var create []string
	for {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			break
		}
		create = append(create, dir)
		parent := filepath.Dir(dir)
		if parent == dir {
			return fmt.Errorf("Recursive creation for path '%s' would result in an infinite loop. Please use an absolute path.", dir)
		}
		dir = parent
	}
	for i := len(create) - 1; i >= 0; i-- {
		if err := mkdirPerms(create[i], u, g, mode); err != nil {
			return err
		}
	}
	return nil
}

// mkdirPerms is file.mkdir: create one directory and set its permissions.
func mkdirPerms(path string, u, g, mode any) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil
	}
	if err := os.Mkdir(path, 0o777); err != nil && !os.IsExist(err) {
		return err
	}
	slog.Debug("Created directory " + path)
	if mode != nil || value.Truthy(u) || value.Truthy(g) {
		ret := value.MapOf("changes", value.NewMap(0), "result", true, "comment", "")
		checkPerms(path, ret, u, g, mode, false, false)
	}
	return nil
}

// dirModeFrom is managed's derived dir_mode: each non-zero digit of the
// last three of mode gets the execute bit.
func dirModeFrom(mode any) any {
	if mode == nil {
		return nil
	}
	s := value.Str(mode)
	if len(s) > 3 {
		s = s[len(s)-3:]
	}
	b := []byte(s)
	for i, c := range b {
		if c != '0' && c >= '0' && c <= '9' {
			b[i] = byte('0' + ((c - '0') | 1))
		}
	}
	return string(b)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func isLink(p string) bool {
	st, err := os.Lstat(p)
	return err == nil && st.Mode()&os.ModeSymlink != 0
}

func lexists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// expandUser is os.path.expanduser.
func expandUser(p string) string {
	if !strings.HasPrefix(p, "~") {
		return p
	}
	rest := p[1:]
	name, tail, _ := strings.Cut(rest, "/")
	var home string
	if name == "" {
		home = os.Getenv("HOME")
		if home == "" {
			if u, err := user.Current(); err == nil {
				home = u.HomeDir
			}
		}
	} else if u, err := user.Lookup(name); err == nil {
		home = u.HomeDir
	} else {
		return p
	}
	if tail == "" && !strings.Contains(rest, "/") {
		return home
	}
	return strings.TrimRight(home, "/") + "/" + tail
}

// isText is salt.utils.files.is_text on content: no NUL bytes and mostly
// printable.
func isText(data []byte) bool {
	if len(data) == 0 {
		return true
	}
	block := data
	if len(block) > 512 {
		block = block[:512]
	}
	if strings.IndexByte(string(block), 0) >= 0 {
		return false
	}
	nontext := 0
	for _, c := range block {
		if c < 32 && c != '\n' && c != '\r' && c != '\t' && c != '\b' && c != '\f' {
			nontext++
		}
	}
	return float64(nontext)/float64(len(block)) <= 0.30
}

// fileDiff is file.get_diff on two texts (show_filenames=False).
func fileDiff(oldData, newData []byte) string {
	if string(oldData) == string(newData) {
		return ""
	}
	oldBin, newBin := !isText(oldData), !isText(newData)
	switch {
	case oldBin && newBin:
		return "Replace binary file"
	case oldBin:
		return "Replace binary file with text file"
	case newBin:
		return "Replace text file with binary file"
	}
	return unifiedDiff(readLines(string(oldData)), readLines(string(newData)), "", "")
}

// lookupUserGID returns the primary group id of uid.
func lookupUserGID(uid int) (int, error) {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(u.Gid)
}

// touchFile is file.touch: create the file or update its times.
func touchFile(name string, atime, mtime any) error {
	now := time.Now()
	at, mt := now, now
	if atime != nil {
		at = time.Unix(int64(value.ToFloat(atime)), 0)
	}
	if mtime != nil {
		mt = time.Unix(int64(value.ToFloat(mtime)), 0)
	}
	if !exists(name) {
		f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY, 0o666)
		if err != nil {
			return err
		}
		f.Close()
	}
	return os.Chtimes(name, at, mt)
}

// checkIncludeExclude is salt.utils.stringutils.check_include_exclude:
// with an exclude pattern, path is kept (true) unless it matches; a
// pattern starting with "E@" is a regular expression, else a glob.
func checkIncludeExclude(path string, include, exclude any) bool {
	matches := func(pat any) bool {
		s := value.Str(pat)
		if rest, ok := strings.CutPrefix(s, "E@"); ok {
			re, err := regexp.Compile(rest)
			return err == nil && re.MatchString(path)
		}
		return match.Fnmatch(path, s)
	}
	if include == nil && exclude == nil {
		return true
	}
	if include != nil && exclude == nil {
		return matches(include)
	}
	if include == nil && exclude != nil {
		return !matches(exclude)
	}
	return matches(include) && !matches(exclude)
}

// backupMinion is salt.utils.files.backup_minion: keep a copy of path
// under cachedir/file_backup before it is replaced.
func backupMinion(path, cachedir string) error {
	if cachedir == "" {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	dname, bname := filepath.Split(path)
	now := time.Now()
	stamp := fmt.Sprintf("%s%06d_%s", now.Format("Mon_Jan_02_15:04:05_"), now.Nanosecond()/1000, now.Format("2006"))
	dir := filepath.Join(cachedir, "file_backup", strings.Trim(dname, "/"))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	bk := filepath.Join(dir, bname+"_"+stamp)
	if err := os.WriteFile(bk, data, st.Mode().Perm()); err != nil {
		return err
	}
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		_ = os.Chown(bk, int(s.Uid), int(s.Gid))
	}
	return nil
}
