// Package debconf is the debconf handling that the debconf execution
// functions and the debconf.set state share: the answers stored in
// debconf's database files (what debconf-get-selections prints) and the
// parsing of debconf-get-selections output.
package debconf

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Stanza is one record of a debconf database file, its fields by name.
type Stanza map[string]string

// Stanzas parses a debconf database file (config.dat, templates.dat,
// passwords.dat) in file order; a missing file has none.
func Stanzas(path string) []Stanza {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []Stanza
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	cur := Stanza{}
	flush := func() {
		if cur["Name"] != "" {
			out = append(out, cur)
		}
		cur = Stanza{}
	}
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			flush()
			continue
		}
		if line[0] == ' ' {
			continue
		}
		if k, v, ok := strings.Cut(line, ": "); ok {
			cur[k] = v
		} else if k, ok := strings.CutSuffix(line, ":"); ok {
			cur[k] = ""
		}
	}
	flush()
	return out
}

// Selection is one answer: the package owning the question, the
// question, its type and value.
type Selection struct{ Package, Question, Type, Value string }

// FromDB reads the answers of the debconf database in dir
// (/var/cache/debconf) as debconf-get-selections lists them: every
// question of config.dat and passwords.dat once per owner.
func FromDB(dir string) []Selection {
	types := map[string]string{}
	for _, t := range Stanzas(filepath.Join(dir, "templates.dat")) {
		types[t["Name"]] = t["Type"]
	}
	var out []Selection
	for _, db := range []string{"config.dat", "passwords.dat"} {
		for _, st := range Stanzas(filepath.Join(dir, db)) {
			for _, o := range strings.Split(st["Owners"], ",") {
				if o = strings.TrimSpace(o); o != "" {
					out = append(out, Selection{o, st["Name"], types[st["Template"]], st["Value"]})
				}
			}
		}
	}
	return out
}

// Show is the [question, type, value] answers of pkg among sel.
func Show(sel []Selection, pkg string) [][3]string {
	var out [][3]string
	for _, s := range sel {
		if s.Package == pkg {
			out = append(out, [3]string{s.Question, s.Type, s.Value})
		}
	}
	return out
}

var lineRE = regexp.MustCompile(`(?m)^([^#\n]\S+)[\t ]+(\S+)[\t ]+(\S+)[\t ]+([^\n]*)$`)

// Parse is Salt's _unpack_lines over debconf-get-selections output.
func Parse(out string) []Selection {
	var sel []Selection
	for _, m := range lineRE.FindAllStringSubmatch(out, -1) {
		sel = append(sel, Selection{m[1], m[2], m[3], m[4]})
	}
	return sel
}
