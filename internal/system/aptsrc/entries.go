package aptsrc

// entries.go models apt's one-line sources the way Salt's aptpkg does
// when python-apt is missing (its SourceEntry and SourcesList fallback
// classes): every line of every file is an Entry, valid or not, and saving
// writes each entry back, valid ones in a normalised form and the others
// unchanged. pkg.mod_repo, pkg.del_repo and pkg.expand_repo_def use it.

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"brine/internal/system/atomicfile"
)

// DefaultFile is the file of an entry that names none.
const DefaultFile = "/etc/apt/sources.list"

// Entry is one line of a sources file.
type Entry struct {
	// Invalid is set for lines that are no repository (blank lines,
	// comments, malformed entries); they are written back as read.
	Invalid  bool
	Disabled bool
	// Comment is the text after a '#' that follows the entry.
	Comment       string
	Type          string
	URI           string
	Dist          string
	Comps         []string
	Architectures []string
	SignedBy      string
	// Line is the line as read, with its newline.
	Line string
	// File is the file the entry belongs to, as a path on the target
	// machine (without any test root).
	File string
}

// splitEntry is Salt's _invalid: the line's state, its comment and its
// words (a cdrom: URI with spaces stays one word).
func splitEntry(line string) (disabled, invalid bool, comment string, words []string) {
	line = strings.TrimSpace(line)
	if line == "" {
		return false, true, "", nil
	}
	if strings.HasPrefix(line, "#") {
		disabled = true
		line = line[1:]
	}
	if i := strings.IndexByte(line, '#'); i > 0 {
		comment, line = line[i+1:], line[:i]
	}
	s := strings.TrimSpace(line)
	if i := strings.LastIndex(s, "cdrom:"); i >= 0 && strings.Contains(s[i:], "/") {
		j := i + strings.LastIndexByte(s[i:], '/') + 1
		words = append(strings.Fields(s[:i]), strings.TrimSpace(s[i:j]))
		words = append(words, strings.Fields(s[j:])...)
	} else {
		words = strings.Fields(s)
	}
	switch {
	case len(words) < 3:
		return disabled, true, comment, words
	case words[0] != "deb" && words[0] != "deb-src" && words[0] != "rpm" && words[0] != "rpm-src":
		return disabled, true, comment, words
	}
	if strings.HasPrefix(words[1], "[") {
		closed := false
		for _, w := range words[1:] {
			if strings.HasSuffix(w, "]") {
				closed = true
			}
		}
		if !closed {
			return disabled, true, comment, words
		}
	}
	return disabled, false, comment, words
}

// bracketOptions is Salt's _get_opts: the words of the first "[...=...]"
// group of the line (greedy up to the last ']').
func bracketOptions(line string) []string {
	i := strings.IndexByte(line, '[')
	for i >= 0 {
		rest := line[i:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[:nl]
		}
		if j := strings.LastIndexByte(rest, ']'); j > 0 && strings.Contains(rest[1:j], "=") {
			return strings.Fields(strings.Trim(rest[:j+1], "[]"))
		}
		next := strings.IndexByte(line[i+1:], '[')
		if next < 0 {
			break
		}
		i += next + 1
	}
	return nil
}

// ParseEntry reads one line of file (DefaultFile when empty).
func ParseEntry(line, file string) Entry {
	if file == "" {
		file = DefaultFile
	}
	e := Entry{Line: line, File: file}
	var words []string
	e.Disabled, e.Invalid, e.Comment, words = splitEntry(line)
	if e.Invalid {
		return e
	}
	if strings.HasPrefix(words[1], "[") {
		var kept []string
		for _, w := range words {
			if w = strings.Trim(w, "[]"); w != "" {
				kept = append(kept, w)
			}
		}
		drop := map[string]bool{}
		for _, o := range bracketOptions(line) {
			_, v, _ := strings.Cut(o, "=")
			switch {
			case strings.HasPrefix(o, "arch"):
				e.Architectures = append(e.Architectures, strings.Split(v, ",")...)
			case strings.HasPrefix(o, "signed-by"):
				e.SignedBy = v
			}
			drop[o] = true
		}
		words = words[:0]
		for _, w := range kept {
			if drop[w] {
				delete(drop, w)
				continue
			}
			words = append(words, w)
		}
		if len(words) < 3 {
			return Entry{Line: line, File: file, Invalid: true, Disabled: e.Disabled, Comment: e.Comment}
		}
	}
	e.Type, e.URI, e.Dist = words[0], words[1], words[2]
	e.Comps = append([]string{}, words[3:]...)
	return e
}

// RepoLine is the entry as Salt writes it, with its newline: an invalid
// entry as read, a valid one rebuilt from its fields. Only the arch= and
// signed-by= options survive (trusted= and the others are dropped), and an
// entry without components keeps the space that separated them.
func (e Entry) RepoLine() string {
	if e.Invalid {
		return e.Line
	}
	var parts []string
	if e.Disabled {
		parts = append(parts, "#")
	}
	parts = append(parts, e.Type)
	var opts []string
	if len(e.Architectures) > 0 {
		opts = append(opts, "arch="+strings.Join(e.Architectures, ","))
	}
	if e.SignedBy != "" {
		opts = append(opts, "signed-by="+e.SignedBy)
	}
	if len(opts) > 0 {
		parts = append(parts, "["+strings.Join(opts, " ")+"]")
	}
	parts = append(parts, e.URI, e.Dist, strings.Join(e.Comps, " "))
	if e.Comment != "" {
		parts = append(parts, "#"+e.Comment)
	}
	return strings.Join(parts, " ") + "\n"
}

