// Package transport is brine ssh's connection to one target: an SSH
// client (golang.org/x/crypto/ssh) authenticating with a key file, the
// agent or a password, checking host keys against known_hosts as OpenSSH
// does, and running commands with stdin on one multiplexed connection.
// Failures carry salt-ssh's texts and return codes (salt/client/ssh/shell.py).
package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Config says how to reach and log in to a target.
type Config struct {
	Host string
	Port int
	User string
	// Passwd is tried after the key; PrivPasswd unlocks an encrypted key.
	Passwd, PrivPasswd string
	// Priv is the private key file; "agent-forwarding" or "" uses only
	// the SSH agent (SSH_AUTH_SOCK).
	Priv    string
	Timeout time.Duration // to connect and log in
	// KnownHosts is the known_hosts file checked; IgnoreHostKeys accepts
	// unknown keys and records them there (StrictHostKeyChecking=no),
	// NoHostKeys accepts any key and records nothing.
	KnownHosts                 string
	IgnoreHostKeys, NoHostKeys bool
	// KeepaliveInterval, when set, probes the server that often and drops
	// the connection after KeepaliveCountMax unanswered probes.
	KeepaliveInterval time.Duration
	KeepaliveCountMax int
	// NoKey skips key authentication (for --key-deploy's password login);
	// IdentitiesOnly leaves the agent's keys out.
	NoKey, IdentitiesOnly bool
}

// Error is a failure to reach, authenticate to or run on a target, in
// salt-ssh's terms: what it would print on stdout and stderr and its
// return code (255 for ssh's own failures, 254 for a login salt-ssh
// gives up on).
type Error struct {
	Stdout, Stderr string
	Retcode        int
	// Auth is set for authentication failures (--key-deploy retries
	// those with the password).
	Auth bool
}

func (e *Error) Error() string {
	if e.Stderr != "" {
		return e.Stderr
	}
	return e.Stdout
}

// Client is one connection to a target.
type Client struct {
	c    *ssh.Client
	cfg  Config
	dead chan struct{}
	// RoundTrips counts the commands run (each is a channel open, an exec
	// request and the exchange: one wait on the network apiece).
	RoundTrips atomic.Int64
	BytesIn    atomic.Int64 // stdout and stderr received
	BytesOut   atomic.Int64 // stdin sent
	closeOnce  sync.Once
}

// Dial connects and logs in.
func Dial(ctx context.Context, cfg Config) (*Client, error) {
	addr := net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port))
	if cfg.Timeout <= 0 {
		cfg.Timeout = 65 * time.Second
	}
	var hostKeyErr error
	hk := hostKeyCallback(cfg, &hostKeyErr)
	auths, cleanup, err := authMethods(cfg)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	d := net.Dialer{Timeout: cfg.Timeout}
	dctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	nc, err := d.DialContext(dctx, "tcp", addr)
	if err != nil {
		return nil, connectError(cfg, err)
	}
	_ = nc.SetDeadline(time.Now().Add(cfg.Timeout))
	sc, chans, reqs, err := ssh.NewClientConn(nc, addr, &ssh.ClientConfig{
		User: cfg.User, Auth: auths, HostKeyCallback: hk, Timeout: cfg.Timeout,
	})
	if err != nil {
		nc.Close()
		if hostKeyErr != nil {
			return nil, hostKeyErr
		}
		if strings.Contains(err.Error(), "unable to authenticate") {
			if cfg.Passwd != "" {
				return nil, &Error{Stderr: "Password authentication failed", Retcode: 254, Auth: true}
			}
			return nil, &Error{Stderr: fmt.Sprintf("%s@%s: Permission denied (%s).", cfg.User, cfg.Host, methodsIn(err)), Retcode: 255, Auth: true}
		}
		return nil, connectError(cfg, err)
	}
	_ = nc.SetDeadline(time.Time{})
	c := &Client{c: ssh.NewClient(sc, chans, reqs), cfg: cfg, dead: make(chan struct{})}
	go func() { _ = c.c.Wait(); c.closeOnce.Do(func() { close(c.dead) }) }()
	if cfg.KeepaliveInterval > 0 {
		go c.keepalive()
	}
	return c, nil
}

