package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"brine/internal/cli"
	"brine/internal/ssh/sshdtest"
)

// brineSSH runs `brine ssh -c DIR ARGS...` in process.
func brineSSH(t *testing.T, s *sshdtest.Site, args ...string) (stdout, stderr string, rc int) {
	t.Helper()
	var out, errb bytes.Buffer
	rc = cli.Main(append([]string{"ssh", "-c", s.ConfigDir}, args...), &out, &errb)
	return out.String(), errb.String(), rc
}

// jsonReturns runs brine ssh with --static --out json and decodes the
// returns by target id.
func jsonReturns(t *testing.T, s *sshdtest.Site, args ...string) (map[string]any, int) {
	t.Helper()
	out, errOut, rc := brineSSH(t, s, append([]string{"--static", "--out", "json"}, args...)...)
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("brine ssh %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, out, errOut)
	}
	return m, rc
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// states returns the state results of a target's state.apply return.
func states(t *testing.T, ret any) map[string]map[string]any {
	t.Helper()
	m, ok := ret.(map[string]any)
	if !ok {
		t.Fatalf("state return is %T: %v", ret, ret)
	}
	out := map[string]map[string]any{}
	for k, v := range m {
		out[k] = v.(map[string]any)
	}
	return out
}

func binaryStat(t *testing.T, thin string) os.FileInfo {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(thin, "brine-*"))
	if len(m) != 1 {
		t.Fatalf("thin dir %s holds %v, want one brine binary", thin, m)
	}
	st, err := os.Stat(m[0])
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestSSHRuns(t *testing.T) {
	s := sshdtest.NewSite(t, "web1", "web2", "web3")
	ids := []string{"web1", "web2", "web3"}

	// Cold: no binary on the targets yet.
	rets, rc := jsonReturns(t, s, "*", "state.apply")
	if rc != 0 {
		t.Fatalf("cold state.apply: rc %d: %v", rc, rets)
	}
	bins := map[string]os.FileInfo{}
	for _, id := range ids {
		for sid, st := range states(t, rets[id]) {
			if st["result"] != true || len(st["changes"].(map[string]any)) == 0 {
				t.Errorf("%s: cold %s: %v", id, sid, st)
			}
		}
		h := s.Hosts[id]
		if got, want := readFile(t, filepath.Join(h.Root, "hello.txt")), "hello "+id+"\n"; got != want {
			t.Errorf("%s: hello.txt = %q, want %q", id, got, want)
		}
		if got, want := readFile(t, filepath.Join(h.Root, "motd")), fmt.Sprintf("Welcome to %s (hello %s)\n", id, id); got != want {
			t.Errorf("%s: motd = %q, want %q", id, got, want)
		}
		bins[id] = binaryStat(t, h.Thin)
	}

	// Warm: nothing to change, the binary is not sent again.
	rets, rc = jsonReturns(t, s, "*", "state.apply")
	if rc != 0 {
		t.Fatalf("warm state.apply: rc %d: %v", rc, rets)
	}
	for _, id := range ids {
		for sid, st := range states(t, rets[id]) {
			if st["result"] != true || len(st["changes"].(map[string]any)) != 0 {
				t.Errorf("%s: warm %s: %v", id, sid, st)
			}
		}
		if st := binaryStat(t, s.Hosts[id].Thin); !os.SameFile(st, bins[id]) || !st.ModTime().Equal(bins[id].ModTime()) {
			t.Errorf("%s: the binary was sent again", id)
		}
	}

	// test=True after a host lost a file: that host says what would change.
	gone := filepath.Join(s.Hosts["web2"].Root, "hello.txt")
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	rets, rc = jsonReturns(t, s, "-L", "web1,web2", "state.apply", "test=True")
	if rc != 0 || len(rets) != 2 {
		t.Fatalf("test=True: rc %d: %v", rc, rets)
	}
	for sid, st := range states(t, rets["web2"]) {
		if strings.Contains(sid, "hello.txt") && st["result"] != nil {
			t.Errorf("web2 test=True %s: result %v, want None", sid, st["result"])
		}
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("test=True created %s", gone)
	}

	tests := []struct {
		name   string
		args   []string
		rc     int
		expect map[string]any // per target, compared as JSON
	}{
		{"pillar per target", []string{"*", "pillar.items"}, 0, map[string]any{
			"web1": map[string]any{"greeting": "hello web1", "root": s.Hosts["web1"].Root},
			"web2": map[string]any{"greeting": "hello web2", "root": s.Hosts["web2"].Root},
			"web3": map[string]any{"greeting": "hello web3", "root": s.Hosts["web3"].Root},
		}},
		{"cmd.run", []string{"-E", "web[13]", "cmd.run", "echo $((6*7)) from $(hostname -s >/dev/null && echo target)"}, 0, map[string]any{
			"web1": "42 from target", "web3": "42 from target",
		}},
		{"grain from the grains", []string{"-L", "web2", "grains.get", "id"}, 0, map[string]any{"web2": "web2"}},
		{"grain target on cached grains", []string{"-G", "id:web3", "test.ping"}, 0, map[string]any{"web3": true}},
		{"raw shell", []string{"-r", "web1", "echo raw; echo err >&2; exit 3"}, 20, map[string]any{
			"web1": map[string]any{"retcode": 3.0, "stdout": "raw\n", "stderr": "err\n"},
		}},
		{"failing function", []string{"web1", "cmd.retcode", "exit 4"}, 20, map[string]any{"web1": 4.0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rets, rc := jsonReturns(t, s, tc.args...)
			if rc != tc.rc {
				t.Errorf("rc = %d, want %d", rc, tc.rc)
			}
			got, _ := json.Marshal(rets)
			want, _ := json.Marshal(tc.expect)
			if string(got) != string(want) {
				t.Errorf("returns:\n got %s\nwant %s", got, want)
			}
		})
	}

	// The highstate outputter keyed by target id, as salt-ssh prints.
	out, _, rc := brineSSH(t, s, "--no-color", "-L", "web3", "state.apply")
	if rc != 0 || !strings.HasPrefix(out, "web3:\n----------\n") || !strings.Contains(out, "Summary for web3") {
		t.Errorf("highstate output (rc %d):\n%s", rc, out)
	}
	// -H lists the roster.
	out, _, _ = brineSSH(t, s, "-H")
	if !strings.Contains(out, "web2:\n        127.0.0.1") {
		t.Errorf("-H:\n%s", out)
	}
	// -w removes the thin dir after the run; -W runs in a random one
	// under /var/tmp, removed after.
	if rets, rc := jsonReturns(t, s, "-w", "-L", "web1", "test.ping"); rc != 0 || rets["web1"] != true {
		t.Errorf("-w: rc %d: %v", rc, rets)
	}
	if _, err := os.Stat(s.Hosts["web1"].Thin); !os.IsNotExist(err) {
		t.Errorf("-w left %s", s.Hosts["web1"].Thin)
	}
	// (Only thin dirs holding brine count: other programs use /var/tmp.)
	before, _ := filepath.Glob("/var/tmp/.*/brine-*")
	s.Entries["rand"] = fmt.Sprintf("  host: 127.0.0.1\n  port: %d\n", s.Hosts["web2"].Server.Port)
	s.WriteRoster(t)
	if rets, rc := jsonReturns(t, s, "-W", "rand", "grains.get", "id"); rc != 0 || rets["rand"] != "rand" {
		t.Errorf("-W: rc %d: %v", rc, rets)
	}
	if after, _ := filepath.Glob("/var/tmp/.*/brine-*"); strings.Join(after, " ") != strings.Join(before, " ") {
		t.Errorf("-W left a thin dir: %v, before %v", after, before)
	}
	delete(s.Entries, "rand")
	s.WriteRoster(t)

	// A target matching nothing runs nothing.
	_, errOut, rc := brineSSH(t, s, "nothere*", "test.ping")
	if rc != 0 || !strings.Contains(errOut, "No matching targets found in roster.") {
		t.Errorf("no target: rc %d, stderr %q", rc, errOut)
	}
}

// TestSSHFailures runs a good host beside each kind of bad one: the bad
// one is reported in salt-ssh's shape, the good one returns.
func TestSSHFailures(t *testing.T) {
	s := sshdtest.NewSite(t, "good")
	known := []string{s.Hosts["good"].Server.KnownHostsLine()}

	// A password the server refuses (and a key it does not know).
	pw := s.AddHost(t, "badpass", sshdtest.Options{Password: true})
	known = append(known, pw.Server.KnownHostsLine())
	s.Entries["badpass"] += "  passwd: not-the-password\n  priv: " + filepath.Join(s.Dir, "no-such-key") + "\n"
	// A host whose key is not in known_hosts.
	s.AddHost(t, "newkey", sshdtest.Options{Authorized: []string{s.Key.Authorized}})
	// Nothing listens.
	s.Entries["down"] = fmt.Sprintf("  host: 127.0.0.1\n  port: %d\n", closedPort(t))
	// A machine brine has no binary for (uname -m faked by the PATH).
	fake := filepath.Join(s.Dir, "fakebin")
	_ = os.MkdirAll(fake, 0o755)
	_ = os.WriteFile(filepath.Join(fake, "uname"), []byte("#!/bin/sh\necho riscv64\n"), 0o755)
	arch := s.AddHost(t, "riscv", sshdtest.Options{Authorized: []string{s.Key.Authorized}, Extra: "SetEnv PATH=" + fake + ":/usr/bin:/bin"})
	known = append(known, arch.Server.KnownHostsLine())
	// A user without sudo rights.
	user := throwawayUser(t)
	if user != "" {
		nosudo := s.AddHost(t, "nosudo", sshdtest.Options{Authorized: []string{s.Key.Authorized}})
		known = append(known, nosudo.Server.KnownHostsLine())
		thin := filepath.Join(s.Dir, "roots", "nosudo-thin")
		s.Entries["nosudo"] = fmt.Sprintf("  host: 127.0.0.1\n  port: %d\n  user: %s\n  sudo: True\n  thin_dir: %s\n", nosudo.Server.Port, user, thin)
	}
	s.WriteKnownHosts(t, known...)
	s.WriteRoster(t)

	rets, rc := jsonReturns(t, s, "*", "test.ping")
	if rc != 20 {
		t.Errorf("rc = %d, want 20", rc)
	}
	if rets["good"] != true {
		t.Errorf("good: %v", rets["good"])
	}
	tests := []struct {
		id, field, want string
		retcode         float64
	}{
		{"badpass", "stderr", "Password authentication failed", 254},
		{"newkey", "stdout", "The host key needs to be accepted, to auto accept run brine ssh with the -i flag:\nThe authenticity of host '[127.0.0.1]:", 254},
		{"down", "", fmt.Sprintf("ssh: connect to host 127.0.0.1 port %s: Connection refused", strings.Fields(s.Entries["down"])[3]), 0},
		{"riscv", "stderr", "no brine binary for the target's architecture riscv64", 1},
		{"nosudo", "stderr", "sudo", 0},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			if tc.id == "nosudo" && user == "" {
				t.Skip("cannot create a throwaway user (useradd) here")
			}
			got := rets[tc.id]
			if tc.field == "" {
				if s, _ := got.(string); !strings.HasPrefix(s, tc.want) {
					t.Errorf("got %v, want %q", got, tc.want)
				}
				return
			}
			m, ok := got.(map[string]any)
			if !ok {
				t.Fatalf("got %T %v, want salt-ssh's {stdout, stderr, retcode}", got, got)
			}
			if s, _ := m[tc.field].(string); !strings.Contains(s, tc.want) {
				t.Errorf("%s = %q, want it to hold %q", tc.field, s, tc.want)
			}
			if tc.retcode != 0 && m["retcode"] != tc.retcode {
				t.Errorf("retcode = %v, want %v", m["retcode"], tc.retcode)
			}
			if tc.retcode == 0 && m["retcode"] == 0.0 {
				t.Errorf("retcode 0 for a failure: %v", m)
			}
		})
	}

	// -i accepts and records the new host key.
	rets, _ = jsonReturns(t, s, "-i", "newkey", "test.ping")
	if rets["newkey"] != true {
		t.Errorf("-i newkey: %v", rets["newkey"])
	}
	if kh := readFile(t, filepath.Join(s.Dir, "known_hosts")); !strings.Contains(kh, s.Hosts["newkey"].Server.KnownHostsLine()) {
		t.Errorf("-i did not record the host key:\n%s", kh)
	}
}

