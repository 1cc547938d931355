package states

// file_tidied.go is file.tidied of salt/states/file.py: remove the files
// (and optionally directories) under a directory that match by name, age
// and size.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"brine/internal/fileops"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "file.tidied", Kwargs: true, Run: fileTidied,
		Doc: "Remove unwanted files based on specific criteria.",
		Params: []statemod.Param{statemod.Req("name"), p("age", int64(0)), p("matches", nil), p("rmdirs", false),
			p("size", int64(0)), p("exclude", nil), p("full_path_match", false), p("followlinks", false),
			p("time_comparison", "atime"), p("age_size_logical_operator", "OR"), p("age_size_only", nil), p("rmlinks", true)}})
}

// humanToBytes is salt.utils.stringutils.human_to_bytes with
// handle_metric=True: "10M" is 10*1024**2, "10MB" 10*1000**2; 0 when the
// string does not parse.
func humanToBytes(s string) int64 {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0
	}
	var n int64
	fmt.Sscan(s[:i], &n)
	unit := strings.ToUpper(strings.TrimSpace(s[i:]))
	if unit == "" {
		return n
	}
	exp := strings.Index("BKMGTP", unit[:1])
	if exp < 0 {
		return 0
	}
	base := int64(1024)
	switch {
	case len(unit) == 1 || unit == "B":
	case len(unit) == 2 && unit[1] == 'B':
		base = 1000
	case len(unit) == 3 && unit[1:] == "IB":
	default:
		return 0
	}
	for ; exp > 0; exp-- {
		n *= base
	}
	return n
}

// pyWalkBottomUp is os.walk(top, topdown=False): each directory's entries
// (files, then subdirectories, in directory order) after its
// subdirectories' own.
func pyWalkBottomUp(top string, followlinks bool, visit func(root string, names []string)) {
	f, err := os.Open(top)
	if err != nil {
		return
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return
	}
	var files, dirs []string
	for _, e := range ents {
		full := filepath.Join(top, e.Name())
		if fi, err := os.Stat(full); err == nil && fi.IsDir() {
			dirs = append(dirs, e.Name())
		} else {
			files = append(files, e.Name())
		}
	}
	for _, d := range dirs {
		full := filepath.Join(top, d)
		if followlinks || !isLink(full) {
			pyWalkBottomUp(full, followlinks, visit)
		}
	}
	visit(top, append(files, dirs...))
}

func fileTidied(c *statemod.Call) (*value.Map, error) {
	name := fileops.ExpandUser(c.Str("name"))
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	op := strings.ToUpper(c.Str("age_size_logical_operator"))
	if op != "AND" && op != "OR" {
		op = "OR"
	}
	only := ""
	if v := c.Get("age_size_only"); value.Truthy(v) {
		only = strings.ToLower(value.Str(v))
		if only != "age" && only != "size" {
			only = ""
		}
	}
	if !filepath.IsAbs(name) {
		return fileErr(ret, fmt.Sprintf("Specified file %s is not an absolute path", name))
	}
	if !isDir(name) {
		return fileErr(ret, fmt.Sprintf("%s does not exist or is not a directory.", name))
	}
	cmp := "atime"
	if s, ok := c.Get("time_comparison").(string); ok {
		switch strings.ToLower(s) {
		case "ctime", "mtime", "atime":
			cmp = strings.ToLower(s)
		}
	}
	var size int64
	switch s := c.Get("size").(type) {
	case string:
		size = humanToBytes(s)
	default:
		size = int64(value.ToFloat(s))
	}
	age := int64(value.ToFloat(c.Get("age")))
	compile := func(v any) ([]*regexp.Regexp, error) {
		var out []*regexp.Regexp
		var items []any
		switch x := v.(type) {
		case nil:
		case *value.List:
			items = x.Items
		case string:
			// A string iterates by character in Python.
			for _, r := range x {
				items = append(items, string(r))
			}
		default:
			items = []any{x}
		}
		for _, it := range items {
			re, err := regexp.Compile(value.Str(it))
			if err != nil {
				return nil, err
			}
			out = append(out, re)
		}
		return out, nil
	}
	matchesArg := c.Get("matches")
	if matchesArg == nil {
		matchesArg = value.NewList(".*")
	}
	progs, err := compile(matchesArg)
	if err != nil {
		return nil, err
	}
	exes, err := compile(c.Get("exclude"))
	if err != nil {
		return nil, err
	}
	// re.match: anchored at the start only.
	atStart := func(re *regexp.Regexp, s string) bool {
		loc := re.FindStringIndex(s)
		return loc != nil && loc[0] == 0
	}
	matches := func(n string) bool {
		for _, p := range progs {
			if atStart(p, n) {
				for _, e := range exes {
					if atStart(e, n) {
						return false
					}
				}
				return true
			}
		}
		return false
	}
	today := civilDay(time.Now())
	rmdirs, rmlinks, fullPath := c.Bool("rmdirs"), c.Bool("rmlinks"), c.Bool("full_path_match")
	var todelete []string
	pyWalkBottomUp(name, c.Bool("followlinks"), func(root string, names []string) {
		for _, elem := range names {
			path := filepath.Join(root, elem)
			var st syscall.Stat_t
			deleteme := true
			var mysize int64
			if isLink(path) {
				deleteme = rmlinks
				if syscall.Lstat(path, &st) != nil {
					continue
				}
			} else {
				if syscall.Stat(path, &st) != nil {
					continue
				}
				if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
					deleteme = rmdirs
				} else {
					mysize = st.Size
				}
			}
			ts := st.Atim
			switch cmp {
			case "ctime":
				ts = st.Ctim
			case "mtime":
				ts = st.Mtim
			}
			days := today - civilDay(time.Unix(ts.Sec, 0))
			if days < 0 {
				days = -days
			}
			filename := elem
			if fullPath {
				filename = path
			}
			var ok bool
			switch {
			case only == "age":
				ok = days >= age
			case only == "size":
				ok = mysize >= size
			case op == "AND":
				ok = mysize >= size && days >= age
			default:
				ok = mysize >= size || days >= age
			}
			if ok && matches(filename) && deleteme {
				todelete = append(todelete, path)
			}
		}
	})
	if len(todelete) == 0 {
		ret.Set("comment", fmt.Sprintf("Nothing to remove from directory %s", name))
		return ret, nil
	}
	removed := value.NewList()
	for _, p := range todelete {
		removed.Append(p)
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", fmt.Sprintf("%s is set for tidy", name))
		ret.Set("changes", value.MapOf("removed", removed))
		return ret, nil
	}
	done := value.NewList()
	mapGet(ret, "changes").(*value.Map).Set("removed", done)
	for _, p := range todelete {
		var err error
		if isLink(p) || !isDir(p) {
			err = os.Remove(p)
		} else {
			err = os.RemoveAll(p)
		}
		if err != nil && !os.IsNotExist(err) {
			return fileErr(ret, fmt.Sprintf("Could not remove '%s': %v", p, fileops.PyOSError(err)))
		}
		done.Append(p)
	}
	ret.Set("comment", fmt.Sprintf("Removed %d files or directories from directory %s", len(todelete), name))
	return ret, nil
}

// civilDay numbers local calendar days (date.fromtimestamp's date).
func civilDay(t time.Time) int64 {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}
