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
	"slices"
	"strings"

	"brine/internal/fileops"
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
		p("context", nil)}
	statemod.Register(&statemod.Function{Name: "file.append", Run: func(c *statemod.Call) (*value.Map, error) { return fileAppend(c, false) },
		Doc: "Ensure that some text appears at the end of a file.", Params: append(append([]statemod.Param(nil), appendParams...), p("ignore_whitespace", true))})
	statemod.Register(&statemod.Function{Name: "file.prepend", Run: func(c *statemod.Call) (*value.Map, error) { return fileAppend(c, true) },
		Doc: "Ensure that some text appears at the beginning of a file.", Params: append(append([]statemod.Param(nil), appendParams...), p("header", nil))})
}

// keepLines splits like Python's str.splitlines(True).
func keepLines(s string) []string { return fileops.SplitLines(s) }

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
		// With show_changes off Salt's module returns True, not a diff.
		var v any = diff
		if !c.Bool("show_changes") {
			v = true
		}
		mapGet(ret, "changes").(*value.Map).Set("diff", v)
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
	name := fileops.ExpandUser(c.Str("name"))
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
	res, err := fileops.Replace(name, fileops.ReplaceOpts{Pattern: c.Str("pattern"), Repl: c.Str("repl"),
		Count: c.Int("count", 0), Flags: c.Get("flags"), AppendIfNotFound: c.Bool("append_if_not_found"),
		PrependIfNotFound: c.Bool("prepend_if_not_found"), NotFoundContent: c.Get("not_found_content"),
		Backup: c.Get("backup"), DryRun: c.Test, IgnoreIfMissing: c.Bool("ignore_if_missing"),
		BackslashLiteral: c.Bool("backslash_literal")})
	if err != nil {
		return nil, saltError(err)
	}
	diff := res.Diff
	if !c.Bool("show_changes") {
		diff = ""
		if res.Changed {
			diff = "True"
		}
	}
	return editResult(c, ret, diff, "Changes would have been made")
}

// saltError turns a fileops error into the exception a state reports.
func saltError(err error) error {
	var fe *fileops.Error
	if errors.As(err, &fe) && fe.Invocation {
		return &invocationError{fe.Msg}
	}
	return err
}

func fileBlockreplace(c *statemod.Call) (*value.Map, error) {
	name := fileops.ExpandUser(c.Str("name"))
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
	diff, err := fileops.Blockreplace(name, c.Str("marker_start"), c.Str("marker_end"), content,
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

func fileLine(c *statemod.Call) (*value.Map, error) {
	name := fileops.ExpandUser(c.Str("name"))
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", true, "comment", "")
	if name == "" {
		return fileErr(ret, "Must provide name to file.line")
	}
	if c.Bool("create") && !exists(name) && !c.Test {
		_ = fileops.WriteAtomic(name, nil, false)
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
	diff, changed, err := fileops.Line(name, fileops.LineOpts{Content: content, Match: c.Get("match"), Mode: mode,
		Location: c.Get("location"), Before: c.Get("before"), After: c.Get("after"), Backup: c.Bool("backup"),
		Quiet: c.Bool("quiet"), Indent: c.Bool("indent"), Test: c.Test})
	if err != nil {
		return nil, fmt.Errorf("CommandExecutionError: %v", err)
	}
	if changed && !c.Bool("show_changes") {
		diff = "True"
	}
	return editResult(c, ret, diff, "Changes would be made")
}

// fileAppend is file.append (or file.prepend with front set).
func fileAppend(c *statemod.Call, front bool) (*value.Map, error) {
	name := fileops.ExpandUser(c.Str("name"))
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
			if err := fileops.Makedirs(name, nil, nil, nil); err != nil {
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
	// file.prepend always searches ignoring whitespace, and not at all
	// with header (it compares the file's first lines instead)
	header := front && value.Truthy(c.Get("header"))
	for _, chunk := range texts {
		if !header && searchChunk(string(data), chunk, front || c.Bool("ignore_whitespace")) {
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
			if front {
				// file.prepend diffs the lines with their endings
				var test []string
				for _, l := range add {
					test = append(test, l+"\n")
				}
				changes.Set("diff", fileops.UnifiedDiff(fileops.SplitLines(string(data)), append(test, fileops.SplitLines(string(data))...), "", ""))
			} else {
				changes.Set("diff", fileops.LineDiff(slines, nlines))
			}
		} else {
			ret.Set("comment", fmt.Sprintf("File %s is in correct state", name))
			ret.Set("result", true)
		}
		return ret, nil
	}
	if header && len(add) > 0 {
		// the first len(add) lines as they are, split again
		var top []string
		for i, l := range fileops.SplitLines(string(data)) {
			if i == len(add) {
				break
			}
			top = append(top, pyops.SplitLines(l, false)...)
		}
		if slices.Equal(top, add) {
			add = nil
		}
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
		if err := fileops.WriteAtomic(name, []byte(out), false); err != nil {
			return nil, err
		}
		ret.Set("comment", fmt.Sprintf("%s %d lines", verb, len(add)))
	} else {
		ret.Set("comment", fmt.Sprintf("File %s is in correct state", name))
	}
	after, _ := os.ReadFile(name)
	switch nl := pyops.SplitLines(string(after), false); {
	case front && string(after) != string(data):
		// file.prepend diffs the lines with their endings
		changes.Set("diff", fileops.UnifiedDiff(fileops.SplitLines(string(data)), fileops.SplitLines(string(after)), "", ""))
	case !front && (strings.Join(slines, "\n") != strings.Join(nl, "\n") || len(slines) != len(nl)):
		changes.Set("diff", fileops.LineDiff(slines, nl))
	}
	ret.Set("result", true)
	return ret, nil
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
	name := fileops.ExpandUser(c.Str("name"))
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
	if err := fileops.WriteAtomic(name, []byte(strings.Join(content, "")), false); err != nil {
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

func fileComment(c *statemod.Call) (*value.Map, error) {
	name := fileops.ExpandUser(c.Str("name"))
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
	name := fileops.ExpandUser(c.Str("name"))
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
	if _, _, err := fileops.CommentLine(name, regex, char, comment, c.Get("backup")); err != nil {
		return nil, err
	}
	after, _ := os.ReadFile(name)
	ok := searchML(string(after), expect)
	ret.Set("result", ok)
	if string(after) != text {
		changes.Set("diff", fileops.UnifiedDiff(keepLines(text), keepLines(string(after)), "", ""))
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
