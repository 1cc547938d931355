package states

// file_retention.go is file.retention_schedule of salt/states/file.py:
// keep the files of a backup directory a retention schedule asks for
// (most_recent, first_of_hour/day/week/month/year) and remove the rest.

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

	"brine/internal/fileops"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "file.retention_schedule", Run: fileRetentionSchedule,
		Doc:    "Apply retention scheduling to backup storage directory.",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("retain"), p("strptime_format", nil), p("timezone", nil)}})
}

// strptimeDirectives are the patterns of Python's _strptime.TimeRE (C
// locale names).
var strptimeDirectives = map[byte]string{
	'd': `(?P<d>3[01]|[12]\d|0[1-9]|[1-9]| [1-9])`,
	'f': `(?P<f>[0-9]{1,6})`,
	'H': `(?P<H>2[0-3]|[0-1]\d|\d)`,
	'I': `(?P<I>1[0-2]|0[1-9]|[1-9])`,
	'j': `(?P<j>36[0-6]|3[0-5]\d|[12]\d\d|0[1-9]\d|00[1-9]|[1-9]\d|0[1-9]|[1-9])`,
	'm': `(?P<m>1[0-2]|0[1-9]|[1-9])`,
	'M': `(?P<M>[0-5]\d|\d)`,
	'S': `(?P<S>6[0-1]|[0-5]\d|\d)`,
	'w': `(?P<w>[0-6])`,
	'u': `(?P<u>[1-7])`,
	'y': `(?P<y>\d\d)`,
	'Y': `(?P<Y>\d\d\d\d)`,
	'a': `(?P<a>mon|tue|wed|thu|fri|sat|sun)`,
	'A': `(?P<A>monday|tuesday|wednesday|thursday|friday|saturday|sunday)`,
	'b': `(?P<b>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)`,
	'B': `(?P<B>january|february|march|april|may|june|july|august|september|october|november|december)`,
	'p': `(?P<p>am|pm)`,
	'%': `%`,
}

var monthAbbr = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// compileStrptime turns a strptime format into a regular expression as
// _strptime does; unsupported directives are an error.
func compileStrptime(format string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString(`(?i)^`)
	for i := 0; i < len(format); i++ {
		c := format[i]
		switch {
		case c == '%' && i+1 < len(format):
			pat, ok := strptimeDirectives[format[i+1]]
			if !ok {
				return nil, fmt.Errorf("'%c' is a bad directive in format '%s'", format[i+1], format)
			}
			b.WriteString(pat)
			i++
		case c == ' ' || c == '\t' || c == '\n':
			for i+1 < len(format) && strings.IndexByte(" \t\n", format[i+1]) >= 0 {
				i++
			}
			b.WriteString(`\s+`)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`$`)
	return regexp.Compile(b.String())
}

// pyStrptime is datetime.strptime for the directives above; ok is false
// when s does not match (Python's ValueError).
func pyStrptime(re *regexp.Regexp, s string) (time.Time, bool) {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	get := map[string]string{}
	for i, n := range re.SubexpNames() {
		if n != "" && m[i] != "" {
			get[n] = strings.TrimSpace(m[i])
		}
	}
	num := func(k string, def int) int {
		if v, ok := get[k]; ok {
			n, _ := strconv.Atoi(v)
			return n
		}
		return def
	}
	year, month, day := num("Y", 1900), num("m", 1), num("d", 1)
	if y, ok := get["y"]; ok {
		n, _ := strconv.Atoi(y)
		if n <= 68 {
			year = 2000 + n
		} else {
			year = 1900 + n
		}
	}
	for _, k := range []string{"b", "B"} {
		if v, ok := get[k]; ok {
			for i, a := range monthAbbr {
				if strings.HasPrefix(strings.ToLower(v), a) {
					month = i + 1
				}
			}
		}
	}
	hour := num("H", 0)
	if h, ok := get["I"]; ok {
		n, _ := strconv.Atoi(h)
		hour = n % 12
		if strings.EqualFold(get["p"], "pm") {
			hour += 12
		}
	}
	usec := 0
	if f, ok := get["f"]; ok {
		usec, _ = strconv.Atoi(f + strings.Repeat("0", 6-len(f)))
	}
	if j, ok := get["j"]; ok {
		if _, hasM := get["m"]; !hasM {
			n, _ := strconv.Atoi(j)
			t := time.Date(year, 1, 1, hour, num("M", 0), num("S", 0), usec*1000, time.UTC).AddDate(0, 0, n-1)
			return t, true
		}
	}
	t := time.Date(year, time.Month(month), day, hour, num("M", 0), num("S", 0), usec*1000, time.UTC)
	if t.Day() != day || int(t.Month()) != month {
		return time.Time{}, false // "day is out of range for month"
	}
	return t, true
}

// retentionTree is Salt's nested defaultdict: keys down to the file's
// epoch, then the file name.
type retentionTree struct {
	sub  map[float64]*retentionTree
	file string
}

func (t *retentionTree) add(keys []float64, f string) {
	if len(keys) == 0 {
		t.file = f
		return
	}
	if t.sub == nil {
		t.sub = map[float64]*retentionTree{}
	}
	c := t.sub[keys[0]]
	if c == nil {
		c = &retentionTree{}
		t.sub[keys[0]] = c
	}
	c.add(keys[1:], f)
}

func (t *retentionTree) keys(reverse bool) []float64 {
	ks := make([]float64, 0, len(t.sub))
	for k := range t.sub {
		ks = append(ks, k)
	}
	sort.Float64s(ks)
	if reverse {
		for i, j := 0, len(ks)-1; i < j; i, j = i+1, j-1 {
			ks[i], ks[j] = ks[j], ks[i]
		}
	}
	return ks
}

// first is get_first: the earliest file under t.
func (t *retentionTree) first() string {
	if t.sub == nil {
		return t.file
	}
	return t.sub[t.keys(false)[0]].first()
}

// firstN is get_first_n_at_depth.
func (t *retentionTree) firstN(depth, n int, out map[string]bool) map[string]bool {
	if out == nil {
		out = map[string]bool{}
	}
	if depth <= 0 || t.sub == nil {
		out[t.first()] = true
		return out
	}
	got := map[string]bool{}
	for _, k := range t.keys(true) {
		if n-len(got) < 1 {
			break
		}
		for f := range t.sub[k].firstN(depth-1, n-len(got), nil) {
			got[f] = true
		}
	}
	for f := range got {
		out[f] = true
	}
	return out
}

var retainDepth = map[string]int{"first_of_year": 1, "first_of_month": 2, "first_of_day": 3, "first_of_hour": 4, "most_recent": 5}

func sortedDesc(set map[string]bool) *value.List {
	xs := make([]string, 0, len(set))
	for f := range set {
		xs = append(xs, f)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(xs)))
	l := value.NewList()
	for _, x := range xs {
		l.Append(x)
	}
	return l
}