// TestSSHDroppedConnection kills a target's sshd while its state run is
// under way: that target fails, the other returns.
func TestSSHDroppedConnection(t *testing.T) {
	s := sshdtest.NewSite(t, "good", "slow")
	done := make(chan map[string]any)
	go func() {
		var out, errb bytes.Buffer
		cli.Main([]string{"ssh", "-c", s.ConfigDir, "--static", "--out", "json", "*", "state.apply"}, &out, &errb)
		var m map[string]any
		_ = json.Unmarshal(out.Bytes(), &m)
		done <- m
	}()
	started := filepath.Join(s.Hosts["slow"].Root, "started")
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the slow state never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Hosts["slow"].Server.Kill()
	rets := <-done
	if st := states(t, rets["good"]); len(st) != 2 {
		t.Errorf("good: %v", rets["good"])
	}
	if msg, _ := rets["slow"].(string); !strings.HasPrefix(msg, "ssh: connection to 127.0.0.1 port ") || !strings.Contains(msg, "lost") {
		t.Errorf("slow: %v", rets["slow"])
	}
}

// TestSSHRosterErrors: a roster that does not load stops the run with
// its file and line.
func TestSSHRosterErrors(t *testing.T) {
	s := sshdtest.NewSite(t)
	tests := []struct{ name, roster, want string }{
		{"yaml syntax", "web1:\n  host: 127.0.0.1\n port: 22\n", "roster:3:"},
		{"not a mapping", "- web1\n- web2\n", "the roster must be a mapping of target ids, not list"},
		{"bad port", "web1:\n  host: 127.0.0.1\n  port: many\n", "roster entry web1: invalid port many"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(s.ConfigDir, "roster")
			if err := os.WriteFile(path, []byte(tc.roster), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, rc := brineSSH(t, s, "*", "test.ping")
			if rc != 1 || out != "" || !strings.Contains(errOut, tc.want) {
				t.Errorf("rc %d, stdout %q, stderr %q; want rc 1 and %q", rc, out, errOut, tc.want)
			}
			if tc.name == "yaml syntax" && !strings.HasPrefix(errOut, path+":3:") {
				t.Errorf("stderr %q does not start with %s:3:", errOut, path)
			}
		})
	}
	_, errOut, rc := brineSSH(t, s, "--roster-file", filepath.Join(s.Dir, "missing"), "*", "test.ping")
	if rc != 1 || !strings.Contains(errOut, `Roster file "`+filepath.Join(s.Dir, "missing")+`" not found`) {
		t.Errorf("missing roster: rc %d, %q", rc, errOut)
	}
}

