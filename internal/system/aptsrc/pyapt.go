package aptsrc

// pyapt.go models python-apt's aptsources.sourceslist (SourceEntry and
// SourcesList.add), which Salt's aptpkg uses when python3-apt is installed
// (Debian's own python3 has it): pkgrepo.managed compares a state's
// repository with what _expand_repo_def derives through it.

import (
	"os"
	"regexp"
	"strings"
	"unicode"
)

// PyEntry is one line as python-apt's SourceEntry reads it.
type PyEntry struct {
	Invalid       bool
	Disabled      bool
	Type          string
	Architectures []string
	URI           string
	Dist          string
	Comps         []string
	Comment       string
	// Line is the line as read (set_enabled edits it).
	Line string
	File string
}

// pySplit is SourceEntry.mysplit: words, with a [...] group one word.
func pySplit(line string) []string {
	line = strings.TrimSpace(line)
	var pieces []string
	tmp := ""
	inBracket, spaceFound := false, false
	for _, r := range line {
		switch {
		case r == '[':
			if spaceFound {
				spaceFound = false
				pieces = append(pieces, tmp)
				tmp = "["
			} else {
				tmp += "["
			}
			inBracket = true
		case r == ']':
			inBracket = false
			tmp += "]"
		case spaceFound && !unicode.IsSpace(r):
			spaceFound = false
			pieces = append(pieces, tmp)
			tmp = string(r)
		case unicode.IsSpace(r) && !inBracket:
			spaceFound = true
		default:
			tmp += string(r)
		}
	}
	if tmp != "" {
		pieces = append(pieces, tmp)
	}
	return pieces
}

func pyType(t string) bool {
	return t == "deb" || t == "deb-src" || t == "rpm" || t == "rpm-src"
}

// ParsePy reads line as python-apt does. Options other than arch= and
// trusted= (signed-by=, ...) make the entry invalid, but its fields are
// still read.
func ParsePy(line, file string) PyEntry {
	e := PyEntry{Line: line, File: file}
	l := strings.TrimSpace(line)
	if l == "" || l == "#" {
		e.Invalid = true
		return e
	}
	if l[0] == '#' {
		e.Disabled = true
		if f := strings.Fields(l[1:]); len(f) == 0 || !pyType(f[0]) {
			e.Invalid = true
			return e
		}
		l = l[1:]
	}
	if i := strings.IndexByte(l, '#'); i > 0 {
		e.Comment, l = l[i+1:], l[:i]
	}
	pieces := pySplit(l)
	if len(pieces) < 3 {
		e.Invalid = true
		return e
	}
	e.Type = strings.TrimSpace(pieces[0])
	if !pyType(e.Type) {
		e.Invalid = true
		return e
	}
	if strings.HasPrefix(strings.TrimSpace(pieces[1]), "[") {
		opts := strings.Fields(strings.Trim(pieces[1], "[]"))
		pieces = append(pieces[:1], pieces[2:]...)
		for _, o := range opts {
			k, v, ok := strings.Cut(o, "=")
			switch {
			case !ok:
				e.Invalid = true
			case k == "arch":
				e.Architectures = strings.Split(v, ",")
			case k == "trusted":
			default:
				e.Invalid = true
			}
		}
	}
	if len(pieces) < 3 {
		// python-apt raises IndexError here; such a line is no repository.
		e.Invalid = true
		return e
	}
	e.URI = strings.TrimSpace(pieces[1])
	if e.URI == "" {
		e.Invalid = true
	}
	e.Dist = strings.TrimSpace(pieces[2])
	e.Comps = append([]string{}, pieces[3:]...)
	return e
}

// setEnabled is SourceEntry.set_enabled.
func (e *PyEntry) setEnabled(on bool) {
	e.Disabled = !on
	if on {
		e.Line = strings.TrimLeft(strings.TrimLeftFunc(e.Line, unicode.IsSpace), "#")
	} else if t := strings.TrimSpace(e.Line); t == "" || t[0] != '#' {
		e.Line = "#" + e.Line
	}
}

// LoadPy reads the one-line sources under root the way python-apt's
// SourcesList does (sources.list, then sources.list.d/*.list).
func LoadPy(root string) []PyEntry {
	var out []PyEntry
	for _, f := range SourceFiles(root) {
		data, err := os.ReadFile((&SourcesList{Root: root}).Path(f))
		if err != nil {
			continue
		}
		for _, l := range strings.SplitAfter(string(data), "\n") {
			if l != "" {
				out = append(out, ParsePy(l, f))
			}
		}
	}
	return out
}

