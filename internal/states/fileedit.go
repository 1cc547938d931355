package states

// fileedit.go holds the file states that edit text in place: append,
// prepend, replace, line, blockreplace, accumulated, comment, uncomment and
// keyvalue.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"brine/internal/pyops"
	"brine/internal/statemod"
	"brine/internal/value"
)

const accumulatorKey = "file.accumulators"

// accumulatorsFor returns the accumulator data for filename (the
// "accumulator" template variable), or nil.
func accumulatorsFor(c *statemod.Call, filename string) *value.Map {
	if c.Env == nil || c.Env.Shared == nil {
		return nil
	}
	var out *value.Map
	c.Env.Shared.Do(func(m map[string]any) {
		all, _ := m[accumulatorKey].(*value.Map)
		if all == nil {
			return
		}
		if v, ok := all.Get(filename); ok {
			out, _ = v.(*value.Map)
		}
	})
	return out
}

func init() {
	statemod.Register(&statemod.Function{Name: "file.replace", Run: fileReplace,
		Doc: "Maintain an edit in a file.",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("pattern"), statemod.Req("repl"), p("count", int64(0)),
			p("flags", int64(8)), p("bufsize", int64(1)), p("append_if_not_found", false), p("prepend_if_not_found", false),
			p("not_found_content", nil), p("backup", ".bak"), p("show_changes", true), p("ignore_if_missing", false),
			p("backslash_literal", false)}})
	statemod.Register(&statemod.Function{Name: "file.blockreplace", Run: fileBlockreplace,
		Doc: "Maintain an edit in a file in a zone delimited by two line markers.",
		Params: []statemod.Param{statemod.Req("name"), p("marker_start", "#-- start managed zone --"),
			p("marker_end", "#-- end managed zone --"), p("source", nil), p("source_hash", nil), p("template", "jinja"),
			p("sources", nil), p("source_hashes", nil), p("defaults", nil), p("context", nil), p("content", ""),
			p("append_if_not_found", false), p("prepend_if_not_found", false), p("backup", ".bak"),
			p("show_changes", true), p("append_newline", nil), p("insert_before_match", nil), p("insert_after_match", nil)}})
	statemod.Register(&statemod.Function{Name: "file.accumulated", Kwargs: true, Run: fileAccumulated,
		Doc:    "Prepare accumulator which can be used in template in file.",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("filename"), statemod.Req("text")}})
	statemod.Register(&statemod.Function{Name: "file.line", Run: fileLine,
		Doc: "Line-focused editing of a file.",
		Params: []statemod.Param{statemod.Req("name"), p("content", nil), p("match", nil), p("mode", nil), p("location", nil),
			p("before", nil), p("after", nil), p("show_changes", true), p("backup", false), p("quiet", false),
			p("indent", true), p("create", false), p("user", nil), p("group", nil), p("file_mode", nil)}})
	appendParams := []statemod.Param{statemod.Req("name"), p("text", nil), p("makedirs", false), p("source", nil),
		p("source_hash", nil), p("template", "jinja"), p("sources", nil), p("source_hashes", nil), p("defaults", nil),
		p("context", nil), p("ignore_whitespace", true)}
	statemod.Register(&statemod.Function{Name: "file.append", Run: func(c *statemod.Call) (*value.Map, error) { return fileAppend(c, false) },
		Doc: "Ensure that some text appears at the end of a file.", Params: appendParams})
	statemod.Register(&statemod.Function{Name: "file.prepend", Run: func(c *statemod.Call) (*value.Map, error) { return fileAppend(c, true) },
		Doc: "Ensure that some text appears at the beginning of a file.", Params: append(append([]statemod.Param(nil), appendParams...), p("header", nil))})
}

