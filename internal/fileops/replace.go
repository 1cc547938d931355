package fileops

// replace.go: file.replace and file.search, with Salt's errors.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"brine/internal/value"
)

// Error is a failure Salt raises as an exception: Invocation marks a
// SaltInvocationError, otherwise a CommandExecutionError. Callers turn it
// into their layer's error type.
type Error struct {
	Invocation bool
	Msg        string
}

func (e *Error) Error() string { return e.Msg }

func invocationf(format string, a ...any) error {
	return &Error{Invocation: true, Msg: fmt.Sprintf(format, a...)}
}

func execErrorf(format string, a ...any) error {
	return &Error{Msg: fmt.Sprintf(format, a...)}
}

// Python's re flag values.
const (
	flagIgnoreCase = 2
	flagMultiline  = 8
	flagDotAll     = 16
)

var reFlagNames = map[string]int64{
	"A": 256, "ASCII": 256, "DEBUG": 128, "I": 2, "IGNORECASE": 2, "L": 4, "LOCALE": 4,
	"M": 8, "MULTILINE": 8, "S": 16, "DOTALL": 16, "U": 32, "UNICODE": 32, "X": 64, "VERBOSE": 64,
	"T": 1, "TEMPLATE": 1, "NOFLAG": 0,
}

// ReFlags is file._get_flags: flags given as an int, a flag name or a list
// of names, as Python's re.RegexFlag value.
func ReFlags(flags any) (int64, error) {
	var names []any
	switch f := flags.(type) {
	case int64:
		return f, nil
	case bool:
		if f {
			return 1, nil
		}
		return 0, nil
	case string:
		names = []any{f}
	case *value.List:
		names = f.Items
	default:
		return 0, execErrorf("Invalid re flags: \"%s\", must be given either as a single flag string, a list of strings, as an integer, or as an re flag", value.Str(flags))
	}
	var n int64
	for _, it := range names {
		v, ok := reFlagNames[strings.ToUpper(value.Str(it))]
		if !ok || v == 0 {
			return 0, execErrorf("Invalid re flag given: %s", value.Str(it))
		}
		n |= v
	}
	return n, nil
}

// compileFlags compiles a Python pattern with numeric re flags.
func compileFlags(pattern string, n int64) (*regexp.Regexp, error) {
	prefix := ""
	if n&flagIgnoreCase != 0 {
		prefix += "i"
	}
	if n&flagMultiline != 0 {
		prefix += "m"
	}
	if n&flagDotAll != 0 {
		prefix += "s"
	}
	pattern = strings.ReplaceAll(pattern, `\Z`, `\z`)
	if prefix != "" {
		pattern = "(?" + prefix + ")" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, execErrorf("%v", err)
	}
	return re, nil
}

// ReplaceOpts are file.replace's arguments after the path.
type ReplaceOpts struct {
	Pattern, Repl     string
	Count             int
	Flags             any // file._get_flags input
	AppendIfNotFound  bool
	PrependIfNotFound bool
	NotFoundContent   any
	Backup            any // a suffix, or false/None for none
	DryRun            bool
	SearchOnly        bool
	IgnoreIfMissing   bool
	BackslashLiteral  bool
}

// ReplaceResult is what file.replace found: Diff is the unified diff of the
// change (file.replace's return with show_changes=True), Changed whether
// the file changes, Missing whether the file was absent and ignored, and
// Found whether a search_only call matched.
type ReplaceResult struct {
	Diff    string
	Changed bool
	Missing bool
	Found   bool
}

