package states_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"brine/internal/engine"
	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

// runOne runs a single state function (as state.single would) and returns
// its result.
func runOne(t *testing.T, full string, args *value.Map, test bool) *value.Map {
	t.Helper()
	mod, fun, _ := strings.Cut(full, ".")
	name, _ := args.Get("name")
	low := value.MapOf("state", mod, "__id__", name, "name", name, "__sls__", "main", "__env__", "base", "fun", fun, "order", int64(10000))
	args.Range(func(k, v any) bool {
		if k != "name" {
			low.Set(k, v)
		}
		return true
	})
	ctx := execmod.NewContext()
	ctx.Opts.Set("test", test)
	ret, err := engine.Run([]*value.Map{low}, engine.RunOptions{Test: test, Env: &statemod.Env{Exec: ctx}})
	if err != nil {
		t.Fatal(err)
	}
	if ret.Len() != 1 {
		t.Fatalf("running dict has %d entries", ret.Len())
	}
	_, v := ret.At(0)
	return v.(*value.Map)
}

func field(m *value.Map, k string) any {
	v, _ := m.Get(k)
	return v
}

// snapshot lists every path under dir with its mode and content.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		line := p + " " + info.Mode().String()
		if info.Mode().IsRegular() {
			data, _ := os.ReadFile(p)
			line += " " + string(data)
		} else if info.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			line += " -> " + target
		}
		lines = append(lines, line)
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// fileCase is one file state call; setup prepares the scratch dir.
type fileCase struct {
	name    string
	fun     string
	args    func(d string) *value.Map
	setup   func(t *testing.T, d string)
	result  any    // expected result outside test mode
	comment string // expected comment prefix outside test mode ({d} is the dir)
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

var fileCases = []fileCase{
	{"managed new", "file.managed", func(d string) *value.Map {
		return value.MapOf("name", d+"/a.conf", "contents", "x")
	}, nil, true, "File {d}/a.conf updated"},
	{"managed makedirs", "file.managed", func(d string) *value.Map {
		return value.MapOf("name", d+"/x/y/a.conf", "contents", "x", "makedirs", true, "mode", "0600")
	}, nil, true, "File {d}/x/y/a.conf updated"},
	{"managed no parent", "file.managed", func(d string) *value.Map {
		return value.MapOf("name", d+"/x/a.conf", "contents", "x")
	}, nil, false, "Parent directory not present"},
	{"managed correct", "file.managed", func(d string) *value.Map {
		return value.MapOf("name", d+"/a.conf", "contents", "x")
	}, func(t *testing.T, d string) { write(t, d+"/a.conf", "x\n") }, true, "File {d}/a.conf is in the correct state"},
	{"managed replace false", "file.managed", func(d string) *value.Map {
		return value.MapOf("name", d+"/a.conf", "contents", "new", "replace", false)
	}, func(t *testing.T, d string) { write(t, d+"/a.conf", "old\n") }, true, "File {d}/a.conf exists with proper permissions"},
	{"managed contents and source", "file.managed", func(d string) *value.Map {
		return value.MapOf("name", d+"/a.conf", "contents", "x", "source", "salt://x")
	}, nil, false, "'source' cannot be used"},
	{"managed local source", "file.managed", func(d string) *value.Map {
		return value.MapOf("name", d+"/a.conf", "source", d+"/src", "source_hash", "sha256=2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
	}, func(t *testing.T, d string) { write(t, d+"/src", "hello") }, true, "File {d}/a.conf updated"},
	{"managed bad source_hash", "file.managed", func(d string) *value.Map {
		return value.MapOf("name", d+"/a.conf", "source", d+"/src", "source_hash", "sha256=0000000000000000000000000000000000000000000000000000000000000000")
	}, func(t *testing.T, d string) { write(t, d+"/src", "hello") }, false, "Specified sha256 checksum for {d}/a.conf"},
	{"managed source list", "file.managed", func(d string) *value.Map {
		return value.MapOf("name", d+"/a.conf", "source", value.NewList(d+"/nope", d+"/src"))
	}, func(t *testing.T, d string) { write(t, d+"/src", "hello") }, true, "File {d}/a.conf updated"},
	{"managed missing sources", "file.managed", func(d string) *value.Map {
		return value.MapOf("name", d+"/a.conf", "source", value.NewList(d+"/nope"))
	}, nil, false, "Unable to manage file: none of the specified sources were found"},
	{"directory new", "file.directory", func(d string) *value.Map {
		return value.MapOf("name", d+"/dir", "mode", "0700")
	}, nil, true, ""},
	{"directory clean", "file.directory", func(d string) *value.Map {
		return value.MapOf("name", d+"/dir", "clean", true)
	}, func(t *testing.T, d string) { write(t, d+"/dir/stale", "s") }, true, "Files cleaned from directory {d}/dir"},
	{"absent file", "file.absent", func(d string) *value.Map {
		return value.MapOf("name", d+"/gone")
	}, func(t *testing.T, d string) { write(t, d+"/gone", "g") }, true, "Removed file {d}/gone"},
	{"absent missing", "file.absent", func(d string) *value.Map {
		return value.MapOf("name", d+"/never")
	}, nil, true, "File {d}/never is not present"},
	{"touch", "file.touch", func(d string) *value.Map {
		return value.MapOf("name", d+"/t")
	}, nil, true, "Created empty file {d}/t"},
	{"symlink", "file.symlink", func(d string) *value.Map {
		return value.MapOf("name", d+"/l", "target", d+"/target")
	}, nil, true, "Created new symlink {d}/l -> {d}/target"},
	{"copy", "file.copy", func(d string) *value.Map {
		return value.MapOf("name", d+"/dst", "source", d+"/src")
	}, func(t *testing.T, d string) { write(t, d+"/src", "s") }, true, "Copied \"{d}/src\" to \"{d}/dst\""},
	{"rename", "file.rename", func(d string) *value.Map {
		return value.MapOf("name", d+"/dst", "source", d+"/src")
	}, func(t *testing.T, d string) { write(t, d+"/src", "s") }, true, "Moved \"{d}/src\" to \"{d}/dst\""},
	{"append", "file.append", func(d string) *value.Map {
		return value.MapOf("name", d+"/f", "text", "two")
	}, func(t *testing.T, d string) { write(t, d+"/f", "one\n") }, true, "Appended 1 lines"},
	{"prepend", "file.prepend", func(d string) *value.Map {
		return value.MapOf("name", d+"/f", "text", "zero")
	}, func(t *testing.T, d string) { write(t, d+"/f", "one\n") }, true, "Prepended 1 lines"},
	{"replace", "file.replace", func(d string) *value.Map {
		return value.MapOf("name", d+"/f", "pattern", `^port=(\d+)$`, "repl", `port=8\1`)
	}, func(t *testing.T, d string) { write(t, d+"/f", "port=80\n") }, true, "Changes were made"},
	{"line", "file.line", func(d string) *value.Map {
		return value.MapOf("name", d+"/f", "content", "b", "mode", "ensure", "after", "a")
	}, func(t *testing.T, d string) { write(t, d+"/f", "a\nc\n") }, true, "Changes were made"},
	{"blockreplace", "file.blockreplace", func(d string) *value.Map {
		return value.MapOf("name", d+"/f", "marker_start", "# s", "marker_end", "# e", "content", "new\n")
	}, func(t *testing.T, d string) { write(t, d+"/f", "# s\nold\n# e\n") }, true, "Changes were made"},
	{"comment", "file.comment", func(d string) *value.Map {
		return value.MapOf("name", d+"/f", "regex", "^b")
	}, func(t *testing.T, d string) { write(t, d+"/f", "a\nb\n") }, true, "Commented lines successfully"},
	{"uncomment", "file.uncomment", func(d string) *value.Map {
		return value.MapOf("name", d+"/f", "regex", "b")
	}, func(t *testing.T, d string) { write(t, d+"/f", "a\n#b\n") }, true, "Uncommented lines successfully"},
	{"keyvalue", "file.keyvalue", func(d string) *value.Map {
		return value.MapOf("name", d+"/f", "key", "a", "value", "2")
	}, func(t *testing.T, d string) { write(t, d+"/f", "a=1\n") }, true, "Changed 1 lines"},
	{"serialize", "file.serialize", func(d string) *value.Map {
		return value.MapOf("name", d+"/f.json", "serializer", "json", "dataset", value.MapOf("a", int64(1)))
	}, nil, true, "File {d}/f.json updated"},
	{"patch", "file.patch", func(d string) *value.Map {
		return value.MapOf("name", d+"/f", "source", d+"/f.patch")
	}, func(t *testing.T, d string) {
		write(t, d+"/f", "a\nb\nc\n")
		write(t, d+"/f.patch", "--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n")
	}, true, "Patch successfully applied"},
	{"exists", "file.exists", func(d string) *value.Map {
		return value.MapOf("name", d+"/nope")
	}, nil, false, "Specified path {d}/nope does not exist"},
	{"missing", "file.missing", func(d string) *value.Map {
		return value.MapOf("name", d+"/nope")
	}, nil, true, "Path {d}/nope is missing"},
}

// TestFileStates runs each file state for real, then again from the same
// starting point in test mode, which must not change the filesystem.
func TestFileStates(t *testing.T) {
	for _, tc := range fileCases {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			if tc.setup != nil {
				tc.setup(t, d)
			}
			before := snapshot(t, d)
			tret := runOne(t, tc.fun, tc.args(d), true)
			if after := snapshot(t, d); after != before {
				t.Errorf("test mode changed the filesystem:\n%s\n---\n%s", before, after)
			}
			if r := field(tret, "result"); r == false && tc.result != false {
				t.Errorf("test mode result False: %v", field(tret, "comment"))
			}
			ret := runOne(t, tc.fun, tc.args(d), false)
			if r := field(ret, "result"); r != tc.result {
				t.Errorf("result = %v, want %v (%v)", r, tc.result, field(ret, "comment"))
			}
			want := strings.ReplaceAll(tc.comment, "{d}", d)
			if c := value.Str(field(ret, "comment")); !strings.HasPrefix(c, want) {
				t.Errorf("comment = %q, want prefix %q", c, want)
			}
		})
	}
}

