package modules

// file_edit.go is the text-editing half of salt/modules/file.py: replace,
// search, line, blockreplace, comment, sed, append and friends. The edits
// themselves live in internal/fileops, which the file states share.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/match"
	"brine/internal/system"
	"brine/internal/value"
)

func init() {
	reg := func(name string, f execmod.Func, doc string) { execmod.Register("file."+name, f, doc) }
	reg("replace", fileReplace, "Replace occurrences of a regular expression in a file (returns the diff, or whether it changes with show_changes=False).")
	reg("search", fileSearch, "Whether a regular expression matches the content of a file.")
	reg("contains", fileContains, "Whether the file contains text (stripped).")
	reg("contains_glob", fileContainsGlob, "Whether a glob matches the content of the file.")
	reg("line", fileLine, "Edit a file line-wise: mode insert, ensure, delete or replace; content, match, location, before, after.")
	reg("blockreplace", fileBlockreplace, "Replace the block between marker_start and marker_end lines with content.")
	reg("comment_line", fileCommentLine, "Comment (cmnt=True) or uncomment the lines matching regex; returns the diff or False.")
	reg("comment", fileCommentFn(true), "Comment the lines matching regex with char.")
	reg("uncomment", fileCommentFn(false), "Uncomment the lines matching regex commented with char.")
	reg("sed", fileSed, "Edit a file in place with sed(1): s/before/after/flags, limit and backup.")
	reg("sed_contains", fileSedContains, "Whether sed(1) finds text in the file.")
	reg("psed", filePsed, "Edit a file in place with a Python regular expression substitution.")
	reg("append", fileAppendFn("append"), "Append lines to a file, adding a final newline first when missing.")
	reg("prepend", fileAppendFn("prepend"), "Prepend lines to a file.")
	reg("write", fileAppendFn("write"), "Write lines to a file, replacing its content.")
	reg("get_diff", fileGetDiff, "Return the unified diff of two files (local paths or salt:// URLs).")
	reg("patch", filePatch, "Apply a patch to a file or directory with patch(1).")
	reg("grep", fileGrep, "Run grep(1) on path (a glob) with options; returns cmd.run_all's result.")
}

func fileReplace(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("replace", args, kwargs, execmod.Req("path"), execmod.Req("pattern"), execmod.Req("repl"),
		execmod.Opt("count", int64(0)), execmod.Opt("flags", int64(8)), execmod.Opt("bufsize", int64(1)),
		execmod.Opt("append_if_not_found", false), execmod.Opt("prepend_if_not_found", false),
		execmod.Opt("not_found_content", nil), execmod.Opt("backup", ".bak"), execmod.Opt("dry_run", false),
		execmod.Opt("search_only", false), execmod.Opt("show_changes", true), execmod.Opt("ignore_if_missing", false),
		execmod.Opt("preserve_inode", true), execmod.Opt("backslash_literal", false))
	if err != nil {
		return nil, err
	}
	p, err := pathArg(v[0])
	if err != nil {
		return nil, err
	}
	count, err := pyInt(v[3])
	if err != nil {
		return nil, err
	}
	res, err := fileops.Replace(p, fileops.ReplaceOpts{Pattern: execmod.String(v[1]), Repl: value.Str(v[2]),
		Count: int(count), Flags: v[4], AppendIfNotFound: value.Truthy(v[6]), PrependIfNotFound: value.Truthy(v[7]),
		NotFoundContent: v[8], Backup: v[9], DryRun: value.Truthy(v[10]), SearchOnly: value.Truthy(v[11]),
		IgnoreIfMissing: value.Truthy(v[13]), BackslashLiteral: value.Truthy(v[15])})
	if err != nil {
		return nil, saltErr(err)
	}
	switch {
	case res.Missing:
		return false, nil
	case value.Truthy(v[11]):
		return res.Found, nil
	case value.Truthy(v[12]):
		return res.Diff, nil
	}
	return res.Changed, nil
}

