package check

import (
	"strings"

	"brine/internal/diag"
)

// Positions: high data loaded from YAML carries no positions, so the line
// of an ID, a state declaration or an argument is found by a cheap scan of
// the text for the key, nested by indentation (block-style YAML, which is
// what SLS files are written in). The source text is scanned first; when
// the key is not there (Jinja made it), the rendered text is scanned and its
// line is used as the source line when Jinja did not change the line
// count, else reported as a line of the rendered text. The normal
// (non-check) path is untouched: no cost outside `brine check`.

// keyLine is a match of a key in a text.
type keyLine struct {
	line, col, width int // 1-based line and column; width in characters
	indent           int
}

// scanBare finds a line holding only key in lines[from:to].
func scanBare(lines []string, key string, from, to, minIndent int) (keyLine, bool) {
	for i := from; i < min(to, len(lines)); i++ {
		l := strings.TrimRight(lines[i], "\r")
		body := strings.TrimLeft(l, " ")
		indent := len(l) - len(body)
		if indent > minIndent && strings.TrimSpace(body) == key {
			return keyLine{line: i + 1, col: runeCol(l, indent), width: len([]rune(key)), indent: indent}, true
		}
	}
	return keyLine{}, false
}

// scanKeyVal finds key (as a mapping key, plain or quoted, possibly after
// "- ") in lines[from:to] with indentation above minIndent. item makes it
// match a plain list item ("- key") instead.
// With val set, it matches a "key: val" line instead.
func scanKeyVal(lines []string, key, val string, from, to, minIndent int, item bool) (keyLine, bool) {
	if to > len(lines) {
		to = len(lines)
	}
	for i := from; i < to; i++ {
		l := strings.TrimRight(lines[i], "\r")
		body := strings.TrimLeft(l, " ")
		indent := len(l) - len(body)
		if indent <= minIndent && minIndent >= 0 {
			continue
		}
		dashed := false
		for strings.HasPrefix(body, "- ") {
			body = strings.TrimLeft(body[2:], " ")
			dashed = true
		}
		col := len(l) - len(body)
		for _, form := range []string{key, "'" + key + "'", `"` + key + `"`} {
			rest, ok := strings.CutPrefix(body, form)
			if !ok {
				continue
			}
			rest = strings.TrimLeft(rest, " ")
			if item && !dashed {
				continue
			}
			if val != "" {
				v, ok := strings.CutPrefix(rest, ":")
				v = strings.TrimSpace(v)
				if i := strings.Index(v, " #"); i >= 0 {
					v = strings.TrimSpace(v[:i])
				}
				if !ok || v != val && v != "'"+val+"'" && v != `"`+val+`"` {
					continue
				}
				return keyLine{line: i + 1, col: runeCol(l, col), width: len([]rune(strings.TrimRight(body, " \r"))), indent: indent}, true
			}
			if item && (rest == "" || strings.HasPrefix(rest, "#")) ||
				!item && (rest == ":" || strings.HasPrefix(rest, ": ") || strings.HasPrefix(rest, ":\t")) {
				return keyLine{line: i + 1, col: runeCol(l, col), width: len([]rune(form)), indent: indent}, true
			}
		}
	}
	return keyLine{}, false
}

func runeCol(l string, byteCol int) int { return len([]rune(l[:byteCol])) + 1 }

// blockEnd returns the index of the first line after line (1-based) with
// indentation at most indent (ignoring blank and comment lines).
func blockEnd(lines []string, line, indent int) int {
	for i := line; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], "\r")
		body := strings.TrimLeft(l, " ")
		if body == "" || strings.HasPrefix(body, "#") {
			continue
		}
		if len(l)-len(body) <= indent {
			return i
		}
	}
	return len(lines)
}

// step is one element of a path to locate: a mapping key, or a list item.
type step struct {
	key  string
	item bool
	val  string // for a "key: val" line (a requisite item)
	bare bool   // a line holding just key (a plain scalar)
}

