// Package crontab is the crontab handling of salt/modules/cron.py that the
// cron execution functions and cron states share: the part of a user's
// crontab below Salt's tag line, jobs identified by SALT_CRON_IDENTIFIER
// comments, and crontab(1) to read and replace a user's crontab.
package crontab

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/user"
	"strconv"
	"strings"

	"brine/internal/system"
)

// Service is the execmod service name under which a run (or a test)
// attaches its own Store.
const Service = "crontab"

const (
	// Tag is the line above the entries Salt manages.
	Tag = "# Lines below here are managed by Salt, do not edit"
	// IDMarker introduces an entry's identifier in its comment line.
	IDMarker = "SALT_CRON_IDENTIFIER"
	// NoID stands for an entry without an identifier.
	NoID = "NO ID SET"
)

// Fields are the time fields of a job, in crontab order.
var Fields = [5]string{"minute", "hour", "daymonth", "month", "dayweek"}

// Entry is one managed job: a timed job, or a @special one when Spec is
// set. Identifier and Comment are nil for Python's None.
type Entry struct {
	Minute, Hour, Daymonth, Month, Dayweek string
	Spec                                   string
	Cmd                                    string
	Identifier, Comment                    *string
	Commented                              bool
}

// Times returns pointers to the time fields (all nil for a special job).
func (e *Entry) Times() [5]*string {
	if e.Spec != "" {
		return [5]*string{}
	}
	return [5]*string{&e.Minute, &e.Hour, &e.Daymonth, &e.Month, &e.Dayweek}
}

// Env is one environment line.
type Env struct{ Name, Value string }

// Tab is a parsed crontab: Salt's list_tab.
type Tab struct {
	Pre     []string // the lines above the tag
	Crons   []*Entry
	Special []*Entry
	Env     []Env
}

// Str returns a pointer to s (an optional string that is set).
func Str(s string) *string { return &s }

// Parse is Salt's list_tab over the crontab's text.
func Parse(data string) *Tab {
	t := &Tab{}
	if data == "" {
		return t
	}
	flag := false
	var comment, identifier *string
	for _, line := range splitLines(data) {
		if line == Tag {
			flag = true
			continue
		}
		if !flag {
			t.Pre = append(t.Pre, line)
			continue
		}
		commented := false
		if strings.HasPrefix(line, "#DISABLED#") {
			line, commented = line[10:], true
		}
		switch {
		case strings.HasPrefix(line, "@"):
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			t.Special = append(t.Special, &Entry{Spec: f[0], Cmd: strings.Join(f[1:], " "), Identifier: identifier, Comment: comment, Commented: commented})
			identifier, comment = nil, nil
		case strings.HasPrefix(line, "#"):
			cl := strings.TrimLeft(line, "# ")
			if i := strings.Index(cl, IDMarker); i >= 0 {
				rest := cl[i+len(IDMarker):]
				cl = strings.TrimRight(cl[:i], " \t\n\r\v\f")
				if len(rest) > 1 {
					identifier = Str(rest[1:])
				}
			}
			if comment == nil {
				comment = Str(cl)
			} else {
				comment = Str(*comment + "\n" + cl)
			}
		case strings.Index(line, "=") > 0 && (!strings.Contains(line, " ") || strings.Index(line, "=") < strings.Index(line, " ")):
			k, v, _ := strings.Cut(line, "=")
			t.Env = append(t.Env, Env{k, v})
		case len(strings.Split(line, " ")) > 5:
			f := strings.Split(line, " ")
			t.Crons = append(t.Crons, &Entry{Minute: f[0], Hour: f[1], Daymonth: f[2], Month: f[3], Dayweek: f[4],
				Cmd: strings.Join(f[5:], " "), Identifier: identifier, Comment: comment, Commented: commented})
			identifier, comment = nil, nil
		}
	}
	return t
}

// splitLines splits as Python's str.splitlines does for crontab text.
func splitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

// Render is Salt's _render_tab: the crontab text of t.
func (t *Tab) Render() string {
	var b strings.Builder
	for _, p := range t.Pre {
		b.WriteString(p + "\n")
	}
	if len(t.Pre) == 0 || t.Pre[len(t.Pre)-1] != Tag {
		b.WriteString(Tag + "\n")
	}
	for _, e := range t.Env {
		if e.Value == "" {
			fmt.Fprintf(&b, "%s=\"\"\n", e.Name)
		} else {
			fmt.Fprintf(&b, "%s=%s\n", e.Name, e.Value)
		}
	}
	writeComment := func(e *Entry, special bool) {
		if e.Comment == nil && e.Identifier == nil {
			return
		}
		b.WriteString("#")
		if e.Comment != nil && *e.Comment != "" {
			cm := *e.Comment
			if special {
				cm = strings.TrimRight(cm, " \t\n\r\v\f")
			}
			b.WriteString(" " + strings.ReplaceAll(cm, "\n", "\n# "))
		}
		if e.Identifier != nil && *e.Identifier != "" {
			b.WriteString(" " + IDMarker + ":" + *e.Identifier)
		}
		b.WriteString("\n")
	}
	dis := func(e *Entry) string {
		if e.Commented {
			return "#DISABLED#"
		}
		return ""
	}
	for _, e := range t.Crons {
		writeComment(e, false)
		fmt.Fprintf(&b, "%s%s %s %s %s %s %s\n", dis(e), e.Minute, e.Hour, e.Daymonth, e.Month, e.Dayweek, e.Cmd)
	}
	for _, e := range t.Special {
		writeComment(e, true)
		fmt.Fprintf(&b, "%s%s %s\n", dis(e), e.Spec, e.Cmd)
	}
	return b.String()
}