func sameSet(a, b []string) bool {
	in := func(xs []string, x string) bool { return contains(xs, x) }
	for _, x := range a {
		if !in(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !in(a, x) {
			return false
		}
	}
	return true
}

// pyAdd is SourcesList.add: the existing entry of the same type, URI
// (trailing slashes aside), dist and architectures that already has the
// components or can take them, or a new line.
func pyAdd(list []PyEntry, typ, uri, dist string, comps, archs []string) PyEntry {
	typ = strings.TrimSpace(typ)
	disabled := strings.HasPrefix(typ, "#")
	if disabled {
		typ = strings.TrimLeftFunc(typ[1:], unicode.IsSpace)
	}
	comps = append([]string{}, comps...)
	match := func(s PyEntry) bool {
		return !s.Invalid && s.Type == typ && s.Dist == dist && sameSet(s.Architectures, archs) &&
			(uri == "" || s.URI == "" || strings.TrimRight(uri, "/") == strings.TrimRight(s.URI, "/"))
	}
	for _, s := range list {
		if !match(s) || s.Disabled != disabled {
			continue
		}
		// python-apt deletes from the list it iterates: a component
		// right after a deleted one is skipped.
		for i := 0; i < len(comps); i++ {
			if contains(s.Comps, comps[i]) {
				comps = append(comps[:i], comps[i+1:]...)
				if len(comps) == 0 {
					return s
				}
			}
		}
	}
	for _, s := range list {
		if !match(s) {
			continue
		}
		if s.Disabled == disabled {
			if !sameSet(s.Comps, comps) {
				var u []string
				for _, c := range append(append([]string{}, s.Comps...), comps...) {
					if !contains(u, c) {
						u = append(u, c)
					}
				}
				s.Comps = u
			}
			return s
		}
		if s.Disabled && !disabled && sameSet(s.Comps, comps) {
			s.Disabled = false
			return s
		}
	}
	parts := []string{}
	if disabled {
		parts = append(parts, "#")
	}
	parts = append(parts, typ)
	if len(archs) > 0 {
		parts = append(parts, "[arch="+strings.Join(archs, ",")+"]")
	}
	parts = append(parts, uri, dist)
	parts = append(parts, comps...)
	var nonEmpty []string
	for _, p := range parts {
		if p != "" {
			nonEmpty = append(nonEmpty, p)
		}
	}
	return ParsePy(strings.Join(nonEmpty, " ")+"\n", DefaultFile)
}

var optsRE = regexp.MustCompile(`\[(.*=.*)\]`)

// repoOpt is one option of Salt's _get_opts.
type repoOpt struct {
	key, full, value string
	index            int
}

// getOpts is Salt's _get_opts: the options between brackets, arch and
// signedby first (always present, empty when unset), then the others in
// order.
func getOpts(line string) []repoOpt {
	opts := []repoOpt{{key: "arch"}, {key: "signedby"}}
	m := optsRE.FindString(line)
	if m == "" {
		return opts
	}
	for i, o := range strings.Fields(strings.Trim(m, "[]")) {
		_, v, _ := strings.Cut(o, "=")
		switch {
		case strings.HasPrefix(o, "arch"):
			opts[0] = repoOpt{"arch", o, v, i}
		case strings.HasPrefix(o, "signed-by"):
			opts[1] = repoOpt{"signedby", o, v, i}
		default:
			k, _, _ := strings.Cut(o, "=")
			found := false
			for j := range opts {
				if opts[j].key == k {
					opts[j], found = repoOpt{k, o, v, i}, true
				}
			}
			if !found {
				opts = append(opts, repoOpt{k, o, v, i})
			}
		}
	}
	return opts
}

// SignedBy is the signed-by= option of a repository definition.
func SignedBy(repo string) string { return getOpts(repo)[1].value }

// Expanded is what Salt's _expand_repo_def returns for a definition.
type Expanded struct {
	File          string
	Comps         []string
	Disabled      bool
	Dist          string
	Type          string
	URI           string
	Line          string
	Architectures []string
	SignedBy      string
}

// ExpandMods are the keyword arguments _expand_repo_def applies to the
// parsed definition (nil: not given).
type ExpandMods struct {
	URI, Dist    *string
	Comps, Archs []string
	HasComps     bool
	HasArchs     bool
	Disabled     *bool
}

// Expand is Salt's _expand_repo_def with python-apt: the definition is
// added to the sources under root (in memory) and the entry that results
// is described.
func Expand(root, repo string, mods ExpandMods) Expanded {
	src := ParsePy(repo, "")
	if mods.HasArchs {
		src.Architectures = mods.Archs
	}
	if mods.HasComps {
		src.Comps = mods.Comps
	}
	if mods.URI != nil {
		src.URI = *mods.URI
	}
	if mods.Dist != nil {
		src.Dist = *mods.Dist
	}
	if mods.Disabled != nil {
		src.Disabled = *mods.Disabled
	}
	e := pyAdd(LoadPy(root), src.Type, src.URI, src.Dist, src.Comps, src.Architectures)
	e.setEnabled(!src.Disabled)
	x := Expanded{File: e.File, Comps: nonNil(e.Comps), Disabled: e.Disabled, Dist: e.Dist, Type: e.Type, URI: e.URI,
		Line: strings.TrimSpace(e.Line), Architectures: nonNil(e.Architectures), SignedBy: SignedBy(repo)}
	if x.SignedBy != "" && !strings.Contains(x.Line, x.SignedBy) {
		opts := getOpts(repo)
		var order []string
		for _, o := range opts {
			if o.full != "" {
				order = append(order, o.key)
			}
		}
		for _, o := range opts {
			if o.index < len(order) {
				order[o.index] = o.full
			}
		}
		words := strings.Fields(x.Line)
		br := "[" + strings.Join(order, " ") + "]"
		if len(words) > 1 && strings.HasPrefix(words[1], "[") {
			words[1] = br
		} else if len(words) > 0 {
			words = append(words[:1], append([]string{br}, words[1:]...)...)
		}
		x.Line = strings.Join(words, " ")
	}
	return x
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}
