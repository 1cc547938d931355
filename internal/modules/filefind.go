package modules

// filefind.go is salt/utils/find.py behind file.find: a find(1)-like walk
// with match criteria (name, type, size, ...) and actions (print, delete).

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/value"
)

// findStat is the part of a stat result find options look at.
type findStat struct {
	mode     uint32 // st_mode, file type bits included
	uid, gid uint32
	size     int64
	mtime    int64
}

// findStatOf is os.stat falling back to os.lstat (a broken symlink).
func findStatOf(path string) (*findStat, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		if err := syscall.Lstat(path, &st); err != nil {
			return nil, fileops.PyOSError(&os.PathError{Op: "lstat", Path: path, Err: err})
		}
	}
	return &findStat{mode: st.Mode, uid: st.Uid, gid: st.Gid, size: st.Size, mtime: st.Mtim.Sec}, nil
}

// findTypes maps find's type letters to S_IFMT values and back.
var findTypes = map[byte]uint32{
	'b': syscall.S_IFBLK, 'c': syscall.S_IFCHR, 'd': syscall.S_IFDIR, 'f': syscall.S_IFREG,
	'l': syscall.S_IFLNK, 'p': syscall.S_IFIFO, 's': syscall.S_IFSOCK,
}

func findTypeLetter(mode uint32) string {
	for l, t := range findTypes {
		if mode&syscall.S_IFMT == t {
			return string(l)
		}
	}
	return "?"
}

// findCriterion decides whether one entry matches. needStat criteria get a
// stat result; the others get nil.
type findCriterion struct {
	needStat bool
	match    func(dir, name string, st *findStat) (bool, error)
}

// findAction produces the result of a matching entry (nil for none).
type findAction struct {
	needStat bool
	run      func(full string, st *findStat, test bool) (any, error)
}

type finder struct {
	criteria           []findCriterion
	actions            []findAction
	mindepth, maxdepth int64 // maxdepth < 0: unlimited
	test               bool
}