// NewEntry builds a valid-looking line from its parts, as SourcesList.add
// does, and parses it (its file is DefaultFile).
func NewEntry(typ, uri, dist string, comps, archs []string, signedBy string) Entry {
	var opts []string
	if len(archs) > 0 {
		opts = append(opts, "arch="+strings.Join(archs, ","))
	}
	if signedBy != "" {
		opts = append(opts, "signed-by="+signedBy)
	}
	var parts []string
	for _, p := range []string{typ, bracket(opts), uri, dist, strings.Join(comps, " ")} {
		if strings.TrimSpace(p) != "" {
			parts = append(parts, p)
		}
	}
	return ParseEntry(strings.Join(parts, " "), "")
}

func bracket(opts []string) string {
	if len(opts) == 0 {
		return ""
	}
	return "[" + strings.Join(opts, " ") + "]"
}

// SourcesList is every entry of sources.list and sources.list.d/**/*.list
// under Root.
type SourcesList struct {
	Root    string
	Entries []Entry
	files   []string
}

// SourceFiles lists the sources files under root as target paths:
// sources.list, then sources.list.d/**/*.list sorted.
func SourceFiles(root string) []string {
	files := []string{DefaultFile}
	var more []string
	filepath.WalkDir(filepath.Join("/", root, "etc/apt/sources.list.d"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".list") {
			rel, _ := filepath.Rel(filepath.Join("/", root), p)
			more = append(more, "/"+rel)
		}
		return nil
	})
	sort.Strings(more)
	return append(files, more...)
}

// Load reads the sources under root.
func Load(root string) *SourcesList {
	sl := &SourcesList{Root: root}
	for _, f := range SourceFiles(root) {
		data, err := os.ReadFile(sl.Path(f))
		if err != nil {
			continue
		}
		sl.files = append(sl.files, f)
		for _, l := range strings.SplitAfter(string(data), "\n") {
			if l != "" {
				sl.Entries = append(sl.Entries, ParseEntry(l, f))
			}
		}
	}
	return sl
}

// Path is the real path of target path p.
func (sl *SourcesList) Path(p string) string {
	return filepath.Join("/", sl.Root, p)
}

// Remove drops the entry at index i.
func (sl *SourcesList) Remove(i int) {
	sl.Entries = append(sl.Entries[:i:i], sl.Entries[i+1:]...)
}

// Save writes each file that has entries (and each file read that has
// none left, empty) whose content changed.
func (sl *SourcesList) Save() error {
	content := map[string]*strings.Builder{}
	order := append([]string(nil), sl.files...)
	for _, e := range sl.Entries {
		b, ok := content[e.File]
		if !ok {
			b = &strings.Builder{}
			content[e.File] = b
			if !contains(order, e.File) {
				order = append(order, e.File)
			}
		}
		l := e.RepoLine()
		if !strings.HasSuffix(l, "\n") {
			l += "\n"
		}
		b.WriteString(l)
	}
	for _, f := range order {
		var data string
		if b, ok := content[f]; ok {
			data = b.String()
		}
		p := sl.Path(f)
		if old, err := os.ReadFile(p); err == nil && string(old) == data {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := atomicfile.Write(p, []byte(data)); err != nil {
			return err
		}
	}
	return nil
}

// Consolidate is Salt's _consolidate_repo_sources: valid entries of the
// same architectures, state, type, URI and dist become one entry (their
// components joined) in DefaultFile, the other entries are dropped, and
// the files outside DefaultFile that held entries are deleted.
func (sl *SourcesList) Consolidate() error {
	var keys []string
	merged := map[string]*Entry{}
	del := map[string]bool{}
	for _, e := range sl.Entries {
		if e.Invalid {
			continue
		}
		k := strings.Join([]string{strings.Join(e.Architectures, ","), boolStr(e.Disabled), e.Type, e.URI, e.Dist}, "\x00")
		if m, ok := merged[k]; ok {
			for _, c := range e.Comps {
				if !contains(m.Comps, c) {
					m.Comps = append(m.Comps, c)
				}
			}
		} else {
			n := ParseEntry(e.Line, "")
			merged[k] = &n
			keys = append(keys, k)
		}
		if e.File != DefaultFile {
			del[e.File] = true
		}
	}
	sl.Entries = sl.Entries[:0]
	for _, k := range keys {
		sl.Entries = append(sl.Entries, *merged[k])
	}
	sl.files = []string{DefaultFile}
	if err := sl.Save(); err != nil {
		return err
	}
	for f := range del {
		os.Remove(sl.Path(f))
	}
	return nil
}

func boolStr(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
