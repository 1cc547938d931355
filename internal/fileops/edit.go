package fileops

// edit.go: Python-compatible regular expressions and the in-place text
// edits of salt/modules/file.py (blockreplace, comment_line, symlink).

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"brine/internal/value"
)

// PyRegexp compiles a Python regular expression with re flags (an int or
// a list of flag names) for Go's regexp.
func PyRegexp(pattern string, flags any) (*regexp.Regexp, error) {
	prefix := ""
	n := int64(0)
	switch f := flags.(type) {
	case int64:
		n = f
	case *value.List:
		for _, it := range f.Items {
			switch strings.ToUpper(value.Str(it)) {
			case "IGNORECASE", "I":
				n |= 2
			case "MULTILINE", "M":
				n |= 8
			case "DOTALL", "S":
				n |= 16
			}
		}
	case string:
		for _, part := range strings.Split(f, ",") {
			switch strings.ToUpper(strings.TrimSpace(part)) {
			case "IGNORECASE", "I":
				n |= 2
			case "MULTILINE", "M":
				n |= 8
			case "DOTALL", "S":
				n |= 16
			}
		}
	}
	if n&2 != 0 {
		prefix += "i"
	}
	if n&8 != 0 {
		prefix += "m"
	}
	if n&16 != 0 {
		prefix += "s"
	}
	pattern = strings.ReplaceAll(pattern, `\Z`, `\z`)
	if prefix != "" {
		pattern = "(?" + prefix + ")" + pattern
	}
	return regexp.Compile(pattern)
}

