package pyext

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"brine/internal/value"
)

// Handler serves the worker's calls back into brine: kind is "exec" for
// __salt__, "state" for __states__.
type Handler func(kind, fun string, args []any, kwargs *value.Map) (any, error)

// Worker is one python3 process. Top-level requests are served one at a
// time, whatever goroutine makes them (states with parallel: True run on
// goroutines of their own). While the worker waits for a call back into
// brine (Handler), the goroutine serving it holds the worker and may make
// nested requests (a Python function calling __salt__ which calls another
// Python function); any other goroutine waits for the top-level request to
// end.
type Worker struct {
	// Handler serves calls back into brine; nil refuses them.
	Handler Handler
	// Timeout bounds one request (0: no bound). A request that times out
	// kills the worker.
	Timeout time.Duration

	mu       sync.Mutex   // held for a top-level request, by the goroutine owner
	owner    atomic.Int64 // id of the goroutine holding mu for a request (0: none)
	depth    int          // nesting of requests on the owner (the owner's only)
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	stdout   *bufio.Reader
	dead     error
	timedOut atomic.Bool
	retcode  any     // __context__["retcode"] of the last exec call, if set
	active   Handler // serves the calls back of the request in progress
	// Started is how long starting the process took.
	Started time.Duration
	// Python is the interpreter, SaltPackage the directory of the salt
	// package the worker's modules import.
	Python, SaltPackage string
}

// ErrNoPython is returned when python3 cannot be found.
var ErrNoPython = errors.New("python3 was not found on PATH")

// pythonPath finds the interpreter: $BRINE_PYTHON, else the option
// pyext_python, else python3 on PATH.
func pythonPath(opts *value.Map) (string, error) {
	if p := os.Getenv("BRINE_PYTHON"); p != "" {
		return p, nil
	}
	if p := optString(opts, "pyext_python"); p != "" {
		return p, nil
	}
	p, err := exec.LookPath("python3")
	if err != nil {
		return "", ErrNoPython
	}
	return p, nil
}

// Start extracts the embedded Python under base (a directory brine may
// write, usually the minion's cachedir) and starts the worker. opts (nil:
// none) may name the interpreter (pyext_python) and choose the salt
// package the user's modules import (pyext_salt: "brine", the default,
// is brine's compatibility package; "installed" is the Salt installed for
// that interpreter, when it can be imported).
func Start(base string, opts *value.Map) (*Worker, error) {
	t0 := time.Now()
	py, err := pythonPath(opts)
	if err != nil {
		return nil, err
	}
	dir, err := extract(base)
	if err != nil {
		return nil, fmt.Errorf("extracting the python worker: %w", err)
	}
	cmd := exec.Command(py, "-u", filepath.Join(dir, "brine_worker.py"), dir)
	cmd.Stderr = os.Stderr
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "BRINE_PYEXT_SALT="+optString(opts, "pyext_salt"))
	in, out, err := blockingPipes(cmd)
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		_ = in.Close()
		_ = out.Close()
		return nil, fmt.Errorf("starting %s: %w", py, err)
	}
	// the child's ends belong to the child now
	closeChildEnds(cmd)
	w := &Worker{cmd: cmd, stdin: in, stdout: bufio.NewReaderSize(out, 1<<16)}
	if err := w.waitReady(); err != nil {
		_ = w.Close()
		return nil, err
	}
	w.Started = time.Since(t0)
	return w, nil
}

// startTimeout bounds the start of the interpreter and the import of the
// worker, which the per-request Timeout (pyext_timeout) does not count: a
// loaded machine can take more than a short call's budget to start Python.
const startTimeout = 60 * time.Second

// waitReady waits for the worker's first answer (within startTimeout)
// and logs which interpreter and salt package it uses.
func (w *Worker) waitReady() error {
	t := w.Timeout
	w.Timeout = startTimeout
	v, err := w.Request(value.MapOf("op", "hello"))
	w.Timeout = t
	if err != nil {
		return err
	}
	if m, ok := v.(*value.Map); ok {
		w.Python, w.SaltPackage = str(m, "python"), str(m, "salt")
		if msg := str(m, "warning"); msg != "" {
			slog.Warn(msg)
		}
		slog.Debug(fmt.Sprintf("The python worker runs %s %s with the salt package in %s", w.Python, str(m, "version"), w.SaltPackage))
	}
	return nil
}

