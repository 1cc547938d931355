package states

// Helpers shared by the file state functions: Salt's file.stats,
// file.check_perms, salt.utils.files.copyfile (atomic replace),
// file.makedirs_ and normalize_mode.

import (
	"fmt"
	"os"
	"os/user"
	"regexp"
	"strconv"
	"strings"

	"brine/internal/fileops"
	"brine/internal/match"
	"brine/internal/value"
)

// checkUser is the file states' _check_user: "" when user and group exist,
// and always "" in test mode, where a user or group that an earlier state
// would create may be missing yet.
func checkUser(u, g any, test bool) string {
	if test {
		return ""
	}
	// Salt ends the user message with a space even when no group message
	// follows it; comments keep that space.
	var err string
	if value.Truthy(u) {
		if _, ok := fileops.ResolveUID(u); !ok {
			err += fmt.Sprintf("User %s is not available ", value.Str(u))
		}
	}
	if value.Truthy(g) {
		if _, ok := fileops.ResolveGID(g); !ok {
			err += fmt.Sprintf("Group %s is not available", value.Str(g))
		}
	}
	return err
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

// lookupUserGID returns the primary group id of uid.
func lookupUserGID(uid int) (int, error) {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(u.Gid)
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