// PyRepl converts a Python re.sub replacement into a Go Expand template.
func PyRepl(repl string) string {
	var b strings.Builder
	for i := 0; i < len(repl); i++ {
		ch := repl[i]
		switch {
		case ch == '$':
			b.WriteString("$$")
		case ch == '\\' && i+1 < len(repl):
			nx := repl[i+1]
			switch {
			case nx >= '0' && nx <= '9':
				j := i + 1
				for j < len(repl) && j < i+3 && repl[j] >= '0' && repl[j] <= '9' {
					j++
				}
				b.WriteString("${" + repl[i+1:j] + "}")
				i = j - 1
			case nx == 'g' && i+2 < len(repl) && repl[i+2] == '<':
				end := strings.IndexByte(repl[i+3:], '>')
				if end < 0 {
					b.WriteByte(ch)
					continue
				}
				b.WriteString("${" + repl[i+3:i+3+end] + "}")
				i += 3 + end
			case nx == 'n':
				b.WriteByte('\n')
				i++
			case nx == 't':
				b.WriteByte('\t')
				i++
			case nx == 'r':
				b.WriteByte('\r')
				i++
			case nx == '\\':
				b.WriteByte('\\')
				i++
			default:
				b.WriteByte(ch)
			}
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// Subn is re.subn: replace at most count matches (0: all).
func Subn(re *regexp.Regexp, tmpl, src string, count int) (string, int) {
	n := 0
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(src, -1) {
		if count > 0 && n >= count {
			break
		}
		b.WriteString(src[last:m[0]])
		b.Write(re.ExpandString(nil, tmpl, src, m))
		last = m[1]
		n++
	}
	b.WriteString(src[last:])
	return b.String(), n
}

func BackupCopy(path, suffix string) {
	if suffix == "" || suffix == "False" {
		return
	}
	if data, err := os.ReadFile(path); err == nil {
		st, _ := os.Stat(path)
		_ = os.WriteFile(path+suffix, data, st.Mode().Perm())
	}
}

// Blockreplace is file.blockreplace (the execution function); it returns
// the diff.
func Blockreplace(path, start, end, content string, appendNF, prependNF bool, before, after, backup any, dry bool, appendNewline any) (string, error) {
	n := 0
	for _, b := range []bool{appendNF, prependNF, value.Truthy(before), value.Truthy(after)} {
		if b {
			n++
		}
	}
	if n > 1 {
		return "", invocationf("Only one of append_if_not_found, prepend_if_not_found, insert_before_match, and insert_after_match is permitted")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", invocationf("File not found: %s", path)
	}
	addNewline := value.Truthy(appendNewline)
	if appendNewline == nil && !strings.HasSuffix(content, "\n") {
		addNewline = true
	}
	var split []string
	for _, w := range strings.Split(content, "\r\n") {
		split = append(split, strings.Split(w, "\n")...)
	}
	addContent := func(linesep string, lines []string, includeStart bool, endLine string) []string {
		endLine = strings.TrimRight(endLine, "\r\n") + linesep
		if includeStart {
			lines = append(lines, start+linesep)
		}
		for i, cl := range split {
			if i+1 != len(split) {
				lines = append(lines, cl+linesep)
			} else if addNewline {
				lines = append(lines, cl+linesep, endLine)
			} else {
				lines = append(lines, cl+endLine)
			}
		}
		if len(split) == 0 {
			lines = append(lines, endLine)
		}
		return lines
	}
	var orig, newFile []string
	inBlock, found := false, false
	linesep := ""
	for _, line := range SplitLines(string(data)) {
		write := true
		if linesep == "" {
			switch {
			case strings.HasSuffix(line, "\r\n"):
				linesep = "\r\n"
			default:
				linesep = "\n"
			}
		}
		if strings.Contains(line, start) {
			inBlock = true
		} else if inBlock {
			write = false
			if pos := strings.Index(line, end); pos != -1 {
				inBlock = false
				found = true
				newFile = addContent(linesep, newFile, false, line[pos:])
			}
		}
		orig = append(orig, line)
		if write {
			newFile = append(newFile, line)
		}
	}
	if linesep == "" {
		linesep = "\n"
	}
	if inBlock {
		return "", execErrorf("Unterminated marked block. End of file reached before marker_end.")
	}
	if !found {
		switch {
		case prependNF:
			newFile = append(addContent(linesep, nil, true, end), newFile...)
			found = true
		case appendNF:
			if len(newFile) > 0 && !strings.HasSuffix(newFile[len(newFile)-1], linesep) {
				newFile[len(newFile)-1] += linesep
			}
			newFile = addContent(linesep, newFile, true, end)
			found = true
		case value.Truthy(before) || value.Truthy(after):
			pat := value.Str(before)
			if value.Truthy(after) {
				pat = value.Str(after)
			}
			re, err := regexp.Compile(pat)
			if err != nil {
				return "", err
			}
			for i, item := range orig {
				if re.MatchString(item) {
					idx := i
					for _, line := range addContent(linesep, nil, true, end) {
						if value.Truthy(after) {
							idx++
						}
						newFile = append(newFile[:idx], append([]string{line}, newFile[idx:]...)...)
						if value.Truthy(before) {
							idx++
						}
					}
					found = true
					break
				}
			}
		}
	}
	if !found {
		return "", execErrorf("Cannot edit marked block. Markers were not found in file.")
	}
	diff := UnifiedDiff(orig, newFile, "", "")
	if diff != "" && !dry {
		if b, ok := backup.(string); ok {
			BackupCopy(path, b)
		}
		if err := WriteAtomic(path, []byte(strings.Join(newFile, "")), false); err != nil {
			return "", err
		}
	}
	return diff, nil
}

// CommentLine is file.comment_line: (un)comment the lines of path that
// regex matches at their start. It returns the diff of the changed lines
// alone (as Salt reports it) and whether any line matched.
func CommentLine(path, regex, char string, cmnt bool, backup any) (string, bool, error) {
	var pat string
	if cmnt {
		pat = strings.TrimRight(strings.TrimLeft(regex, "^"), "$")
		pat = "(" + pat + ")"
		if strings.HasPrefix(regex, "^") {
			pat = "^" + pat
		}
		if strings.HasSuffix(regex, "$") {
			pat += "$"
		}
	} else {
		pat = "^" + char + `\s*(` + strings.TrimRight(strings.TrimLeft(regex, "^"), "$") + ")"
		if strings.HasSuffix(regex, "$") {
			pat += "$"
		}
	}
	path = ExpandUser(path)
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return "", false, invocationf("File not found: %s", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false, execErrorf("Unable to open file '%s'. Exception: %v", path, PyOSError(err))
	}
	if !IsText(data) {
		return "", false, invocationf("Cannot perform string replacements on a binary file: %s", path)
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return "", false, execErrorf("%v", err)
	}
	var out strings.Builder
	var orig, changed []string
	for _, line := range SplitLines(string(data)) {
		// re.match: a match anchored at the start; "$" may match before
		// the final newline.
		body := strings.TrimSuffix(line, "\n")
		if loc := re.FindStringIndex(line); loc != nil && loc[0] == 0 || matchAtStart(re, body) {
			orig = append(orig, line)
			if cmnt {
				line = char + line
			} else {
				line = strings.TrimLeft(line, char)
			}
			changed = append(changed, line)
		}
		out.WriteString(line)
	}
	if len(orig) == 0 {
		return "", false, nil
	}
	pre, _ := Stat(path, true)
	if b := value.Str(backup); value.Truthy(backup) {
		BackupCopy(path, b)
	}
	if err := WriteAtomic(path, []byte(out.String()), false); err != nil {
		return "", true, execErrorf("Exception: %v", err)
	}
	CheckPerms(path, value.MapOf("changes", value.NewMap(0), "result", true, "comment", ""), pre.User, pre.Group, pre.Mode, true, false)
	return UnifiedDiff(orig, changed, "", ""), true, nil
}

func matchAtStart(re *regexp.Regexp, s string) bool {
	loc := re.FindStringIndex(s)
	return loc != nil && loc[0] == 0
}

// Symlink makes path a symbolic link to src as the file.symlink state
// does: with force an existing file, link or directory tree is replaced
// (the file.symlink execution function, in internal/modules, refuses to
// remove a directory, as Salt's does).
func Symlink(src, path string, force, atomic bool) error {
	if isLink(path) && !force && !atomic {
		return fmt.Errorf("Found existing symlink: %s", path)
	}
	if exists(path) && !isLink(path) && !force && !atomic {
		return fmt.Errorf("Existing path is not a symlink: %s", path)
	}
	if (isLink(path) || exists(path)) && !atomic {
		if isDir(path) && !isLink(path) {
			if err := os.RemoveAll(path); err != nil {
				return err
			}
		} else if err := os.Remove(path); err != nil {
			return err
		}
	}
	if atomic {
		tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
		os.Remove(tmp)
		if err := os.Symlink(src, tmp); err != nil {
			return err
		}
		return os.Rename(tmp, path)
	}
	if err := os.Symlink(src, path); err != nil {
		return fmt.Errorf("Could not create '%s'", path)
	}
	return nil
}
