package modules

// file.go is salt/modules/file.py: the file tests templates and requisites
// (onlyif/unless with fun:) use.

import (
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"unicode/utf8"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/pyops"
	"brine/internal/value"
)

func init() {
	execmod.Register("file.file_exists", fileTest("file_exists", func(fi os.FileInfo) bool { return fi.Mode().IsRegular() }), "Whether path is an existing file (symlinks followed).")
	execmod.Register("file.directory_exists", fileTest("directory_exists", func(fi os.FileInfo) bool { return fi.IsDir() }), "Whether path is an existing directory (symlinks followed).")
	execmod.Register("file.exists", fileTest("exists", func(os.FileInfo) bool { return true }), "Whether path exists.")
	execmod.Register("file.basename", fileBasename, "Return the final component of a pathname (os.path.basename).")
	execmod.Register("file.dirname", fileDirname, "Return the directory component of a pathname (os.path.dirname).")
	execmod.Register("file.join", fileJoin, "Join path components (os.path.join).")
	execmod.Register("file.readdir", fileReaddir, "Return a list of the entries of directory path, '.' and '..' first.")
	execmod.Register("file.read", fileRead, "Return the content of the file at path (bytes when binary=True).")
	execmod.Register("file.contains_regex", fileContainsRegex, "Whether regex matches a line of the file at path (lchar stripped from each line's left first).")
	execmod.Register("file.get_user", fileGetUser, "Return the user owning path (its uid when no user has it).")
	execmod.Register("file.check_hash", fileCheckHash, "Whether the file at path matches file_hash ('<type>=<hex>', '<type>:<hex>' or a bare hex digest).")
	execmod.Register("file.find", fileFind, "Find files under path like find(1): name, iname, regex, iregex, type, user, group, size, mtime, grep, maxdepth, mindepth, print, delete.")
}

func fileTest(name string, ok func(os.FileInfo) bool) execmod.Func {
	return func(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind(name, args, kwargs, execmod.Req("path"))
		if err != nil {
			return nil, err
		}
		fi, err := os.Stat(expandUser(execmod.String(v[0])))
		return err == nil && ok(fi), nil
	}
}

// expandUser is os.path.expanduser for "~" and "~/...".
func expandUser(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

// pyTypeError is a Python TypeError raised by a function's own checks.
type pyTypeError struct{ msg string }

func (e *pyTypeError) Error() string { return e.msg }

// SaltExceptionClass names the Python exception this error stands for.
func (e *pyTypeError) SaltExceptionClass() string { return "TypeError" }

// pathArg returns v as a path string, or os.fspath's TypeError.
func pathArg(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", &pyTypeError{msg: "expected str, bytes or os.PathLike object, not " + value.TypeName(v)}
}

func fileBasename(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("basename", args, kwargs, execmod.Req("path"))
	if err != nil {
		return nil, err
	}
	p, err := pathArg(v[0])
	if err != nil {
		return nil, err
	}
	return p[strings.LastIndexByte(p, '/')+1:], nil
}

func fileDirname(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("dirname", args, kwargs, execmod.Req("path"))
	if err != nil {
		return nil, err
	}
	p, err := pathArg(v[0])
	if err != nil {
		return nil, err
	}
	return pyDirname(p), nil
}

// pyDirname is os.path.dirname: everything before the last slash, with
// trailing slashes removed unless the head is only slashes.
func pyDirname(p string) string {
	head := p[:strings.LastIndexByte(p, '/')+1]
	if head != "" && strings.Trim(head, "/") != "" {
		head = strings.TrimRight(head, "/")
	}
	return head
}

func fileJoin(_ *execmod.Context, args []any, _ *value.Map) (any, error) {
	if len(args) == 0 {
		return nil, &pyTypeError{msg: "join() missing 1 required positional argument: 'a'"}
	}
	var b strings.Builder
	for _, a := range args {
		s, ok := a.(string)
		if !ok {
			return nil, &pyTypeError{msg: "join() argument must be str, bytes, or os.PathLike object, not '" + value.TypeName(a) + "'"}
		}
		switch {
		case strings.HasPrefix(s, "/"):
			b.Reset()
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "/"):
			b.WriteByte('/')
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

func fileReaddir(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("readdir", args, kwargs, execmod.Req("path"))
	if err != nil {
		return nil, err
	}
	p, err := pathArg(v[0])
	if err != nil {
		return nil, err
	}
	p = expandUser(p)
	if !filepath.IsAbs(p) {
		return nil, &execmod.InvocationError{Msg: "Dir path must be absolute."}
	}
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		return nil, &execmod.InvocationError{Msg: "A valid directory was not specified."}
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fileops.PyOSError(err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1) // directory order, as os.listdir
	if err != nil {
		return nil, fileops.PyOSError(err)
	}
	out := value.NewList(".", "..")
	for _, n := range names {
		out.Append(n)
	}
	return out, nil
}

// readText reads path as Python's open(path, "r") does: UTF-8 with
// universal newlines.
func readText(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fileops.PyOSError(err)
	}
	if !utf8.Valid(data) {
		i := 0
		for i < len(data) {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return "", fmt.Errorf("'utf-8' codec can't decode byte 0x%02x in position %d: invalid start byte", data[i], i)
	}
	s := string(data)
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	return s, nil
}

func fileRead(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("read", args, kwargs, execmod.Req("path"), execmod.Opt("binary", false))
	if err != nil {
		return nil, err
	}
	p, err := pathArg(v[0])
	if err != nil {
		return nil, err
	}
	if v[1] == true {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fileops.PyOSError(err)
		}
		return data, nil
	}
	return readText(p)
}

func fileContainsRegex(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("contains_regex", args, kwargs, execmod.Req("path"), execmod.Req("regex"), execmod.Opt("lchar", ""))
	if err != nil {
		return nil, err
	}
	p, err := pathArg(v[0])
	if err != nil {
		return nil, err
	}
	p = expandUser(p)
	if _, err := os.Stat(p); err != nil {
		return false, nil
	}
	re, err := regexp.Compile(execmod.String(v[1]))
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %s: %v", value.Repr(v[1]), err)
	}
	text, err := readText(p)
	if err != nil {
		return false, nil
	}
	lchar := execmod.String(v[2])
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i+1], text[i+1:]
		} else {
			text = ""
		}
		if lchar != "" {
			line = strings.TrimLeft(line, lchar)
		}
		// Python's $ also matches before a final newline.
		if re.MatchString(line) || (strings.HasSuffix(line, "\n") && re.MatchString(line[:len(line)-1])) {
			return true, nil
		}
	}
	return false, nil
}