// TestSSHKeyDeploy logs in with a password once and installs the key
// (--key-deploy); the key alone logs in afterwards.
func TestSSHKeyDeploy(t *testing.T) {
	s := sshdtest.NewSite(t)
	home := filepath.Join(s.Dir, "home")
	user := throwawayUser(t, "-m", "-d", home, "-p", cryptPassword(t, "s3cret"))
	if user == "" {
		t.Skip("cannot create a throwaway user (useradd) here")
	}
	h := s.AddHost(t, "deploy", sshdtest.Options{Password: true, KeysFile: "%h/.ssh/authorized_keys"})
	s.WriteKnownHosts(t, h.Server.KnownHostsLine())
	entry := fmt.Sprintf("  host: 127.0.0.1\n  port: %d\n  user: %s\n  thin_dir: %s/thin\n", h.Server.Port, user, home)
	s.Entries["deploy"] = entry + "  passwd: s3cret\n"
	s.WriteRoster(t)
	rets, rc := jsonReturns(t, s, "--key-deploy", "deploy", "cmd.run", "id -un")
	if rc != 0 || rets["deploy"] != user {
		t.Fatalf("--key-deploy: rc %d: %v", rc, rets)
	}
	if keys := readFile(t, filepath.Join(home, ".ssh", "authorized_keys")); !strings.Contains(keys, s.Key.Authorized) {
		t.Errorf("authorized_keys:\n%s", keys)
	}
	s.Entries["deploy"] = entry // no password now
	s.WriteRoster(t)
	if rets, rc := jsonReturns(t, s, "deploy", "test.ping"); rc != 0 || rets["deploy"] != true {
		t.Errorf("key login after the deploy: rc %d: %v", rc, rets)
	}
}

