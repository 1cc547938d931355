// Package pgtest starts a throwaway PostgreSQL server for tests: Debian's
// postgresql package's initdb and postgres, in a temporary directory, on a
// loopback port and a private socket directory, as an unprivileged user
// when the tests run as root (postgres refuses to run as root). The server
// stops and its directory is removed when the test ends. (It is the
// server half of internal/fleet/returners/pgtest, without the returner's
// schema, so execution-module tests can use it.)
package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server is a running PostgreSQL server; its superuser is salt, with
// trust authentication on loopback.
type Server struct {
	Host string
	Port int
	User string
	// Sock is the server's socket directory.
	Sock string
	// Bin is the directory of PostgreSQL's programs (initdb, psql).
	Bin string
	// RunAs is the system user the server runs as when the tests run as
	// root ("" otherwise).
	RunAs string

	uid, gid int
}

// OwnerIDs returns the uid and gid the server runs as.
func (s *Server) OwnerIDs(t testing.TB) (int, int) {
	return s.uid, s.gid
}

// binDir finds the newest installed PostgreSQL's bin directory.
func binDir() string {
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(m, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(m[i]))))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(m[j]))))
		return vi < vj
	})
	if len(m) == 0 {
		return ""
	}
	return filepath.Dir(m[len(m)-1])
}

// Start starts a server for t; it skips t when PostgreSQL is not
// installed.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := binDir()
	if bin == "" {
		t.Skip("PostgreSQL is not installed (Debian: apt-get install postgresql)")
	}
	dir, err := os.MkdirTemp("", "brine-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var cred *syscall.Credential
	runAs, uid, gid := "", os.Getuid(), os.Getgid()
	if os.Getuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			u, err = user.Lookup("nobody")
		}
		if err != nil {
			t.Fatalf("no unprivileged user to run postgres as: %v", err)
		}
		runAs = u.Username
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	sock := filepath.Join(dir, "sock")
	if err := os.Mkdir(sock, 0o755); err != nil {
		t.Fatal(err)
	}
	if cred != nil {
		_ = os.Chown(sock, int(cred.Uid), int(cred.Gid))
	}
	data := filepath.Join(dir, "data")
	command := func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "HOME="+dir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
		return cmd
	}
	if out, err := command("initdb", "-D", data, "-U", "salt", "-A", "trust", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	port := freePort(t)
	srv := command("postgres", "-D", data, "-k", sock, "-p", strconv.Itoa(port), "-h", "127.0.0.1", "-F")
	logf, err := os.Create(filepath.Join(dir, "postgres.log"))
	if err != nil {
		t.Fatal(err)
	}
	srv.Stdout, srv.Stderr = logf, logf
	if err := srv.Start(); err != nil {
		t.Fatalf("starting postgres: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = srv.Wait(); logf.Close(); close(exited) }()
	t.Cleanup(func() {
		_ = srv.Process.Signal(syscall.SIGINT) // fast shutdown
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = srv.Process.Kill()
			<-exited
		}
	})
	s := &Server{Host: "127.0.0.1", Port: port, User: "salt", Sock: sock, Bin: bin, RunAs: runAs, uid: uid, gid: gid}
	deadline := time.Now().Add(60 * time.Second)
	for {
		conn, err := s.connect("postgres")
		if err == nil {
			conn.Close(context.Background())
			break
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
			t.Fatalf("postgres exited: %s", log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("postgres did not start: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return s
}

func (s *Server) connect(db string) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return pgx.Connect(ctx, fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable", s.Host, s.Port, s.User, db))
}

// Query runs sql in database db and returns its rows, each column as
// text.
func (s *Server) Query(t testing.TB, db, sql string, args ...any) [][]string {
	t.Helper()
	c, err := s.connect(db)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	rows, err := c.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = fmt.Sprint(v)
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Exec runs sql (statements without results) in database db.
func (s *Server) Exec(t testing.TB, db, sql string) {
	t.Helper()
	c, err := s.connect(db)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
