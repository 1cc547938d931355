package modules

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"brine/internal/value"
)

// fileStep is one file.* call in a sequence run on one scratch directory;
// "{d}" in arguments and expectations stands for the directory. want is
// value.Repr of the return (Python's repr, as salt-call --out=raw prints
// it), or err the error text; after checks the directory afterwards.
type fileStep struct {
	fun   string
	args  []any
	kw    []any
	want  string
	err   string
	after func(t *testing.T, d string)
}

func runFileSteps(t *testing.T, d string, steps []fileStep) {
	t.Helper()
	ctx := testContext()
	ctx.Opts.Set("cachedir", filepath.Join(d, "cache"))
	sub := func(v any) any {
		switch x := v.(type) {
		case string:
			return strings.ReplaceAll(x, "{d}", d)
		case *value.List:
			out := value.NewList()
			for _, it := range x.Items {
				out.Append(strings.ReplaceAll(value.Str(it), "{d}", d))
			}
			return out
		}
		return v
	}
	for i, s := range steps {
		args := make([]any, len(s.args))
		for j, a := range s.args {
			args[j] = sub(a)
		}
		kw := make([]any, len(s.kw))
		for j, a := range s.kw {
			kw[j] = sub(a)
		}
		got, err := ctx.Call(s.fun, args, value.MapOf(kw...))
		label := s.fun + " " + value.Repr(args)
		if s.err != "" {
			if err == nil || err.Error() != strings.ReplaceAll(s.err, "{d}", d) {
				t.Errorf("step %d %s: error %v, want %q", i, label, err, strings.ReplaceAll(s.err, "{d}", d))
			}
			continue
		}
		if err != nil {
			t.Errorf("step %d %s: %v", i, label, err)
			continue
		}
		if want := strings.ReplaceAll(s.want, "{d}", d); s.want != "*" && value.Repr(got) != want {
			t.Errorf("step %d %s:\n got %s\nwant %s", i, label, value.Repr(got), want)
		}
		if s.after != nil {
			s.after(t, d)
		}
	}
}

func wantFile(p, content string) func(t *testing.T, d string) {
	return func(t *testing.T, d string) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(d, p))
		if err != nil || string(data) != content {
			t.Errorf("%s: %q (%v), want %q", p, data, err, content)
		}
	}
}

func wantMode(p string, mode os.FileMode) func(t *testing.T, d string) {
	return func(t *testing.T, d string) {
		t.Helper()
		fi, err := os.Lstat(filepath.Join(d, p))
		if err != nil || fi.Mode() != mode {
			t.Errorf("%s: mode %v (%v), want %v", p, fi.Mode(), err, mode)
		}
	}
}

func wantGone(p string) func(t *testing.T, d string) {
	return func(t *testing.T, d string) {
		t.Helper()
		if _, err := os.Lstat(filepath.Join(d, p)); err == nil {
			t.Errorf("%s still exists", p)
		}
	}
}