// methodsIn names the methods the server offered, as ssh lists them.
func methodsIn(err error) string {
	s := err.Error()
	i := strings.Index(s, "attempted methods [")
	if i < 0 {
		return "publickey"
	}
	rest := s[i+len("attempted methods ["):]
	j := strings.Index(rest, "]")
	var out []string
	for _, m := range strings.Fields(rest[:j]) {
		if m != "none" {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return "publickey"
	}
	return strings.Join(out, ",")
}

// connectError words a failure to connect as ssh does.
func connectError(cfg Config, err error) error {
	why := err.Error()
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &dnsErr):
		return &Error{Stderr: fmt.Sprintf("ssh: Could not resolve hostname %s: Name or service not known", cfg.Host), Retcode: 255}
	case errors.Is(err, syscall.ECONNREFUSED):
		why = "Connection refused"
	case errors.Is(err, syscall.EHOSTUNREACH):
		why = "No route to host"
	case errors.Is(err, syscall.ENETUNREACH):
		why = "Network is unreachable"
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded):
		why = "Connection timed out"
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		return &Error{Stderr: fmt.Sprintf("ssh: Connection closed by %s port %d", cfg.Host, cfg.Port), Retcode: 255}
	}
	return &Error{Stderr: fmt.Sprintf("ssh: connect to host %s port %d: %s", cfg.Host, cfg.Port, why), Retcode: 255}
}

func authMethods(cfg Config) ([]ssh.AuthMethod, func(), error) {
	var methods []ssh.AuthMethod
	cleanup := func() {}
	if !cfg.NoKey {
		if cfg.Priv != "" && cfg.Priv != "agent-forwarding" {
			pem, err := os.ReadFile(cfg.Priv)
			if err == nil {
				signer, err := ssh.ParsePrivateKey(pem)
				var missing *ssh.PassphraseMissingError
				if errors.As(err, &missing) {
					if cfg.PrivPasswd == "" {
						return nil, cleanup, &Error{Stderr: "Private key file need passphrase", Retcode: 254}
					}
					signer, err = ssh.ParsePrivateKeyWithPassphrase(pem, []byte(cfg.PrivPasswd))
				}
				if err != nil {
					return nil, cleanup, &Error{Stderr: fmt.Sprintf("Load key %q: %v", cfg.Priv, err), Retcode: 255}
				}
				methods = append(methods, ssh.PublicKeys(signer))
			}
		}
		if sock := os.Getenv("SSH_AUTH_SOCK"); sock != "" && !cfg.IdentitiesOnly {
			if conn, err := net.Dial("unix", sock); err == nil {
				cleanup = func() { conn.Close() }
				methods = append(methods, ssh.PublicKeysCallback(agent.NewClient(conn).Signers))
			}
		}
	}
	if cfg.Passwd != "" {
		pw := cfg.Passwd
		methods = append(methods, ssh.Password(pw), ssh.KeyboardInteractive(func(_, _ string, qs []string, _ []bool) ([]string, error) {
			out := make([]string, len(qs))
			for i := range out {
				out[i] = pw
			}
			return out, nil
		}))
	}
	return methods, cleanup, nil
}

// hostKeyCallback checks the server's key against cfg.KnownHosts. An
// unknown key fails (with the text salt-ssh prints) unless host keys are
// ignored; a changed key always fails unless NoHostKeys.
func hostKeyCallback(cfg Config, failure *error) ssh.HostKeyCallback {
	if cfg.NoHostKeys {
		return ssh.InsecureIgnoreHostKey()
	}
	return func(hostname string, remote net.Addr, key ssh.PublicKey) error {
		var check ssh.HostKeyCallback
		if cfg.KnownHosts != "" {
			if _, err := os.Stat(cfg.KnownHosts); err == nil {
				cb, err := knownhosts.New(cfg.KnownHosts)
				if err != nil {
					*failure = &Error{Stderr: fmt.Sprintf("ssh: reading %s: %v", cfg.KnownHosts, err), Retcode: 255}
					return *failure
				}
				check = cb
			}
		}
		var kerr *knownhosts.KeyError
		if check != nil {
			err := check(hostname, remote, key)
			if err == nil {
				return nil
			}
			if !errors.As(err, &kerr) {
				*failure = &Error{Stderr: "ssh: " + err.Error(), Retcode: 255}
				return *failure
			}
		}
		fp := ssh.FingerprintSHA256(key)
		if kerr != nil && len(kerr.Want) > 0 {
			// The key changed: OpenSSH refuses whatever StrictHostKeyChecking says.
			w := kerr.Want[0]
			*failure = &Error{Stderr: fmt.Sprintf("ssh: WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! The %s host key for %s is now %s; %s:%d holds another. Host key verification failed.",
				keyKind(key), knownhosts.Normalize(hostname), fp, w.Filename, w.Line), Retcode: 255}
			return *failure
		}
		if cfg.IgnoreHostKeys {
			if cfg.KnownHosts != "" {
				recordHostKey(cfg.KnownHosts, hostname, key)
			}
			return nil
		}
		host := knownhosts.Normalize(hostname)
		*failure = &Error{Stdout: "The host key needs to be accepted, to auto accept run brine ssh with the -i flag:\n" +
			fmt.Sprintf("The authenticity of host '%s (%s)' can't be established.\n%s key fingerprint is %s.\nAre you sure you want to continue connecting (yes/no/[fingerprint])? ",
				host, knownhosts.Normalize(remote.String()), keyKind(key), fp), Retcode: 254}
		return *failure
	}
}

