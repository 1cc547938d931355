package states_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"brine/internal/execmod"
	_ "brine/internal/modules"
	"brine/internal/value"
)

// runIn runs one state function with ctx (its opts, grains and pillar) and
// returns the chunk's result without the engine's bookkeeping keys.
func runIn(t *testing.T, ctx *execmod.Context, full string, args *value.Map, test bool) *value.Map {
	t.Helper()
	m := sysRun(t, ctx, full, args, test)
	out := value.NewMap(4)
	for _, k := range []string{"name", "changes", "result", "comment"} {
		x, _ := m.Get(k)
		out.Set(k, x)
	}
	return out
}

// stateStep is one state call of a sequence on one scratch directory: want
// is value.Repr of {name, changes, result, comment}, with {d} standing for
// the directory.
type stateStep struct {
	fun   string
	args  []any
	test  bool
	want  string
	after func(t *testing.T, d string)
}

func runStateSteps(t *testing.T, ctx *execmod.Context, d string, steps []stateStep) {
	t.Helper()
	for i, s := range steps {
		kv := make([]any, len(s.args))
		for j, a := range s.args {
			if str, ok := a.(string); ok {
				a = strings.ReplaceAll(str, "{d}", d)
			}
			kv[j] = a
		}
		res := runIn(t, ctx, s.fun, value.MapOf(kv...), s.test)
		if s.fun == "file.tidied" {
			// The removal order is the file system's directory order.
			if ch, ok := res.Get("changes"); ok {
				if l, ok := ch.(*value.Map).Get("removed"); ok {
					items := l.(*value.List).Items
					sort.Slice(items, func(i, j int) bool { return value.Str(items[i]) < value.Str(items[j]) })
				}
			}
		}
		got := value.Repr(res)
		if want := strings.ReplaceAll(s.want, "{d}", d); got != want {
			t.Errorf("step %d %s %v (test=%v):\n got %s\nwant %s", i, s.fun, kv, s.test, got, want)
		}
		if s.after != nil {
			s.after(t, d)
		}
	}
}

func sameInode(a, b string) func(t *testing.T, d string) {
	return func(t *testing.T, d string) {
		t.Helper()
		var sa, sb syscall.Stat_t
		if syscall.Stat(filepath.Join(d, a), &sa) != nil || syscall.Stat(filepath.Join(d, b), &sb) != nil || sa.Ino != sb.Ino {
			t.Errorf("%s and %s are not the same file", a, b)
		}
	}
}