// Replace is file.replace: substitute Pattern with Repl in path.
func Replace(path string, o ReplaceOpts) (ReplaceResult, error) {
	var res ReplaceResult
	givenPath := ExpandUser(path)
	linkTarget, isSymlink := "", false
	if isLink(givenPath) {
		isSymlink = true
		linkTarget, _ = os.Readlink(givenPath)
	}
	path = givenPath
	if r, err := filepath.EvalSymlinks(givenPath); err == nil {
		path = r
	} else if abs, err := filepath.Abs(givenPath); err == nil {
		path = abs
	}
	if !exists(path) {
		if o.IgnoreIfMissing {
			res.Missing = true
			return res, nil
		}
		return res, invocationf("File not found: %s", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return res, execErrorf("Unable to open file '%s'. Exception: %v", path, PyOSError(err))
	}
	if !IsText(data) {
		return res, invocationf("Cannot perform string replacements on a binary file: %s", path)
	}
	if o.SearchOnly && (o.AppendIfNotFound || o.PrependIfNotFound) {
		return res, invocationf("search_only cannot be used with append/prepend_if_not_found")
	}
	if o.AppendIfNotFound && o.PrependIfNotFound {
		return res, invocationf("Only one of append and prepend_if_not_found is permitted")
	}
	flags, err := ReFlags(o.Flags)
	if err != nil {
		return res, err
	}
	re, err := compileFlags(o.Pattern, flags)
	if err != nil {
		return res, err
	}
	src := string(data)
	if o.SearchOnly {
		res.Found = re.MatchString(src)
		return res, nil
	}
	content := o.Repl
	if value.Truthy(o.NotFoundContent) && (o.AppendIfNotFound || o.PrependIfNotFound) {
		content = value.Str(o.NotFoundContent)
	}
	tmpl := PyRepl(o.Repl)
	if o.BackslashLiteral {
		tmpl = strings.ReplaceAll(o.Repl, "$", "$$")
	}
	result, nrepl := Subn(re, tmpl, src, o.Count)
	found, changed := false, false
	if nrepl > 0 {
		found = true
		changed = o.Pattern != o.Repl
	}
	if o.AppendIfNotFound || o.PrependIfNotFound {
		if cre, err := compileFlags("^"+regexp.QuoteMeta(content)+`(?:$|\r\n)`, flags); err == nil && cre.MatchString(src) {
			found = true
		}
	}
	orig, newLines := SplitLines(src), SplitLines(result)
	if result == src {
		changed = false
	}
	backup := ""
	if value.Truthy(o.Backup) {
		backup = value.Str(o.Backup)
	}
	var pre Stats
	if !o.DryRun {
		pre, _ = Stat(path, true)
	}
	if changed && !o.DryRun {
		if backup != "" {
			BackupCopy(path, backup)
		}
		if err := writeInPlace(path, []byte(result)); err != nil {
			return res, execErrorf("Exception: %v", err)
		}
	}
	if !found && (o.AppendIfNotFound || o.PrependIfNotFound) {
		nf := o.Repl
		if o.NotFoundContent != nil {
			nf = value.Str(o.NotFoundContent)
		}
		if o.PrependIfNotFound {
			newLines = append([]string{nf + "\n"}, newLines...)
		} else {
			if len(newLines) > 0 && !strings.HasSuffix(newLines[len(newLines)-1], "\n") {
				newLines[len(newLines)-1] += "\n"
			}
			newLines = append(newLines, nf+"\n")
		}
		changed = true
		if !o.DryRun {
			if backup != "" && nrepl == 0 {
				BackupCopy(path, backup)
			}
			if err := WriteAtomic(path, []byte(strings.Join(newLines, "")), false); err != nil {
				return res, execErrorf("Exception: %v", err)
			}
		}
	}
	if changed && !o.DryRun && backup != "" && isSymlink {
		lb, tb := givenPath+backup, linkTarget+backup
		os.Remove(lb)
		_ = os.Symlink(tb, lb)
	}
	if !o.DryRun && pre.Mode != "" {
		CheckPerms(path, value.MapOf("changes", value.NewMap(0), "result", true, "comment", ""), pre.User, pre.Group, pre.Mode, true, false)
	}
	res.Diff = UnifiedDiff(orig, newLines, "", "")
	res.Changed = changed && res.Diff != ""
	return res, nil
}

// writeInPlace rewrites path keeping its inode (Salt's preserve_inode).
func writeInPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