// ID is Salt's _cron_id: the entry's identifier, or NoID.
func ID(e *Entry) string {
	if e.Identifier != nil && *e.Identifier != "" {
		return *e.Identifier
	}
	return NoID
}

// Matched is Salt's _cron_matched: whether e is the job of cmd and
// identifier ("" for none).
func Matched(e *Entry, cmd, identifier string) bool {
	cid := ID(e)
	if identifier == "" {
		identifier = NoID
	}
	if e.Cmd != cmd && cid == NoID && identifier == NoID {
		return false
	}
	if e.Cmd == cmd && cid == NoID {
		cid = identifier
	}
	return identifier == cid
}

// NeedsChange is Salt's _needs_change over optional strings.
func NeedsChange(old, new *string) bool {
	if old == nil && new == nil {
		return false
	}
	if old != nil && new != nil && *old == *new {
		return false
	}
	if new != nil && *new == "random" {
		return old != nil && *old == "*"
	}
	return new != nil
}

// TimeValue is Salt's _get_cron_date_time for one field: "random" and
// "a:b" ranges become a random number; month bounds a random day.
func TimeValue(field, v, month string) string {
	v = strings.ToLower(v)
	if v == "random" {
		lo, hi := 0, 59
		switch field {
		case "hour":
			hi = 23
		case "month":
			lo, hi = 1, 12
		case "dayweek":
			hi = 6
		case "daymonth":
			lo, hi = 1, 28
			switch month {
			case "1", "3", "5", "7", "8", "10", "12":
				hi = 31
			case "4", "6", "9", "11":
				hi = 30
			}
		}
		return strconv.Itoa(lo + rand.IntN(hi-lo+1))
	}
	if field != "daymonth" {
		if parts := strings.Split(v, ":"); len(parts) == 2 {
			a, e1 := strconv.Atoi(parts[0])
			z, e2 := strconv.Atoi(parts[1])
			if e1 == nil && e2 == nil {
				if a > z {
					a, z = z, a
				}
				return strconv.Itoa(a + rand.IntN(z-a+1))
			}
		}
	}
	return v
}

// Want is a job as set_job or set_special asks for it: Times for a timed
// job, Special for a @special one; Identifier "" is None.
type Want struct {
	Cmd        string
	Times      [5]*string
	Special    string
	Identifier string
	Comment    *string
	Commented  bool
}

func (w Want) identifier() *string {
	if w.Identifier == "" {
		return nil
	}
	return Str(w.Identifier)
}

func (w Want) spec() *string {
	if w.Special == "" {
		return nil
	}
	return Str(w.Special)
}

func (e *Entry) spec() *string {
	if e.Spec == "" {
		return nil
	}
	return Str(e.Spec)
}

// Set is Salt's set_job (or set_special when w.Special is set) on t:
// "present" when the job is there as asked, "new" when it was added,
// "updated" when the matching job was replaced by the merged one.
func Set(t *Tab, w Want) string {
	for _, e := range append(append([]*Entry(nil), t.Crons...), t.Special...) {
		if !Matched(e, w.Cmd, w.Identifier) {
			continue
		}
		setID := NoID
		if e.Identifier != nil {
			setID = *e.Identifier
		}
		change := NeedsChange(e.Comment, w.Comment) || e.Commented != w.Commented ||
			NeedsChange(w.identifier(), &setID) || NeedsChange(e.spec(), w.spec()) || e.Cmd != w.Cmd
		for i, p := range e.Times() {
			change = change || NeedsChange(p, w.Times[i])
		}
		if !change {
			return "present"
		}
		t.remove(e)
		m := w
		old := e.Times()
		for i := range m.Times {
			if m.Times[i] != nil && !NeedsChange(old[i], m.Times[i]) {
				m.Times[i] = old[i]
			}
		}
		if w.Special != "" && !NeedsChange(e.spec(), w.spec()) && e.Spec != "" {
			m.Special = e.Spec
		}
		if !NeedsChange(e.Comment, w.Comment) {
			m.Comment = e.Comment
		}
		cid := Str(ID(e))
		if *cid == NoID {
			if w.Identifier != "" {
				cid = Str(w.Identifier)
			}
			if *cid == NoID && e.Identifier == nil {
				cid = nil
			}
		}
		if cid == nil || !NeedsChange(cid, w.identifier()) {
			m.Identifier = ""
			if cid != nil {
				m.Identifier = *cid
			}
		}
		if r := Set(t, m); r != "new" {
			return r
		}
		return "updated"
	}
	e := &Entry{Cmd: w.Cmd, Identifier: w.identifier(), Comment: w.Comment, Commented: w.Commented, Spec: w.Special}
	if w.Special != "" {
		t.Special = append(t.Special, e)
		return "new"
	}
	month := "1"
	if w.Times[3] != nil {
		month = TimeValue("month", *w.Times[3], "")
	}
	for i, p := range e.Times() {
		v := "1"
		if w.Times[i] != nil {
			v = *w.Times[i]
		}
		if Fields[i] == "month" {
			*p = month
		} else {
			*p = TimeValue(Fields[i], v, month)
		}
	}
	t.Crons = append(t.Crons, e)
	return "new"
}