func TestFileMetadataFunctions(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("chown needs root")
	}
	d := t.TempDir()
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	write := func(p, s string) {
		if err := os.WriteFile(filepath.Join(d, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a", "hello\n")
	write("big", strings.Repeat("x", 100))
	runFileSteps(t, d, []fileStep{
		{fun: "file.get_mode", args: []any{"{d}/a"}, want: "'0644'"},
		{fun: "file.get_user", args: []any{"{d}/a"}, want: "'root'"},
		{fun: "file.get_uid", args: []any{"{d}/a"}, want: "0"},
		{fun: "file.get_gid", args: []any{"{d}/a"}, want: "0"},
		{fun: "file.get_group", args: []any{"{d}/a"}, want: "'root'"},
		{fun: "file.get_mode", args: []any{"{d}/nope"}, err: "Path not found: {d}/nope"},
		{fun: "file.uid_to_user", args: []any{int64(0)}, want: "'root'"},
		{fun: "file.uid_to_user", args: []any{int64(4242424)}, want: "4242424"},
		{fun: "file.user_to_uid", args: []any{"nobody"}, want: "65534"},
		{fun: "file.user_to_uid", args: []any{"no-such-user-x"}, want: "''"},
		{fun: "file.user_to_uid", args: []any{int64(7)}, want: "7"},
		{fun: "file.group_to_gid", args: []any{"nogroup"}, want: "65534"},
		{fun: "file.group_to_gid", args: []any{nil}, want: "''"},
		{fun: "file.gid_to_group", args: []any{int64(0)}, want: "'root'"},
		{fun: "file.gid_to_group", args: []any{"0"}, want: "'root'"},
		{fun: "file.gid_to_group", args: []any{"nogroup"}, want: "'nogroup'"},
		{fun: "file.gid_to_group", args: []any{"no-such-group-x"}, want: "''"},
		{fun: "file.set_mode", args: []any{"{d}/a", "0600"}, want: "'0600'", after: wantMode("a", 0o600)},
		{fun: "file.set_mode", args: []any{"{d}/a", int64(640)}, want: "'0640'", after: wantMode("a", 0o640)},
		{fun: "file.set_mode", args: []any{"{d}/a", "abc"}, want: "'Invalid Mode abc'"},
		{fun: "file.set_mode", args: []any{"{d}/nope", "0644"}, err: "{d}/nope: File not found"},
		{fun: "file.chown", args: []any{"{d}/a", "nobody", "nogroup"}, want: "None"},
		{fun: "file.get_user", args: []any{"{d}/a"}, want: "'nobody'"},
		{fun: "file.chgrp", args: []any{"{d}/a", "root"}, want: "None"},
		{fun: "file.get_group", args: []any{"{d}/a"}, want: "'root'"},
		{fun: "file.chown", args: []any{"{d}/a", "no-such-user-x", "root"}, want: "'User does not exist\\n'"},
		{fun: "file.chown", args: []any{"{d}/nope", "root", "root"}, want: "'File not found'"},
		{fun: "file.chown", args: []any{"{d}/a", "root", "root"}, want: "None"},
		{fun: "file.access", args: []any{"{d}/a", "f"}, want: "True"},
		{fun: "file.access", args: []any{"{d}/nope", "r"}, want: "False"},
		{fun: "file.access", args: []any{"{d}/a", "z"}, err: "Invalid mode specified."},
		{fun: "file.access", args: []any{"rel", "f"}, err: "Path to link must be absolute."},
		{fun: "file.lstat", args: []any{"{d}/nope"}, want: "{}"},
		{fun: "file.lstat", args: []any{"rel"}, err: "Path to file must be absolute."},
		{fun: "file.is_link", args: []any{"{d}/a"}, want: "False"},
		{fun: "file.is_hardlink", args: []any{"{d}/a"}, want: "False"},
		{fun: "file.link", args: []any{"{d}/a", "{d}/hard"}, want: "True"},
		{fun: "file.is_hardlink", args: []any{"{d}/a"}, want: "True"},
		{fun: "file.is_hardlink", args: []any{"{d}/nope"}, want: "{}"},
		{fun: "file.link", args: []any{"{d}/a", "{d}/hard"}, err: "Could not create '{d}/hard': [Errno 17] File exists: '{d}/a' -> '{d}/hard'"},
		{fun: "file.link", args: []any{"a", "{d}/x"}, err: "File path must be absolute."},
		{fun: "file.symlink", args: []any{"{d}/a", "{d}/ln"}, want: "True"},
		{fun: "file.symlink", args: []any{"{d}/a", "{d}/ln"}, want: "True"},
		{fun: "file.symlink", args: []any{"{d}/big", "{d}/ln"}, err: "Found existing symlink: {d}/ln"},
		{fun: "file.symlink", args: []any{"{d}/big", "{d}/a"}, err: "Existing path is not a symlink: {d}/a"},
		{fun: "file.symlink", args: []any{"{d}/big", "{d}/ln"}, kw: []any{"force", true}, want: "True"},
		{fun: "file.symlink", args: []any{"{d}/a", "{d}/ln"}, kw: []any{"atomic", true}, want: "True"},
		{fun: "file.symlink", args: []any{"{d}/a", "rel"}, err: "Link path must be absolute: rel"},
		{fun: "file.is_link", args: []any{"{d}/ln"}, want: "True"},
		{fun: "file.readlink", args: []any{"{d}/ln"}, want: "'{d}/a'"},
		{fun: "file.readlink", args: []any{"{d}/a"}, err: "A valid link was not specified: {d}/a"},
		{fun: "file.readlink", args: []any{"rel"}, err: "Path to link must be absolute: rel"},
		{fun: "file.stats", args: []any{"{d}/ln"}, kw: []any{"follow_symlinks", false}, want: "*", after: func(t *testing.T, d string) {}},
		{fun: "file.rename", args: []any{"{d}/hard", "{d}/hard2"}, want: "True", after: wantGone("hard")},
		{fun: "file.rename", args: []any{"{d}/nope", "{d}/x"}, err: "Could not rename '{d}/nope' to '{d}/x'"},
		{fun: "file.copy", args: []any{"{d}/a", "{d}/c"}, want: "True", after: wantFile("c", "hello\n")},
		{fun: "file.copy", args: []any{"{d}/nope", "{d}/c"}, err: "No such file or directory '{d}/nope'"},
		{fun: "file.mkdir", args: []any{"{d}/m/n/o"}, kw: []any{"mode", "0750"}, want: "True", after: wantMode("m/n/o", os.ModeDir|0o750)},
		{fun: "file.copy", args: []any{"{d}/a", "{d}/m"}, err: "Cannot copy overwriting a directory without recurse flag set to true!"},
		{fun: "file.copy", args: []any{"{d}/m", "{d}/m2"}, kw: []any{"recurse", true}, want: "True", after: wantMode("m2/n/o", os.ModeDir|0o750)},
		{fun: "file.move", args: []any{"{d}/c", "{d}/m"}, want: "{'result': True, 'comment': \"'{d}/c' moved to '{d}/m'\"}", after: wantFile("m/c", "hello\n")},
		{fun: "file.move", args: []any{"c", "{d}/m"}, err: "Source path must be absolute."},
		{fun: "file.makedirs", args: []any{"{d}/p/q/"}, want: "None", after: wantMode("p/q", os.ModeDir|0o755)},
		{fun: "file.makedirs", args: []any{"{d}/p/q/r"}, want: "\"Directory '{d}/p/q' already exists\""},
		{fun: "file.makedirs", args: []any{"{d}/a/r"}, want: "\"The path '{d}/a' already exists and is not a directory\""},
		{fun: "file.makedirs_perms", args: []any{"{d}/mp/x"}, kw: []any{"mode", "0700"}, want: "None", after: wantMode("mp/x", os.ModeDir|0o700)},
		{fun: "file.makedirs_perms", args: []any{"{d}/mp/x"}, err: "[Errno 17] File exists: '{d}/mp/x'"},
		{fun: "file.rmdir", args: []any{"{d}/m2"}, kw: []any{"verbose", true}, want: "{'deleted': [], 'errors': [['{d}/m2', \"[Errno 39] Directory not empty: '{d}/m2'\"]], 'result': False}"},
		{fun: "file.rmdir", args: []any{"{d}/m2"}, kw: []any{"recurse", true}, want: "True", after: wantGone("m2")},
		{fun: "file.rmdir", args: []any{"{d}/a"}, err: "A valid directory was not specified."},
		{fun: "file.remove", args: []any{"{d}/m"}, want: "True", after: wantGone("m")},
		{fun: "file.remove", args: []any{"{d}/ln"}, want: "True", after: wantFile("a", "hello\n")},
		{fun: "file.remove", args: []any{"{d}/nope"}, want: "False"},
		{fun: "file.remove", args: []any{"rel"}, err: "File path must be absolute: rel"},
		{fun: "file.touch", args: []any{"{d}/t"}, want: "True", after: wantFile("t", "")},
		{fun: "file.touch", args: []any{"{d}/t"}, kw: []any{"mtime", "86400"}, want: "True", after: func(t *testing.T, d string) {
			if fi, _ := os.Stat(filepath.Join(d, "t")); fi.ModTime().Unix() != 86400 {
				t.Errorf("mtime %v", fi.ModTime())
			}
		}},
		{fun: "file.touch", args: []any{"{d}/t"}, kw: []any{"atime", "x"}, err: "atime and mtime must be integers"},
		{fun: "file.touch", args: []any{"{d}/no/t"}, err: "No such file or directory"},
		{fun: "file.truncate", args: []any{"{d}/big", int64(10)}, want: "None", after: wantFile("big", "xxxxxxxxxx")},
		{fun: "file.seek_read", args: []any{"{d}/a", int64(3), int64(1)}, want: "b'ell'"},
		{fun: "file.seek_write", args: []any{"{d}/big", []byte("ab"), int64(2)}, want: "2", after: wantFile("big", "xxabxxxxxx")},
		{fun: "file.seek_write", args: []any{"{d}/big", "ab", int64(2)}, err: "a bytes-like object is required, not 'str'"},
		{fun: "file.get_hash", args: []any{"{d}/a"}, want: "'5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03'"},
		{fun: "file.get_hash", args: []any{"{d}/a", "md5"}, want: "'b1946ac92492d2347c6235b4d2611184'"},
		{fun: "file.get_sum", args: []any{"{d}/nope"}, want: "'File not found'"},
		{fun: "file.get_sum", args: []any{"{d}/a", "sha1"}, want: "'f572d396fae9206628714fb2ce00f72e94f2258f'"},
		{fun: "file.diskusage", args: []any{"{d}/a"}, want: "6"},
		{fun: "file.path_exists_glob", args: []any{"{d}/*a"}, want: "True"},
		{fun: "file.path_exists_glob", args: []any{"{d}/*zz"}, want: "False"},
		{fun: "file.normpath", args: []any{"/a//b/../c/"}, want: "'/a/c'"},
		{fun: "file.normpath", args: []any{"//a/./b"}, want: "'//a/b'"},
		{fun: "file.normpath", args: []any{""}, want: "'.'"},
		{fun: "file.pardir", want: "'..'"},
		{fun: "file.is_chrdev", args: []any{"/dev/null"}, want: "True"},
		{fun: "file.is_blkdev", args: []any{"/dev/null"}, want: "False"},
		{fun: "file.is_fifo", args: []any{"{d}/nope"}, want: "False"},
		{fun: "file.get_devmm", args: []any{"/dev/null"}, want: "(1, 3)"},
		{fun: "file.get_devmm", args: []any{"{d}/a"}, want: "(0, 0)"},
		{fun: "file.mknod", args: []any{"{d}/fifo", "p"}, want: "{'name': '{d}/fifo', 'changes': {'new': 'Fifo pipe {d}/fifo created.'}, 'comment': '', 'result': True}", after: wantMode("fifo", os.ModeNamedPipe|0o600)},
		{fun: "file.is_fifo", args: []any{"{d}/fifo"}, want: "True"},
		{fun: "file.mknod_fifo", args: []any{"{d}/fifo"}, want: "{'name': '{d}/fifo', 'changes': {}, 'comment': 'File {d}/fifo exists and cannot be overwritten', 'result': False}"},
		{fun: "file.mknod", args: []any{"{d}/sub/null", "c", int64(1), int64(3)}, kw: []any{"mode", "0666"}, want: "{'name': '{d}/sub/null', 'changes': {'new': 'Character device {d}/sub/null created.'}, 'comment': '', 'result': True}", after: wantMode("sub/null", os.ModeDevice|os.ModeCharDevice|0o666)},
		{fun: "file.get_devmm", args: []any{"{d}/sub/null"}, want: "(1, 3)"},
		{fun: "file.mknod", args: []any{"{d}/x", "z"}, err: "Node type unavailable: 'z'. Available node types are character ('c'), block ('b'), and pipe ('p')."},
	})
}

func TestFileStats(t *testing.T) {
	d := t.TempDir()
	p := filepath.Join(d, "f")
	if err := os.WriteFile(p, []byte("abc"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(p, filepath.Join(d, "l")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(d, "gone"), filepath.Join(d, "broken")); err != nil {
		t.Fatal(err)
	}
	ctx := testContext()
	for _, tt := range []struct {
		path  string
		kw    []any
		keys  string
		typ   string
		mode  string
		size  int64
		sum   string
		tgt   string
		error string
	}{
		{path: "f", typ: "file", mode: "0640", size: 3, tgt: "f",
			keys: "['inode', 'uid', 'gid', 'group', 'user', 'atime', 'mtime', 'ctime', 'size', 'mode', 'type', 'target']"},
		{path: "f", kw: []any{"hash_type", "md5"}, typ: "file", mode: "0640", size: 3, tgt: "f", sum: "900150983cd24fb0d6963f7d28e17f72",
			keys: "['inode', 'uid', 'gid', 'group', 'user', 'atime', 'mtime', 'ctime', 'size', 'mode', 'sum', 'type', 'target']"},
		{path: "l", typ: "file", mode: "0640", size: 3, tgt: "f"},
		{path: "l", kw: []any{"follow_symlinks", false}, typ: "link", mode: "0777", tgt: "f"},
		{path: "broken", typ: "link", mode: "0777", tgt: "gone"},
		{path: ".", typ: "dir", tgt: "."},
		{path: "gone", error: "Path not found: {d}/gone"},
	} {
		got, err := ctx.Call("file.stats", []any{filepath.Join(d, tt.path)}, value.MapOf(tt.kw...))
		if tt.error != "" {
			if err == nil || err.Error() != strings.ReplaceAll(tt.error, "{d}", d) {
				t.Errorf("%s: error %v", tt.path, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		m := got.(*value.Map)
		get := func(k string) any { v, _ := m.Get(k); return v }
		if tt.keys != "" && value.Repr(value.NewList(m.Keys()...)) != tt.keys {
			t.Errorf("%s keys %s", tt.path, value.Repr(value.NewList(m.Keys()...)))
		}
		if get("type") != tt.typ || (tt.mode != "" && get("mode") != tt.mode) || (tt.size != 0 && get("size") != tt.size) {
			t.Errorf("%s: %s", tt.path, value.Repr(m))
		}
		if tt.sum != "" && get("sum") != tt.sum {
			t.Errorf("%s sum %v", tt.path, get("sum"))
		}
		if want := filepath.Clean(filepath.Join(d, tt.tgt)); get("target") != want {
			t.Errorf("%s target %v, want %s", tt.path, get("target"), want)
		}
		if _, ok := get("atime").(float64); !ok {
			t.Errorf("%s atime %T", tt.path, get("atime"))
		}
	}
}
