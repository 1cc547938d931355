// Package kmod is the Linux kernel module handling of salt/modules/kmod.py
// that the kmod execution functions and kmod states share: loaded modules
// (lsmod's data, from /proc/modules), available ones (/lib/modules of the
// running kernel) and the persistent module list file.
package kmod

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
)

// Module is one loaded module as lsmod lists it.
type Module struct {
	Name, Size, Depcount string
	Deps                 []string
}

// Proc reads the kernel's modules under Root ("" for /).
type Proc struct{ Root string }

func (p Proc) path(rel string) string { return filepath.Join("/", p.Root, rel) }

// Lsmod returns the loaded modules, as lsmod(8) prints them from
// /proc/modules.
func (p Proc) Lsmod() ([]Module, error) {
	data, err := os.ReadFile(p.path("/proc/modules"))
	if err != nil {
		return nil, err
	}
	var out []Module
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) < 3 {
			continue
		}
		m := Module{Name: f[0], Size: f[1], Depcount: f[2], Deps: []string{}}
		if len(f) > 3 && f[3] != "-" {
			for _, d := range strings.Split(strings.TrimSuffix(f[3], ","), ",") {
				if d != "" {
					m.Deps = append(m.Deps, d)
				}
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// Loaded returns the names of the loaded modules (none when /proc/modules
// cannot be read).
func (p Proc) Loaded() []string {
	mods, _ := p.Lsmod()
	out := make([]string, len(mods))
	for i, m := range mods {
		out[i] = m.Name
	}
	return out
}

// Release is the running kernel's release (uname -r).
func Release() string {
	var u syscall.Utsname
	if syscall.Uname(&u) != nil {
		return ""
	}
	var b strings.Builder
	for _, ch := range u.Release {
		if ch == 0 {
			break
		}
		b.WriteByte(byte(ch))
	}
	return b.String()
}

// Available is kmod.available: the builtin modules and every .ko file
// under /lib/modules/<release>, dashes as underscores, sorted.
func (p Proc) Available() []string {
	dir := p.path(filepath.Join("/lib/modules", Release()))
	var out []string
	if data, err := os.ReadFile(filepath.Join(dir, "modules.builtin")); err == nil {
		for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			if b := filepath.Base(l); len(b) > 3 {
				out = append(out, b[:len(b)-3])
			}
		}
	}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if i := strings.Index(d.Name(), ".ko"); i >= 0 {
				out = append(out, strings.ReplaceAll(d.Name()[:i], "-", "_"))
			}
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// Name is Salt's _strip_module_name: the module of a line such as
// "bonding mode=4" ("" for a blank line).
func Name(line string) string {
	if f := strings.Fields(line); len(f) > 0 {
		return f[0]
	}
	return ""
}

// Persisted is mod_list(only_persist=True) over the file at path: the
// modules named on its uncommented lines, sorted, each once.
func Persisted(path string) []string {
	data, _ := os.ReadFile(path)
	seen := map[string]bool{}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if n := Name(l); n != "" && !strings.HasPrefix(l, "#") && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func readLines(path string) []string {
	data, _ := os.ReadFile(path)
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func writeLines(path string, lines []string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	text := ""
	if len(lines) > 0 {
		text = strings.Join(lines, "\n") + "\n"
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// AddPersist is Salt's _set_persistent_module: mod (a line, possibly with
// options) is uncommented in the file, or appended. It returns the module
// name when it was added; nothing when it is already there or (when
// available is not nil) not among the available modules.
func AddPersist(path, mod string, available []string) ([]string, error) {
	name := Name(mod)
	if name == "" || contains(Persisted(path), name) || (available != nil && !contains(available, name)) {
		return nil, nil
	}
	lines := readLines(path)
	commented := regexp.MustCompile(`^#[\t ]*` + regexp.QuoteMeta(mod) + `[\t ]*$`)
	done := false
	for i, l := range lines {
		if commented.MatchString(l) {
			lines[i] = strings.TrimLeft(strings.TrimPrefix(l, "#"), "\t ")
			done = true
		}
	}
	if !done {
		lines = append(lines, mod)
	}
	return []string{name}, writeLines(path, lines)
}

// RemovePersist is Salt's _remove_persistent_module: the lines of mod are
// commented out (comment) or removed. It returns the module name when it
// was in the file.
func RemovePersist(path, mod string, comment bool) ([]string, error) {
	name := Name(mod)
	if name == "" || !contains(Persisted(path), name) {
		return nil, nil
	}
	re := regexp.MustCompile(`^[\t ]*` + regexp.QuoteMeta(mod) + `([\t ]|$)`)
	var out []string
	for _, l := range readLines(path) {
		switch {
		case !re.MatchString(l):
			out = append(out, l)
		case comment:
			out = append(out, "#"+l)
		}
	}
	return []string{name}, writeLines(path, out)
}