func keyKind(k ssh.PublicKey) string {
	t := strings.TrimPrefix(k.Type(), "ssh-")
	switch {
	case strings.HasPrefix(t, "ecdsa"):
		return "ECDSA"
	case t == "ed25519":
		return "ED25519"
	}
	return strings.ToUpper(t)
}

// recordHostKey appends the key to the known_hosts file, as ssh does for
// a new host under StrictHostKeyChecking=no.
func recordHostKey(file, hostname string, key ssh.PublicKey) {
	_ = os.MkdirAll(filepath.Dir(file), 0o700)
	f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, knownhosts.Line([]string{knownhosts.Normalize(hostname)}, key))
}

func (c *Client) keepalive() {
	max := c.cfg.KeepaliveCountMax
	if max <= 0 {
		max = 3
	}
	t := time.NewTicker(c.cfg.KeepaliveInterval)
	defer t.Stop()
	missed := 0
	for {
		select {
		case <-c.dead:
			return
		case <-t.C:
		}
		done := make(chan error, 1)
		go func() { _, _, err := c.c.SendRequest("keepalive@openssh.com", true, nil); done <- err }()
		select {
		case err := <-done:
			if err != nil {
				return
			}
			missed = 0
		case <-time.After(c.cfg.KeepaliveInterval):
			missed++
			if missed >= max {
				c.c.Close()
				return
			}
		}
	}
}

// Result is what a command printed and its exit code.
type Result struct {
	Stdout, Stderr []byte
	Code           int
}

// Run runs cmd (a shell command line) with stdin (nil: none), on a pty
// when tty is set. A command that ran and exited is a Result whatever its
// code; a connection that fails or drops is an *Error.
func (c *Client) Run(ctx context.Context, cmd string, stdin io.Reader, tty bool) (*Result, error) {
	c.RoundTrips.Add(1)
	start := time.Now()
	defer func() {
		slog.Debug("ssh command", "host", c.cfg.Host, "port", c.cfg.Port, "took", time.Since(start), "stdin", stdin != nil)
	}()
	s, err := c.c.NewSession()
	if err != nil {
		return nil, c.dropped(err)
	}
	defer s.Close()
	var out, errb bytes.Buffer
	s.Stdout, s.Stderr = &out, &errb
	if stdin != nil {
		s.Stdin = &countReader{r: stdin, n: &c.BytesOut}
	}
	if tty {
		if err := s.RequestPty("xterm", 24, 200, ssh.TerminalModes{ssh.ECHO: 0}); err != nil {
			return nil, c.dropped(err)
		}
	}
	done := make(chan error, 1)
	if err := s.Start(cmd); err != nil {
		return nil, c.dropped(err)
	}
	go func() { done <- s.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = s.Signal(ssh.SIGTERM)
		c.Close()
		return nil, &Error{Stderr: fmt.Sprintf("ssh: %s: interrupted", c.cfg.Host), Retcode: 255}
	}
	c.BytesIn.Add(int64(out.Len() + errb.Len()))
	res := &Result{Stdout: out.Bytes(), Stderr: errb.Bytes()}
	var exit *ssh.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.Code = exit.ExitStatus()
		if exit.Signal() != "" {
			res.Code = 128 + signalNumber(exit.Signal())
		}
	default:
		return res, c.dropped(err)
	}
	return res, nil
}

func signalNumber(name string) int {
	switch name {
	case "HUP":
		return 1
	case "INT":
		return 2
	case "KILL":
		return 9
	case "TERM":
		return 15
	}
	return 0
}

