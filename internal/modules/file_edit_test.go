package modules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/fileops"
	"brine/internal/value"
)

func TestFileEditFunctions(t *testing.T) {
	d := t.TempDir()
	write := func(p, s string) {
		if err := os.WriteFile(filepath.Join(d, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("f", "foo=1\nbar=2\n")
	write("g", "foo=1\nbar=3\n")
	write("bin", "a\x00b")
	write("blk", "head\n# BEGIN\nold\n# END\ntail\n")
	runFileSteps(t, d, []fileStep{
		{fun: "file.search", args: []any{"{d}/f", "^bar=\\d"}, want: "True"},
		{fun: "file.search", args: []any{"{d}/f", "^baz"}, want: "False"},
		{fun: "file.search", args: []any{"{d}/nope", "x"}, err: "File not found: {d}/nope"},
		{fun: "file.search", args: []any{"{d}/nope", "x"}, kw: []any{"ignore_if_missing", true}, want: "False"},
		{fun: "file.search", args: []any{"{d}/f", "BAR"}, kw: []any{"flags", value.NewList("IGNORECASE")}, want: "True"},
		{fun: "file.search", args: []any{"{d}/f", "x"}, kw: []any{"flags", "NOPE"}, err: "Invalid re flag given: NOPE"},
		{fun: "file.replace", args: []any{"{d}/f", "foo=1", "foo=2"}, kw: []any{"dry_run", true},
			want: "'--- \\n+++ \\n@@ -1,2 +1,2 @@\\n-foo=1\\n+foo=2\\n bar=2\\n'", after: wantFile("f", "foo=1\nbar=2\n")},
		{fun: "file.replace", args: []any{"{d}/f", "foo=(\\d)", "foo=\\g<1>0"},
			want: "'--- \\n+++ \\n@@ -1,2 +1,2 @@\\n-foo=1\\n+foo=10\\n bar=2\\n'", after: func(t *testing.T, d string) {
				wantFile("f", "foo=10\nbar=2\n")(t, d)
				wantFile("f.bak", "foo=1\nbar=2\n")(t, d)
			}},
		{fun: "file.replace", args: []any{"{d}/f", "foo=10", "foo=10"}, want: "''"},
		{fun: "file.replace", args: []any{"{d}/f", "foo=10", "foo=1"}, kw: []any{"show_changes", false, "backup", false}, want: "True", after: wantFile("f", "foo=1\nbar=2\n")},
		{fun: "file.replace", args: []any{"{d}/f", "^baz=.*", "baz=3"}, kw: []any{"append_if_not_found", true},
			want: "'--- \\n+++ \\n@@ -1,2 +1,3 @@\\n foo=1\\n bar=2\\n+baz=3\\n'", after: wantFile("f", "foo=1\nbar=2\nbaz=3\n")},
		{fun: "file.replace", args: []any{"{d}/f", "^baz=.*", "baz=3"}, kw: []any{"append_if_not_found", true}, want: "''"},
		{fun: "file.replace", args: []any{"{d}/f", "^zero=.*", "zero=0"}, kw: []any{"prepend_if_not_found", true, "show_changes", false}, want: "True",
			after: wantFile("f", "zero=0\nfoo=1\nbar=2\nbaz=3\n")},
		{fun: "file.replace", args: []any{"{d}/f", "a", "b"}, kw: []any{"append_if_not_found", true, "prepend_if_not_found", true}, err: "Only one of append and prepend_if_not_found is permitted"},
		{fun: "file.replace", args: []any{"{d}/f", "a", "b"}, kw: []any{"search_only", true, "append_if_not_found", true}, err: "search_only cannot be used with append/prepend_if_not_found"},
		{fun: "file.replace", args: []any{"{d}/bin", "a", "b"}, err: "Cannot perform string replacements on a binary file: {d}/bin"},
		{fun: "file.replace", args: []any{"{d}/nope", "a", "b"}, kw: []any{"ignore_if_missing", true}, want: "False"},
		{fun: "file.contains", args: []any{"{d}/f", "  bar=2 "}, want: "True"},
		{fun: "file.contains", args: []any{"{d}/f", "qux"}, want: "False"},
		{fun: "file.contains", args: []any{"{d}/nope", "x"}, want: "False"},
		{fun: "file.contains_glob", args: []any{"{d}/f", "*bar=?\n*"}, want: "True"},
		{fun: "file.contains_glob", args: []any{"{d}/f", "bar*"}, want: "False"},
		{fun: "file.contains_regex", args: []any{"{d}/f", "^ba[rz]="}, want: "True"},
		{fun: "file.comment_line", args: []any{"{d}/f", "^bar"}, want: "'--- \\n+++ \\n@@ -1 +1 @@\\n-bar=2\\n+#bar=2\\n'",
			after: func(t *testing.T, d string) {
				wantFile("f", "zero=0\nfoo=1\n#bar=2\nbaz=3\n")(t, d)
				wantFile("f.bak", "zero=0\nfoo=1\nbar=2\nbaz=3\n")(t, d)
			}},
		{fun: "file.comment", args: []any{"{d}/f", "^nothing"}, want: "False"},
		{fun: "file.uncomment", args: []any{"{d}/f", "bar"}, want: "'--- \\n+++ \\n@@ -1 +1 @@\\n-#bar=2\\n+bar=2\\n'", after: wantFile("f", "zero=0\nfoo=1\nbar=2\nbaz=3\n")},
		{fun: "file.comment", args: []any{"{d}/nope", "x"}, err: "File not found: {d}/nope"},
		{fun: "file.line", args: []any{"{d}/f"}, kw: []any{"content", "new=1", "after", "foo=1", "mode", "insert"},
			want: "'--- \\n+++ \\n@@ -1,4 +1,5 @@\\n zero=0\\n foo=1\\n+new=1\\n bar=2\\n baz=3\\n'", after: wantFile("f", "zero=0\nfoo=1\nnew=1\nbar=2\nbaz=3\n")},
		{fun: "file.line", args: []any{"{d}/f"}, kw: []any{"content", "new=1", "after", "foo=1", "mode", "ensure"}, want: "False"},
		{fun: "file.line", args: []any{"{d}/f"}, kw: []any{"match", "new=", "mode", "delete", "show_changes", false}, want: "True", after: wantFile("f", "zero=0\nfoo=1\nbar=2\nbaz=3\n")},
		{fun: "file.line", args: []any{"{d}/f"}, kw: []any{"content", "x"}, err: "Mode was not defined. How to process the file?"},
		{fun: "file.line", args: []any{"{d}/f"}, kw: []any{"content", "x", "mode", "bogus"}, err: "Unknown mode: \"bogus\""},
		{fun: "file.line", args: []any{"{d}/f"}, kw: []any{"mode", "insert"}, err: "Content can only be empty if mode is \"delete\""},
		{fun: "file.line", args: []any{"{d}/nope"}, kw: []any{"mode", "insert", "content", "x"}, err: "File \"{d}/nope\" does not exists or is not a file."},
		{fun: "file.line", args: []any{"{d}/nope"}, kw: []any{"mode", "insert", "content", "x", "quiet", true}, want: "False"},
		{fun: "file.blockreplace", args: []any{"{d}/blk", "# BEGIN", "# END", "new\n"}, kw: []any{"backup", false},
			want: "'--- \\n+++ \\n@@ -1,5 +1,5 @@\\n head\\n # BEGIN\\n-old\\n+new\\n # END\\n tail\\n'", after: wantFile("blk", "head\n# BEGIN\nnew\n# END\ntail\n")},
		{fun: "file.blockreplace", args: []any{"{d}/blk", "# BEGIN", "# END", "new\n"}, want: "''"},
		{fun: "file.blockreplace", args: []any{"{d}/blk", "# A", "# B", "x"}, err: "Cannot edit marked block. Markers were not found in file."},
		{fun: "file.blockreplace", args: []any{"{d}/blk", "# A", "# B", "x"}, kw: []any{"append_if_not_found", true, "dry_run", true, "show_changes", false}, want: "True"},
		{fun: "file.blockreplace", args: []any{"{d}/nope"}, err: "File not found: {d}/nope"},
		{fun: "file.blockreplace", args: []any{"{d}/blk"}, kw: []any{"append_if_not_found", true, "prepend_if_not_found", true},
			err: "Only one of append_if_not_found, prepend_if_not_found, insert_before_match, and insert_after_match is permitted"},
		{fun: "file.append", args: []any{"{d}/g", "l1", "l2"}, want: "'Wrote 2 lines to \"{d}/g\"'", after: wantFile("g", "foo=1\nbar=3\nl1\nl2\n")},
		{fun: "file.prepend", args: []any{"{d}/g"}, kw: []any{"args", "top"}, want: "'Prepended 1 lines to \"{d}/g\"'", after: wantFile("g", "top\nfoo=1\nbar=3\nl1\nl2\n")},
		{fun: "file.write", args: []any{"{d}/w", "a", "b"}, want: "'Wrote 2 lines to \"{d}/w\"'", after: wantFile("w", "a\nb\n")},
		{fun: "file.append", args: []any{"{d}/nope", "x"}, err: "[Errno 2] No such file or directory: '{d}/nope'"},
		{fun: "file.get_diff", args: []any{"{d}/w", "{d}/w"}, want: "''"},
		{fun: "file.get_diff", args: []any{"{d}/w", "{d}/g"}, kw: []any{"show_filenames", false},
			want: "'--- \\n+++ \\n@@ -1,2 +1,5 @@\\n-a\\n-b\\n+top\\n+foo=1\\n+bar=3\\n+l1\\n+l2\\n'"},
		{fun: "file.get_diff", args: []any{"{d}/w", "{d}/bin"}, want: "'Replace text file with binary file'"},
		{fun: "file.get_diff", args: []any{"{d}/w", "{d}/g"}, kw: []any{"show_changes", false}, want: "'<show_changes=False>'"},
		{fun: "file.get_diff", args: []any{"{d}/w", "{d}/nope"}, err: "Failed to cache one or more files"},
		{fun: "file.psed", args: []any{"{d}/w", "^a$", "z"}, want: "None", after: func(t *testing.T, d string) {
			wantFile("w", "z\nb\n")(t, d)
			wantFile("w.bak", "a\nb\n")(t, d)
		}},
		{fun: "file.sed", args: []any{"{d}/w", "z", "y"}, kw: []any{"backup", ""}, want: "*", after: wantFile("w", "y\nb\n")},
		{fun: "file.sed", args: []any{"{d}/nope", "z", "y"}, want: "False"},
		{fun: "file.sed_contains", args: []any{"{d}/w", "y"}, want: "True"},
		{fun: "file.sed_contains", args: []any{"{d}/w", "q"}, want: "False"},
		{fun: "file.grep", args: []any{"{d}/w", "y"}, want: "*"},
		{fun: "file.grep", args: []any{"{d}/w", "y", "-i -n"}, err: "Passing multiple command line arguments in a single string is not supported, please pass the following arguments separately: -i -n"},
	})
}

func TestFileBackups(t *testing.T) {
	d := t.TempDir()
	p := filepath.Join(d, "conf")
	cache := filepath.Join(d, "cache")
	if err := os.WriteFile(p, []byte("v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := fileops.BackupMinion(p, cache); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("v2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bkdir := filepath.Join(cache, "file_backup", strings.TrimPrefix(d, "/"))
	runFileSteps(t, d, []fileStep{
		{fun: "file.list_backups", args: []any{"{d}/conf"}, want: "*", after: func(t *testing.T, d string) {
			ents, _ := os.ReadDir(bkdir)
			if len(ents) != 1 || !strings.HasPrefix(ents[0].Name(), "conf_") {
				t.Fatalf("backups %v", ents)
			}
		}},
		{fun: "file.list_backups", args: []any{"{d}/other"}, want: "{}"},
		{fun: "file.restore_backup", args: []any{"{d}/conf", "x"}, want: "{'result': False, 'comment': \"Invalid backup_id 'x'\"}"},
		{fun: "file.restore_backup", args: []any{"{d}/conf", int64(3)}, want: "{'result': False, 'comment': \"backup_id '3' does not exist for {d}/conf\"}"},
		{fun: "file.restore_backup", args: []any{"{d}/conf", int64(0)}, want: "*", after: wantFile("conf", "v1\n")},
		{fun: "file.list_backups", args: []any{"{d}/conf"}, kw: []any{"limit", int64(1)}, want: "*"},
		{fun: "file.delete_backup", args: []any{"{d}/conf", "01"}, want: "{'result': False, 'comment': \"Invalid backup_id '01'\"}"},
	})
	ctx := testContext()
	ctx.Opts.Set("cachedir", cache)
	got := call(t, ctx, "file.list_backups", []any{p}).(*value.Map)
	if got.Len() != 2 {
		t.Fatalf("after restore: %s", value.Repr(got))
	}
	_, first := got.At(0)
	loc, _ := first.(*value.Map).Get("Location")
	if keys := value.Repr(value.NewList(first.(*value.Map).Keys()...)); keys != "['Backup Time', 'Size', 'Location']" {
		t.Errorf("keys %s", keys)
	}
	res := call(t, ctx, "file.delete_backup", []any{p, int64(0)})
	if value.Repr(res) != value.Repr(value.MapOf("result", true, "comment", "Successfully removed "+value.Str(loc))) {
		t.Errorf("delete_backup: %s", value.Repr(res))
	}
	if got := call(t, ctx, "file.list_backups", []any{p}).(*value.Map); got.Len() != 1 {
		t.Errorf("after delete: %s", value.Repr(got))
	}
	byDir := call(t, ctx, "file.list_backups_dir", []any{p}).(*value.Map)
	if keys := value.Repr(value.NewList(byDir.Keys()...)); keys != "['conf']" {
		t.Fatalf("list_backups_dir keys %s", keys)
	}
	if conf, _ := byDir.Get("conf"); conf.(*value.Map).Len() != 1 {
		t.Errorf("list_backups_dir: %s", value.Repr(byDir))
	}
	if got := call(t, ctx, "file.list_backups_dir", []any{filepath.Join(d, "none", "x")}); value.Repr(got) != "{}" {
		t.Errorf("list_backups_dir of a directory without backups: %s", value.Repr(got))
	}
}
