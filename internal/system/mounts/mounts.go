// Package mounts is the Linux mount handling of salt/modules/mount.py that
// the mount execution functions and mount states share: fstab lines
// (parsed, matched and rewritten as Salt's _fstab_entry does), active mounts
// from /proc/self/mounts and swap areas from /proc/swaps.
package mounts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Keys are the fields of an fstab line, in order.
var Keys = [6]string{"device", "name", "fstype", "opts", "dump", "pass_num"}

// Entry is one fstab line.
type Entry struct{ Device, Name, Fstype, Opts, Dump, Pass string }

// String is Salt's fstab_format.
func (e Entry) String() string {
	return e.Device + "\t\t" + e.Name + "\t" + e.Fstype + "\t" + e.Opts + "\t" + e.Dump + " " + e.Pass + "\n"
}

// Field returns the field named by one of Keys ("pass" too).
func (e Entry) Field(k string) (string, bool) {
	switch k {
	case "device":
		return e.Device, true
	case "name":
		return e.Name, true
	case "fstype":
		return e.Fstype, true
	case "opts":
		return e.Opts, true
	case "dump":
		return e.Dump, true
	case "pass_num", "pass":
		return e.Pass, true
	}
	return "", false
}

// ParseLine is _fstab_entry.dict_from_line: false for a comment (a line
// starting with "#") or a line without 4 to 6 fields.
func ParseLine(line string) (Entry, bool) {
	if strings.HasPrefix(line, "#") {
		return Entry{}, false
	}
	f := strings.Fields(line)
	if len(f) < 4 || len(f) > 6 {
		return Entry{}, false
	}
	for len(f) < 6 {
		f = append(f, "0")
	}
	return Entry{f[0], f[1], f[2], f[3], f[4], f[5]}, true
}

// Criteria are the fields an fstab line must have (by key) to match;
// opts compare as sorted lists.
type Criteria map[string]string

// Match is _fstab_entry.match.
func (c Criteria) Match(e Entry) bool {
	for k, want := range c {
		got, _ := e.Field(k)
		if k == "opts" {
			a, b := strings.Split(got, ","), strings.Split(want, ",")
			sort.Strings(a)
			sort.Strings(b)
			if strings.Join(a, ",") != strings.Join(b, ",") {
				return false
			}
		} else if got != want {
			return false
		}
	}
	return true
}

// All is the criteria of every field of e.
func (e Entry) All() Criteria {
	c := Criteria{}
	for _, k := range Keys {
		c[k], _ = e.Field(k)
	}
	return c
}

// SpecialFS are the file systems set_fstab matches by mount point when
// match_on is "auto" (the others by device).
var SpecialFS = map[string]bool{"none": true, "tmpfs": true, "sysfs": true, "proc": true, "fusectl": true, "debugfs": true,
	"securityfs": true, "devtmpfs": true, "cgroup": true, "nfs": true, "nfs4": true, "glusterfs": true, "btrfs": true}

// MatchOn resolves set_fstab's match_on "auto" for fstype.
func MatchOn(matchOn []string, fstype string) []string {
	if len(matchOn) == 1 && matchOn[0] == "auto" {
		if SpecialFS[fstype] {
			return []string{"name"}
		}
		return []string{"device"}
	}
	return matchOn
}

// Error is a failure Salt reports as CommandExecutionError.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// ErrBadConfig is set_fstab's missing fstab.
var ErrBadConfig = errors.New("bad config")

func readLines(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{fmt.Sprintf("Couldn't read from %s: %s", path, err)}
	}
	lines := strings.SplitAfter(string(data), "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	return lines, nil
}

func writeLines(path string, lines []string) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "")), mode)
}

// SetFstab is mount.set_fstab: the entry matched by the fields of
// matchOn is kept ("present", also with notChange) or replaced
// ("change"), else the entry is appended ("new"). The file is written
// unless test. A missing file is ErrBadConfig (Salt's 'Bad config file').
func SetFstab(path string, e Entry, matchOn []string, notChange, test bool) (string, error) {
	crit := Criteria{}
	for _, k := range MatchOn(matchOn, e.Fstype) {
		v, ok := e.Field(k)
		if !ok {
			return "", &Error{fmt.Sprintf("Unrecognized keys in match_on: %q", k)}
		}
		crit[k] = v
	}
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return "", ErrBadConfig
	}
	lines, err := readLines(path)
	if err != nil {
		return "", err
	}
	status := ""
	for i, l := range lines {
		cur, ok := ParseLine(l)
		if !ok || !crit.Match(cur) {
			continue
		}
		status = "present"
		if !e.All().Match(cur) && !notChange {
			status = "change"
			lines[i] = e.String()
		}
	}
	if status == "" {
		if n := len(lines); n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
			lines[n-1] += "\n"
		}
		lines = append(lines, e.String())
		status = "new"
	}
	if status != "present" && !test {
		if err := writeLines(path, lines); err != nil {
			return "", &Error{"File not writable " + path}
		}
	}
	return status, nil
}

// RmFstab is mount.rm_fstab: the lines matching crit go. It reports
// whether one did.
func RmFstab(path string, crit Criteria) (bool, error) {
	lines, err := readLines(path)
	if err != nil {
		return false, err
	}
	var keep []string
	for _, l := range lines {
		if e, ok := ParseLine(l); ok && crit.Match(e) {
			continue
		}
		keep = append(keep, l)
	}
	if len(keep) == len(lines) {
		return false, nil
	}
	if err := writeLines(path, keep); err != nil {
		return false, &Error{fmt.Sprintf("Couldn't write to %s: %s", path, err)}
	}
	return true, nil
}

// Fstab reads the entries of path in order (none when it is missing).
func Fstab(path string) []Entry {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []Entry
	for _, l := range strings.Split(string(data), "\n") {
		if e, ok := ParseLine(l); ok {
			out = append(out, e)
		}
	}
	return out
}

// Mount is one line of /proc/self/mounts.
type Mount struct {
	Device, Point, Fstype string
	Opts                  []string
}

// Active reads the mounts of /proc/self/mounts under root ("" for /), in
// order.
func Active(root string) ([]Mount, error) {
	data, err := os.ReadFile(filepath.Join("/", root, "proc/self/mounts"))
	if err != nil {
		return nil, err
	}
	var out []Mount
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) >= 4 {
			out = append(out, Mount{f[0], f[1], f[2], strings.Split(f[3], ",")})
		}
	}
	return out, nil
}

// Points maps the mount points of root's active mounts to their device,
// "\040" in the point read as a space.
func Points(root string) map[string]string {
	ms, _ := Active(root)
	out := map[string]string{}
	for _, m := range ms {
		out[strings.ReplaceAll(m.Point, `\040`, " ")] = m.Device
	}
	return out
}

// Swap is one line of /proc/swaps.
type Swap struct{ Name, Type, Size, Used, Priority string }

// Swaps reads /proc/swaps under root.
func Swaps(root string) ([]Swap, error) {
	data, err := os.ReadFile(filepath.Join("/", root, "proc/swaps"))
	if err != nil {
		return nil, err
	}
	var out []Swap
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if strings.HasPrefix(l, "Filename") || len(f) < 5 {
			continue
		}
		out = append(out, Swap{f[0], f[1], f[2], f[3], f[4]})
	}
	return out, nil
}