func TestFileHardlinkState(t *testing.T) {
	d := t.TempDir()
	write(t, d+"/target", "t")
	write(t, d+"/other", "o")
	write(t, d+"/plain", "p")
	ctx := execmod.NewContext()
	runStateSteps(t, ctx, d, []stateStep{
		{"file.hardlink", []any{"name", "{d}/ln", "target", "{d}/target"}, true,
			"{'name': '{d}/ln', 'changes': {'new': '{d}/ln'}, 'result': None, 'comment': 'Hard link {d}/ln to {d}/target is set for creation'}", nil},
		{"file.hardlink", []any{"name", "{d}/ln", "target", "{d}/target"}, false,
			"{'name': '{d}/ln', 'changes': {'new': '{d}/ln'}, 'result': True, 'comment': 'Created new hard link {d}/ln -> {d}/target'}", sameInode("ln", "target")},
		{"file.hardlink", []any{"name", "{d}/ln", "target", "{d}/target"}, true,
			"{'name': '{d}/ln', 'changes': {}, 'result': True, 'comment': 'The hard link {d}/ln is presently targetting {d}/target'}", nil},
		{"file.hardlink", []any{"name", "{d}/ln", "target", "{d}/target"}, false,
			"{'name': '{d}/ln', 'changes': {}, 'result': True, 'comment': 'Target of hard link {d}/ln is already pointing to {d}/target'}", nil},
		{"file.hardlink", []any{"name", "{d}/ln", "target", "{d}/other"}, true,
			"{'name': '{d}/ln', 'changes': {'change': '{d}/ln'}, 'result': None, 'comment': 'Link {d}/ln target is set to be changed to {d}/other'}", nil},
		{"file.hardlink", []any{"name", "{d}/ln", "target", "{d}/other"}, false,
			"{'name': '{d}/ln', 'changes': {'new': '{d}/ln'}, 'result': True, 'comment': 'Set target of hard link {d}/ln -> {d}/other'}", sameInode("ln", "other")},
		{"file.hardlink", []any{"name", "{d}/plain", "target", "{d}/target"}, true,
			"{'name': '{d}/plain', 'changes': {}, 'result': False, 'comment': 'File or directory exists where the hard link {d}/plain should be. Did you mean to use force?'}", nil},
		{"file.hardlink", []any{"name", "{d}/plain", "target", "{d}/target"}, false,
			"{'name': '{d}/plain', 'changes': {}, 'result': False, 'comment': 'File exists where the hard link {d}/plain should be'}", nil},
		{"file.hardlink", []any{"name", "{d}/plain", "target", "{d}/target", "force", true}, true,
			"{'name': '{d}/plain', 'changes': {}, 'result': None, 'comment': 'The file or directory {d}/plain is set for removal to make way for a new hard link targeting {d}/target'}", nil},
		{"file.hardlink", []any{"name", "{d}/plain", "target", "{d}/target", "force", true}, false,
			"{'name': '{d}/plain', 'changes': {'forced': 'File for hard link was forcibly replaced', 'new': '{d}/plain'}, 'result': True, 'comment': 'Created new hard link {d}/plain -> {d}/target'}", sameInode("plain", "target")},
		{"file.hardlink", []any{"name", "{d}/x", "target", "{d}/missing"}, false,
			"{'name': '{d}/x', 'changes': {}, 'result': False, 'comment': 'Target {d}/missing for hard link does not exist'}", nil},
		{"file.hardlink", []any{"name", "{d}/x", "target", "{d}"}, true,
			"{'name': '{d}/x', 'changes': {}, 'result': False, 'comment': 'Unable to hard link from directory {d}'}", nil},
		{"file.hardlink", []any{"name", "{d}/sub/x", "target", "{d}/target"}, false,
			"{'name': '{d}/sub/x', 'changes': {}, 'result': False, 'comment': 'Directory {d}/sub for hard link is not present'}", nil},
		{"file.hardlink", []any{"name", "{d}/sub/x", "target", "{d}/target", "makedirs", true}, false,
			"{'name': '{d}/sub/x', 'changes': {'new': '{d}/sub/x'}, 'result': True, 'comment': 'Created new hard link {d}/sub/x -> {d}/target'}", nil},
		{"file.hardlink", []any{"name", "rel", "target", "rel2", "user", "no-such-user-x"}, false,
			"{'name': 'rel', 'changes': {}, 'result': False, 'comment': 'User no-such-user-x does not exist. Specified file rel is not an absolute path. Specified target rel2 is not an absolute path.'}", nil},
	})
}

func setTimes(p string, age time.Duration) {
	t := time.Now().Add(-age)
	_ = os.Chtimes(p, t, t)
}