func fileSearch(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("search", args, kwargs, execmod.Req("path"), execmod.Req("pattern"), execmod.Opt("flags", int64(8)),
		execmod.Opt("bufsize", int64(1)), execmod.Opt("ignore_if_missing", false), execmod.Opt("multiline", false))
	if err != nil {
		return nil, err
	}
	p, err := pathArg(v[0])
	if err != nil {
		return nil, err
	}
	flags, err := fileops.ReFlags(v[2])
	if err != nil {
		return nil, saltErr(err)
	}
	if value.Truthy(v[5]) {
		flags |= 8
	}
	res, err := fileops.Replace(p, fileops.ReplaceOpts{Pattern: execmod.String(v[1]), Flags: flags, DryRun: true,
		SearchOnly: true, IgnoreIfMissing: value.Truthy(v[4])})
	if err != nil {
		return nil, saltErr(err)
	}
	return res.Found, nil
}

// bufferedChunks is salt.utils.filebuffer.BufferedReader's iteration: a
// first window of 256 KiB, then windows sliding by 32 KiB.
func bufferedChunks(data string, yield func(string) bool) {
	const maxInMem, chunk = 256 * 1024, 32 * 1024
	end := min(maxInMem, len(data))
	if end == 0 || !yield(data[:end]) {
		return
	}
	start := 0
	for end < len(data) {
		start += chunk
		end = min(end+chunk, len(data))
		if !yield(data[start:end]) {
			return
		}
	}
}

func fileContains(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("contains", args, kwargs, execmod.Req("path"), execmod.Req("text"))
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return false, nil
	}
	text := strings.TrimSpace(value.Str(v[1]))
	found := false
	bufferedChunks(string(data), func(c string) bool {
		found = strings.Contains(c, text)
		return !found
	})
	return found, nil
}

func fileContainsGlob(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("contains_glob", args, kwargs, execmod.Req("path"), execmod.Req("glob_expr"))
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return false, nil
	}
	glob := execmod.String(v[1])
	found := false
	bufferedChunks(string(data), func(c string) bool {
		found = match.Fnmatch(c, glob)
		return !found
	})
	return found, nil
}

func fileLine(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("line", args, kwargs, execmod.Req("path"), execmod.Opt("content", nil), execmod.Opt("match", nil),
		execmod.Opt("mode", nil), execmod.Opt("location", nil), execmod.Opt("before", nil), execmod.Opt("after", nil),
		execmod.Opt("show_changes", true), execmod.Opt("backup", false), execmod.Opt("quiet", false), execmod.Opt("indent", true))
	if err != nil {
		return nil, err
	}
	p, err := pathArg(v[0])
	if err != nil {
		return nil, err
	}
	var content *string
	if v[1] != nil {
		s := value.Str(v[1])
		content = &s
	}
	mode := ""
	if v[3] != nil {
		mode = value.Str(v[3])
	}
	diff, changed, err := fileops.Line(p, fileops.LineOpts{Content: content, Match: v[2], Mode: mode, Location: v[4],
		Before: v[5], After: v[6], Backup: value.Truthy(v[8]), Quiet: value.Truthy(v[9]), Indent: value.Truthy(v[10]),
		Test: testMode(ctx)})
	if err != nil {
		return nil, saltErr(err)
	}
	if value.Truthy(v[7]) && diff != "" {
		return diff, nil
	}
	return changed, nil
}

// testMode is __opts__["test"].
func testMode(ctx *execmod.Context) bool {
	if ctx == nil || ctx.Opts == nil {
		return false
	}
	t, _ := ctx.Opts.Get("test")
	return value.Truthy(t)
}