// pyRegexp compiles a Python regular expression with re flags (an int or
// a list of flag names) for Go's regexp.
func pyRegexp(pattern string, flags any) (*regexp.Regexp, error) {
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

// pyRepl converts a Python re.sub replacement into a Go Expand template.
func pyRepl(repl string) string {
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

// subn is re.subn: replace at most count matches (0: all).
func subn(re *regexp.Regexp, tmpl, src string, count int) (string, int) {
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

// keepLines splits like Python's str.splitlines(True).
func keepLines(s string) []string { return readLines(s) }

func backupCopy(path, suffix string) {
	if suffix == "" || suffix == "False" {
		return
	}
	if data, err := os.ReadFile(path); err == nil {
		st, _ := os.Stat(path)
		_ = os.WriteFile(path+suffix, data, st.Mode().Perm())
	}
}

func checkFile(name string) (bool, string) {
	if !filepath.IsAbs(name) {
		return false, fmt.Sprintf("Specified file %s is not an absolute path", name)
	}
	if !exists(name) {
		return false, fmt.Sprintf("%s: file not found", name)
	}
	return true, ""
}

func editResult(c *statemod.Call, ret *value.Map, diff string, would string) (*value.Map, error) {
	if diff != "" {
		mapGet(ret, "changes").(*value.Map).Set("diff", diff)
		if c.Test {
			ret.Set("result", nil)
			ret.Set("comment", would)
		} else {
			ret.Set("result", true)
			ret.Set("comment", "Changes were made")
		}
	} else {
		ret.Set("result", true)
		ret.Set("comment", "No changes needed to be made")
	}
	return ret, nil
}

func fileReplace(c *statemod.Call) (*value.Map, error) {
	name := expandUser(c.Str("name"))
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	if name == "" {
		return fileErr(ret, "Must provide name to file.replace")
	}
	if ok, msg := checkFile(name); !ok {
		if c.Bool("ignore_if_missing") && strings.Contains(msg, "file not found") {
			ret.Set("comment", "No changes needed to be made")
			return ret, nil
		}
		return fileErr(ret, msg)
	}
	path := name
	if r, err := filepath.EvalSymlinks(name); err == nil {
		path = r
	}
	appendNF, prependNF := c.Bool("append_if_not_found"), c.Bool("prepend_if_not_found")
	if appendNF && prependNF {
		return nil, &invocationError{"Only one of append and prepend_if_not_found is permitted"}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !isText(data) {
		return nil, &invocationError{"Cannot perform string replacements on a binary file: " + path}
	}
	flags := c.Get("flags")
	re, err := pyRegexp(c.Str("pattern"), flags)
	if err != nil {
		return nil, fmt.Errorf("error: %v", err)
	}
	repl := c.Str("repl")
	tmpl := pyRepl(repl)
	if c.Bool("backslash_literal") {
		tmpl = strings.ReplaceAll(repl, "$", "$$")
	}
	var notFound *string
	if nf := c.Get("not_found_content"); value.Truthy(nf) {
		s := value.Str(nf)
		notFound = &s
	}
	content := repl
	if notFound != nil && (appendNF || prependNF) {
		content = *notFound
	}
	src := string(data)
	result, nrepl := subn(re, tmpl, src, c.Int("count", 0))
	found := false
	hasChanges := false
	if nrepl > 0 {
		found = true
		hasChanges = c.Str("pattern") != repl
	}
	if appendNF || prependNF {
		for _, line := range keepLines(src) {
			l := strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
			if l == content {
				found = true
				break
			}
		}
	}
	orig := keepLines(src)
	newLines := keepLines(result)
	if strings.Join(orig, "") == strings.Join(newLines, "") {
		hasChanges = false
	}
	if !found && (appendNF || prependNF) {
		nf := repl
		if notFound != nil {
			nf = *notFound
		}
		if prependNF {
			newLines = append([]string{nf + "\n"}, newLines...)
		} else {
			if len(newLines) > 0 && !strings.HasSuffix(newLines[len(newLines)-1], "\n") {
				newLines[len(newLines)-1] += "\n"
			}
			newLines = append(newLines, nf+"\n")
		}
		hasChanges = true
	}
	if hasChanges && !c.Test {
		backupCopy(path, c.Str("backup"))
		if err := writeAtomic(path, []byte(strings.Join(newLines, "")), false); err != nil {
			return nil, err
		}
	}
	diff := unifiedDiff(orig, newLines, "", "")
	if !c.Bool("show_changes") {
		if diff != "" && hasChanges {
			diff = "True"
		} else {
			diff = ""
		}
	}
	return editResult(c, ret, diff, "Changes would have been made")
}

func fileBlockreplace(c *statemod.Call) (*value.Map, error) {
	name := expandUser(c.Str("name"))
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", false, "comment", "")
	if name == "" {
		return fileErr(ret, "Must provide name to file.blockreplace")
	}
	if ok, msg := checkFile(name); !ok {
		return fileErr(ret, msg)
	}
	content := c.Str("content")
	if acc := accumulatorsFor(c, name); acc != nil {
		deps := accumulatorDeps(c, name)
		id := value.Str(mapGet(c.Low, "__id__"))
		var filtered []string
		for _, a := range deps.order {
			if deps.ids[a][id] && acc.Has(a) {
				filtered = append(filtered, a)
			}
		}
		if len(filtered) == 0 {
			for _, k := range acc.Keys() {
				filtered = append(filtered, value.Str(k))
			}
		}
		for _, a := range filtered {
			lines, _ := mapGet(acc, a).(*value.List)
			if lines == nil {
				continue
			}
			for _, line := range lines.Items {
				if content == "" {
					content = value.Str(line)
				} else {
					content += "\n" + value.Str(line)
				}
			}
		}
	}
	diff, err := blockreplace(name, c.Str("marker_start"), c.Str("marker_end"), content,
		c.Bool("append_if_not_found"), c.Bool("prepend_if_not_found"), c.Get("insert_before_match"),
		c.Get("insert_after_match"), c.Get("backup"), c.Test, c.Get("append_newline"))
	if err != nil {
		ret.Set("comment", fmt.Sprintf("Encountered error managing block: %v. See the log for details.", err))
		return ret, nil
	}
	if !c.Bool("show_changes") && diff != "" {
		diff = "True"
	}
	return editResult(c, ret, diff, "Changes would be made")
}

// blockreplace is file.blockreplace (the execution function); it returns
// the diff.
func blockreplace(path, start, end, content string, appendNF, prependNF bool, before, after, backup any, dry bool, appendNewline any) (string, error) {
	n := 0
	for _, b := range []bool{appendNF, prependNF, value.Truthy(before), value.Truthy(after)} {
		if b {
			n++
		}
	}
	if n > 1 {
		return "", errors.New("Only one of append_if_not_found, prepend_if_not_found, insert_before_match, and insert_after_match is permitted")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("File not found: %s", path)
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
	for _, line := range keepLines(string(data)) {
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
		return "", errors.New("Unterminated marked block. End of file reached before marker_end.")
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
		return "", errors.New("Cannot edit marked block. Markers were not found in file.")
	}
	diff := unifiedDiff(orig, newFile, "", "")
	if diff != "" && !dry {
		if b, ok := backup.(string); ok {
			backupCopy(path, b)
		}
		if err := writeAtomic(path, []byte(strings.Join(newFile, "")), false); err != nil {
			return "", err
		}
	}
	return diff, nil
}

type accDeps struct {
	order []string
	ids   map[string]map[string]bool
}

const accumulatorDepsKey = "file.accumulator_deps"

func accumulatorDeps(c *statemod.Call, filename string) accDeps {
	out := accDeps{ids: map[string]map[string]bool{}}
	if c.Env == nil || c.Env.Shared == nil {
		return out
	}
	c.Env.Shared.Do(func(m map[string]any) {
		all, _ := m[accumulatorDepsKey].(map[string]*accDeps)
		if d := all[filename]; d != nil {
			out = *d
		}
	})
	return out
}

func fileAccumulated(c *statemod.Call) (*value.Map, error) {
	name := c.Str("name")
	ret := value.MapOf("name", c.Get("name"), "changes", value.NewMap(0), "result", true, "comment", "")
	if name == "" {
		return fileErr(ret, "Must provide name to file.accumulated")
	}
	text := c.Get("text")
	if text == nil {
		ret.Set("result", false)
		ret.Set("comment", "No text supplied for accumulator")
		return ret, nil
	}
	var deps []any
	for _, k := range []string{"require_in", "watch_in"} {
		if l, ok := mapGet(c.Low, k).(*value.List); ok {
			deps = append(deps, l.Items...)
		}
	}
	hasFile := false
	for _, d := range deps {
		if m, ok := d.(*value.Map); ok && m.Has("file") {
			hasFile = true
		}
	}
	if !hasFile {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Orphaned accumulator %s in %s:%s", name, value.Str(mapGet(c.Low, "__sls__")), value.Str(mapGet(c.Low, "__id__"))))
		return ret, nil
	}
	var chunks []any
	switch t := text.(type) {
	case *value.List:
		chunks = t.Items
	default:
		chunks = []any{t}
	}
	filename := c.Str("filename")
	c.Env.Shared.Do(func(m map[string]any) {
		all, _ := m[accumulatorKey].(*value.Map)
		if all == nil {
			all = value.NewMap(0)
			m[accumulatorKey] = all
		}
		fileAcc, _ := mapGet(all, filename).(*value.Map)
		if fileAcc == nil {
			fileAcc = value.NewMap(0)
			all.Set(filename, fileAcc)
		}
		depAll, _ := m[accumulatorDepsKey].(map[string]*accDeps)
		if depAll == nil {
			depAll = map[string]*accDeps{}
			m[accumulatorDepsKey] = depAll
		}
		fd := depAll[filename]
		if fd == nil {
			fd = &accDeps{ids: map[string]map[string]bool{}}
			depAll[filename] = fd
		}
		if fd.ids[name] == nil {
			fd.ids[name] = map[string]bool{}
			fd.order = append(fd.order, name)
		}
		for _, d := range deps {
			if dm, ok := d.(*value.Map); ok {
				for _, v := range dm.Values() {
					fd.ids[name][value.Str(v)] = true
				}
			}
		}
		lines, _ := mapGet(fileAcc, name).(*value.List)
		if lines == nil {
			lines = value.NewList()
			fileAcc.Set(name, lines)
		}
		for _, ch := range chunks {
			dup := false
			for _, have := range lines.Items {
				if value.Equal(have, ch) {
					dup = true
					break
				}
			}
			if !dup {
				lines.Append(ch)
				ret.Set("comment", fmt.Sprintf("Accumulator %s for file %s was charged by text", name, filename))
			}
		}
	})
	return ret, nil
}

// regexToStatic is _regex_to_static: the lines regex finds (or that
// contain it literally).
func regexToStatic(lines []string, regex any) ([]string, error) {
	if len(lines) == 0 || !value.Truthy(regex) {
		return nil, nil
	}
	pat := value.Str(regex)
	re, err := regexp.Compile("(?s)" + pat)
	if err != nil {
		return nil, fmt.Errorf("%v: '%s'", err, pat)
	}
	var out []string
	for _, l := range lines {
		if re.MatchString(l) || strings.Contains(l, pat) {
			out = append(out, l)
		}
	}
	return out, nil
}

func setLineIndent(src, line string, indent bool) string {
	if !indent {
		return line
	}
	i := 0
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return src[:i] + strings.TrimLeft(line, " \t\n\r\v\f")
}

func getEOL(line string) string {
	switch {
	case strings.HasSuffix(line, "\r\n"):
		return "\r\n"
	case strings.HasSuffix(line, "\n"):
		return "\n"
	case strings.HasSuffix(line, "\r"):
		return "\r"
	}
	return ""
}

func setLineEOL(src, line string) string {
	eol := getEOL(src)
	if eol == "" {
		eol = "\n"
	}
	return strings.TrimRight(line, " \t\n\r\v\f") + eol
}

func indexOf(lines []string, s string) int {
	for i, l := range lines {
		if l == s {
			return i
		}
	}
	return -1
}

func assertOne(probe []string, target string) error {
	switch {
	case len(probe) > 1:
		return fmt.Errorf("Found more than expected occurrences in \"%s\" expression", target)
	case len(probe) < 1:
		return fmt.Errorf("Found less than expected occurrences in \"%s\" expression", target)
	}
	return nil
}

func insertAt(lines []string, i int, s string) []string {
	lines = append(lines, "")
	copy(lines[i+1:], lines[i:])
	lines[i] = s
	return lines
}

// setLine is file._set_line.
func setLine(lines []string, content *string, matchArg any, mode string, location, beforeArg, afterArg any, indent bool) ([]string, error) {
	cont := ""
	if content != nil {
		cont = *content
	}
	if !value.Truthy(matchArg) && beforeArg == nil && afterArg == nil && content != nil {
		matchArg = cont
	}
	after, err := regexToStatic(lines, afterArg)
	if err != nil {
		return nil, err
	}
	before, err := regexToStatic(lines, beforeArg)
	if err != nil {
		return nil, err
	}
	match, err := regexToStatic(lines, matchArg)
	if err != nil {
		return nil, err
	}
	switch {
	case len(lines) == 0 && (mode == "delete" || mode == "replace"):
		return nil, nil
	case mode == "delete" && match != nil:
		var out []string
		for _, l := range lines {
			if l != match[0] {
				out = append(out, l)
			}
		}
		return out, nil
	case mode == "replace" && match != nil:
		idx := indexOf(lines, match[0])
		lines[idx] = setLineIndent(lines[idx], cont, indent)
	case mode == "insert":
		if beforeArg == nil && afterArg == nil && location == nil {
			return nil, errors.New(`On insert either "location" or "before/after" conditions are required.`)
		}
		if value.Truthy(location) {
			switch value.Str(location) {
			case "end":
				if len(lines) > 0 {
					lines = append(lines, setLineIndent(lines[len(lines)-1], cont, indent))
				} else {
					lines = append(lines, cont)
				}
			case "start":
				if len(lines) > 0 {
					lines = insertAt(lines, 0, setLineEOL(lines[0], cont))
				} else {
					lines = []string{cont + "\n"}
				}
			}
			return lines, nil
		}
		switch {
		case before != nil && after != nil:
			if err := assertOne(before, "before"); err != nil {
				return nil, err
			}
			if err := assertOne(after, "after"); err != nil {
				return nil, err
			}
			last := indexOf(lines, before[0])
			lines = insertAt(lines, last, setLineIndent(lines[last], cont, indent))
		case after != nil:
			if err := assertOne(after, "after"); err != nil {
				return nil, err
			}
			idx := indexOf(lines, after[0])
			if idx+1 >= len(lines) || strings.TrimRight(lines[idx+1], "\r\n") != strings.TrimRight(cont, "\r\n") {
				lines = insertAt(lines, idx+1, setLineIndent(lines[idx], cont, indent))
			}
		case before != nil:
			if err := assertOne(before, "before"); err != nil {
				return nil, err
			}
			idx := indexOf(lines, before[0])
			prev := lines[(idx-1+len(lines))%len(lines)]
			if strings.TrimRight(prev, "\r\n") != strings.TrimRight(cont, "\r\n") {
				lines = insertAt(lines, idx, setLineIndent(lines[idx], cont, indent))
			}
		default:
			return nil, errors.New("Neither before or after was found in file")
		}
	case mode == "ensure":
		switch {
		case before != nil && after != nil:
			if err := assertOne(after, "after"); err != nil {
				return nil, err
			}
			if err := assertOne(before, "before"); err != nil {
				return nil, err
			}
			ai, bi := indexOf(lines, after[0]), indexOf(lines, before[0])
			there := false
			for _, l := range lines {
				if strings.TrimLeft(l, " \t\n\r\v\f") == cont {
					there = true
				}
			}
			if !there {
				switch {
				case ai+1 == bi:
					lines = insertAt(lines, ai+1, setLineIndent(lines[ai], cont, indent))
				case ai+2 == bi:
					lines[ai+1] = setLineIndent(lines[ai], cont, indent)
				default:
					return nil, errors.New(`Found more than one line between boundaries "before" and "after".`)
				}
			}
		case before != nil:
			if err := assertOne(before, "before"); err != nil {
				return nil, err
			}
			bi := indexOf(lines, before[0])
			if bi == 0 || strings.TrimRight(lines[bi-1], "\r\n") != strings.TrimRight(cont, "\r\n") {
				src := lines[(bi-1+len(lines))%len(lines)]
				lines = insertAt(lines, bi, setLineIndent(src, cont, indent))
			}
		case after != nil:
			if err := assertOne(after, "after"); err != nil {
				return nil, err
			}
			ai := indexOf(lines, after[0])
			if ai+1 >= len(lines) || strings.TrimRight(lines[ai+1], "\r\n") != strings.TrimRight(cont, "\r\n") {
				lines = insertAt(lines, ai+1, setLineIndent(lines[ai], cont, indent))
			}
		default:
			return nil, errors.New("Wrong conditions? Unable to ensure line without knowing where to put it before and/or after.")
		}
	}
	return lines, nil
}

func fileLine(c *statemod.Call) (*value.Map, error) {
	name := expandUser(c.Str("name"))
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	if name == "" {
		return fileErr(ret, "Must provide name to file.line")
	}
	if c.Bool("create") && !exists(name) && !c.Test {
		_ = writeAtomic(name, nil, false)
	}
	if ok, msg := checkFile(name); !ok {
		return fileErr(ret, msg)
	}
	mode := strings.ToLower(c.Str("mode"))
	if mode == "" {
		return fileErr(ret, "Mode was not defined. How to process the file?")
	}
	var content *string
	if v := c.Get("content"); v != nil {
		s := value.Str(v)
		content = &s
	}
	if mode != "delete" && content == nil {
		return fileErr(ret, "Content can only be empty if mode is ['delete']")
	}
	switch mode {
	case "insert", "ensure", "delete", "replace":
	default:
		return nil, fmt.Errorf("CommandExecutionError: Unknown mode: \"%s\"", mode)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	body := keepLines(string(data))
	before := string(data)
	if len(body) > 0 && getEOL(body[len(body)-1]) != "" {
		body = append(body, "")
	}
	if len(data) == 0 && (mode == "delete" || mode == "replace") {
		body = nil
	}
	body, err = setLine(body, content, c.Get("match"), mode, c.Get("location"), c.Get("before"), c.Get("after"), c.Bool("indent"))
	if err != nil {
		return nil, fmt.Errorf("CommandExecutionError: %v", err)
	}
	if len(body) > 0 {
		for i, l := range body {
			if getEOL(l) == "" && i+1 < len(body) {
				prev := 1
				if i > 0 {
					prev = i - 1
				}
				body[i] = setLineEOL(body[prev], l)
			}
		}
		if body[len(body)-1] == "" {
			body = body[:len(body)-1]
		}
	}
	after := strings.Join(body, "")
	diff := ""
	if after != before {
		if !c.Test {
			if err := writeAtomic(name, []byte(after), false); err != nil {
				return nil, err
			}
		}
		if c.Bool("show_changes") {
			diff = unifiedDiff(keepLines(before), keepLines(after), "", "")
		} else {
			diff = "True"
		}
	}
	return editResult(c, ret, diff, "Changes would be made")
}

// fileAppend is file.append (or file.prepend with front set).
func fileAppend(c *statemod.Call, front bool) (*value.Map, error) {
	name := expandUser(c.Str("name"))
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", false, "comment", "")
	changes := mapGet(ret, "changes").(*value.Map)
	if name == "" {
		return fileErr(ret, "Must provide name to file.append")
	}
	if c.Bool("makedirs") {
		dir := filepath.Dir(name)
		if c.Test {
			ret.Set("comment", fmt.Sprintf("Directory %s is set to be updated", dir))
			ret.Set("result", nil)
		} else if !isDir(dir) {
			if err := makedirs(name, nil, nil, nil); err != nil {
				return fileErr(ret, err.Error())
			}
		}
	}
	if ok, msg := checkFile(name); !ok {
		tc := *c
		tc.Args = value.MapOf("name", name, "atime", nil, "mtime", nil, "makedirs", c.Bool("makedirs"))
		tret, _ := fileTouch(&tc)
		if c.Test {
			return tret, nil
		}
		if ok2, _ := checkFile(name); !ok2 {
			return fileErr(ret, msg)
		}
	}
	var texts []string
	src := c.Get("source")
	if src == nil {
		src = c.Get("sources")
	}
	if value.Truthy(src) {
		var list []any
		if l, ok := src.(*value.List); ok {
			list = l.Items
		} else {
			list = []any{src}
		}
		for _, s := range list {
			data, err := readSource(c, value.Str(s))
			if err != nil {
				return fileErr(ret, fmt.Sprintf("Source file '%s' not found", value.Str(s)))
			}
			txt := string(data)
			if tmpl := c.Get("template"); value.Truthy(tmpl) {
				ctx := value.NewMap(0)
				if d, ok := c.Get("defaults").(*value.Map); ok {
					ctx.Update(d)
				}
				if cx, ok := c.Get("context").(*value.Map); ok {
					ctx.Update(cx)
				}
				if out, err := renderTemplate(c, value.Str(tmpl), txt, ctx, value.Str(s)); err == nil {
					txt = out
				}
			}
			texts = append(texts, txt)
		}
	} else {
		var ok bool
		texts, ok = validateStrList(c.Get("text"))
		if !ok {
			return fileErr(ret, "No text found to append. Nothing appended")
		}
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	slines := pyops.SplitLines(string(data), false)
	var add []string
	for _, chunk := range texts {
		if searchChunk(string(data), chunk, c.Bool("ignore_whitespace")) {
			continue
		}
		add = append(add, pyops.SplitLines(chunk, false)...)
	}
	nlines := append([]string(nil), slines...)
	if front {
		nlines = append(append([]string(nil), add...), slines...)
	} else {
		nlines = append(nlines, add...)
	}
	verb := "Appended"
	if front {
		verb = "Prepended"
	}
	if c.Test {
		ret.Set("comment", fmt.Sprintf("File %s is set to be updated", name))
		ret.Set("result", nil)
		if strings.Join(slines, "\n") != strings.Join(nlines, "\n") || len(slines) != len(nlines) {
			changes.Set("diff", lineDiff(slines, nlines))
		} else {
			ret.Set("comment", fmt.Sprintf("File %s is in correct state", name))
			ret.Set("result", true)
		}
		return ret, nil
	}
	if len(add) > 0 {
		var out string
		if front {
			out = strings.Join(add, "\n") + "\n" + string(data)
		} else {
			out = string(data)
			if len(out) > 0 && !strings.HasSuffix(out, "\n") {
				out += "\n"
			}
			out += strings.Join(add, "\n") + "\n"
		}
		if err := writeAtomic(name, []byte(out), false); err != nil {
			return nil, err
		}
		ret.Set("comment", fmt.Sprintf("%s %d lines", verb, len(add)))
	} else {
		ret.Set("comment", fmt.Sprintf("File %s is in correct state", name))
	}
	after, _ := os.ReadFile(name)
	nl := pyops.SplitLines(string(after), false)
	if strings.Join(slines, "\n") != strings.Join(nl, "\n") || len(slines) != len(nl) {
		changes.Set("diff", lineDiff(slines, nl))
	}
	ret.Set("result", true)
	return ret, nil
}

// lineDiff is "\n".join(difflib.unified_diff(a, b)) on lines without
// their newlines, as file.append reports it.
func lineDiff(a, b []string) string {
	// Python yields headers ending in "\n" and lines without one; the
	// elements are joined with "\n".
	var parts []string
	for _, g := range newSeqMatcher(a, b).groupedOpcodes(3) {
		if len(parts) == 0 {
			parts = append(parts, "--- \n", "+++ \n")
		}
		first, last := g[0], g[len(g)-1]
		parts = append(parts, fmt.Sprintf("@@ -%s +%s @@\n", formatRange(first.i1, last.i2), formatRange(first.j1, last.j2)))
		for _, op := range g {
			if op.tag == 'e' {
				for _, l := range a[op.i1:op.i2] {
					parts = append(parts, " "+l)
				}
				continue
			}
			if op.tag == 'r' || op.tag == 'd' {
				for _, l := range a[op.i1:op.i2] {
					parts = append(parts, "-"+l)
				}
			}
			if op.tag == 'r' || op.tag == 'i' {
				for _, l := range b[op.j1:op.j2] {
					parts = append(parts, "+"+l)
				}
			}
		}
	}
	return strings.Join(parts, "\n")
}

// searchChunk is file.search(name, build_whitespace_split_regex(chunk),
// multiline=True), or a plain multiline search without ignore_whitespace.
func searchChunk(data, chunk string, ignoreWS bool) bool {
	if !ignoreWS {
		re, err := regexp.Compile("(?ms)" + chunk)
		return err == nil && re.MatchString(data)
	}
	var b strings.Builder
	for _, line := range pyops.SplitLines(chunk, false) {
		parts := strings.Fields(line)
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		b.WriteString("^" + `\s*` + strings.Join(parts, `\s+`) + `\s*` + "$")
	}
	pat := b.String()
	if pat == "" {
		return false
	}
	re, err := regexp.Compile("(?ms)" + pat)
	return err == nil && re.MatchString(data)
}

func init() {
	statemod.Register(&statemod.Function{Name: "file.keyvalue", Run: fileKeyvalue,
		Doc: "Key/Value based editing of a file.",
		Params: []statemod.Param{statemod.Req("name"), p("key", nil), p("value", nil), p("key_values", nil),
			p("separator", "="), p("append_if_not_found", false), p("prepend_if_not_found", false),
			p("search_only", false), p("show_changes", true), p("ignore_if_missing", false), p("count", int64(1)),
			p("uncomment", nil), p("key_ignore_case", false), p("value_ignore_case", false)}})
}

// lstripChars is Python's str.lstrip(chars); chars nil strips whitespace.
func lstripChars(s string, chars any) string {
	if chars == nil {
		return strings.TrimLeft(s, " \t\n\r\v\f")
	}
	return strings.TrimLeft(s, value.Str(chars))
}

func fileKeyvalue(c *statemod.Call) (*value.Map, error) {
	name := expandUser(c.Str("name"))
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", nil, "comment", "")
	if name == "" {
		return fileErr(ret, "Must provide name to file.keyvalue")
	}
	kv, _ := c.Get("key_values").(*value.Map)
	if c.Get("key") != nil && c.Get("value") != nil {
		if kv != nil {
			return fileErr(ret, "file.keyvalue can not combine key_values with key and value")
		}
		kv = value.MapOf(value.Str(c.Get("key")), c.Get("value"))
	} else if kv == nil || kv.Len() == 0 {
		msg := "is not a dictionary"
		if !value.Truthy(c.Get("key_values")) {
			msg = "is empty"
		}
		return fileErr(ret, "file.keyvalue key and value not supplied and key_values "+msg)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		ret.Set("comment", fmt.Sprintf("unable to open %s", name))
		ret.Set("result", c.Bool("ignore_if_missing"))
		return ret, nil
	}
	sep := c.Str("separator")
	uncomment := c.Get("uncomment")
	keyCase, valCase := c.Bool("key_ignore_case"), c.Bool("value_ignore_case")
	count := c.Int("count", 1)
	diffCount := map[string]int{}
	var keys []string
	kv.Range(func(k, _ any) bool {
		ks := value.Str(k)
		keys = append(keys, ks)
		diffCount[ks] = count
		return true
	})
	fmtLine := func(k, s string, v any) string { return k + s + value.Str(v) + "\n" }
	var diff, content []string
	changes := 0
	for _, line := range keepLines(string(data)) {
		testLine := lstripChars(line, uncomment)
		didUncomment := len(line) > len(testLine)
		if keyCase {
			testLine = strings.ToLower(testLine)
		}
		for _, key := range keys {
			val := mapGetAny(kv, key)
			testKey := key
			if keyCase {
				testKey = strings.ToLower(key)
			}
			if !strings.HasPrefix(testLine, testKey) {
				continue
			}
			working := line
			if didUncomment {
				working = lstripChars(line, uncomment)
			}
			lineKey, lineVal, found := strings.Cut(working, sep)
			if !found {
				continue
			}
			match := lineKey == testKey
			if keyCase {
				match = strings.ToLower(lineKey) == testKey
			}
			if !match {
				continue
			}
			lv := strings.TrimSpace(lineVal)
			tv := strings.TrimSpace(value.Str(val))
			if valCase {
				lv, tv = strings.ToLower(lv), strings.ToLower(tv)
			}
			valuesMatch := lv == tv
			needs := false
			if didUncomment {
				if diffCount[key] > 0 {
					needs = true
				} else if !valuesMatch {
					valuesMatch = true
				}
			} else if diffCount[key] == 0 {
				needs = true
			}
			if !valuesMatch || needs {
				diff = append(diff, "- "+line)
				line = ""
				if diffCount[key] != 0 {
					line = fmtLine(lineKey, sep, val)
					if _, isStr := val.(string); !isStr {
						diff = append(diff, fmt.Sprintf("+ %s (from %s type)\n", strings.TrimRight(line, " \t\n\r\v\f"), value.TypeName(val)))
					} else {
						diff = append(diff, "+ "+line)
					}
				}
				changes++
			}
			if diffCount[key] > 0 {
				diffCount[key]--
			}
		}
		content = append(content, line)
	}
	if c.Bool("append_if_not_found") {
		var tmp []string
		for _, key := range keys {
			if diffCount[key] > 0 {
				line := fmtLine(key, sep, mapGetAny(kv, key))
				tmp = append(tmp, "+ "+line)
				content = append(content, line)
				changes++
			}
		}
		if len(tmp) > 0 {
			diff = append(diff, "- <EOF>\n")
			diff = append(diff, tmp...)
			diff = append(diff, "+ <EOF>\n")
		}
	} else if c.Bool("prepend_if_not_found") {
		did := false
		for _, key := range keys {
			if diffCount[key] > 0 {
				line := fmtLine(key, sep, mapGetAny(kv, key))
				if !did {
					diff = append([]string{"  <SOF>\n"}, diff...)
					did = true
				}
				diff = append(diff[:1], append([]string{"+ " + line}, diff[1:]...)...)
				content = append([]string{line}, content...)
				changes++
			}
		}
	}
	if changes == 0 {
		ret.Set("result", true)
		return ret, nil
	}
	changesMap := mapGet(ret, "changes").(*value.Map)
	if c.Test {
		ret.Set("comment", fmt.Sprintf("File %s is set to be changed (%d lines)", name, changes))
		if c.Bool("show_changes") {
			changesMap.Set("diff", strings.Join(diff, ""))
			ret.Set("comment", value.Str(mapGet(ret, "comment"))+"\nPredicted diff:\n\r\t\t"+strings.Join(diff, "\r\t\t"))
			ret.Set("result", nil)
		}
		return ret, nil
	}
	ret.Set("comment", fmt.Sprintf("Changed %d lines", changes))
	if c.Bool("show_changes") {
		changesMap.Set("diff", strings.Join(diff, ""))
	}
	if err := writeAtomic(name, []byte(strings.Join(content, "")), false); err != nil {
		ret.Set("comment", fmt.Sprintf("%s not writable", name))
		ret.Set("result", false)
		return ret, nil
	}
	ret.Set("result", true)
	return ret, nil
}

func init() {
	statemod.Register(&statemod.Function{Name: "file.comment", Run: fileComment,
		Doc: "Comment out specified lines in a file.",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("regex"), p("char", "#"), p("backup", ".bak"),
			p("ignore_missing", false)}})
	statemod.Register(&statemod.Function{Name: "file.uncomment", Run: fileUncomment,
		Doc:    "Uncomment specified commented lines in a file.",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("regex"), p("char", "#"), p("backup", ".bak")}})
}

var unanchorRe = regexp.MustCompile(`^(\(\?[iLmsux]\))?\^?(.*?)\$?$`)

// searchML is file.search(..., multiline=True) on text.
func searchML(text, pattern string) bool {
	re, err := regexp.Compile("(?m)" + pattern)
	return err == nil && re.MatchString(text)
}

// commentLine is file.comment_line: (un)comment the lines matching regex;
// it returns whether a line matched.
func commentLine(path, regex, char string, cmnt bool, backup any) (bool, error) {
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
		pat = "^" + regexp.QuoteMeta(char) + `\s*(` + strings.TrimRight(strings.TrimLeft(regex, "^"), "$") + ")"
		if strings.HasSuffix(regex, "$") {
			pat += "$"
		}
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return false, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	var out strings.Builder
	found := false
	for _, line := range keepLines(string(data)) {
		body := strings.TrimRight(line, "\n")
		if loc := re.FindStringIndex(body); loc != nil && loc[0] == 0 {
			found = true
			if cmnt {
				line = char + line
			} else {
				line = strings.TrimLeft(line, char)
			}
		}
		out.WriteString(line)
	}
	if !found {
		return false, nil
	}
	if b, ok := backup.(string); ok {
		backupCopy(path, b)
	}
	return true, writeAtomic(path, []byte(out.String()), false)
}

func fileComment(c *statemod.Call) (*value.Map, error) {
	name := expandUser(c.Str("name"))
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", false, "comment", "")
	if name == "" {
		return fileErr(ret, "Must provide name to file.comment")
	}
	if ok, msg := checkFile(name); !ok {
		return fileErr(ret, msg)
	}
	regex, char := c.Str("regex"), c.Str("char")
	unanchor := unanchorRe.ReplaceAllString(regex, "$2")
	data, _ := os.ReadFile(name)
	text := string(data)
	uncommented := false
	lead, err := regexp.Compile(`^\s*` + regexp.QuoteMeta(char))
	if err != nil {
		return nil, err
	}
	body, err := regexp.Compile(unanchor)
	if err != nil {
		return nil, err
	}
	for _, line := range pyops.SplitLines(text, false) {
		if !lead.MatchString(line) && body.MatchString(line) {
			uncommented = true
			break
		}
	}
	commentRe := regexp.QuoteMeta(char) + unanchor
	if !uncommented {
		if searchML(text, commentRe) {
			ret.Set("comment", "Pattern already commented")
			ret.Set("result", true)
			return ret, nil
		}
		if c.Bool("ignore_missing") {
			ret.Set("comment", "Pattern not found and ignore_missing set to True")
			ret.Set("result", true)
			return ret, nil
		}
		return fileErr(ret, unanchor+": Pattern not found")
	}
	return commentEdit(c, ret, name, text, regex, char, true, commentRe)
}

func fileUncomment(c *statemod.Call) (*value.Map, error) {
	name := expandUser(c.Str("name"))
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", false, "comment", "")
	if name == "" {
		return fileErr(ret, "Must provide name to file.uncomment")
	}
	if ok, msg := checkFile(name); !ok {
		return fileErr(ret, msg)
	}
	regex, char := c.Str("regex"), c.Str("char")
	data, _ := os.ReadFile(name)
	text := string(data)
	bare := strings.TrimLeft(regex, "^")
	switch {
	case searchML(text, regexp.QuoteMeta(char)+"[ \t]*"+bare):
	case searchML(text, "^[ \t]*"+bare):
		ret.Set("comment", "Pattern already uncommented")
		ret.Set("result", true)
		return ret, nil
	default:
		return fileErr(ret, regex+": Pattern not found")
	}
	return commentEdit(c, ret, name, text, regex, char, false, "^[ \t]*"+bare)
}

// commentEdit is the common end of file.comment and file.uncomment: in test
// mode it reports the pending update, else it comments (or uncomments) the
// lines matching regex, then checks that expect now matches and records
// the diff.
func commentEdit(c *statemod.Call, ret *value.Map, name, text, regex, char string, comment bool, expect string) (*value.Map, error) {
	changes := mapGet(ret, "changes").(*value.Map)
	if c.Test {
		changes.Set(name, "updated")
		ret.Set("comment", fmt.Sprintf("File %s is set to be updated", name))
		ret.Set("result", nil)
		return ret, nil
	}
	if _, err := commentLine(name, regex, char, comment, c.Get("backup")); err != nil {
		return nil, err
	}
	after, _ := os.ReadFile(name)
	ok := searchML(string(after), expect)
	ret.Set("result", ok)
	if string(after) != text {
		changes.Set("diff", unifiedDiff(keepLines(text), keepLines(string(after)), "", ""))
	}
	okMsg, failMsg := "Commented lines successfully", "Expected commented lines not found"
	if !comment {
		okMsg, failMsg = "Uncommented lines successfully", "Expected uncommented lines not found"
	}
	if ok {
		ret.Set("comment", okMsg)
	} else {
		ret.Set("comment", failMsg)
	}
	return ret, nil
}