func cryptPassword(t *testing.T, pw string) string {
	t.Helper()
	out, err := exec.Command("openssl", "passwd", "-6", pw).Output()
	if err != nil {
		t.Skipf("openssl passwd: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func closedPort(t *testing.T) int {
	t.Helper()
	srv := sshdtest.Start(t, t.TempDir(), sshdtest.Options{})
	port := srv.Port
	srv.Kill()
	return port
}

// throwawayUser creates a system user for the test (by default without
// a home and with password "*": no password login, but not locked, so
// sshd takes its key; opts replace those useradd options) and deletes it
// after;
// "" when that cannot be done here.
func throwawayUser(t *testing.T, opts ...string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		return ""
	}
	if _, err := exec.LookPath("useradd"); err != nil {
		return ""
	}
	name := fmt.Sprintf("brssh%d%s", os.Getpid()%100000, strings.ToLower(t.Name()[len(t.Name())-3:]))
	if len(opts) == 0 {
		opts = []string{"-M", "-p", "*", "-d", "/nonexistent"}
	}
	args := append(append([]string{"-r", "-s", "/bin/sh"}, opts...), name)
	if out, err := exec.Command("useradd", args...).CombinedOutput(); err != nil {
		t.Logf("useradd: %v: %s", err, out)
		return ""
	}
	t.Cleanup(func() {
		// The user's sessions were killed with their sshd; they may take a
		// moment to be reaped.
		var out []byte
		var err error
		for i := 0; i < 50; i++ {
			if out, err = exec.Command("userdel", name).CombinedOutput(); err == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("userdel %s: %v: %s", name, err, out)
	})
	return name
}