func fileBlockreplace(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("blockreplace", args, kwargs, execmod.Req("path"),
		execmod.Opt("marker_start", "#-- start managed zone --"), execmod.Opt("marker_end", "#-- end managed zone --"),
		execmod.Opt("content", ""), execmod.Opt("append_if_not_found", false), execmod.Opt("prepend_if_not_found", false),
		execmod.Opt("backup", ".bak"), execmod.Opt("dry_run", false), execmod.Opt("show_changes", true),
		execmod.Opt("append_newline", false), execmod.Opt("insert_before_match", nil), execmod.Opt("insert_after_match", nil))
	if err != nil {
		return nil, err
	}
	p, err := pathArg(v[0])
	if err != nil {
		return nil, err
	}
	for _, m := range []any{v[10], v[11]} {
		if value.Truthy(m) {
			if _, ok := m.(string); !ok {
				name := "insert_before_match"
				if m == v[11] {
					name = "insert_after_match"
				}
				return nil, execmod.Errorf("RegEx expected in %s parameter.", name)
			}
			break
		}
	}
	diff, err := fileops.Blockreplace(fileops.ExpandUser(p), execmod.String(v[1]), execmod.String(v[2]), execmod.String(v[3]),
		value.Truthy(v[4]), value.Truthy(v[5]), v[10], v[11], v[6], value.Truthy(v[7]), v[9])
	if err != nil {
		return nil, saltErr(err)
	}
	if value.Truthy(v[8]) {
		return diff, nil
	}
	return diff != "", nil
}

func fileCommentLine(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("comment_line", args, kwargs, execmod.Req("path"), execmod.Req("regex"), execmod.Opt("char", "#"),
		execmod.Opt("cmnt", true), execmod.Opt("backup", ".bak"))
	if err != nil {
		return nil, err
	}
	return commentLine(v[0], v[1], v[2], value.Truthy(v[3]), v[4])
}

func commentLine(path, regex, char any, cmnt bool, backup any) (any, error) {
	p, err := pathArg(path)
	if err != nil {
		return nil, err
	}
	diff, found, err := fileops.CommentLine(p, execmod.String(regex), execmod.String(char), cmnt, backup)
	if err != nil {
		return nil, saltErr(err)
	}
	if !found {
		return false, nil
	}
	return diff, nil
}

func fileCommentFn(cmnt bool) execmod.Func {
	fun := "uncomment"
	if cmnt {
		fun = "comment"
	}
	return func(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind(fun, args, kwargs, execmod.Req("path"), execmod.Req("regex"), execmod.Opt("char", "#"), execmod.Opt("backup", ".bak"))
		if err != nil {
			return nil, err
		}
		return commentLine(v[0], v[1], v[2], cmnt, v[3])
	}
}

