package fileops

// perms.go: file.stats, file.check_perms, makedirs, atomic writes, touch
// and the minion's file backups.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"brine/internal/system/atomicfile"
	"brine/internal/value"
)

// NormalizeMode is salt.utils.files.normalize_mode: a string with a
// leading zero, padded to four digits; nil stays nil.
func NormalizeMode(v any) any {
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

// Stats is the part of file.stats the file functions compare.
type Stats struct {
	UID, GID    int
	User, Group string
	Mode        string // "0644"
	IsLink      bool
	IsDir       bool
	Size        int64
}

// User and group names are looked up once per process: each lookup reads
// /etc/passwd or /etc/group, and a run asks for the same few ids again and
// again.
var userNames, groupNames sync.Map // int -> string

func UserName(uid int) string {
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

func GroupName(gid int) string {
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

// Stat is file.stats; ok is false when the path does not exist.
func Stat(path string, follow bool) (Stats, bool) {
	var fi os.FileInfo
	var err error
	if follow {
		fi, err = os.Stat(path)
	} else {
		fi, err = os.Lstat(path)
	}
	if err != nil {
		return Stats{}, false
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	s := Stats{
		Mode:   fmt.Sprintf("%04o", fi.Mode().Perm()|modeSpecial(fi.Mode())),
		IsLink: fi.Mode()&os.ModeSymlink != 0,
		IsDir:  fi.IsDir(),
		Size:   fi.Size(),
	}
	if st != nil {
		s.UID, s.GID = int(st.Uid), int(st.Gid)
		s.User, s.Group = UserName(s.UID), GroupName(s.GID)
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

func ParseMode(mode string) (os.FileMode, error) {
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

func ResolveUID(u any) (int, bool) {
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

func ResolveGID(g any) (int, bool) {
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

func ownerDiffers(want any, name string, id int) bool {
	if !value.Truthy(want) {
		return false
	}
	if n, ok := want.(int64); ok {
		return int(n) != id
	}
	return value.Str(want) != name
}

// Perms is the second value file.check_perms returns: the owner and mode
// before the change (luser, lgroup, lmode) and what was changed (cuser,
// cgroup, cmode; nil when unchanged).
type Perms struct {
	LUser, LGroup        any
	LMode                string
	CUser, CGroup, CMode any
}

// Map is perms as Salt's dict.
func (p Perms) Map() *value.Map {
	m := value.MapOf("luser", p.LUser, "lgroup", p.LGroup, "lmode", p.LMode)
	for _, kv := range [][2]any{{"cuser", p.CUser}, {"cgroup", p.CGroup}, {"cmode", p.CMode}} {
		if kv[1] != nil {
			m.Set(kv[0], kv[1])
		}
	}
	return m
}

// CheckPerms is file.check_perms for POSIX: it sets user, group and mode
// as asked and records the changes in ret. A missing path makes ret
// failed ("<name> does not exist").
func CheckPerms(name string, ret *value.Map, u, g, mode any, follow, test bool) Perms {
	mode = NormalizeMode(mode)
	var origComment any
	hasComment := ret.Has("comment")
	if hasComment {
		origComment = mapGet(ret, "comment")
	}
	var comments []string
	cur, ok := Stat(name, follow)
	if !ok {
		ret.Set("result", false)
		comments = append(comments, fmt.Sprintf("%s does not exist", name))
		joinPermsComment(ret, origComment, hasComment, comments)
		return Perms{}
	}
	perms := Perms{LUser: cur.User, LGroup: cur.Group, LMode: cur.Mode}
	if _, ok := u.(int64); ok {
		perms.LUser = int64(cur.UID)
	}
	if _, ok := g.(int64); ok {
		perms.LGroup = int64(cur.GID)
	}
	changes, _ := mapGet(ret, "changes").(*value.Map)
	if changes == nil {
		changes = value.NewMap(0)
		ret.Set("changes", changes)
	}
	cuser := ownerDiffers(u, cur.User, cur.UID)
	cgroup := ownerDiffers(g, cur.Group, cur.GID)
	if cuser {
		perms.CUser = u
	}
	if cgroup {
		perms.CGroup = g
	}
	if (cuser || cgroup) && !test {
		uid, gid := cur.UID, cur.GID
		// file.chown refuses the whole change when a name is unknown.
		chownErr := ""
		if value.Truthy(u) {
			if n, ok := ResolveUID(u); ok {
				uid = n
			} else {
				chownErr += "User does not exist\n"
			}
		}
		if value.Truthy(g) {
			if n, ok := ResolveGID(g); ok {
				gid = n
			} else {
				chownErr += "Group does not exist\n"
			}
		}
		var err error
		if chownErr != "" {
			ret.Set("result", false)
			comments = append(comments, chownErr)
		} else if cur.IsLink && !follow {
			err = os.Lchown(name, uid, gid)
		} else {
			err = os.Chown(name, uid, gid)
		}
		if err != nil {
			ret.Set("result", false)
		} else if pm, err := ParseMode(cur.Mode); err == nil && !(cur.IsLink && !follow) {
			_ = os.Chmod(name, pm)
		}
	}
	cmode := false
	if mode != nil && !test && !(cur.IsLink && !follow) && mode != cur.Mode {
		cmode = true
		perms.CMode = mode
		if pm, err := ParseMode(mode.(string)); err == nil {
			_ = os.Chmod(name, pm)
		}
	}
	post := cur
	if cuser || cgroup || cmode {
		post, _ = Stat(name, follow)
	}
	if value.Truthy(u) {
		if ownerDiffers(u, post.User, post.UID) {
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
		if ownerDiffers(g, post.Group, post.GID) {
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
	if mode != nil && !(cur.IsLink && !follow) {
		if mode != post.Mode {
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
	return perms
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

// Umask reads the process umask.
func Umask() int {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return m
}

// WriteAtomic replaces path with data as salt.utils.files.copyfile does:
// a temporary file in the same directory renamed over the target, which
// keeps the old file's owner and mode (a new file gets 0666 &^ umask, or
// 0600 when private is set). A failure leaves the target untouched.
func WriteAtomic(path string, data []byte, private bool) error {
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("[Errno 2] No such file or directory: %s", path)
	}
	tmp, err := atomicfile.CreateTemp(dir, filepath.Base(path))
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
		perm := os.FileMode(0o666 &^ Umask())
		if private {
			perm = 0o600
		}
		_ = os.Chmod(tmpName, perm)
	}
	if err := os.Rename(tmpName, path); err != nil {
		return err
	}
	ok = true
	atomicfile.SyncDir(dir)
	if slog.Default().Enabled(context.Background(), slog.LevelDebug) {
		slog.Debug(fmt.Sprintf("Wrote file %s (%d bytes)", path, len(data)))
	}
	return nil
}

// Makedirs is file.makedirs_: create the missing parents of path (not path
// itself) with user, group and mode.
func Makedirs(path string, u, g, mode any) error {
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
		if err := Mkdir(create[i], u, g, mode); err != nil {
			return err
		}
	}
	return nil
}

// Mkdir is file.mkdir: create one directory and set its permissions.
func Mkdir(path string, u, g, mode any) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil
	}
	if err := os.Mkdir(path, 0o777); err != nil && !os.IsExist(err) {
		return err
	}
	slog.Debug("Created directory " + path)
	if mode != nil || value.Truthy(u) || value.Truthy(g) {
		ret := value.MapOf("changes", value.NewMap(0), "result", true, "comment", "")
		CheckPerms(path, ret, u, g, mode, false, false)
	}
	return nil
}

// ExpandUser is os.path.expanduser.
func ExpandUser(p string) string {
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

// IsText is salt.utils.files.is_text on content: no NUL bytes and mostly
// printable.
func IsText(data []byte) bool {
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

// Diff is file.get_diff on two texts (show_filenames=False).
func Diff(oldData, newData []byte) string {
	if string(oldData) == string(newData) {
		return ""
	}
	oldBin, newBin := !IsText(oldData), !IsText(newData)
	switch {
	case oldBin && newBin:
		return "Replace binary file"
	case oldBin:
		return "Replace binary file with text file"
	case newBin:
		return "Replace text file with binary file"
	}
	return UnifiedDiff(SplitLines(string(oldData)), SplitLines(string(newData)), "", "")
}

// Touch is file.touch: create the file or update its times.
func Touch(name string, atime, mtime any) error {
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

// BackupMinion is salt.utils.files.backup_minion: keep a copy of path
// under cachedir/file_backup before it is replaced.
func BackupMinion(path, cachedir string) error {
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

func mapGet(m *value.Map, k string) any {
	v, _ := m.Get(k)
	return v
}

func isLink(p string) bool {
	st, err := os.Lstat(p)
	return err == nil && st.Mode()&os.ModeSymlink != 0
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// PyOSError words an OS error as Python's OSError does:
// "[Errno 2] No such file or directory: '/x'".
func PyOSError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		var errno syscall.Errno
		if errors.As(pe.Err, &errno) {
			msg := errno.Error()
			if msg != "" {
				msg = strings.ToUpper(msg[:1]) + msg[1:]
			}
			return fmt.Errorf("[Errno %d] %s: %s", int(errno), msg, value.Repr(pe.Path))
		}
	}
	return err
}