// newFinder builds a finder from file.find's keyword options. A bad option
// is an error whose message file.find returns as "error: <msg>".
func newFinder(opts *value.Map) (*finder, error) {
	f := &finder{maxdepth: -1}
	var pathCrit, statCrit, contentCrit []findCriterion
	var err error
	opts.Range(func(k, v any) bool {
		key := execmod.String(k)
		switch key {
		case "mindepth", "maxdepth":
			var n int64
			if n, err = findInt(key, v); err == nil {
				if key == "mindepth" {
					f.mindepth = n
				} else {
					f.maxdepth = n
				}
			}
			return err == nil
		case "test":
			f.test = value.Truthy(v)
			return true
		}
		if strings.HasPrefix(key, "_") {
			return true
		}
		if !value.Truthy(v) {
			err = fmt.Errorf("missing value for %q option", key)
			return false
		}
		val := execmod.String(v)
		var c *findCriterion
		var a *findAction
		switch strings.ToLower(key) {
		case "name", "iname":
			c, err = findRegexOpt(globToFindRegex(val), key == "iname", val)
		case "regex", "iregex":
			c, err = findRegexOpt(val, strings.ToLower(key) == "iregex", val)
		case "type":
			c, err = findTypeOpt(val)
		case "owner":
			c, err = findOwnerOpt(val)
		case "group":
			c, err = findGroupOpt(val)
		case "size":
			c, err = findSizeOpt(val)
		case "mtime":
			c, err = findMtimeOpt(val)
		case "grep":
			c, err = findGrepOpt(val)
		case "print":
			a = findPrintOpt(val)
		case "delete":
			if strings.Contains(val, "a") {
				val = "bcdpfls"
			}
			var tc *findCriterion
			if tc, err = findTypeOpt(val); err == nil {
				c, a = tc, &findAction{needStat: true, run: findDelete}
			}
		case "exec":
			err = fmt.Errorf("the exec option is not supported by brine")
		default:
			err = fmt.Errorf("invalid option %q", key)
		}
		if err != nil {
			return false
		}
		if c != nil {
			switch {
			case strings.ToLower(key) == "grep":
				contentCrit = append(contentCrit, *c)
			case c.needStat:
				statCrit = append(statCrit, *c)
			default:
				pathCrit = append(pathCrit, *c)
			}
		}
		if a != nil {
			f.actions = append(f.actions, *a)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if len(f.actions) == 0 {
		f.actions = append(f.actions, *findPrintOpt(""))
	}
	f.criteria = append(append(pathCrit, statCrit...), contentCrit...)
	return f, nil
}

func findInt(key string, v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case string:
		if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("invalid value for %q option: %s", key, value.Repr(v))
}

// globToFindRegex is NameOption's translation: "." escaped, "?" and "*"
// made regex wildcards, anchored at the end.
func globToFindRegex(g string) string {
	g = strings.ReplaceAll(g, ".", `\.`)
	g = strings.ReplaceAll(g, "?", ".?")
	g = strings.ReplaceAll(g, "*", ".*")
	return g + "$"
}

// findRegexOpt matches the base name with re.match (anchored at the start).
func findRegexOpt(pat string, fold bool, orig string) (*findCriterion, error) {
	flags := ""
	if fold {
		flags = "(?i)"
	}
	re, err := regexp.Compile(flags + "^(?:" + pat + ")")
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression: %q", orig)
	}
	return &findCriterion{match: func(_, name string, _ *findStat) (bool, error) {
		return re.MatchString(name), nil
	}}, nil
}

func findTypeOpt(val string) (*findCriterion, error) {
	letters := strings.Join(strings.Fields(strings.ReplaceAll(val, ",", "")), "")
	want := map[uint32]bool{}
	for i := 0; i < len(letters); i++ {
		t, ok := findTypes[letters[i]]
		if !ok {
			return nil, fmt.Errorf("invalid file type %q", letters[i:i+1])
		}
		want[t] = true
	}
	return &findCriterion{needStat: true, match: func(_, _ string, st *findStat) (bool, error) {
		return want[st.mode&syscall.S_IFMT], nil
	}}, nil
}

func findOwnerOpt(val string) (*findCriterion, error) {
	uids := map[uint32]bool{}
	for _, name := range strings.Fields(strings.ReplaceAll(val, ",", " ")) {
		if n, err := strconv.ParseUint(name, 10, 32); err == nil {
			uids[uint32(n)] = true
			continue
		}
		u, ok, _ := userDB(nil).User(name)
		if !ok {
			return nil, fmt.Errorf("no such user %q", name)
		}
		uids[uint32(u.UID)] = true
	}
	return &findCriterion{needStat: true, match: func(_, _ string, st *findStat) (bool, error) {
		return uids[st.uid], nil
	}}, nil
}

func findGroupOpt(val string) (*findCriterion, error) {
	gids := map[uint32]bool{}
	for _, name := range strings.Fields(strings.ReplaceAll(val, ",", " ")) {
		if n, err := strconv.ParseUint(name, 10, 32); err == nil {
			gids[uint32(n)] = true
			continue
		}
		g, ok, _ := userDB(nil).Group(name)
		if !ok {
			return nil, fmt.Errorf("no such group %q", name)
		}
		gids[uint32(g.GID)] = true
	}
	return &findCriterion{needStat: true, match: func(_, _ string, st *findStat) (bool, error) {
		return gids[st.gid], nil
	}}, nil
}

// findSizeOpt parses [+-]number[bkmgt]: "-" is at most, "+" at least,
// none is the size rounded up to the unit.
func findSizeOpt(val string) (*findCriterion, error) {
	s := strings.TrimSpace(val)
	style := byte('=')
	if s != "" && (s[0] == '-' || s[0] == '+') {
		style, s = s[0], s[1:]
	}
	mult := int64(1)
	if s != "" {
		switch strings.ToLower(s[len(s)-1:]) {
		case "b":
			mult = 1
		case "k":
			mult = 1 << 10
		case "m":
			mult = 1 << 20
		case "g":
			mult = 1 << 30
		case "t":
			mult = 1 << 40
		default:
			mult = 0
		}
		if mult != 0 {
			s = strings.TrimSpace(s[:len(s)-1])
		} else {
			mult = 1
		}
	}
	var num int64
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		num = n * mult
	} else if fl, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(fl, 0) && !math.IsNaN(fl) {
		num = int64(fl * float64(mult))
	} else {
		return nil, fmt.Errorf("invalid size: %q", val)
	}
	lo, hi := num, num+mult-1
	switch style {
	case '-':
		lo, hi = 0, num
	case '+':
		hi = math.MaxInt64
	}
	return &findCriterion{needStat: true, match: func(_, _ string, st *findStat) (bool, error) {
		return lo <= st.size && st.size <= hi, nil
	}}, nil
}

var findIntervalRe = regexp.MustCompile(`^\s*([+-]?)(?:(\d+(?:\.\d*)?)\s*[wW])?\s*(?:(\d+(?:\.\d*)?)\s*[dD])?\s*(?:(\d+(?:\.\d*)?)\s*[hH])?\s*(?:(\d+(?:\.\d*)?)\s*[mM])?\s*(?:(\d+(?:\.\d*)?)\s*[sS])?\s*$`)

// findMtimeOpt matches files modified before (or with "-", since) now
// minus the interval, truncated to its smallest unit.
func findMtimeOpt(val string) (*findCriterion, error) {
	m := findIntervalRe.FindStringSubmatch(val)
	if m == nil {
		return nil, fmt.Errorf("invalid time interval: '%s'", val)
	}
	units := []float64{60 * 60 * 24 * 7, 60 * 60 * 24, 60 * 60, 60, 1}
	secs, res := 0.0, 0.0
	for i := len(units) - 1; i >= 0; i-- {
		if g := m[2+i]; g != "" {
			n, _ := strconv.ParseFloat(g, 64)
			secs += n * units[i]
			if res == 0 {
				res = units[i]
			}
		}
	}
	if res == 0 {
		return nil, fmt.Errorf("invalid time interval: '%s'", val)
	}
	since := float64(time.Now().UnixNano())/1e9 - math.Trunc(secs/res)*res
	older := m[1] != "-"
	return &findCriterion{needStat: true, match: func(_, _ string, st *findStat) (bool, error) {
		if older {
			return float64(st.mtime) <= since, nil
		}
		return float64(st.mtime) >= since, nil
	}}, nil
}

func findGrepOpt(val string) (*findCriterion, error) {
	re, err := regexp.Compile(val)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression: %q", val)
	}
	return &findCriterion{needStat: true, match: func(dir, name string, st *findStat) (bool, error) {
		if st.mode&syscall.S_IFMT != syscall.S_IFREG {
			return false, nil
		}
		data, err := os.ReadFile(pyJoin(dir, name))
		if err != nil {
			return false, fileops.PyOSError(err)
		}
		return re.Match(data), nil
	}}, nil
}