func (t *Tab) remove(e *Entry) {
	for _, list := range []*[]*Entry{&t.Crons, &t.Special} {
		for i, x := range *list {
			if x == e {
				*list = append((*list)[:i:i], (*list)[i+1:]...)
				return
			}
		}
	}
}

// RmJob is Salt's rm_job on t: the first timed job matching cmd and
// identifier (and every time field given, "random" matching any value
// but "*") is removed. It reports whether one was.
func RmJob(t *Tab, cmd, identifier string, times [5]*string) bool {
	for i, e := range t.Crons {
		if !Matched(e, cmd, identifier) || !timesMatch(e, times) {
			continue
		}
		t.Crons = append(t.Crons[:i:i], t.Crons[i+1:]...)
		return true
	}
	return false
}

func timesMatch(e *Entry, times [5]*string) bool {
	for i, p := range e.Times() {
		if w := times[i]; w != nil && *p != *w && (strings.ToLower(*w) != "random" || *p == "*") {
			return false
		}
	}
	return true
}

// RmSpecial is Salt's rm_special on t (special "" matches any).
func RmSpecial(t *Tab, cmd, special, identifier string) bool {
	for i, e := range t.Special {
		if Matched(e, cmd, identifier) && (special == "" || e.Spec == special) {
			t.Special = append(t.Special[:i:i], t.Special[i+1:]...)
			return true
		}
	}
	return false
}

// SetEnv is Salt's set_env on t: "present", "new" or "updated" (the old
// line goes, the new one is appended).
func SetEnv(t *Tab, name, val string) string {
	status := "new"
	for i, e := range t.Env {
		if e.Name == name {
			if e.Value == val {
				return "present"
			}
			t.Env = append(t.Env[:i:i], t.Env[i+1:]...)
			status = "updated"
			break
		}
	}
	t.Env = append(t.Env, Env{name, val})
	return status
}

// RmEnv is Salt's rm_env on t: the last line setting name goes.
func RmEnv(t *Tab, name string) bool {
	idx := -1
	for i, e := range t.Env {
		if e.Name == name {
			idx = i
		}
	}
	if idx < 0 {
		return false
	}
	t.Env = append(t.Env[:idx:idx], t.Env[idx+1:]...)
	return true
}

// Store reads and replaces the crontab of a user.
type Store interface {
	Read(user string) (string, error)
	Write(user, content string) error
}

// Cmd is the crontab(1) Store, run as Salt's cron module runs it: without
// -u for the user running brine, with -u otherwise.
type Cmd struct{ Runner system.Runner }

// Args returns crontab's arguments for user ("-l" to list, a path to
// install a file).
func Args(user string, rest ...string) []string {
	if sameUser(user) {
		return rest
	}
	return append([]string{"-u", user}, rest...)
}

func sameUser(name string) bool {
	u, err := user.Current()
	if err != nil {
		return false
	}
	if u.Username == name {
		return true
	}
	o, err := user.Lookup(name)
	return err == nil && o.Uid == u.Uid
}

func (c Cmd) runner() system.Runner {
	if c.Runner == nil {
		return system.Exec{}
	}
	return c.Runner
}

// Read returns the user's crontab without the three header lines some
// crontab(1) programs add ("" when the user has none).
func (c Cmd) Read(name string) (string, error) {
	res, err := c.runner().Run(context.Background(), system.Cmd{Name: "crontab", Args: Args(name, "-l")})
	if err != nil {
		return "", err
	}
	out := res.Stdout
	if strings.HasPrefix(out, "# DO NOT EDIT THIS FILE - edit the master and reinstall.") {
		lines := strings.SplitAfter(out, "\n")
		if len(lines) > 3 {
			out = strings.Join(lines[3:], "")
		} else {
			out = ""
		}
	}
	return out, nil
}

// Write replaces the user's crontab with content; a failure is an error
// carrying crontab's standard error.
func (c Cmd) Write(name, content string) error {
	f, err := os.CreateTemp("", "brine-cron-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	res, err := c.runner().Run(context.Background(), system.Cmd{Name: "crontab", Args: Args(name, f.Name())})
	if err != nil {
		return err
	}
	if res.Code != 0 {
		return fmt.Errorf("%s", strings.TrimRight(res.Stderr, " \t\r\n\v\f")) // cmd.run_all rstrips
	}
	return nil
}
