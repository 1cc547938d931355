package jinjasalt

import (
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"brine/internal/value"
)

// Filters of salt/utils/path.py, salt/utils/files.py and
// salt/utils/user.py. They read the minion's own filesystem, as Salt's do.

// pyNormpath is posixpath.normpath.
func pyNormpath(p string) string {
	if p == "" {
		return "."
	}
	lead := 0
	if strings.HasPrefix(p, "/") {
		lead = 1
		if strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "///") {
			lead = 2
		}
	}
	var out []string
	for _, c := range strings.Split(p, "/") {
		switch {
		case c == "" || c == ".":
		case c != ".." || (lead == 0 && len(out) == 0) || (len(out) > 0 && out[len(out)-1] == ".."):
			out = append(out, c)
		case len(out) > 0:
			out = out[:len(out)-1]
		}
	}
	res := strings.Repeat("/", lead) + strings.Join(out, "/")
	if res == "" {
		return "."
	}
	return res
}

// pathJoin is salt.utils.path.join.
func pathJoin(parts []any, kw *value.Map) (any, error) {
	for _, k := range kw.Keys() {
		if k != "use_posixpath" {
			return nil, pyErr(excInvocation, "The following keyword arguments are not valid: %s=%s", pyStr(k), pyStr(mustGet(kw, k)))
		}
	}
	if len(parts) == 0 {
		return "", nil
	}
	strs := make([]string, len(parts))
	for i, p := range parts {
		s, err := toText(p)
		if err != nil {
			return nil, err
		}
		strs[i] = pyNormpath(s)
	}
	ret := strs[0]
	for _, p := range strs[1:] {
		p = strings.TrimLeft(p, "/")
		if ret == "" || strings.HasSuffix(ret, "/") {
			ret += p
		} else {
			ret += "/" + p
		}
	}
	return pyNormpath(ret), nil
}

func mustGet(m *value.Map, k any) any { v, _ := m.Get(k); return v }

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 && accessX(p)
}

// which is salt.utils.path.which.
func which(exe any) (any, error) {
	if !truthy(exe) {
		return nil, nil
	}
	name, err := toText(exe)
	if err != nil {
		return nil, err
	}
	if isExecutable(name) {
		return name, nil
	}
	dirs := strings.Split(os.Getenv("PATH"), ":")
	seen := map[string]bool{}
	for _, d := range dirs {
		seen[d] = true
	}
	for _, d := range []string{"/sbin", "/bin", "/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"} {
		if !seen[d] {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		p, _ := pathJoin([]any{d, name}, nil)
		full := p.(string)
		rp, err := filepath.EvalSymlinks(full)
		if err != nil {
			continue
		}
		if isExecutable(rp) {
			return full, nil
		}
	}
	return nil, nil
}

func isEmptyFile(p any) (any, error) {
	s, err := toText(p)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(s)
	if err != nil {
		return false, nil
	}
	return st.Size() == 0, nil
}

func readBlock(p string, n int) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	m, err := f.Read(buf)
	if err != nil && m == 0 && err.Error() != "EOF" {
		return buf[:0], nil
	}
	return buf[:m], nil
}

// isTextFile is salt.utils.files.is_text.
func isTextFile(p any) (any, error) {
	s, err := toText(p)
	if err != nil {
		return nil, err
	}
	block, err := readBlock(s, 512)
	if err != nil {
		return false, nil
	}
	for _, c := range block {
		if c == 0 {
			return false, nil
		}
	}
	if len(block) == 0 || utf8.Valid(block) {
		return true, nil
	}
	non := 0
	for _, c := range block {
		if !(c >= 32 && c < 127) && !strings.ContainsRune("\n\r\t\f\b", rune(c)) {
			non++
		}
	}
	return float64(non)/float64(len(block)) <= 0.30, nil
}

// isBinFile is salt.utils.files.is_binary.
func isBinFile(p any) (any, error) {
	s, err := toText(p)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(s)
	if err != nil || !st.Mode().IsRegular() {
		return false, nil
	}
	block, err := readBlock(s, 2048)
	if err != nil {
		return false, nil
	}
	if !utf8.Valid(block) {
		return true, nil
	}
	text := string(block)
	if text == "" {
		return false, nil
	}
	if strings.ContainsRune(text, 0) {
		return true, nil
	}
	non, total := 0, 0
	for _, r := range text {
		total++
		if !(r >= 32 && r < 127) && !strings.ContainsRune("\n\r\t\b", r) {
			non++
		}
	}
	return float64(non)/float64(total) > 0.30, nil
}

// listFiles is salt.utils.files.list_files: the directory and everything
// under it. Python returns a set's order; brine returns walk order.
func listFiles(dir any) (any, error) {
	d, err := toText(dir)
	if err != nil {
		return nil, err
	}
	out := []any{d}
	seen := map[string]bool{d: true}
	_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if p == d {
			return nil
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, d), "/")
		full := d + "/" + rel
		if strings.HasSuffix(d, "/") {
			full = d + rel
		}
		if !seen[full] {
			seen[full] = true
			out = append(out, full)
		}
		return nil
	})
	return newList(out), nil
}

func getUID(u any) (any, error) {
	if u == nil {
		return int64(os.Geteuid()), nil
	}
	name, err := toText(u)
	if err != nil {
		return nil, err
	}
	usr, err := user.Lookup(name)
	if err != nil {
		return nil, nil
	}
	n, err := strconv.ParseInt(usr.Uid, 10, 64)
	if err != nil {
		return nil, nil
	}
	return n, nil
}

func init() {
	register(Filter, "path_join", "salt/utils/path.py", func(args []any, kw *value.Map) (any, error) {
		return pathJoin(args, kw)
	})
	filter("which", "salt/utils/path.py", newSig("which", "exe", nil), func(b *bound) (any, error) {
		return which(b.vals[0])
	})
	const files = "salt/utils/files.py"
	filter("is_empty", files, newSig("is_empty", "filename", required), func(b *bound) (any, error) {
		return isEmptyFile(b.vals[0])
	})
	filter("is_text_file", files, newSig("is_text", "fp_", required, "blocksize", int64(512)), func(b *bound) (any, error) {
		return isTextFile(b.vals[0])
	})
	filter("is_bin_file", files, newSig("is_binary", "path", required), func(b *bound) (any, error) {
		return isBinFile(b.vals[0])
	})
	filter("list_files", files, newSig("list_files", "directory", required), func(b *bound) (any, error) {
		return listFiles(b.vals[0])
	})
	filter("get_uid", "salt/utils/user.py", newSig("get_uid", "user", nil), func(b *bound) (any, error) {
		return getUID(b.vals[0])
	})
}
