// Package aptsrc reads and edits apt's one-line sources (sources.list and
// sources.list.d/*.list) as salt/modules/aptpkg.py's repository functions
// do; the pkg execution functions and pkgrepo states share it.
package aptsrc

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"brine/internal/system/atomicfile"
)

// Source is one apt source line.
type Source struct {
	Disabled bool
	Type     string
	Options  []string // "key=value" inside [ ]
	URI      string
	Dist     string
	Comps    []string
	File     string
	Comment  string
	Raw      string // the line as read, trimmed
}

// Parse reads a one-line "deb [options] uri dist comps" entry; a
// commented one is Disabled.
func Parse(line string) (Source, bool) {
	s := Source{Raw: strings.TrimSpace(line)}
	t := s.Raw
	if strings.HasPrefix(t, "#") {
		s.Disabled = true
		t = strings.TrimSpace(strings.TrimLeft(t, "#"))
	}
	if body, comment, ok := strings.Cut(t, " #"); ok {
		t, s.Comment = strings.TrimSpace(body), strings.TrimSpace(comment)
	}
	f := strings.Fields(t)
	if len(f) < 3 || (f[0] != "deb" && f[0] != "deb-src") {
		return s, false
	}
	s.Type, f = f[0], f[1:]
	if strings.HasPrefix(f[0], "[") {
		var opts []string
		for len(f) > 0 {
			w := f[0]
			f = f[1:]
			end := strings.HasSuffix(w, "]")
			w = strings.Trim(w, "[]")
			if w != "" {
				opts = append(opts, w)
			}
			if end {
				break
			}
		}
		s.Options = opts
	}
	if len(f) < 2 {
		return s, false
	}
	s.URI, s.Dist, s.Comps = f[0], f[1], f[2:]
	return s, true
}

// Line is the source as a sources.list line.
func (s Source) Line() string {
	var b strings.Builder
	if s.Disabled {
		b.WriteString("# ")
	}
	b.WriteString(s.Type)
	if len(s.Options) > 0 {
		b.WriteString(" [" + strings.Join(s.Options, " ") + "]")
	}
	b.WriteString(" " + s.URI + " " + s.Dist)
	for _, c := range s.Comps {
		b.WriteString(" " + c)
	}
	return b.String()
}

// SameRepo reports whether o is the same type, URI and dist.
func (s Source) SameRepo(o Source) bool {
	return s.Type == o.Type && strings.TrimRight(s.URI, "/") == strings.TrimRight(o.URI, "/") && s.Dist == o.Dist
}

func sortedCopy(xs []string) []string {
	out := append([]string(nil), xs...)
	sort.Strings(out)
	return out
}

// Equal reports whether o is the same repository with the same state,
// components and options.
func (s Source) Equal(o Source) bool {
	return s.SameRepo(o) && s.Disabled == o.Disabled &&
		strings.Join(sortedCopy(s.Comps), " ") == strings.Join(sortedCopy(o.Comps), " ") &&
		strings.Join(sortedCopy(s.Options), " ") == strings.Join(sortedCopy(o.Options), " ")
}

// Option is the value of option k ("" when unset).
func (s Source) Option(k string) string {
	for _, o := range s.Options {
		if v, ok := strings.CutPrefix(o, k+"="); ok {
			return v
		}
	}
	return ""
}

// Files lists sources.list and sources.list.d/*.list under root.
func Files(root string) []string {
	files := []string{filepath.Join("/", root, "/etc/apt/sources.list")}
	more, _ := filepath.Glob(filepath.Join("/", root, "/etc/apt/sources.list.d/*.list"))
	return append(files, more...)
}

// List reads every source of the files under root, in file order.
func List(root string) []Source {
	var out []Source
	for _, f := range Files(root) {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(data), "\n") {
			if s, ok := Parse(l); ok {
				s.File = f
				out = append(out, s)
			}
		}
	}
	return out
}

// Find finds the configured source of the same repository under root.
func Find(root string, want Source) (Source, bool) {
	for _, f := range Files(root) {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(data), "\n") {
			if s, ok := Parse(l); ok && s.SameRepo(want) {
				s.File = f
				return s, true
			}
		}
	}
	return Source{}, false
}

// Write replaces the line of the same repository in file (or
// in old's file) or appends it.
func Write(path string, want Source, old *Source) error {
	if old != nil && old.File != path {
		if err := Remove(old.File, *old); err != nil {
			return err
		}
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		lines = nil
	}
	done := false
	for i, l := range lines {
		if s, ok := Parse(l); ok && s.SameRepo(want) && !done {
			lines[i], done = want.Line(), true
		}
	}
	if !done {
		lines = append(lines, want.Line())
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, []byte(strings.Join(lines, "\n")+"\n"))
}

// Remove drops the lines of the same repository from the file at path.
func Remove(path string, want Source) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var keep []string
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if s, ok := Parse(l); ok && s.SameRepo(want) {
			continue
		}
		keep = append(keep, l)
	}
	out := strings.Join(keep, "\n")
	if out != "" {
		out += "\n"
	}
	return atomicfile.Write(path, []byte(out))
}
