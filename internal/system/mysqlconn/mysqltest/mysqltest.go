// Package mysqltest starts a throwaway MariaDB server for tests: Debian's
// mariadb-server package's mariadb-install-db and mariadbd, with a data
// directory in a temporary directory, a private socket and no network,
// as the mysql user when the tests run as root. Its root user has no
// password. The server stops and its directory is removed when the test
// ends.
package mysqltest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"brine/internal/system/mysqlconn"
	"brine/internal/value"
)

// Server is a running server, reached over Socket as root.
type Server struct {
	Socket string
	Dir    string
	// Port is the loopback TCP port of a server started with TCP.
	Port int
}

// Options are the settings of a server that takes part in replication.
type Options struct {
	TCP      bool // listen on a free loopback port too
	ServerID int  // server_id, when not 0
	LogBin   bool // write a binary log
}

// Start starts a server for t; it skips t when MariaDB is not installed.
func Start(t testing.TB) *Server {
	t.Helper()
	return StartWith(t, Options{})
}

// StartWith starts a server with the options o.
func StartWith(t testing.TB, o Options) *Server {
	t.Helper()
	daemon, err := exec.LookPath("mariadbd")
	if err != nil {
		if daemon, err = exec.LookPath("/usr/sbin/mariadbd"); err != nil {
			t.Skip("MariaDB is not installed (Debian: apt-get install mariadb-server)")
		}
	}
	install, err := exec.LookPath("mariadb-install-db")
	if err != nil {
		t.Skip("mariadb-install-db is not installed")
	}
	dir, err := os.MkdirTemp("", "brine-mysql-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var userArg []string
	if os.Getuid() == 0 {
		u, err := user.Lookup("mysql")
		if err != nil {
			t.Skip("no mysql user to run mariadbd as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		userArg = []string{"--user=mysql"}
	}
	data := filepath.Join(dir, "data")
	sock := filepath.Join(dir, "sock")
	// A temporary directory of its own: servers sharing /tmp (tests of
	// several packages run at once) clash on their temporary tables.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() == 0 {
		u, _ := user.Lookup("mysql")
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(tmp, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "TMPDIR="+tmp)
	args := append([]string{"--no-defaults", "--datadir=" + data, "--auth-root-authentication-method=normal", "--skip-test-db"}, userArg...)
	cmd := exec.Command(install, args...)
	cmd.Dir = dir
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	logPath := filepath.Join(dir, "error.log")
	args = []string{"--no-defaults", "--datadir=" + data, "--socket=" + sock,
		"--pid-file=" + filepath.Join(dir, "pid"), "--log-error=" + logPath, "--tmpdir=" + tmp, "--innodb-buffer-pool-size=16M"}
	port := 0
	if o.TCP {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port = l.Addr().(*net.TCPAddr).Port
		l.Close()
		args = append(args, "--bind-address=127.0.0.1", "--port="+strconv.Itoa(port))
	} else {
		args = append(args, "--skip-networking")
	}
	if o.ServerID != 0 {
		args = append(args, "--server-id="+strconv.Itoa(o.ServerID))
	}
	if o.LogBin {
		args = append(args, "--log-bin="+filepath.Join(data, "binlog"))
	}
	args = append(args, userArg...)
	srv := exec.Command(daemon, args...)
	srv.Dir = dir
	srv.Env = env
	srv.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := srv.Start(); err != nil {
		t.Fatalf("starting mariadbd: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = srv.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = srv.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(60 * time.Second):
			_ = srv.Process.Kill()
			<-exited
		}
	})
	s := &Server{Socket: sock, Dir: dir, Port: port}
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := s.Connect()
		if err == nil {
			c.Close()
			return s
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(logPath)
			t.Fatalf("mariadbd exited: %s", log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("mariadbd did not start: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Connect opens a connection as root.
func (s *Server) Connect() (*mysqlconn.Conn, error) {
	return mysqlconn.Open(context.Background(), mysqlconn.Options{Socket: s.Socket, User: "root"})
}

// Exec runs statements without results as root.
func (s *Server) Exec(t testing.TB, stmts ...string) {
	t.Helper()
	c, err := s.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range stmts {
		if _, err := c.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// Query runs q as root and returns its rows.
func (s *Server) Query(t testing.TB, q string, args ...any) [][]any {
	t.Helper()
	c, err := s.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Query(context.Background(), false, q, args...)
	if err != nil {
		t.Fatal(err)
	}
	return res.Rows
}

// StringRows is Query with every value as its string, for comparing a
// table's contents with a golden.
func (s *Server) StringRows(t testing.TB, q string, args ...any) [][]string {
	t.Helper()
	var out [][]string
	for _, r := range s.Query(t, q, args...) {
		row := make([]string, len(r))
		for i, v := range r {
			row[i] = value.Str(v)
		}
		out = append(out, row)
	}
	return out
}