// Session is a command under way whose stdin and stdout are streams, for
// a dialogue with the remote side.
type Session struct {
	c      *Client
	s      *ssh.Session
	Stdin  io.WriteCloser
	Stdout *bufio.Reader
	stderr lockedBuffer
	start  time.Time
}

// lockedBuffer is stderr, written by the connection while the dialogue
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]byte(nil), l.b.Bytes()...)
}

// Start starts cmd with piped stdin and stdout (stderr is collected).
func (c *Client) Start(cmd string) (*Session, error) {
	c.RoundTrips.Add(1)
	s, err := c.c.NewSession()
	if err != nil {
		return nil, c.dropped(err)
	}
	ss := &Session{c: c, s: s, start: time.Now()}
	s.Stderr = &ss.stderr
	in, err := s.StdinPipe()
	if err != nil {
		s.Close()
		return nil, c.dropped(err)
	}
	out, err := s.StdoutPipe()
	if err != nil {
		s.Close()
		return nil, c.dropped(err)
	}
	ss.Stdin = &countWriter{w: in, n: &c.BytesOut}
	ss.Stdout = bufio.NewReaderSize(&countReader{r: out, n: &c.BytesIn}, 64<<10)
	if err := s.Start(cmd); err != nil {
		s.Close()
		return nil, c.dropped(err)
	}
	return ss, nil
}

// Wait reads the rest of stdout, waits for the command to exit and
// returns what it printed after the dialogue and its exit code.
func (ss *Session) Wait(ctx context.Context) (*Result, error) {
	defer ss.s.Close()
	_ = ss.Stdin.Close()
	type done struct {
		out []byte
		err error
	}
	ch := make(chan done, 1)
	go func() {
		out, _ := io.ReadAll(ss.Stdout)
		ch <- done{out, ss.s.Wait()}
	}()
	var d done
	select {
	case d = <-ch:
	case <-ctx.Done():
		_ = ss.s.Signal(ssh.SIGTERM)
		ss.c.Close()
		return nil, &Error{Stderr: fmt.Sprintf("ssh: %s: interrupted", ss.c.cfg.Host), Retcode: 255}
	}
	slog.Debug("ssh dialogue", "host", ss.c.cfg.Host, "port", ss.c.cfg.Port, "took", time.Since(ss.start))
	ss.c.BytesIn.Add(int64(len(ss.stderr.Bytes())))
	res := &Result{Stdout: d.out, Stderr: ss.stderr.Bytes()}
	var exit *ssh.ExitError
	switch {
	case d.err == nil:
	case errors.As(d.err, &exit):
		res.Code = exit.ExitStatus()
		if exit.Signal() != "" {
			res.Code = 128 + signalNumber(exit.Signal())
		}
	default:
		return res, ss.c.dropped(d.err)
	}
	return res, nil
}

// Stderr is what the command printed on stderr so far.
func (ss *Session) Stderr() []byte { return ss.stderr.Bytes() }

// Abort ends the session, for a dialogue given up half way.
func (ss *Session) Abort() { ss.s.Close() }

// Dropped is the error of a connection lost during the dialogue.
func (ss *Session) Dropped(err error) error { return ss.c.dropped(err) }

type countWriter struct {
	w io.WriteCloser
	n *atomic.Int64
}

func (w *countWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.n.Add(int64(n))
	return n, err
}

func (w *countWriter) Close() error { return w.w.Close() }

// dropped words a connection lost in the middle of a command.
func (c *Client) dropped(err error) error {
	return &Error{Stderr: fmt.Sprintf("ssh: connection to %s port %d lost: %s", c.cfg.Host, c.cfg.Port, strings.TrimPrefix(err.Error(), "ssh: ")), Retcode: 255}
}

// Close closes the connection.
func (c *Client) Close() error { return c.c.Close() }

type countReader struct {
	r io.Reader
	n *atomic.Int64
}

func (r *countReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.n.Add(int64(n))
	return n, err
}

// AuthorizedKey returns the public key line of the private key file priv
// (its .pub file when there is one).
func AuthorizedKey(priv, passphrase string) (string, error) {
	if pub, err := os.ReadFile(priv + ".pub"); err == nil {
		return strings.TrimSpace(string(pub)), nil
	}
	pem, err := os.ReadFile(priv)
	if err != nil {
		return "", err
	}
	var signer ssh.Signer
	if passphrase != "" {
		signer, err = ssh.ParsePrivateKeyWithPassphrase(pem, []byte(passphrase))
	} else {
		signer, err = ssh.ParsePrivateKey(pem)
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey()))), nil
}