func TestManagedDiff(t *testing.T) {
	d := t.TempDir()
	write(t, d+"/f", "a\nb\nc\n")
	ret := runOne(t, "file.managed", value.MapOf("name", d+"/f", "contents", "a\nB\nc"), false)
	ch := field(ret, "changes").(*value.Map)
	want := "--- \n+++ \n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
	if got := value.Str(field(ch, "diff")); got != want {
		t.Errorf("diff = %q, want %q", got, want)
	}
	data, _ := os.ReadFile(d + "/f")
	if string(data) != "a\nB\nc\n" {
		t.Errorf("content %q", data)
	}
}

func TestAtomicWriteKeepsMode(t *testing.T) {
	d := t.TempDir()
	p := d + "/f"
	write(t, p, "old\n")
	os.Chmod(p, 0o640)
	runOne(t, "file.managed", value.MapOf("name", p, "contents", "new"), false)
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", st.Mode().Perm())
	}
	ents, _ := os.ReadDir(d)
	if len(ents) != 1 {
		t.Errorf("temporary files left behind: %d entries", len(ents))
	}
}

func TestCmdStates(t *testing.T) {
	d := t.TempDir()
	tests := []struct {
		name    string
		args    *value.Map
		test    bool
		result  any
		comment string
	}{
		{"run", value.MapOf("name", "echo hi"), false, true, `Command "echo hi" run`},
		{"run fails", value.MapOf("name", "exit 3"), false, false, `Command "exit 3" run`},
		{"run test", value.MapOf("name", "touch "+d+"/x"), true, nil, `Command "touch ` + d + `/x" would have been executed`},
		{"run bad cwd", value.MapOf("name", "true", "cwd", d+"/nope"), false, false, `Desired working directory "` + d + `/nope" is not available`},
		{"creates", value.MapOf("name", "false", "creates", d), false, true, d + " exists"},
		{"unless", value.MapOf("name", "false", "unless", "true"), false, true, "unless condition is true"},
		{"onlyif", value.MapOf("name", "false", "onlyif", "false"), false, true, "onlyif condition is false"},
		{"stateful", value.MapOf("name", "echo changed=yes comment=done", "stateful", true), false, true, "done"},
		{"env", value.MapOf("name", `test "$FOO" = bar`, "env", value.MapOf("FOO", "bar")), false, true, `Command "test "$FOO" = bar" run`},
		{"success_retcodes", value.MapOf("name", "exit 3", "success_retcodes", value.NewList(int64(3))), false, true, `Command "exit 3" run`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ret := runOne(t, "cmd.run", tt.args, tt.test)
			if r := field(ret, "result"); r != tt.result {
				t.Errorf("result = %v, want %v (%v)", r, tt.result, field(ret, "comment"))
			}
			if c := value.Str(field(ret, "comment")); c != tt.comment {
				t.Errorf("comment = %q, want %q", c, tt.comment)
			}
		})
	}
	if _, err := os.Stat(d + "/x"); err == nil {
		t.Error("test mode ran the command")
	}
}

