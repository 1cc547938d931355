package pyext

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"brine/internal/execmod"
	"brine/internal/value"
)

// serviceName is the execmod.Context service holding a run's session.
const serviceName = "pyext"

// defaultTimeout bounds one call into Python unless the minion option
// pyext_timeout (seconds) says otherwise.
const defaultTimeout = 300 * time.Second

// session is the Python side of one run: its worker, started on first
// need, and what was loaded into it.
type session struct {
	ctx    *execmod.Context
	w      *Worker
	err    error
	loaded map[string]bool // kinds loaded into the worker
	// forked is set in the session of a state with parallel: True (Salt
	// runs it in a forked process): it starts a worker of its own on
	// first need, with the run's modules loaded, and ends it when the
	// state ends, so that a Python function waiting for such states
	// never waits for its own worker.
	forked bool
}

// Close ends the run's worker, if one started. A process that runs many
// jobs (a minion with multiprocessing: False) closes it at the end of each
// job; `brine call` leaves it to exit with the process (its stdin closes).
func (s *session) Close() error {
	if s.w == nil {
		return nil
	}
	return s.w.Close()
}

// Fork is the session of a forked context (execmod.Forkable).
func (s *session) Fork(forked *execmod.Context) any {
	return &session{ctx: forked, loaded: map[string]bool{}, forked: true}
}

// Release ends a forked session's worker (execmod.Releaser).
func (s *session) Release() {
	if s.forked {
		_ = s.Close()
	}
}

// workerOf returns the worker that serves Python calls made in ctx: the
// run's, or a forked context's own (started and loaded on first need);
// home when ctx has no session (a function called outside a run).
func workerOf(ctx *execmod.Context, home *Worker) (*Worker, error) {
	if ctx == nil {
		return home, nil
	}
	s, ok := ctx.Service(serviceName).(*session)
	if !ok {
		return home, nil
	}
	if s.w != nil || s.err != nil {
		return s.w, s.err
	}
	if !s.forked {
		return home, nil
	}
	return WorkerFor(ctx, "a parallel state")
}

func sessionOf(ctx *execmod.Context) *session {
	if s, ok := ctx.Service(serviceName).(*session); ok {
		return s
	}
	s := &session{ctx: ctx, loaded: map[string]bool{}}
	ctx.SetService(serviceName, s)
	return s
}

// WorkerFor returns the run's worker, starting it (and sending it the
// run's opts, grains and pillar) on first need. what names the file that
// needs Python, for the error when python3 is missing.
func WorkerFor(ctx *execmod.Context, what string) (*Worker, error) {
	s := sessionOf(ctx)
	if s.w != nil || s.err != nil {
		return s.w, s.err
	}
	var w *Worker
	if !s.forked {
		w = takeEarly()
	}
	if w == nil {
		var err error
		if w, err = Start(baseDir(ctx.Opts), ctx.Opts); err != nil {
			s.err = fmt.Errorf("%s needs Python: %w", what, err)
			return nil, s.err
		}
	}
	w.Timeout = timeoutOf(ctx.Opts)
	w.Handler = s.handle
	slog.Debug(fmt.Sprintf("Started the python worker for %s in %s", what, w.Started))
	s.w = w
	if err := s.sync(); err != nil {
		s.err = err
		return nil, err
	}
	if s.forked && Setupable(ctx) {
		// the registries already hold the run's Python functions, which
		// find this worker through the context: only load them into it
		if err := loadInto(ctx, w, false); err != nil {
			s.err = err
			return nil, err
		}
	}
	return w, nil
}

// baseDir is where the embedded Python is extracted: the minion's
// cachedir when it can be created, else the temporary directory.
func baseDir(opts *value.Map) string {
	if cd, ok := opts.Get("cachedir"); ok {
		if d, ok := cd.(string); ok && d != "" {
			if err := os.MkdirAll(d, 0o755); err == nil {
				return d
			}
		}
	}
	return os.TempDir()
}

func timeoutOf(opts *value.Map) time.Duration {
	if v, ok := opts.Get("pyext_timeout"); ok {
		switch t := v.(type) {
		case int64:
			return time.Duration(t) * time.Second
		case float64:
			return time.Duration(t * float64(time.Second))
		case string:
			if f, err := strconv.ParseFloat(t, 64); err == nil {
				return time.Duration(f * float64(time.Second))
			}
		}
	}
	return defaultTimeout
}

// sync sends the run's opts, grains and pillar and the names of brine's
// own functions to the worker.
func (s *session) sync() error {
	reg := s.ctx.Registry
	if reg == nil {
		reg = execmod.Default
	}
	goNames := []any{}
	for _, n := range reg.Names() {
		goNames = append(goNames, n)
	}
	msg := value.MapOf("op", "init",
		"opts", s.ctx.Opts, "grains", s.ctx.Grains, "pillar", s.ctx.Pillar,
		"go", value.MapOf("exec", value.NewList(goNames...), "state", value.NewList(stateNames()...)))
	_, err := s.w.Request(msg)
	return err
}

// handle serves the worker's calls into brine for requests made with no
// context of their own (rendering, loading).
func (s *session) handle(kind, fun string, args []any, kwargs *value.Map) (any, error) {
	return handlerFor(s.ctx)(kind, fun, args, kwargs)
}

// handlerFor serves the calls back of a request made by a function running
// in ctx (a state with parallel: True runs in a copy of the run's
// context).
func handlerFor(ctx *execmod.Context) Handler {
	return func(kind, fun string, args []any, kwargs *value.Map) (any, error) {
		switch kind {
		case "state":
			return callState(ctx, fun, args, kwargs)
		default:
			return ctx.Call(fun, args, kwargs)
		}
	}
}