// optString is opts[key] when it is a string ("" otherwise, or when opts
// is nil).
func optString(opts *value.Map, key string) string {
	if opts == nil {
		return ""
	}
	s, _ := opts.Get(key)
	v, _ := s.(string)
	return v
}

// Close ends the worker (closing its stdin makes it exit) and waits for it.
// It waits for a request in progress on another goroutine to end.
func (w *Worker) Close() error {
	if gid := goid(); w.owner.Load() != gid {
		w.mu.Lock()
		defer w.mu.Unlock()
	}
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
	v, _, err := w.request(msg, nil)
	return v, err
}

// request is Request whose calls back into brine h serves (nil: the
// Handler, or the handler of the request it is nested in), and that also
// returns the __context__["retcode"] the call set (nil when it set none),
// read before another goroutine may use the worker.
func (w *Worker) request(msg *value.Map, h Handler) (any, any, error) {
	gid := goid()
	if w.owner.Load() != gid {
		// a top-level request: wait for the worker
		w.mu.Lock()
		w.owner.Store(gid)
		defer func() {
			w.owner.Store(0)
			w.mu.Unlock()
		}()
	}
	if h != nil {
		prev := w.active
		w.active = h
		defer func() { w.active = prev }()
	}
	v, err := w.roundTrip(msg)
	rc := w.retcode
	w.retcode = nil
	return v, rc, err
}

// roundTrip sends msg and serves the worker's calls back into brine until
// it answers; the caller holds the worker.
func (w *Worker) roundTrip(msg *value.Map) (any, error) {
	if w.dead != nil {
		return nil, w.dead
	}
	if err := writeFrame(w.stdin, msg); err != nil {
		return nil, w.fail(fmt.Errorf("the python worker died: %w", err))
	}
	if w.Timeout > 0 && w.depth == 0 {
		// a request that takes too long kills the worker, which ends the
		// blocking read below
		t := time.AfterFunc(w.Timeout, func() {
			w.timedOut.Store(true)
			_ = w.cmd.Process.Kill()
		})
		defer t.Stop()
	}
	for {
		m, err := readFrame(w.stdout)
		if err != nil {
			if w.timedOut.Load() {
				return nil, w.fail(fmt.Errorf("the python worker did not answer within %s (killed)", w.Timeout))
			}
			return nil, w.fail(w.exitError())
		}
		op, _ := m.Get("op")
		switch op {
		case "ret":
			v, _ := m.Get("value")
			if rc, ok := m.Get("retcode"); ok {
				w.retcode = rc
			}
			return v, nil
		case "exc":
			return nil, pyErrorFrom(m)
		case "call":
			if err := w.serveCall(m); err != nil {
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
	h := w.active
	if h == nil {
		h = w.Handler
	}
	if h == nil {
		err = fmt.Errorf("'%v' is not available.", fun)
	} else {
		w.depth++
		ret, err = h(fmt.Sprint(kind), fmt.Sprint(fun), args, kwargs)
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

// goid is the id of the calling goroutine, from the first line of its
// stack ("goroutine 18 [running]:"). Go gives no other way to tell a
// nested request, made by the goroutine that holds the worker while it
// serves a call back, from a request of another goroutine.
func goid() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		panic("pyext: cannot read the goroutine id: " + err.Error())
	}
	return id
}

// Result is the outcome of one request of a Batch: its value, or the
// Python exception it raised.
type Result struct {
	Value any
	Err   error
}

// Batch sends msgs as one request (one round trip): the worker serves
// them in order, each failing or not on its own. The error is the
// worker's own failure (died, timed out).
func (w *Worker) Batch(msgs []*value.Map) ([]Result, error) {
	list := value.NewList()
	for _, m := range msgs {
		list.Append(m)
	}
	v, err := w.Request(value.MapOf("op", "batch", "ops", list))
	if err != nil {
		return nil, err
	}
	l, _ := v.(*value.List)
	if l == nil || l.Len() != len(msgs) {
		return nil, w.fail(fmt.Errorf("the python worker answered a batch of %d with %v", len(msgs), v))
	}
	out := make([]Result, len(msgs))
	for i, item := range l.Items {
		m, _ := item.(*value.Map)
		if m == nil {
			continue
		}
		if op, _ := m.Get("op"); op == "exc" {
			out[i].Err = pyErrorFrom(m)
			continue
		}
		out[i].Value, _ = m.Get("value")
	}
	return out, nil
}
