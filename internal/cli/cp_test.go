package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCpPaths checks where brine cp --chunked sends each source, as
// salt-cp's _get_remote_path does, and what it lists (modes, empty
// directories).
func TestCpPaths(t *testing.T) {
	src := t.TempDir()
	for p, mode := range map[string]os.FileMode{"one": 0o640, "dir/a": 0o755, "dir/sub/b": 0o600} {
		full := filepath.Join(src, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(p), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(src, "dir/empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	one, dir := filepath.Join(src, "one"), filepath.Join(src, "dir")
	for _, tc := range []struct {
		src       []string
		dest      string
		destIsDir bool
		want      map[string]string // source below src -> remote path
	}{
		{[]string{one}, "/etc/x.conf", false, map[string]string{"one": "/etc/x.conf"}},
		{[]string{one}, "/etc/", true, map[string]string{"one": "/etc/one"}},
		{[]string{one, dir}, "/srv", true, map[string]string{"one": "/srv/one", "dir/a": "/srv/dir/a", "dir/sub/b": "/srv/dir/sub/b", "dir/empty": "/srv/dir/empty"}},
	} {
		cp := &copier{src: tc.src, dest: tc.dest}
		files, modes, empty, err := cp.listFiles()
		if err != nil {
			t.Fatal(err)
		}
		destIsDir := len(empty) > 0 || len(files) > 1 || strings.HasSuffix(tc.dest, "/")
		if destIsDir != tc.destIsDir {
			t.Errorf("%v -> %s: destIsDir %v", tc.src, tc.dest, destIsDir)
		}
		for rel, want := range tc.want {
			if got := cp.remotePath(filepath.Join(src, rel), destIsDir); got != want {
				t.Errorf("%s -> %s: %s, want %s", rel, tc.dest, got, want)
			}
		}
		for p, m := range modes {
			st, _ := os.Stat(p)
			if os.FileMode(m) != st.Mode().Perm() {
				t.Errorf("%s: mode %o, want %o", p, m, st.Mode().Perm())
			}
		}
	}
	cp := &copier{src: []string{filepath.Join(src, "nope")}}
	if _, _, _, err := cp.listFiles(); err == nil || err.Error() != filepath.Join(src, "nope")+" does not exist" {
		t.Errorf("missing source: %v", err)
	}
}

func TestCpUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if rc := Main([]string{"cp", "-c", t.TempDir(), "web1", "/etc/motd"}, &out, &errb); rc != exitUsage {
		t.Errorf("exit code %d", rc)
	}
	if !strings.Contains(errb.String(), "Insufficient arguments") {
		t.Errorf("stderr %q", errb.String())
	}
}
