package modules

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

func TestArchive(t *testing.T) {
	ctx := testContext()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"src/a.txt": "a\n", "src/sub/b.txt": "b\n"})
	os.Symlink("a.txt", filepath.Join(dir, "src/link"))
	zipFile := filepath.Join(dir, "out.zip")
	unz := filepath.Join(dir, "unz")
	for _, tc := range []struct {
		fun  string
		args []any
		kw   []any
		want string
	}{
		{"archive.zip", []any{zipFile, "src"}, []any{"cwd", dir}, "['src/', 'src/a.txt', 'src/link', 'src/sub/', 'src/sub/b.txt']"},
		{"archive.list", []any{zipFile}, nil, "['src/', 'src/a.txt', 'src/link', 'src/sub/', 'src/sub/b.txt']"},
		{"archive.list", []any{zipFile}, []any{"verbose", true, "strip_components", int64(1)},
			"{'dirs': ['sub/'], 'files': ['a.txt', 'link', 'sub/b.txt'], 'links': [], 'top_level_dirs': ['sub/'], 'top_level_files': ['a.txt', 'link'], 'top_level_links': []}"},
		{"archive.is_encrypted", []any{zipFile}, nil, "False"},
		{"archive.unzip", []any{zipFile, unz}, []any{"excludes", "src/sub/b.txt"}, "['src/', 'src/a.txt', 'src/link', 'src/sub/']"},
		{"archive.unzip", []any{zipFile, unz}, []any{"trim_output", int64(2)}, "['src/', 'src/a.txt', 'List trimmed after 2 files.']"},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, tc.args, tc.kw...)); got != tc.want {
			t.Errorf("%s%v%v = %s, want %s", tc.fun, tc.args, tc.kw, got, tc.want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(unz, "src/sub/b.txt")); err != nil || string(b) != "b\n" {
		t.Errorf("unzipped b.txt: %q %v", b, err)
	}
	if _, err := exec.LookPath("tar"); err == nil {
		tgz := filepath.Join(dir, "out.tar.gz")
		call(t, ctx, "archive.tar", []any{"-czf", tgz, "src"}, "cwd", dir)
		got := value.Repr(call(t, ctx, "archive.list", []any{tgz}, "verbose", true))
		if want := "{'dirs': ['src/', 'src/sub/'], 'files': ['src/a.txt', 'src/sub/b.txt'], 'links': ['src/link'], " +
			"'top_level_dirs': ['src/'], 'top_level_files': [], 'top_level_links': []}"; got != want {
			t.Errorf("list of the tar: %s, want %s", got, want)
		}
		out := filepath.Join(dir, "untar")
		os.MkdirAll(out, 0o755)
		call(t, ctx, "archive.tar", []any{"xzf", tgz}, "dest", out)
		if _, err := os.Stat(filepath.Join(out, "src/sub/b.txt")); err != nil {
			t.Errorf("untarred: %v", err)
		}
		if _, err := ctx.Call("archive.tar", []any{"", tgz}, nil); err == nil || err.Error() != "Tar options can not be empty" {
			t.Errorf("empty options: %v", err)
		}
	}
	if _, err := exec.LookPath("gzip"); err == nil {
		f := filepath.Join(dir, "g.txt")
		os.WriteFile(f, []byte("gz\n"), 0o644)
		call(t, ctx, "archive.gzip", []any{f})
		if _, err := os.Stat(f + ".gz"); err != nil {
			t.Errorf("gzip: %v", err)
		}
		call(t, ctx, "archive.gunzip", []any{f + ".gz"})
		if b, _ := os.ReadFile(f); string(b) != "gz\n" {
			t.Errorf("gunzip: %q", b)
		}
	}
	if _, err := exec.LookPath("zip"); err == nil {
		z := filepath.Join(dir, "cmd.zip")
		lines := value.Repr(call(t, ctx, "archive.cmd_zip", []any{z, "src/a.txt,src/sub"}, "cwd", dir))
		if !strings.Contains(lines, "adding: src/a.txt") {
			t.Errorf("cmd_zip: %s", lines)
		}
		if _, err := exec.LookPath("unzip"); err == nil {
			got := value.Repr(call(t, ctx, "archive.cmd_unzip", []any{z, filepath.Join(dir, "cu")}, "excludes", "src/sub/b.txt"))
			if !strings.Contains(got, "extracting: "+filepath.Join(dir, "cu", "src/a.txt")) || strings.Contains(got, "b.txt") {
				t.Errorf("cmd_unzip: %s", got)
			}
			if _, err := ctx.Call("archive.cmd_unzip", []any{filepath.Join(dir, "none.zip"), dir}, nil); err == nil {
				t.Error("cmd_unzip of a missing file succeeded")
			}
		}
	}
	notZip := filepath.Join(dir, "src/a.txt")
	if _, err := ctx.Call("archive.is_encrypted", []any{notZip}, nil); err == nil || !strings.HasPrefix(err.Error(), notZip+" is not a ZIP file. Additional info follows:") {
		t.Errorf("is_encrypted of a text file: %v", err)
	}
}