func TestFileTidiedState(t *testing.T) {
	d := t.TempDir()
	write(t, d+"/old.log", "0123456789")
	write(t, d+"/new.log", "x")
	write(t, d+"/keep.txt", "y")
	write(t, d+"/sub/old.log", "z")
	setTimes(d+"/old.log", 10*24*time.Hour)
	setTimes(d+"/sub/old.log", 10*24*time.Hour)
	setTimes(d+"/keep.txt", 10*24*time.Hour)
	ctx := execmod.NewContext()
	runStateSteps(t, ctx, d, []stateStep{
		// size defaults to 0, which every file reaches: with the OR operator
		// age alone selects nothing (Salt's behaviour).
		{"file.tidied", []any{"name", "{d}", "age", int64(5), "matches", value.NewList(`.*\.log$`)}, true,
			"{'name': '{d}', 'changes': {'removed': ['{d}/new.log', '{d}/old.log', '{d}/sub/old.log']}, 'result': None, 'comment': '{d} is set for tidy'}", nil},
		{"file.tidied", []any{"name", "{d}", "age", int64(5), "matches", value.NewList(`.*\.log$`), "age_size_only", "AGE"}, true,
			"{'name': '{d}', 'changes': {'removed': ['{d}/old.log', '{d}/sub/old.log']}, 'result': None, 'comment': '{d} is set for tidy'}", nil},
		{"file.tidied", []any{"name", "{d}", "size", "5", "matches", value.NewList(`.*\.log$`), "age_size_only", "size", "full_path_match", true}, true,
			"{'name': '{d}', 'changes': {'removed': ['{d}/old.log']}, 'result': None, 'comment': '{d} is set for tidy'}", nil},
		{"file.tidied", []any{"name", "{d}", "age", int64(5), "matches", value.NewList(`.*\.log$`), "exclude", value.NewList("old"), "age_size_only", "age"}, false,
			"{'name': '{d}', 'changes': {}, 'result': True, 'comment': 'Nothing to remove from directory {d}'}", nil},
		{"file.tidied", []any{"name", "{d}", "age", int64(5), "size", int64(100), "age_size_logical_operator", "and"}, false,
			"{'name': '{d}', 'changes': {}, 'result': True, 'comment': 'Nothing to remove from directory {d}'}", nil},
		{"file.tidied", []any{"name", "{d}", "age", int64(5), "matches", value.NewList(`.*\.log$`), "rmdirs", true, "time_comparison", "mtime", "age_size_only", "age"}, false,
			"{'name': '{d}', 'changes': {'removed': ['{d}/old.log', '{d}/sub/old.log']}, 'result': True, 'comment': 'Removed 2 files or directories from directory {d}'}",
			func(t *testing.T, d string) {
				for _, p := range []string{"new.log", "keep.txt", "sub"} {
					if _, err := os.Stat(filepath.Join(d, p)); err != nil {
						t.Errorf("%s removed", p)
					}
				}
			}},
		{"file.tidied", []any{"name", "{d}", "matches", value.NewList("sub"), "rmdirs", true}, false,
			"{'name': '{d}', 'changes': {'removed': ['{d}/sub']}, 'result': True, 'comment': 'Removed 1 files or directories from directory {d}'}", nil},
		{"file.tidied", []any{"name", "{d}/nope"}, false,
			"{'name': '{d}/nope', 'changes': {}, 'result': False, 'comment': '{d}/nope does not exist or is not a directory.'}", nil},
		{"file.tidied", []any{"name", "rel"}, false,
			"{'name': 'rel', 'changes': {}, 'result': False, 'comment': 'Specified file rel is not an absolute path'}", nil},
	})
}

func TestFileMknodState(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("device nodes need root")
	}
	d := t.TempDir()
	write(t, d+"/plain", "p")
	ctx := execmod.NewContext()
	runStateSteps(t, ctx, d, []stateStep{
		{"file.mknod", []any{"name", "{d}/fifo", "ntype", "p"}, true,
			"{'name': '{d}/fifo', 'changes': {}, 'result': None, 'comment': 'Fifo pipe {d}/fifo is set to be created'}", nil},
		{"file.mknod", []any{"name", "{d}/fifo", "ntype", "p"}, false,
			"{'name': '{d}/fifo', 'changes': {'new': 'Fifo pipe {d}/fifo created.'}, 'result': True, 'comment': ''}", nil},
		{"file.mknod", []any{"name", "{d}/fifo", "ntype", "p"}, false,
			"{'name': '{d}/fifo', 'changes': {}, 'result': True, 'comment': 'Fifo pipe {d}/fifo is in the correct state'}", nil},
		{"file.mknod", []any{"name", "{d}/fifo", "ntype", "p", "mode", "0640"}, true,
			"{'name': '{d}/fifo', 'changes': {'mode': '0640'}, 'result': None, 'comment': ''}", nil},
		{"file.mknod", []any{"name", "{d}/null", "ntype", "c", "major", int64(1), "minor", int64(3), "mode", "0666"}, false,
			"{'name': '{d}/null', 'changes': {'new': 'Character device {d}/null created.'}, 'result': True, 'comment': ''}", nil},
		{"file.mknod", []any{"name", "{d}/null", "ntype", "c", "major", int64(1), "minor", int64(5), "mode", "0666"}, false,
			"{'name': '{d}/null', 'changes': {}, 'result': False, 'comment': 'Character device {d}/null exists and has a different major/minor 1/3. Refusing to continue'}", nil},
		{"file.mknod", []any{"name", "{d}/plain", "ntype", "b"}, false,
			"{'name': '{d}/plain', 'changes': {}, 'result': False, 'comment': 'File {d}/plain exists and is not a block device. Refusing to continue'}", nil},
		{"file.mknod", []any{"name", "{d}/x", "ntype", "z"}, false,
			"{'name': '{d}/x', 'changes': {}, 'result': False, 'comment': \"Node type unavailable: 'z'. Available node types are character ('c'), block ('b'), and pipe ('p')\"}", nil},
	})
}

