package states

// file_hardlink.go is file.hardlink of salt/states/file.py.

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"brine/internal/fileops"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "file.hardlink", Kwargs: true, Run: fileHardlink,
		Doc: "Create a hard link.",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("target"), p("force", false), p("makedirs", false),
			p("user", nil), p("group", nil), p("dir_mode", nil)}})
}

// inodeOf is file.stats(path, follow_symlinks=False)["inode"].
func inodeOf(path string) (uint64, bool) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return 0, false
	}
	return st.Ino, true
}

// isHardlink is file.is_hardlink: more than one link to path.
func isHardlink(path string) bool {
	var st syscall.Stat_t
	return syscall.Lstat(path, &st) == nil && st.Nlink > 1
}

// hardlinkSame is _hardlink_same: name and target share an inode.
func hardlinkSame(name, target string) bool {
	a, ok1 := inodeOf(name)
	b, ok2 := inodeOf(target)
	return ok1 && ok2 && a == b
}

// hardlinkCheck is _hardlink_check, the test-mode prediction.
func hardlinkCheck(name, target string, force bool) (any, string, *value.Map) {
	changes := value.NewMap(0)
	switch {
	case !exists(target):
		return false, fmt.Sprintf("Target %s for hard link does not exist", target), changes
	case isDir(target):
		return false, fmt.Sprintf("Unable to hard link from directory %s", target), changes
	case isDir(name):
		return false, fmt.Sprintf("Unable to hard link to directory %s", name), changes
	case !exists(name):
		changes.Set("new", name)
		return nil, fmt.Sprintf("Hard link %s to %s is set for creation", name, target), changes
	case isHardlink(name):
		if hardlinkSame(name, target) {
			return true, fmt.Sprintf("The hard link %s is presently targetting %s", name, target), changes
		}
		changes.Set("change", name)
		return nil, fmt.Sprintf("Link %s target is set to be changed to %s", name, target), changes
	case force:
		return nil, fmt.Sprintf("The file or directory %s is set for removal to make way for a new hard link targeting %s", name, target), changes
	}
	return false, fmt.Sprintf("File or directory exists where the hard link %s should be. Did you mean to use force?", name), changes
}

// linkErr words a failed file.link as its CommandExecutionError.
func linkErr(target, name string, err error) string {
	var le *os.LinkError
	if e, ok := err.(*os.LinkError); ok {
		le = e
	}
	if le != nil {
		if errno, ok := le.Err.(syscall.Errno); ok {
			msg := errno.Error()
			return fmt.Sprintf("Could not create '%s': [Errno %d] %s: %s -> %s", name, int(errno), strings.ToUpper(msg[:1])+msg[1:], value.Repr(target), value.Repr(name))
		}
	}
	return fmt.Sprintf("Could not create '%s': %v", name, err)
}

func fileHardlink(c *statemod.Call) (*value.Map, error) {
	name := fileops.ExpandUser(c.Str("name"))
	target := c.Str("target")
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	if name == "" {
		return fileErr(ret, "Must provide name to file.hardlink")
	}
	user := c.Get("user")
	if user == nil {
		if u, ok := c.ExtraKwargs().Get("owner"); ok {
			user = u
		}
	}
	if user == nil {
		user = c.Opt("user")
		if user == nil {
			user = "root"
		}
	}
	group := c.Get("group")
	if group == nil {
		// gid_to_group(user.info(user).get("gid", 0))
		gid := 0
		if uid, ok := fileops.ResolveUID(user); ok {
			if g, err := lookupUserGID(uid); err == nil {
				gid = g
			}
		}
		name := fileops.GroupName(gid)
		group = name
		if n, err := strconv.Atoi(name); err == nil {
			group = int64(n)
		}
	}
	var errs []string
	if _, ok := fileops.ResolveUID(user); !ok {
		errs = append(errs, fmt.Sprintf("User %s does not exist", value.Str(user)))
	}
	if _, ok := fileops.ResolveGID(group); !ok {
		errs = append(errs, fmt.Sprintf("Group %s does not exist", value.Str(group)))
	}
	if !filepath.IsAbs(name) {
		errs = append(errs, fmt.Sprintf("Specified file %s is not an absolute path", name))
	}
	if !filepath.IsAbs(target) {
		errs = append(errs, fmt.Sprintf("Specified target %s is not an absolute path", target))
	}
	if len(errs) > 0 {
		msg := strings.Join(errs, ". ")
		if len(errs) > 1 {
			msg += "."
		}
		return fileErr(ret, msg)
	}
	force := c.Bool("force")
	if c.Test {
		res, comment, changes := hardlinkCheck(name, target, force)
		ret.Set("result", res)
		ret.Set("comment", comment)
		ret.Set("changes", changes)
		return ret, nil
	}
	for _, it := range [][2]string{{"to", name}, {"from", target}} {
		if isDir(it[1]) {
			return fileErr(ret, fmt.Sprintf("Unable to hard link %s directory %s", it[0], it[1]))
		}
	}
	if !exists(target) {
		return fileErr(ret, fmt.Sprintf("Target %s for hard link does not exist", target))
	}
	if dir := filepath.Dir(name); !isDir(dir) {
		if !c.Bool("makedirs") {
			return fileErr(ret, fmt.Sprintf("Directory %s for hard link is not present", dir))
		}
		if err := fileops.Makedirs(name, user, group, fileops.NormalizeMode(c.Get("dir_mode"))); err != nil {
			return nil, err
		}
	}
	changes := mapGet(ret, "changes").(*value.Map)
	if isFile(name) && !isHardlink(name) {
		if !force {
			return fileErr(ret, fmt.Sprintf("File exists where the hard link %s should be", name))
		}
		if err := os.Remove(name); err != nil {
			return nil, err
		}
		changes.Set("forced", "File for hard link was forcibly replaced")
	}
	if isHardlink(name) {
		if hardlinkSame(name, target) {
			ret.Set("result", true)
			ret.Set("comment", fmt.Sprintf("Target of hard link %s is already pointing to %s", name, target))
			return ret, nil
		}
		if err := os.Remove(name); err != nil {
			return nil, err
		}
		if err := os.Link(target, name); err != nil {
			ret.Set("result", false)
			ret.Set("comment", fmt.Sprintf("Unable to set target of hard link %s -> %s: %s", name, target, linkErr(target, name, err)))
			return ret, nil
		}
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("Set target of hard link %s -> %s", name, target))
		changes.Set("new", name)
	} else if !exists(name) {
		if err := os.Link(target, name); err != nil {
			ret.Set("result", false)
			ret.Set("comment", fmt.Sprintf("Unable to create new hard link %s -> %s: %s", name, target, linkErr(target, name, err)))
			return ret, nil
		}
		ret.Set("result", true)
		ret.Set("comment", fmt.Sprintf("Created new hard link %s -> %s", name, target))
		changes.Set("new", name)
	}
	return ret, nil
}
