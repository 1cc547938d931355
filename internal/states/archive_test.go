package states_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

var archiveFiles = []struct{ name, body string }{
	{"app-1.0/", ""},
	{"app-1.0/README", "hello\n"},
	{"app-1.0/bin/run.sh", "#!/bin/sh\n"},
}

func makeTar(t *testing.T, files []struct{ name, body string }) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body)), Typeflag: tar.TypeReg}
		if strings.HasSuffix(f.name, "/") {
			h.Typeflag, h.Mode, h.Size = tar.TypeDir, 0o755, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(f.body))
	}
	tw.Close()
	return buf.Bytes()
}

func compress(t *testing.T, data []byte, tool string) []byte {
	t.Helper()
	if tool == "gzip" {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(data)
		zw.Close()
		return buf.Bytes()
	}
	if _, err := exec.LookPath(tool); err != nil {
		t.Skipf("%s is not installed", tool)
	}
	cmd := exec.Command(tool, "-c")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func makeZip(t *testing.T) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range archiveFiles {
		w, err := zw.Create(f.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(f.body))
	}
	zw.Close()
	return buf.Bytes()
}

func sha(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

func TestArchiveExtracted(t *testing.T) {
	plain := makeTar(t, archiveFiles)
	for _, tc := range []struct {
		ext  string
		data func(t *testing.T) []byte
	}{
		{"tar", func(*testing.T) []byte { return plain }},
		{"tar.gz", func(t *testing.T) []byte { return compress(t, plain, "gzip") }},
		{"tar.bz2", func(t *testing.T) []byte { return compress(t, plain, "bzip2") }},
		{"tar.xz", func(t *testing.T) []byte { return compress(t, plain, "xz") }},
		{"zip", makeZip},
	} {
		t.Run(tc.ext, func(t *testing.T) {
			dir := t.TempDir()
			data := tc.data(t)
			src := filepath.Join(dir, "app."+tc.ext)
			os.WriteFile(src, data, 0o644)
			dest := filepath.Join(dir, "opt")
			ctx := execmod.NewContext()
			ret := sysCase{"archive.extracted", value.MapOf("name", dest, "source", src, "source_hash", "sha256="+sha(data)), true,
				src + " extracted to " + dest + "/, due to absence of one or more files/dirs"}.check(t, ctx)
			top := "app-1.0"
			if tc.ext == "zip" {
				top += "/" // zipfile's namelist keeps the slash of directories
			}
			if got := value.Repr(getMap(ret, "changes")); got != "{'directories_created': ['"+dest+"/'], 'extracted_files': ['"+top+"', 'app-1.0/README', 'app-1.0/bin/run.sh']}" {
				t.Errorf("changes %s", got)
			}
			if b, _ := os.ReadFile(filepath.Join(dest, "app-1.0/README")); string(b) != "hello\n" {
				t.Errorf("README %q", b)
			}
			again := sysRun(t, ctx, "archive.extracted", value.MapOf("name", dest, "source", src), false)
			if str(again, "comment") != "All files in archive are already present" {
				t.Errorf("again: %s", value.Repr(again))
			}
		})
	}
}

func TestArchiveChecks(t *testing.T) {
	dir := t.TempDir()
	bomb := makeTar(t, []struct{ name, body string }{{"a", "1"}, {"b/", ""}})
	src := filepath.Join(dir, "bomb.tar")
	os.WriteFile(src, bomb, 0o644)
	good := compress(t, makeTar(t, archiveFiles), "gzip")
	goodSrc := filepath.Join(dir, "good.tar.gz")
	os.WriteFile(goodSrc, good, 0o644)
	ctx := execmod.NewContext()
	dest := filepath.Join(dir, "dest")

	ret := sysRun(t, ctx, "archive.extracted", value.MapOf("name", dest, "source", src), false)
	if !strings.HasPrefix(str(ret, "comment"), "Archive does not have a single top-level directory.") || str(ret, "result") != "False" {
		t.Errorf("toplevel: %s", value.Repr(ret))
	}
	sysCase{"archive.extracted", value.MapOf("name", dest, "source", src, "enforce_toplevel", false), true, src + " extracted to " + dest + "/"}.check(t, ctx)

	ret = sysRun(t, ctx, "archive.extracted", value.MapOf("name", dest, "source", goodSrc, "source_hash", strings.Repeat("0", 64)), false)
	if str(ret, "comment") != goodSrc+" does not match the desired source_hash "+strings.Repeat("0", 64) || isDir(filepath.Join(dest, "app-1.0")) {
		t.Errorf("bad hash: %s", value.Repr(ret))
	}
	ret = sysRun(t, ctx, "archive.extracted", value.MapOf("name", dest, "source", goodSrc, "if_missing", filepath.Join(dest, "a")), false)
	if str(ret, "comment") != "Path "+filepath.Join(dest, "a")+" exists" || str(ret, "result") != "True" {
		t.Errorf("if_missing: %s", value.Repr(ret))
	}

	// An http source with a remote hash file.
	downloads := 0
	ctx.Opts.Set("cachedir", filepath.Join(dir, "cache"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/good.tar.gz":
			downloads++
			w.Write(good)
		case "/SHA256SUMS":
			w.Write([]byte(sha([]byte("x")) + "  other.tar.gz\n" + sha(good) + "  good.tar.gz\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	web := filepath.Join(dir, "web")
	sysCase{"archive.extracted", value.MapOf("name", web, "source", srv.URL+"/good.tar.gz", "source_hash", srv.URL+"/SHA256SUMS"), true,
		srv.URL + "/good.tar.gz extracted to " + web + "/"}.check(t, ctx)
	if downloads != 1 {
		t.Errorf("the archive was downloaded %d times, want once (then taken from the cache)", downloads)
	}
	ret = sysRun(t, ctx, "archive.extracted", value.MapOf("name", web+"2", "source", srv.URL+"/good.tar.gz"), false)
	if !strings.HasPrefix(str(ret, "comment"), "Unable to verify upstream hash") {
		t.Errorf("no hash: %s", value.Repr(ret))
	}
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