func TestFileDecodeState(t *testing.T) {
	d := t.TempDir()
	enc := base64.StdEncoding.EncodeToString([]byte("hello\n"))
	ctx := execmod.NewContext()
	ctx.Pillar = value.MapOf("certs", value.MapOf("a", enc))
	runStateSteps(t, ctx, d, []stateStep{
		{"file.decode", []any{"name", "{d}/out", "encoded_data", enc}, true,
			"{'name': '{d}/out', 'changes': {}, 'result': None, 'comment': 'File is set to be updated.'}", nil},
		{"file.decode", []any{"name", "{d}/out", "encoded_data", enc}, false,
			"{'name': '{d}/out', 'changes': {'old': None, 'new': 'b1946ac92492d2347c6235b4d2611184'}, 'result': True, 'comment': 'File was updated.'}", nil},
		{"file.decode", []any{"name", "{d}/out", "contents_pillar", "certs:a"}, false,
			"{'name': '{d}/out', 'changes': {}, 'result': True, 'comment': 'File is in the correct state.'}", nil},
		{"file.decode", []any{"name", "{d}/out", "encoded_data", base64.StdEncoding.EncodeToString([]byte("bye\n")), "checksum", "sha256"}, true,
			"{'name': '{d}/out', 'changes': {'old': '5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03', 'new': 'abc6fd595fc079d3114d4b71a4d84b1d1d0f79df1e70f8813212f2a65d8916df'}, 'result': None, 'comment': 'File is set to be updated.'}", nil},
	})
}

// TestAppendPrependDiffs pins Salt's two diff forms: file.append joins
// the unified diff of lines without their endings with "\n", file.prepend
// joins that of lines with their endings with "".
func TestAppendPrependDiffs(t *testing.T) {
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "f"), []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runStateSteps(t, execmod.NewContext(), d, []stateStep{
		{"file.prepend", []any{"name", "{d}/f", "text", value.NewList("first", "second")}, true,
			"{'name': '{d}/f', 'changes': {'diff': '--- \\n+++ \\n@@ -1,2 +1,4 @@\\n+first\\n+second\\n a\\n b\\n'}, 'result': None, 'comment': 'File {d}/f is set to be updated'}", nil},
		{"file.prepend", []any{"name", "{d}/f", "text", value.NewList("first", "second")}, false,
			"{'name': '{d}/f', 'changes': {'diff': '--- \\n+++ \\n@@ -1,2 +1,4 @@\\n+first\\n+second\\n a\\n b\\n'}, 'result': True, 'comment': 'Prepended 2 lines'}", nil},
		{"file.append", []any{"name", "{d}/f", "text", "c"}, false,
			"{'name': '{d}/f', 'changes': {'diff': '--- \\n\\n+++ \\n\\n@@ -2,3 +2,4 @@\\n\\n second\\n a\\n b\\n+c'}, 'result': True, 'comment': 'Appended 1 lines'}", nil},
	})
}