// findPath locates a nested key path in text; it returns the deepest
// match found and how many steps matched.
func findPath(text string, path []step) (keyLine, int) {
	lines := strings.Split(text, "\n")
	from, to, minIndent := 0, len(lines), -1
	var best keyLine
	for n, s := range path {
		var kl keyLine
		ok := false
		if n == 0 {
			// Prefer a top-level key; fall back to any indentation.
			for i := range lines {
				if k2, ok2 := scanKeyVal(lines, s.key, s.val, i, i+1, -1, s.item); ok2 && k2.indent == 0 {
					kl, ok = k2, true
					break
				}
			}
			if !ok {
				kl, ok = scanKeyVal(lines, s.key, s.val, 0, len(lines), -1, s.item)
			}
		} else if s.bare {
			kl, ok = scanBare(lines, s.key, from, to, minIndent)
		} else {
			kl, ok = scanKeyVal(lines, s.key, s.val, from, to, minIndent, s.item)
		}
		if !ok {
			return best, n
		}
		best = kl
		from, to, minIndent = kl.line, blockEnd(lines, kl.line, kl.indent), kl.indent
	}
	return best, len(path)
}

// locate finds path in f: in the source first, then in the rendered text.
// It returns the range and a note for the detail (non-empty when the line
// is the rendered text's).
func (c *checker) locate(f *file, path []step) (*diag.Range, string) {
	r := &diag.Range{File: f.display}
	set := func(kl keyLine) (*diag.Range, string) {
		r.Start = diag.Pos{Line: kl.line, Col: kl.col}
		if kl.col > 0 {
			r.End = diag.Pos{Line: kl.line, Col: kl.col + kl.width}
		}
		return r, ""
	}
	kl, n := findPath(f.src, path)
	if n == len(path) || f.rendered == f.src {
		if n == 0 {
			return r, ""
		}
		return set(kl)
	}
	kl2, n2 := findPath(f.rendered, path)
	if n2 > n && f.sameLines() {
		if lines := strings.Split(f.src, "\n"); kl2.line <= len(lines) && !strings.Contains(lines[kl2.line-1], path[n2-1].key) {
			kl2.col, kl2.width = 0, 0
		}
		return set(kl2)
	}
	// The leading keys were made by Jinja: a deeper key that occurs once
	// in the source is the one.
	for i := 1; i < len(path); i++ {
		if kl3, ok := uniqueKey(f.src, path[i:]); ok {
			return set(kl3)
		}
	}
	if n2 > n {
		r.File = renderedName(f.display)
		c.byDisplay[r.File] = &file{src: f.rendered}
		r.Start = diag.Pos{Line: kl2.line, Col: kl2.col}
		r.End = diag.Pos{Line: kl2.line, Col: kl2.col + kl2.width}
		return r, "The line is that of the rendered text: Jinja changed the file's line count."
	}
	if n == 0 {
		return r, ""
	}
	return set(kl)
}

// uniqueKey finds path, its first key at any indentation, when that key
// occurs exactly once in text.
func uniqueKey(text string, path []step) (keyLine, bool) {
	lines := strings.Split(text, "\n")
	var first keyLine
	count := 0
	for i := range lines {
		if kl, ok := scanKeyVal(lines, path[0].key, path[0].val, i, i+1, -1, path[0].item); ok {
			count++
			first = kl
		}
	}
	if count != 1 {
		return keyLine{}, false
	}
	kl := first
	from, to, minIndent := kl.line, blockEnd(lines, kl.line, kl.indent), kl.indent
	for _, s := range path[1:] {
		k2, ok := scanKeyVal(lines, s.key, s.val, from, to, minIndent, s.item)
		if !ok {
			return keyLine{}, false
		}
		kl = k2
		from, to, minIndent = kl.line, blockEnd(lines, kl.line, kl.indent), kl.indent
	}
	return kl, true
}

func keys(ks ...string) []step {
	out := make([]step, len(ks))
	for i, k := range ks {
		out[i] = step{key: k}
	}
	return out
}
