package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"brine/internal/fleet/proto"
)

// TestCpPush pushes files from a minion to a real master: refused (False,
// nothing written) without file_recv, stored under the master's
// cachedir/minions/<id>/files with it, within file_recv_max_size.
func TestCpPush(t *testing.T) {
	src := t.TempDir()
	small := filepath.Join(src, "logs", "app.log")
	if err := os.MkdirAll(filepath.Dir(small), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(small, []byte(strings.Repeat("log line\n", 100_000)), 0o644); err != nil { // 900 kB: several pieces
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "logs", "other.txt"), []byte("other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(src, "big.bin")
	if err := os.WriteFile(big, make([]byte, 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("without file_recv", func(t *testing.T) {
		c := newCluster(t, "")
		c.startMaster()
		c.startMinion("web1", "", true)
		c.acceptAll("web1")
		res, _ := c.run("web1", "cp.push", small)
		if res["web1"] != false {
			t.Errorf("cp.push: %v", res)
		}
		if _, err := os.Stat(filepath.Join(c.mdir, "cache", "minions")); err == nil {
			t.Error("the master wrote pushed files with file_recv off")
		}
	})

	t.Run("with file_recv", func(t *testing.T) {
		c := newCluster(t, "file_recv: True\nfile_recv_max_size: 1\n")
		c.startMaster()
		c.startMinion("web1", "", true)
		c.acceptAll("web1")
		files := filepath.Join(c.mdir, "cache", "minions", "web1", "files")
		for _, tc := range []struct {
			args []string
			want any
			path string // where the file lands, below files
			from string
		}{
			{[]string{"cp.push", small}, true, strings.TrimPrefix(small, "/"), small},
			{[]string{"cp.push", small, "upload_path=/renamed/app.log"}, true, "renamed/app.log", small},
			{[]string{"cp.push", big}, false, "", ""}, // 2 MiB > file_recv_max_size
			{[]string{"cp.push", "relative/path"}, false, "", ""},
			{[]string{"cp.push", small, "upload_path=../../escape"}, false, "", ""},
			{[]string{"cp.push_dir", filepath.Join(src, "logs"), "glob=*.txt", "upload_path=/bydir"}, true, "bydir/other.txt", filepath.Join(src, "logs", "other.txt")},
		} {
			res, _ := c.run(append([]string{"web1"}, tc.args...)...)
			if res["web1"] != tc.want {
				t.Errorf("%v: %v, want %v", tc.args, res["web1"], tc.want)
			}
			if tc.path == "" {
				continue
			}
			want, _ := os.ReadFile(tc.from)
			got, err := os.ReadFile(filepath.Join(files, tc.path))
			if err != nil || string(got) != string(want) {
				t.Errorf("%v: stored %d bytes (%v), want %d", tc.args, len(got), err, len(want))
			}
		}
		if _, err := os.Stat(filepath.Join(files, strings.TrimPrefix(big, "/"))); err == nil {
			t.Error("a file over file_recv_max_size was stored")
		}
	})
}

// TestMaliciousPush has a client holding web1's key (a real NATS
// connection, no brine minion code) push pieces whose paths try to leave
// web1's directory on the master: "..", absolute paths, separators
// inside an element, NUL, another minion's directory, a symlink planted
// in web1's directory, and web2's request subject. None may write
// outside cachedir/minions/web1/files; a plain push still works.
func TestMaliciousPush(t *testing.T) {
	c := newCluster(t, "file_recv: True\n")
	c.startMaster()
	c.startMinion("web1", "", true)
	c.startMinion("web2", "", true)
	c.acceptAll("web1", "web2")
	cache := filepath.Join(c.mdir, "cache")
	mine := filepath.Join(cache, "minions", "web1", "files")
	outside := t.TempDir()
	if err := os.MkdirAll(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(mine, "link")); err != nil {
		t.Fatal(err)
	}
	atk := dialAs(t, c, "web1")
	push := func(subjectID string, path []string) (string, error) {
		_, data, err := proto.NewRequest(proto.PushRequest{Path: path, Size: 6, Loc: 0, Data: []byte("pwned\n")})
		if err != nil {
			t.Fatal(err)
		}
		msg, err := atk.Request(proto.ReqSubject(subjectID, proto.ReqPush), data, 3*time.Second)
		if err != nil {
			return "", err
		}
		var rep proto.Reply
		if _, err := proto.Open(msg.Data, "", &rep); err != nil {
			t.Fatalf("reply: %v", err)
		}
		return rep.Error, nil
	}
	for _, path := range [][]string{
		{".."},
		{"..", "..", "..", "master"},
		{"..", "web2", "files", "x"},
		{"a", "..", "..", "x"},
		{"/etc", "passwd"},
		{"", "etc", "passwd"},
		{"a/../../x"},
		{"x\x00y"},
		{"."},
		{},
		{"link", "escaped"},
	} {
		errText, err := push("web1", path)
		if err != nil {
			t.Errorf("%q: no answer: %v", path, err)
			continue
		}
		if errText == "" {
			t.Errorf("%q: accepted", path)
		}
	}
	// web2's subject is closed to web1's key: the server drops the request.
	if _, err := push("web2", []string{"x"}); err == nil || !(err == nats.ErrTimeout || err == nats.ErrNoResponders || strings.Contains(err.Error(), "ermission")) {
		t.Errorf("a push on web2's subject: %v", err)
	}
	if errText, err := push("web1", []string{"ok", "file.txt"}); err != nil || errText != "" {
		t.Fatalf("a plain push: %v %q", err, errText)
	}
	if got, _ := os.ReadFile(filepath.Join(mine, "ok", "file.txt")); string(got) != "pwned\n" {
		t.Errorf("the plain push stored %q", got)
	}
	// Nothing landed anywhere else under the master's cachedir, nor
	// through the link.
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("written through the symlink: %v", ents)
	}
	_ = filepath.Walk(c.dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		data, _ := os.ReadFile(p)
		if string(data) == "pwned\n" && p != filepath.Join(mine, "ok", "file.txt") {
			t.Errorf("a pushed piece landed at %s", p)
		}
		return nil
	})
	if _, err := os.Stat(filepath.Join(cache, "minions", "web2")); err == nil {
		t.Error("web2's directory was created by web1's pushes")
	}
}
