package pyext

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"brine/internal/value"
)

// Handler serves the worker's calls back into brine: kind is "exec" for
// __salt__, "state" for __states__.
type Handler func(kind, fun string, args []any, kwargs *value.Map) (any, error)

// Worker is one python3 process. Requests are served one at a time; a
// call back into brine may make nested requests on the same goroutine.
type Worker struct {
	// Handler serves calls back into brine; nil refuses them.
	Handler Handler
	// Timeout bounds one request (0: no bound). A request that times out
	// kills the worker.
	Timeout time.Duration

	mu     sync.Mutex
	depth  int // nesting of requests on the serving goroutine
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	frames chan frameOrErr
	dead   error
	// Started is how long starting the process took.
	Started time.Duration
}

type frameOrErr struct {
	m   *value.Map
	err error
}

// ErrNoPython is returned when python3 cannot be found.
var ErrNoPython = errors.New("python3 was not found on PATH")

// pythonPath finds the interpreter: $BRINE_PYTHON, else python3 on PATH.
func pythonPath() (string, error) {
	if p := os.Getenv("BRINE_PYTHON"); p != "" {
		return p, nil
	}
	p, err := exec.LookPath("python3")
	if err != nil {
		return "", ErrNoPython
	}
	return p, nil
}

// Start extracts the embedded Python under base (a directory brine may
// write, usually the minion's cachedir) and starts the worker.
func Start(base string) (*Worker, error) {
	t0 := time.Now()
	py, err := pythonPath()
	if err != nil {
		return nil, err
	}
	dir, err := extract(base)
	if err != nil {
		return nil, fmt.Errorf("extracting the python worker: %w", err)
	}
	cmd := exec.Command(py, "-u", filepath.Join(dir, "brine_worker.py"), dir)
	cmd.Stderr = os.Stderr
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", py, err)
	}
	w := &Worker{cmd: cmd, stdin: in, frames: make(chan frameOrErr, 1)}
	go w.readLoop(bufio.NewReaderSize(out, 1<<16))
	w.Started = time.Since(t0)
	return w, nil
}

func (w *Worker) readLoop(r *bufio.Reader) {
	for {
		m, err := readFrame(r)
		w.frames <- frameOrErr{m, err}
		if err != nil {
			close(w.frames)
			return
		}
	}
}

// Close ends the worker (closing its stdin makes it exit) and waits for it.
func (w *Worker) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cmd == nil {
		return nil
	}
	_ = w.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- w.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		_ = w.cmd.Process.Kill()
		<-done
	}
	w.cmd = nil
	if w.dead == nil {
		w.dead = errors.New("the python worker was closed")
	}
	return nil
}

// Request sends msg (which must have "op") and returns the reply's value.
// A Python exception is a *PyError; a dead or timed-out worker an error
// saying so.
func (w *Worker) Request(msg *value.Map) (any, error) {
	if w.depth == 0 {
		w.mu.Lock()
		defer w.mu.Unlock()
	}
	if w.dead != nil {
		return nil, w.dead
	}
	if err := writeFrame(w.stdin, msg); err != nil {
		return nil, w.fail(fmt.Errorf("the python worker died: %w", err))
	}
	var timer <-chan time.Time
	if w.Timeout > 0 {
		t := time.NewTimer(w.Timeout)
		defer t.Stop()
		timer = t.C
	}
	for {
		var f frameOrErr
		var ok bool
		select {
		case f, ok = <-w.frames:
		case <-timer:
			_ = w.cmd.Process.Kill()
			return nil, w.fail(fmt.Errorf("the python worker did not answer within %s (killed)", w.Timeout))
		}
		if !ok || f.err != nil {
			return nil, w.fail(w.exitError())
		}
		op, _ := f.m.Get("op")
		switch op {
		case "ret":
			v, _ := f.m.Get("value")
			return v, nil
		case "exc":
			return nil, pyErrorFrom(f.m)
		case "call":
			if err := w.serveCall(f.m); err != nil {
				return nil, w.fail(err)
			}
		default:
			return nil, w.fail(fmt.Errorf("the python worker sent an unknown message %v", op))
		}
	}
}

func (w *Worker) exitError() error {
	if w.cmd != nil && w.cmd.ProcessState == nil {
		done := make(chan struct{})
		go func() { _ = w.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Second):
		}
	}
	if w.cmd != nil && w.cmd.ProcessState != nil {
		return fmt.Errorf("the python worker died (%s)", w.cmd.ProcessState)
	}
	return errors.New("the python worker died")
}

func (w *Worker) fail(err error) error {
	if w.dead == nil {
		w.dead = err
	}
	return err
}

// serveCall runs one call from Python and sends the reply.
func (w *Worker) serveCall(m *value.Map) error {
	kind, _ := m.Get("kind")
	fun, _ := m.Get("fun")
	var args []any
	if l, ok := m.Get("args"); ok {
		if ll, ok := l.(*value.List); ok {
			args = ll.Items
		}
	}
	kwargs := value.NewMap(0)
	if k, ok := m.Get("kwargs"); ok {
		if km, ok := k.(*value.Map); ok {
			kwargs = km
		}
	}
	var ret any
	var err error
	if w.Handler == nil {
		err = fmt.Errorf("'%v' is not available.", fun)
	} else {
		w.depth++
		ret, err = w.Handler(fmt.Sprint(kind), fmt.Sprint(fun), args, kwargs)
		w.depth--
	}
	reply := value.NewMap(3)
	if err != nil {
		reply.Set("op", "exc")
		reply.Set("type", errorClass(err))
		reply.Set("msg", err.Error())
	} else {
		reply.Set("op", "ret")
		reply.Set("value", ret)
	}
	if err := writeFrame(w.stdin, reply); err != nil {
		return fmt.Errorf("the python worker died: %w", err)
	}
	return nil
}

// errorClass names the Python exception a Go error becomes.
func errorClass(err error) string {
	var c interface{ SaltExceptionClass() string }
	if errors.As(err, &c) {
		return c.SaltExceptionClass()
	}
	return "salt.exceptions.CommandExecutionError"
}
