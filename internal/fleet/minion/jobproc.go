package minion

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nkeys"
	"golang.org/x/sys/unix"

	"brine/internal/fleet/proto"
)

// A job process is Salt's multiprocessing: True. The minion starts its
// job command (Options.JobProcess: the brine binary in its hidden job
// mode) in a process group of its own, writes a jobInput on its stdin
// and reads a jobOutput from its stdout. The job process dials the master
// with the minion key only when the job needs files or pillar from it.

// jobInput is what a job process reads on its stdin.
type jobInput struct {
	Job       proto.Job       `json:"job"` // verified by the minion
	Opts      proto.ValueJSON `json:"opts"`
	Grains    proto.ValueJSON `json:"grains"`
	Pillar    proto.ValueJSON `json:"pillar"`     // the minion's in-memory pillar
	Seed      string          `json:"seed"`       // the minion key
	MasterKey string          `json:"master_key"` // the pinned master key
}

// jobOutput is what a job process writes on its stdout.
type jobOutput struct {
	Return proto.Return `json:"return"`
	// Pillar is the pillar the job refreshed (saltutil.refresh_pillar):
	// the minion makes it its in-memory pillar.
	Pillar *proto.ValueJSON `json:"pillar,omitempty"`
}

// RunJob is the body of a job process: it reads a jobInput from in, runs
// the job and writes a jobOutput to out. It returns the exit code.
func RunJob(in io.Reader, out io.Writer) int {
	var inp jobInput
	if err := json.NewDecoder(in).Decode(&inp); err != nil {
		fmt.Fprintf(os.Stderr, "brine job process: reading the job: %v\n", err)
		return 2
	}
	opts, grains := inp.Opts.Map(), inp.Grains.Map()
	id := optString(opts, "id")
	s := &Session{Opts: opts, Grains: grains, files: newFileCache(optString(opts, "cachedir")), pil: inp.Pillar.Map(), id: id, daemon: true}
	s.dial = func() (*Conn, error) {
		kp, err := nkeys.FromSeed([]byte(inp.Seed))
		if err != nil {
			return nil, fmt.Errorf("minion key: %w", err)
		}
		c, err := Dial(opts, id, kp, DialOptions{Name: "brine-job " + id + " " + inp.Job.JID})
		if err != nil {
			return nil, err
		}
		if c.MasterKey() == "" && inp.MasterKey != "" {
			c.pinMaster(inp.MasterKey)
		}
		return c, nil
	}
	ret, refreshed := s.execute(inp.Job)
	if s.Conn != nil {
		s.Conn.Close()
	}
	o := jobOutput{Return: ret}
	if refreshed {
		o.Pillar = &proto.ValueJSON{V: s.CachedPillar()}
	}
	if err := json.NewEncoder(out).Encode(o); err != nil {
		fmt.Fprintf(os.Stderr, "brine job process: writing the return: %v\n", err)
		return 2
	}
	return 0
}

// RunJobProcess is RunJob on the process's stdin and stdout. Whatever the
// job itself writes on file descriptor 1 (a function printing, a command
// inheriting it) goes to stderr instead, so that stdout carries the
// return alone.
func RunJobProcess() int {
	fd, err := unix.FcntlInt(1, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		fmt.Fprintf(os.Stderr, "brine job process: %v\n", err)
		return 2
	}
	if err := unix.Dup2(2, 1); err != nil {
		fmt.Fprintf(os.Stderr, "brine job process: %v\n", err)
		return 2
	}
	out := os.NewFile(uintptr(fd), "return")
	defer out.Close()
	return RunJob(os.Stdin, out)
}

// runProcess runs job in a job process and returns its return; a process
// that ends without one (killed, crashed) gives a failed return saying so.
func (m *Minion) runProcess(sess *Session, job proto.Job) proto.Return {
	fail := func(msg string) proto.Return {
		return proto.Return{V: proto.Version, JID: job.JID, ID: m.id, Fun: job.Fun, FunArgs: job.Arg,
			Return: proto.ValueJSON{V: msg}, Retcode: 1, TS: time.Now().UnixNano()}
	}
	seed, err := m.o.Key.Seed()
	if err != nil {
		return fail("ERROR: minion key: " + err.Error())
	}
	in, err := json.Marshal(jobInput{
		Job: job, Opts: proto.ValueJSON{V: m.o.Opts}, Grains: proto.ValueJSON{V: sess.CurrentGrains()},
		Pillar: proto.ValueJSON{V: sess.CachedPillar()}, Seed: string(seed), MasterKey: masterKey(sess),
	})
	if err != nil {
		return fail("ERROR: encoding the job: " + err.Error())
	}
	cmd := exec.Command(m.o.JobProcess[0], m.o.JobProcess[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdin = bytes.NewReader(in)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr := &tailWriter{w: os.Stderr, max: 4096}
	cmd.Stderr = stderr
	// A descendant holding the process's stderr must not hold the job.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return fail("ERROR: starting the job process: " + err.Error())
	}
	pid := cmd.Process.Pid
	if err := writeProc(optString(m.o.Opts, "cachedir"), job, pid, false); err != nil {
		m.log.Warn("recording a running job", "jid", job.JID, "err", err)
	}
	werr := cmd.Wait()
	removeProc(optString(m.o.Opts, "cachedir"), job.JID)
	var o jobOutput
	if derr := json.Unmarshal(stdout.Bytes(), &o); derr == nil && o.Return.JID == job.JID {
		if o.Pillar != nil {
			sess.setPillar(o.Pillar.Map())
		}
		return o.Return
	}
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			sig := ws.Signal()
			m.log.Warn("job process killed", "jid", job.JID, "pid", pid, "signal", unix.SignalName(sig))
			return fail(fmt.Sprintf("ERROR: job %s was terminated by signal %d (%s) before it returned", job.JID, int(sig), unix.SignalName(sig)))
		}
	}
	m.log.Error("job process ended without a return", "jid", job.JID, "pid", pid, "err", werr, "stderr", stderr.String())
	status := "exited"
	if werr != nil {
		status = werr.Error()
	}
	msg := fmt.Sprintf("ERROR: the process of job %s (pid %d) ended without a return (%s)", job.JID, pid, status)
	if last := telling(stderr.String()); last != "" {
		msg += ": " + last
	}
	return fail(msg)
}

func masterKey(sess *Session) string {
	if sess.Conn == nil {
		return ""
	}
	return sess.Conn.MasterKey()
}

// tailWriter passes writes on to w and keeps the last max bytes.
type tailWriter struct {
	w   io.Writer
	max int
	mu  sync.Mutex
	buf []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.w != nil {
		_, _ = t.w.Write(p)
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// telling picks the line of a job process's stderr that tells why it
// failed: a Go panic or fatal error, else the last non-empty line.
func telling(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			return strings.TrimSpace(l)
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}