// findPrintOpt returns the fields named in val for each match: one value,
// or a list of them when several are asked for.
func findPrintOpt(val string) *findAction {
	fields := strings.Fields(strings.ReplaceAll(val, ",", " "))
	needStat := false
	for _, f := range fields {
		if f != "name" && f != "path" {
			needStat = true
		}
	}
	if len(fields) == 0 {
		fields = []string{"path"}
	}
	return &findAction{needStat: needStat, run: func(full string, st *findStat, _ bool) (any, error) {
		out := make([]any, 0, len(fields))
		for _, f := range fields {
			switch f {
			case "path":
				out = append(out, full)
			case "name":
				out = append(out, full[strings.LastIndexByte(full, '/')+1:])
			case "size":
				out = append(out, st.size)
			case "type":
				out = append(out, findTypeLetter(st.mode))
			case "mode":
				out = append(out, int64(st.mode&0o777))
			case "mtime":
				out = append(out, st.mtime)
			case "user":
				out = append(out, uidToUser(int64(st.uid)))
			case "group":
				out = append(out, gidToGroup(int64(st.gid)))
			case "md5":
				sum := ""
				if st.mode&syscall.S_IFMT == syscall.S_IFREG {
					var err error
					if sum, err = fileHash(full, "md5"); err != nil {
						return nil, err
					}
				}
				out = append(out, sum)
			}
		}
		switch len(out) {
		case 0:
			return value.NewList(), nil
		case 1:
			return out[0], nil
		}
		return value.NewList(out...), nil
	}}
}

// gidToGroup is the group name of gid, or gid itself when no group has it.
func gidToGroup(gid int64) any {
	if g, ok, _ := userDB(nil).GroupByGID(gid); ok {
		return g.Name
	}
	return gid
}

func findDelete(full string, _ *findStat, test bool) (any, error) {
	if test {
		return full, nil
	}
	fi, err := os.Lstat(full)
	if err != nil {
		return nil, nil
	}
	if fi.IsDir() {
		err = os.RemoveAll(full)
	} else {
		err = os.Remove(full)
	}
	if err != nil {
		return nil, nil
	}
	return full, nil
}

