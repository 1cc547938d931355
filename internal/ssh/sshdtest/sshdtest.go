// Package sshdtest starts throwaway OpenSSH servers on loopback for brine
// ssh's tests: each with its own host key, config, authorized_keys and
// directory, run as root (StrictModes and PAM off) in the foreground.
package sshdtest

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// SSHD is the server binary the tests need (Debian's openssh-server).
const SSHD = "/usr/sbin/sshd"

// Skip skips t when the servers cannot be started here.
func Skip(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(SSHD); err != nil {
		t.Skip("needs " + SSHD + " (apt-get install openssh-server)")
	}
	if os.Geteuid() != 0 {
		t.Skip("sshd must run as root to log users in")
	}
}

// Key is a client key pair written to disk.
type Key struct {
	Priv       string // the private key file
	Authorized string // its authorized_keys line
}

// NewKey writes an ed25519 key pair into dir.
func NewKey(t testing.TB, dir, name string) Key {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	spub, _ := ssh.NewPublicKey(pub)
	line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(spub)))
	if err := os.WriteFile(path+".pub", []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return Key{Priv: path, Authorized: line}
}

// Server is one running sshd.
type Server struct {
	Port    int
	Dir     string
	HostKey ssh.PublicKey
	// AuthorizedKeys is the file every user's keys are read from.
	AuthorizedKeys string
	cmd            *exec.Cmd
	done           chan struct{}
}

// Options configure a server.
type Options struct {
	// Authorized are the authorized_keys lines.
	Authorized []string
	// Password turns password authentication on.
	Password bool
	// KeysFile, when set, replaces the shared authorized_keys file
	// (%h/.ssh/authorized_keys: each user's own).
	KeysFile string
	// Extra is appended to sshd_config (SetEnv PATH=... to fake a
	// machine, for instance).
	Extra string
}

// Start starts a server in a directory of its own under dir, stopped when
// the test ends.
func Start(t testing.TB, dir string, o Options) *Server {
	t.Helper()
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := os.MkdirTemp(dir, "sshd-")
	if err != nil {
		t.Fatal(err)
	}
	// Users other than root read authorized_keys from here.
	_ = os.Chmod(d, 0o755)
	_, hpriv, _ := ed25519.GenerateKey(rand.Reader)
	block, _ := ssh.MarshalPrivateKey(hpriv, "")
	hk := filepath.Join(d, "host_ed25519")
	if err := os.WriteFile(hk, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	signer, _ := ssh.NewSignerFromKey(hpriv)
	ak := filepath.Join(d, "authorized_keys")
	if err := os.WriteFile(ak, []byte(strings.Join(o.Authorized, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	keysFile := ak
	if o.KeysFile != "" {
		keysFile = o.KeysFile
	}
	pw := "no"
	if o.Password {
		pw = "yes"
	}
	s := &Server{Dir: d, HostKey: signer.PublicKey(), AuthorizedKeys: ak, done: make(chan struct{})}
	for attempt := 0; attempt < 5; attempt++ {
		s.Port = freePort(t)
		cfg := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile %s/sshd.pid
AuthorizedKeysFile %s
StrictModes no
UsePAM no
PermitRootLogin yes
PasswordAuthentication %s
KbdInteractiveAuthentication no
MaxStartups 100
MaxSessions 50
LogLevel ERROR
%s
`, s.Port, hk, d, keysFile, pw, o.Extra)
		cf := filepath.Join(d, "sshd_config")
		if err := os.WriteFile(cf, []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		log, _ := os.Create(filepath.Join(d, "sshd.log"))
		cmd := exec.Command(SSHD, "-D", "-e", "-f", cf)
		cmd.Stdout, cmd.Stderr = log, log
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		s.cmd = cmd
		s.done = make(chan struct{})
		go func(done chan struct{}) { _ = cmd.Wait(); log.Close(); close(done) }(s.done)
		if s.ready() {
			t.Cleanup(s.Kill)
			return s
		}
		s.Kill()
	}
	data, _ := os.ReadFile(filepath.Join(d, "sshd.log"))
	t.Fatalf("sshd did not start: %s", data)
	return nil
}

// ready waits for the server's banner.
func (s *Server) ready() bool {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return false
		default:
		}
		c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
		if err == nil {
			buf := make([]byte, 4)
			_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
			n, _ := c.Read(buf)
			c.Close()
			if n == 4 && string(buf) == "SSH-" {
				return true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// Addr is host:port.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)) }

// KnownHostsLine is the server's known_hosts line.
func (s *Server) KnownHostsLine() string {
	return fmt.Sprintf("[127.0.0.1]:%d %s", s.Port, strings.TrimSpace(string(ssh.MarshalAuthorizedKey(s.HostKey))))
}

// Kill stops the server and every session it forked (dropping their
// connections), and waits for the listener to exit.
func (s *Server) Kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	pids := descendants(s.cmd.Process.Pid)
	_ = s.cmd.Process.Kill()
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	<-s.done
}

// descendants lists the processes below pid.
func descendants(pid int) []int {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		children[pp] = append(children[pp], p)
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for _, c := range children[p] {
			out = append(out, c)
			walk(c)
		}
	}
	walk(pid)
	return out
}

// KillSessions kills the processes the server forked for connections,
// leaving the listener: connections drop mid-run.
func (s *Server) KillSessions() {
	for _, p := range descendants(s.cmd.Process.Pid) {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