func fileGetUser(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_user", args, kwargs, execmod.Req("path"), execmod.Opt("follow_symlinks", true))
	if err != nil {
		return nil, err
	}
	p, err := pathArg(v[0])
	if err != nil {
		return nil, err
	}
	p = expandUser(p)
	fi, err := os.Stat(p)
	if err != nil || !value.Truthy(v[1]) {
		fi, err = os.Lstat(p)
	}
	if err != nil {
		return nil, execmod.Errorf("Path not found: %s", p)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false, nil
	}
	return uidToUser(int64(st.Uid)), nil
}

// uidToUser is file.uid_to_user: the user name of uid, or uid itself when
// no user has it.
func uidToUser(uid int64) any {
	users, err := userDB(nil).Users()
	if err == nil {
		for _, u := range users {
			if u.UID == uid {
				return u.Name
			}
		}
	}
	return uid
}

// hashNew returns the hashlib constructor of name, as getattr(hashlib, name).
func hashNew(name string) (func() hash.Hash, bool) { return pyops.Hashlib(name) }

// fileHash is salt.utils.hashutils.get_hash: the hex digest of path.
func fileHash(path, form string) (string, error) {
	newHash, ok := hashNew(form)
	if !ok {
		return "", fmt.Errorf("Invalid hash type: %s", form)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fileops.PyOSError(err)
	}
	defer f.Close()
	h := newHash()
	if _, err := io.Copy(h, f); err != nil {
		return "", fileops.PyOSError(err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func fileCheckHash(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("check_hash", args, kwargs, execmod.Req("path"), execmod.Req("file_hash"))
	if err != nil {
		return nil, err
	}
	p, err := pathArg(v[0])
	if err != nil {
		return nil, err
	}
	p = expandUser(p)
	sum, ok := v[1].(string)
	if !ok {
		return nil, &execmod.InvocationError{Msg: "hash must be a string"}
	}
	var form, want string
	if i := strings.IndexAny(sum, ":="); i >= 0 {
		// Salt splits on ":" when present anywhere, else on "=".
		sep := ":"
		if !strings.Contains(sum, ":") {
			sep = "="
		}
		form, want, _ = strings.Cut(sum, sep)
	} else {
		n := utf8.RuneCountInString(sum)
		form, want = fileops.HashTypeOfLen(n), sum
		if form == "" {
			lens := []int{32, 40, 56, 64, 96, 128}
			parts := make([]string, len(lens))
			for i, l := range lens {
				parts[i] = fmt.Sprintf("%s (%d)", fileops.HashTypeOfLen(l), l)
			}
			return nil, &execmod.InvocationError{Msg: fmt.Sprintf("Hash %s (length: %d) could not be matched to a supported hash type. The supported hash types and lengths are: %s", sum, n, strings.Join(parts, ", "))}
		}
	}
	got, err := fileHash(p, form)
	if err != nil {
		return nil, err
	}
	return got == want, nil
}