// sedEscape is file._sed_esc: quote single quotes and slashes, and with
// all set the regular-expression specials too.
func sedEscape(s string, all bool) string {
	s = strings.ReplaceAll(s, "'", `'"'"'`)
	s = strings.ReplaceAll(s, "/", `\/`)
	if all {
		for _, c := range "^.[$()|*+?{" {
			s = strings.ReplaceAll(s, string(c), `\`+string(c))
		}
	}
	return s
}

func fileSed(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("sed", args, kwargs, execmod.Req("path"), execmod.Req("before"), execmod.Req("after"),
		execmod.Opt("limit", ""), execmod.Opt("backup", ".bak"), execmod.Opt("options", "-r -e"), execmod.Opt("flags", "g"),
		execmod.Opt("escape_all", false), execmod.Opt("negate_match", false))
	if err != nil {
		return nil, err
	}
	if !existsPath(p) {
		return false, nil
	}
	all := v[7] == true
	before, after := sedEscape(value.Str(v[1]), all), sedEscape(value.Str(v[2]), all)
	limit := sedEscape(execmod.String(v[3]), all)
	cmd := value.NewList("sed")
	if value.Truthy(v[4]) {
		cmd.Append("-i" + value.Str(v[4]))
	} else {
		cmd.Append("-i")
	}
	opts, err := system.ShlexSplit(execmod.String(v[5]))
	if err != nil {
		return nil, err
	}
	for _, o := range opts {
		cmd.Append(o)
	}
	expr := ""
	if limit != "" {
		expr = "/" + limit + "/ "
	}
	if value.Truthy(v[8]) {
		expr += "!"
	}
	cmd.Append(fmt.Sprintf("%ss/%s/%s/%s", expr, before, after, value.Str(v[6])), p)
	return ctx.Call("cmd.run_all", []any{cmd}, value.MapOf("python_shell", false))
}

func fileSedContains(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("sed_contains", args, kwargs, execmod.Req("path"), execmod.Req("text"), execmod.Opt("limit", ""), execmod.Opt("flags", "g"))
	if err != nil {
		return nil, err
	}
	if !existsPath(p) {
		return false, nil
	}
	before, limit := sedEscape(value.Str(v[1]), false), sedEscape(value.Str(v[2]), false)
	expr := ""
	if limit != "" {
		expr = "/" + limit + "/ "
	}
	cmd := value.NewList("sed", "-n", "-r", "-e", fmt.Sprintf("%ss/%s/$/p%s", expr, before, value.Str(v[3])), p)
	out, err := ctx.Call("cmd.run", []any{cmd}, value.MapOf("python_shell", false))
	if err != nil {
		return nil, err
	}
	return value.Truthy(out), nil
}

// pyFlagBits are _psed's flag letters as Python re flags.
var pyFlagBits = map[rune]int64{'I': 2, 'L': 4, 'M': 8, 'S': 16, 'U': 32, 'X': 64}

func filePsed(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("psed", args, kwargs, execmod.Req("path"), execmod.Req("before"), execmod.Req("after"),
		execmod.Opt("limit", ""), execmod.Opt("backup", ".bak"), execmod.Opt("flags", "gMS"), execmod.Opt("escape_all", false),
		execmod.Opt("multi", false))
	if err != nil {
		return nil, err
	}
	all := v[6] == true
	before := sedEscape(value.Str(v[1]), all)
	after := value.Str(v[2])
	limit := sedEscape(execmod.String(v[3]), all)
	flags := value.Str(v[5])
	count := 1
	if strings.Contains(flags, "g") {
		count = 0
		flags = strings.ReplaceAll(flags, "g", "")
	}
	var bits int64
	for _, f := range flags {
		b, ok := pyFlagBits[f]
		if !ok {
			return nil, execmod.Errorf("KeyError: %s", value.Repr(string(f)))
		}
		bits |= b
	}
	backup := p + value.Str(v[4])
	if err := fileops.CopyFile(p, backup); err != nil {
		return nil, fileops.PyOSError(err)
	}
	data, err := os.ReadFile(backup)
	if err != nil {
		return nil, fileops.PyOSError(err)
	}
	text := string(data)
	// _psed splits on limit with str.split, so only a literal limit works.
	if limit != "" {
		parts := strings.Split(text, limit)
		text = strings.Join(parts[1:], "")
	}
	re, err := fileops.PyRegexp(before, bits)
	if err != nil {
		return nil, execmod.Errorf("%v", err)
	}
	out := text
	if !value.Truthy(v[7]) {
		out, _ = fileops.Subn(re, fileops.PyRepl(after), text, count)
	} else {
		// multi=True iterates the characters of the first line (Salt's
		// readline() loop), substituting in each.
		first := text
		if i := strings.IndexByte(first, '\n'); i >= 0 {
			first = first[:i+1]
		}
		var b strings.Builder
		for _, ch := range first {
			s, _ := fileops.Subn(re, fileops.PyRepl(after), string(ch), count)
			b.WriteString(s)
		}
		out = b.String()
	}
	if err := os.WriteFile(p, []byte(out), 0o666); err != nil {
		return nil, fileops.PyOSError(err)
	}
	return nil, nil
}

// fileAppendFn is file.append, file.prepend and file.write: lines from
// *args (or args=) added to path.
func fileAppendFn(fun string) execmod.Func {
	return func(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		if len(args) == 0 {
			if p, ok := kwargs.Get("path"); ok {
				args = []any{p}
			} else {
				return nil, &pyTypeError{msg: fun + "() missing 1 required positional argument: 'path'"}
			}
		}
		p, err := pathArg(args[0])
		if err != nil {
			return nil, err
		}
		p = fileops.ExpandUser(p)
		lines := args[1:]
		if a, ok := kwargs.Get("args"); ok {
			if l, ok := a.(*value.List); ok {
				lines = l.Items
			} else {
				lines = []any{a}
			}
		}
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(value.Str(l) + "\n")
		}
		switch fun {
		case "append":
			data, err := os.ReadFile(p)
			if err != nil {
				return nil, fileops.PyOSError(err)
			}
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				return nil, fileops.PyOSError(err)
			}
			defer f.Close()
			if len(data) > 0 && data[len(data)-1] != '\n' {
				b2 := "\n" + b.String()
				b.Reset()
				b.WriteString(b2)
			}
			if _, err := f.WriteString(b.String()); err != nil {
				return nil, fileops.PyOSError(err)
			}
			return fmt.Sprintf("Wrote %d lines to \"%s\"", len(lines), p), nil
		case "prepend":
			old, _ := os.ReadFile(p)
			if err := writeText(p, b.String()+string(old)); err != nil {
				return nil, err
			}
			return fmt.Sprintf("Prepended %d lines to \"%s\"", len(lines), p), nil
		}
		if err := writeText(p, b.String()); err != nil {
			return nil, err
		}
		return fmt.Sprintf("Wrote %d lines to \"%s\"", len(lines), p), nil
	}
}

// writeText is open(path, "w").write(s): truncate or create (0666 &^
// umask), keeping the inode.
func writeText(p, s string) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return fileops.PyOSError(err)
	}
	if _, err := f.WriteString(s); err != nil {
		f.Close()
		return fileops.PyOSError(err)
	}
	return f.Close()
}

func fileGetDiff(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_diff", args, kwargs, execmod.Req("file1"), execmod.Req("file2"), execmod.Opt("saltenv", "base"),
		execmod.Opt("show_filenames", true), execmod.Opt("show_changes", true), execmod.Opt("template", false),
		execmod.Opt("source_hash_file1", nil), execmod.Opt("source_hash_file2", nil))
	if err != nil {
		return nil, err
	}
	var paths []string
	var errs []string
	for _, f := range []any{v[0], v[1]} {
		name := value.Str(f)
		local, ok := cacheForDiff(ctx, name, v[2])
		if !ok {
			errs = append(errs, fmt.Sprintf("File %s not found", name))
			continue
		}
		paths = append(paths, local)
	}
	if len(errs) > 0 {
		return nil, execmod.Errorf("Failed to cache one or more files")
	}
	var texts [2][]byte
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, execmod.Errorf("Failed to read %s: %s", p, strerror(err))
		}
		texts[i] = data
	}
	if string(texts[0]) == string(texts[1]) {
		return "", nil
	}
	if value.Truthy(v[5]) {
		if o, _ := ctx.Opts.Get("obfuscate_templates"); value.Truthy(o) {
			return "<Obfuscated Template>", nil
		}
	}
	if !value.Truthy(v[4]) {
		return "<show_changes=False>", nil
	}
	bin0, bin1 := !fileops.IsText(texts[0]), !fileops.IsText(texts[1])
	switch {
	case bin0 && bin1:
		return "Replace binary file", nil
	case bin0:
		return "Replace binary file with text file", nil
	case bin1:
		return "Replace text file with binary file", nil
	}
	from, to := "", ""
	if value.Truthy(v[3]) {
		from, to = paths[0], paths[1]
	}
	return fileops.UnifiedDiff(fileops.SplitLines(string(texts[0])), fileops.SplitLines(string(texts[1])), from, to), nil
}

// cacheForDiff is cp.cache_file for get_diff: a local path as is, other
// sources through cp.cache_file.
func cacheForDiff(ctx *execmod.Context, name string, saltenv any) (string, bool) {
	if !strings.Contains(name, "://") || strings.HasPrefix(name, "file://") {
		p := strings.TrimPrefix(name, "file://")
		return p, existsPath(p)
	}
	out, err := ctx.Call("cp.cache_file", []any{name, saltenv}, value.NewMap(0))
	if s, ok := out.(string); ok && err == nil && s != "" {
		return s, true
	}
	return "", false
}

func filePatch(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("patch", args, kwargs, execmod.Req("originalfile"), execmod.Req("patchfile"), execmod.Opt("options", ""), execmod.Opt("dry_run", false))
	if err != nil {
		return nil, err
	}
	patch := lookPath("patch")
	if patch == "" {
		return nil, execmod.Errorf("patch executable not found. Is the distribution's patch package installed?")
	}
	opts, err := system.ShlexSplit(execmod.String(v[2]))
	if err != nil {
		return nil, err
	}
	cmd := append([]string{patch}, opts...)
	if value.Truthy(v[3]) {
		cmd = append(cmd, "--dry-run")
	}
	if !slicesContain(toAny(cmd), "-N") && !slicesContain(toAny(cmd), "--forward") {
		cmd = append(cmd, "--forward")
	}
	reject := false
	for _, o := range cmd {
		if o == "-r" || strings.HasPrefix(o, "-r ") || strings.HasPrefix(o, "--reject-file") {
			reject = true
			break
		}
	}
	if !reject {
		cmd = append(cmd, "--reject-file=-")
	}
	orig := value.Str(v[0])
	cmd = append(cmd, "-i", value.Str(v[1]))
	if isDirPath(orig) {
		cmd = append(cmd, "-d", orig)
		strip := false
		for _, o := range cmd {
			if strings.HasPrefix(o, "-p") || strings.HasPrefix(o, "--strip=") {
				strip = true
				break
			}
		}
		if !strip {
			cmd = append(cmd, "--strip=0")
		}
	} else {
		cmd = append(cmd, orig)
	}
	return ctx.Call("cmd.run_all", []any{value.NewList(toAny(cmd)...)}, value.MapOf("python_shell", false))
}

func toAny(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// lookPath is salt.utils.path.which: "" when cmd is not on PATH.
func lookPath(cmd string) string {
	for _, dir := range filepath.SplitList(os.Getenv("PATH") + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin") {
		p := filepath.Join(dir, cmd)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

func fileGrep(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if len(args) < 2 {
		v, _, err := execmod.Bind("grep", args, kwargs, execmod.Req("path"), execmod.Req("pattern"))
		if err != nil {
			return nil, err
		}
		args = v
	}
	p, err := pathArg(args[0])
	if err != nil {
		return nil, err
	}
	p = fileops.ExpandUser(p)
	var split []any
	for _, o := range args[2:] {
		parts, err := system.ShlexSplit(value.Str(o))
		if err != nil {
			return nil, err
		}
		if len(parts) > 1 {
			return nil, invocationf("Passing multiple command line arguments in a single string is not supported, please pass the following arguments separately: %s", value.Str(o))
		}
		for _, s := range parts {
			split = append(split, s)
		}
	}
	cmd := value.NewList("grep")
	cmd.Items = append(cmd.Items, split...)
	cmd.Append(args[1])
	if matches, _ := fileops.Glob(p); len(matches) > 0 {
		for _, m := range matches {
			cmd.Append(m)
		}
	} else {
		cmd.Append(p)
	}
	return ctx.Call("cmd.run_all", []any{cmd}, value.MapOf("python_shell", false))
}
