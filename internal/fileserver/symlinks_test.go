package fileserver

import (
	"os"
	"path/filepath"
	"testing"

	"brine/internal/value"
)

func TestSymlinkList(t *testing.T) {
	d := t.TempDir()
	root := filepath.Join(d, "root")
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(d, "outside.txt"), []byte("o"), 0o644)
	os.MkdirAll(filepath.Join(d, "elsewhere"), 0o755)
	os.Symlink(filepath.Join(d, "elsewhere"), filepath.Join(root, "ext"))
	os.Symlink(filepath.Join(d, "outside.txt"), filepath.Join(root, "abs.txt"))
	os.Symlink("a.txt", filepath.Join(root, "l.txt"))
	os.Symlink("../a.txt", filepath.Join(root, "sub", "up"))
	os.Symlink("../../outside.txt", filepath.Join(root, "sub", "out"))
	os.Symlink("zzz/../../a.txt", filepath.Join(root, "sub", "twisty"))
	for _, tc := range []struct {
		name           string
		follow, ignore bool
		env, prefix    string
		want           string
	}{
		// Targets out of the root count only when links are not followed;
		// as in Salt, a target starting with ".." is resolved from the
		// link itself, so sub/out stays inside.
		{"follow", true, false, "base", "", `{"l.txt": "a.txt", "sub/out": "../../outside.txt", "sub/twisty": "zzz/../../a.txt", "sub/up": "../a.txt"}`},
		{"nofollow", false, false, "base", "", `{"ext": "` + filepath.Join(d, "elsewhere") + `", "abs.txt": "` + filepath.Join(d, "outside.txt") + `", "l.txt": "a.txt", "sub/out": "../../outside.txt", "sub/twisty": "zzz/../../a.txt", "sub/up": "../a.txt"}`},
		{"prefix", true, false, "base", "/sub/", `{"sub/out": "../../outside.txt", "sub/twisty": "zzz/../../a.txt", "sub/up": "../a.txt"}`},
		{"ignore", true, true, "base", "", `{}`},
		{"no env", true, false, "dev", "", `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := FromDirs(map[string][]string{"base": {root}})
			r.SetSymlinks(tc.follow, tc.ignore)
			if got := value.ToJSON(r.SymlinkList(tc.env, tc.prefix), value.JSONOptions{Indent: -1}); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}