func TestTestStates(t *testing.T) {
	tests := []struct {
		fun     string
		test    bool
		result  any
		changes bool
	}{
		{"test.nop", false, true, false},
		{"test.succeed_without_changes", false, true, false},
		{"test.succeed_with_changes", false, true, true},
		{"test.succeed_with_changes", true, nil, true},
		{"test.fail_without_changes", false, false, false},
		{"test.fail_without_changes", true, false, false},
		{"test.fail_with_changes", false, false, true},
		{"test.fail_with_changes", true, nil, true},
		{"test.configurable_test_state", false, true, true},
		{"test.configurable_test_state", true, nil, true},
	}
	for _, tt := range tests {
		ret := runOne(t, tt.fun, value.MapOf("name", "x"), tt.test)
		if r := field(ret, "result"); r != tt.result {
			t.Errorf("%s test=%v: result %v, want %v", tt.fun, tt.test, r, tt.result)
		}
		if ch := value.Truthy(field(ret, "changes")); ch != tt.changes {
			t.Errorf("%s test=%v: changes %v", tt.fun, tt.test, ch)
		}
	}
	ret := runOne(t, "test.show_notification", value.MapOf("name", "x", "text", "hello"), false)
	if field(ret, "comment") != "hello" {
		t.Errorf("show_notification comment %v", field(ret, "comment"))
	}
}