// pyJoin is os.path.join of two components.
func pyJoin(a, b string) string {
	switch {
	case strings.HasPrefix(b, "/"):
		return b
	case a == "" || strings.HasSuffix(a, "/"):
		return a + b
	}
	return a + "/" + b
}

// check runs the criteria on one entry.
func (f *finder) check(dir, name, full string) (bool, *findStat, error) {
	var st *findStat
	for _, c := range f.criteria {
		if c.needStat && st == nil {
			var err error
			if st, err = findStatOf(full); err != nil {
				return false, nil, err
			}
		}
		ok, err := c.match(dir, name, st)
		if err != nil || !ok {
			return false, st, err
		}
	}
	return true, st, nil
}

func (f *finder) act(full string, st *findStat, out []any) ([]any, error) {
	for _, a := range f.actions {
		if a.needStat && st == nil {
			var err error
			if st, err = findStatOf(full); err != nil {
				return out, err
			}
		}
		r, err := a.run(full, st, f.test)
		if err != nil {
			return out, err
		}
		if r != nil {
			out = append(out, r)
		}
	}
	return out, nil
}

func (f *finder) visit(full, dir, name string, out []any) ([]any, error) {
	ok, st, err := f.check(dir, name, full)
	if err != nil || !ok {
		return out, err
	}
	return f.act(full, st, out)
}

// find returns the results for path: path itself when mindepth < 1, then
// everything below it within the depth limits (symlinked directories are
// listed, not entered, as os.walk does).
func (f *finder) find(path string, out []any) ([]any, error) {
	var err error
	if f.mindepth < 1 {
		i := strings.LastIndexByte(path, '/')
		dir := pyDirname(path)
		if out, err = f.visit(path, dir, path[i+1:], out); err != nil {
			return out, err
		}
	}
	var walk func(dir string, depth int64) error
	walk = func(dir string, depth int64) error {
		d, err := os.Open(dir)
		if err != nil {
			return nil // os.walk ignores unreadable directories
		}
		names, _ := d.Readdirnames(-1)
		d.Close()
		inRange := depth >= f.mindepth && (f.maxdepth < 0 || depth <= f.maxdepth)
		var subdirs []string
		for _, n := range names {
			full := pyJoin(dir, n)
			if inRange {
				if out, err = f.visit(full, dir, n, out); err != nil {
					return err
				}
			}
			if fi, err := os.Lstat(full); err == nil && fi.IsDir() {
				subdirs = append(subdirs, full)
			}
		}
		if f.maxdepth >= 0 && depth > f.maxdepth {
			return nil
		}
		for _, s := range subdirs {
			if err := walk(s, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
		err = walk(path, 1)
	}
	return out, err
}

func fileFind(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if len(args) == 0 {
		if p, ok := kwargs.Get("path"); ok {
			args = []any{p}
		} else {
			return nil, &pyTypeError{msg: "find() missing 1 required positional argument: 'path'"}
		}
	}
	p, err := pathArg(args[0])
	if err != nil {
		return nil, err
	}
	opts := value.NewMap(kwargs.Len())
	kwargs.Range(func(k, v any) bool {
		if ks, _ := k.(string); ks != "path" && !strings.HasPrefix(ks, "__pub_") {
			opts.Set(k, v)
		}
		return true
	})
	if slicesContain(args[1:], "delete") {
		opts.Set("delete", "f")
	} else if slicesContain(args[1:], "print") {
		opts.Set("print", "path")
	}
	f, err := newFinder(opts)
	if err != nil {
		return "error: " + err.Error(), nil
	}
	paths, _ := filepath.Glob(expandUser(p))
	var out []any
	for _, path := range paths {
		if out, err = f.find(path, out); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return pyLess(out[i], out[j]) })
	return value.NewList(out...), nil
}

// pyLess orders find results as Python's sort does for strings, integers
// and lists of them.
func pyLess(a, b any) bool {
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return x < y
		}
	case int64:
		if y, ok := b.(int64); ok {
			return x < y
		}
	case *value.List:
		if y, ok := b.(*value.List); ok {
			for i := 0; i < len(x.Items) && i < len(y.Items); i++ {
				if pyLess(x.Items[i], y.Items[i]) {
					return true
				}
				if pyLess(y.Items[i], x.Items[i]) {
					return false
				}
			}
			return len(x.Items) < len(y.Items)
		}
	}
	return false
}

func slicesContain(xs []any, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