func fileRetentionSchedule(c *statemod.Call) (*value.Map, error) {
	name := fileops.ExpandUser(c.Str("name"))
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	if name == "" {
		return fileErr(ret, "Must provide name to file.retention_schedule")
	}
	if !isDir(name) {
		return fileErr(ret, "Name provided to file.retention must be a directory")
	}
	retain, ok := c.Get("retain").(*value.Map)
	if !ok {
		return nil, fmt.Errorf("AttributeError: '%s' object has no attribute 'items'", value.TypeName(c.Get("retain")))
	}
	if c.Get("timezone") != nil {
		return nil, fmt.Errorf("TypeError: tzinfo argument must be None or of a tzinfo subclass, not type '%s'", value.TypeName(c.Get("timezone")))
	}
	var format *regexp.Regexp
	if f := c.Get("strptime_format"); value.Truthy(f) {
		re, err := compileStrptime(value.Str(f))
		if err != nil {
			return nil, fmt.Errorf("ValueError: %v", err)
		}
		format = re
	}
	d, err := os.Open(name)
	if err != nil {
		return nil, fileops.PyOSError(err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, fileops.PyOSError(err)
	}
	names = append([]string{".", ".."}, names...)
	byYMD, byWeek := &retentionTree{}, &retentionTree{}
	relevant, ignored := map[string]bool{}, map[string]bool{}
	for _, f := range names {
		var ts time.Time
		var epoch float64
		found := false
		if format != nil {
			if t, ok := pyStrptime(format, f); ok {
				ts, epoch, found = t, float64(t.Unix())+float64(t.Nanosecond())/1e9, true
			}
		} else if f != "." && f != ".." {
			var st syscall.Stat_t
			if syscall.Lstat(filepath.Join(name, f), &st) == nil {
				epoch = float64(st.Mtim.Sec) + float64(st.Mtim.Nsec)/1e9
				ts, found = time.Unix(st.Mtim.Sec, st.Mtim.Nsec), true
			}
		}
		if !found {
			ignored[f] = true
			continue
		}
		byYMD.add([]float64{float64(ts.Year()), float64(ts.Month()), float64(ts.Day()), float64(ts.Hour()), epoch}, f)
		_, week := ts.ISOWeek()
		byWeek.add([]float64{float64(ts.Year()), float64(week), float64((int(ts.Weekday()) + 6) % 7), epoch}, f)
		relevant[f] = true
	}
	retained := map[string]bool{}
	var ruleErr error
	retain.Range(func(k, v any) bool {
		rule := value.Str(k)
		keep := math.MaxInt
		if v != "all" {
			n, err := strconv.Atoi(strings.TrimSpace(value.Str(v)))
			if err != nil {
				ruleErr = fmt.Errorf("ValueError: invalid literal for int() with base 10: %s", value.Repr(value.Str(v)))
				return false
			}
			keep = n
		}
		if rule == "first_of_week" {
			byWeek.firstN(2, keep+1, retained)
			return true
		}
		depth, ok := retainDepth[rule]
		if !ok {
			ruleErr = fmt.Errorf("KeyError: %s", value.Repr(rule))
			return false
		}
		byYMD.firstN(depth, keep, retained)
		return true
	})
	if ruleErr != nil {
		return nil, ruleErr
	}
	deletable := map[string]bool{}
	for f := range relevant {
		if !retained[f] {
			deletable[f] = true
		}
	}
	if len(deletable) > 0 {
		ret.Set("changes", value.MapOf("retained", sortedDesc(retained), "deleted", sortedDesc(deletable), "ignored", sortedDesc(ignored)))
	}
	if c.Test {
		ret.Set("comment", fmt.Sprintf("%d backups would have been removed from %s.\n", len(deletable), name))
		if len(deletable) > 0 {
			ret.Set("result", nil)
		}
		return ret, nil
	}
	for _, f := range sortedDesc(deletable).Items {
		if err := os.RemoveAll(filepath.Join(name, value.Str(f))); err != nil {
			return nil, fmt.Errorf("Could not remove '%s': %v", filepath.Join(name, value.Str(f)), fileops.PyOSError(err))
		}
	}
	ret.Set("comment", fmt.Sprintf("%d backups were removed from %s.\n", len(deletable), name))
	return ret, nil
}
