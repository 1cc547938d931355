package integration

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// startMinionIn starts minion id as startMinion does, with its working
// directory in its own config dir, so that a relative destination lands
// in a directory of its own.
func startMinionIn(c *cluster, id string) string {
	c.t.Helper()
	d := c.minionDir(id)
	c.write(filepath.Join("minions", id, "minion"), fmt.Sprintf(`id: %s
master: 127.0.0.1
master_port: %d
pki_dir: %s/pki
cachedir: %s/cache
sock_dir: %[4]s/sock
acceptance_wait_time: 0.3
log_level: info
master_tls_ca: %s/master/pki/tls/ca.crt
`, id, c.port, d, d, c.dir))
	cmd := exec.Command(brineBin, "minion", "-c", d)
	cmd.Dir = d
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	lf := c.logFile("minion-" + id)
	cmd.Stdout, cmd.Stderr = lf, lf
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); lf.Close() }()
	c.minions[id] = cmd
	return d
}

// checkFile checks a file's content and permission bits.
func checkFile(t *testing.T, p string, want []byte, mode os.FileMode) {
	t.Helper()
	got, err := os.ReadFile(p)
	if err != nil {
		t.Errorf("%s: %v", p, err)
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: %d bytes, not the %d sent", p, len(got), len(want))
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != mode {
		t.Errorf("%s: mode %o, want %o", p, st.Mode().Perm(), mode)
	}
}

// TestCpToTwoMinions runs brine cp to two minions: one file in the job
// (cp.recv), then a tree --chunked (cp.recv_chunked) with a file of
// several chunks, modes, a nested and an empty directory, compressed and
// not. Each minion writes below its own working directory (the relative
// destination), where the test checks contents and modes.
func TestCpToTwoMinions(t *testing.T) {
	c := newCluster(t, "salt_cp_chunk_size: 65536\n")
	c.startMaster()
	web1 := startMinionIn(c, "web1")
	web2 := startMinionIn(c, "web2")
	c.acceptAll("web1", "web2")
	src := t.TempDir()
	write := func(rel string, data []byte, mode os.FileMode) {
		p := filepath.Join(src, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	motd := []byte("Welcome to the fleet\n")
	write("motd", motd, 0o600)
	big := make([]byte, 200_000) // four chunks of 64 KiB
	rand.Read(big)
	write("tree/bin/tool", big, 0o750)
	write("tree/etc/app.conf", []byte("port = 8080\n"), 0o640)
	if err := os.MkdirAll(filepath.Join(src, "tree/var/empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{web1, web2} {
		if err := os.MkdirAll(filepath.Join(d, "etc"), 0o755); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("one file in the job", func(t *testing.T) {
		res, _, rc := runJSONCmd(t, "cp", "-c", c.mdir, "--out", "json", "-L", "web1,web2", filepath.Join(src, "motd"), "etc/motd")
		if rc != 0 {
			t.Fatalf("rc %d: %v", rc, res)
		}
		for _, id := range []string{"web1", "web2"} {
			if jsonText(res[id]) != `{"etc/motd":true}` {
				t.Errorf("%s: %v", id, res[id])
			}
		}
		// cp.recv writes the content only (Salt keeps no mode there).
		checkFile(t, filepath.Join(web1, "etc/motd"), motd, 0o644)
		checkFile(t, filepath.Join(web2, "etc/motd"), motd, 0o644)
	})

	t.Run("a directory is refused without --chunked", func(t *testing.T) {
		out, _, rc := c.brine("cp", "-c", c.mdir, "web*", filepath.Join(src, "tree"), "x")
		if rc != 1 || out != filepath.Join(src, "tree")+" is a directory, only files are supported in non-chunked mode. Use \"--chunked\" command line argument.\n" {
			t.Errorf("rc %d, %q", rc, out)
		}
	})

	for _, tc := range []struct {
		name  string
		flags []string
		dest  string
	}{
		{"chunked, compressed", []string{"-C"}, "copy1"},
		{"chunked, not compressed", []string{"--chunked", "-n"}, "copy2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"cp", "-c", c.mdir, "--out", "json"}, tc.flags...)
			args = append(args, "web*", filepath.Join(src, "tree"), filepath.Join(src, "motd"), tc.dest)
			res, _, rc := runJSONCmd(t, args...)
			if rc != 0 {
				t.Fatalf("rc %d: %v", rc, res)
			}
			want := fmt.Sprintf(`{"%[1]s/motd":true,"%[1]s/tree/bin/tool":true,"%[1]s/tree/etc/app.conf":true,"%[1]s/tree/var/empty":true}`, tc.dest)
			for _, id := range []string{"web1", "web2"} {
				if got := jsonText(res[id]); got != want {
					t.Errorf("%s:\n got %s\nwant %s", id, got, want)
				}
			}
			for _, d := range []string{web1, web2} {
				base := filepath.Join(d, tc.dest)
				checkFile(t, filepath.Join(base, "tree/bin/tool"), big, 0o750)
				checkFile(t, filepath.Join(base, "tree/etc/app.conf"), []byte("port = 8080\n"), 0o640)
				checkFile(t, filepath.Join(base, "motd"), motd, 0o600)
				if st, err := os.Stat(filepath.Join(base, "tree/var/empty")); err != nil || !st.IsDir() {
					t.Errorf("empty directory not created: %v", err)
				}
			}
		})
	}

	t.Run("a missing source", func(t *testing.T) {
		_, errs, rc := c.brine("cp", "-c", c.mdir, "-C", "web*", filepath.Join(src, "nope"), "x")
		if rc != 42 || errs != filepath.Join(src, "nope")+" does not exist\n" {
			t.Errorf("rc %d, %q", rc, errs)
		}
	})
}

// runJSONCmd runs brine with args (which ask for --out json) and decodes
// its output.
func runJSONCmd(t *testing.T, args ...string) (map[string]any, string, int) {
	t.Helper()
	out, errs, rc := runBrine(t, args...)
	res := map[string]any{}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("brine %v: bad JSON %q (stderr %q)", args, out, errs)
	}
	return res, errs, rc
}