func TestFilePrunedState(t *testing.T) {
	d := t.TempDir()
	for _, p := range []string{"a/b/c", "a/e", "full"} {
		if err := os.MkdirAll(filepath.Join(d, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, d+"/full/f", "x")
	ctx := execmod.NewContext()
	runStateSteps(t, ctx, d, []stateStep{
		{"file.pruned", []any{"name", "{d}/a"}, true,
			"{'name': '{d}/a', 'changes': {'deleted': '{d}/a'}, 'result': None, 'comment': 'Directory {d}/a is set for removal'}", nil},
		{"file.pruned", []any{"name", "{d}/a"}, false,
			"{'name': '{d}/a', 'changes': {'deleted': [], 'errors': [['{d}/a', \"[Errno 39] Directory not empty: '{d}/a'\"]]}, 'result': False, 'comment': 'Failed to remove directory {d}/a'}", nil},
		{"file.pruned", []any{"name", "{d}/a/e"}, false,
			"{'name': '{d}/a/e', 'changes': {'deleted': '{d}/a/e'}, 'result': True, 'comment': 'Removed directory {d}/a/e'}", nil},
		{"file.pruned", []any{"name", "{d}/a", "recurse", true}, false,
			"{'name': '{d}/a', 'changes': {'deleted': ['{d}/a', '{d}/a/b', '{d}/a/b/c']}, 'result': True, 'comment': 'Recursively removed empty directories under {d}/a'}", nil},
		{"file.pruned", []any{"name", "{d}", "ignore_errors", true}, false,
			"{'name': '{d}', 'changes': {'deleted': [], 'errors': [['{d}/full', \"[Errno 39] Directory not empty: '{d}/full'\"], ['{d}', \"[Errno 39] Directory not empty: '{d}'\"]]}, 'result': False, 'comment': 'Failed to remove directory {d}'}", nil},
		{"file.pruned", []any{"name", "{d}/a"}, false,
			"{'name': '{d}/a', 'changes': {}, 'result': True, 'comment': 'Directory {d}/a is not present'}", nil},
	})
}

func TestFileRetentionScheduleState(t *testing.T) {
	d := t.TempDir()
	for _, f := range []string{"20240101.tgz", "20240115.tgz", "20240201.tgz", "20240210.tgz", "20240211.tgz", "20240212.tgz", "notes.txt"} {
		write(t, d+"/"+f, "x")
	}
	ctx := execmod.NewContext()
	retain := value.MapOf("most_recent", int64(2), "first_of_month", int64(2))
	runStateSteps(t, ctx, d, []stateStep{
		{"file.retention_schedule", []any{"name", "{d}", "retain", retain, "strptime_format", "%Y%m%d.tgz"}, true,
			"{'name': '{d}', 'changes': {'retained': ['20240212.tgz', '20240211.tgz', '20240201.tgz', '20240101.tgz'], 'deleted': ['20240210.tgz', '20240115.tgz'], 'ignored': ['notes.txt', '..', '.']}, 'result': None, 'comment': '2 backups would have been removed from {d}.\\n'}", nil},
		{"file.retention_schedule", []any{"name", "{d}", "retain", retain, "strptime_format", "%Y%m%d.tgz"}, false,
			"{'name': '{d}', 'changes': {'retained': ['20240212.tgz', '20240211.tgz', '20240201.tgz', '20240101.tgz'], 'deleted': ['20240210.tgz', '20240115.tgz'], 'ignored': ['notes.txt', '..', '.']}, 'result': True, 'comment': '2 backups were removed from {d}.\\n'}",
			func(t *testing.T, d string) {
				if _, err := os.Stat(d + "/20240115.tgz"); err == nil {
					t.Errorf("20240115.tgz kept")
				}
			}},
		{"file.retention_schedule", []any{"name", "{d}", "retain", value.MapOf("first_of_year", "all"), "strptime_format", "%Y%m%d.tgz"}, false,
			"{'name': '{d}', 'changes': {'retained': ['20240101.tgz'], 'deleted': ['20240212.tgz', '20240211.tgz', '20240201.tgz'], 'ignored': ['notes.txt', '..', '.']}, 'result': True, 'comment': '3 backups were removed from {d}.\\n'}", nil},
		{"file.retention_schedule", []any{"name", "{d}", "retain", value.MapOf("most_recent", int64(5))}, true,
			"{'name': '{d}', 'changes': {}, 'result': True, 'comment': '0 backups would have been removed from {d}.\\n'}", nil},
		{"file.retention_schedule", []any{"name", "{d}/nope", "retain", retain}, false,
			"{'name': '{d}/nope', 'changes': {}, 'result': False, 'comment': 'Name provided to file.retention must be a directory'}", nil},
	})
}