func TestUnifiedDiffMatchesDifflib(t *testing.T) {
	d := t.TempDir()
	var a, b strings.Builder
	for i := 0; i < 30; i++ {
		a.WriteString("line " + string(rune('a'+i%26)) + "\n")
		if i == 3 || i == 20 {
			b.WriteString("changed\n")
			continue
		}
		b.WriteString("line " + string(rune('a'+i%26)) + "\n")
	}
	write(t, d+"/f", a.String())
	ret := runOne(t, "file.managed", value.MapOf("name", d+"/f", "contents", b.String()), false)
	got := value.Str(field(field(ret, "changes").(*value.Map), "diff"))
	// Recorded from Python's difflib.unified_diff for the same input.
	want := "--- \n+++ \n@@ -1,7 +1,7 @@\n line a\n line b\n line c\n-line d\n+changed\n line e\n line f\n line g\n@@ -18,7 +18,7 @@\n line r\n line s\n line t\n-line u\n+changed\n line v\n line w\n line x\n"
	if got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
}

func TestPatchIdempotent(t *testing.T) {
	d := t.TempDir()
	write(t, d+"/f", "a\nb\nc\n")
	write(t, d+"/f.patch", "--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n")
	args := func() *value.Map { return value.MapOf("name", d+"/f", "source", d+"/f.patch") }
	if r := runOne(t, "file.patch", args(), false); field(r, "result") != true {
		t.Fatalf("first run: %v", field(r, "comment"))
	}
	r := runOne(t, "file.patch", args(), false)
	if field(r, "result") != true || field(r, "comment") != "Patch was already applied" {
		t.Errorf("second run: %v %v", field(r, "result"), field(r, "comment"))
	}
}
