package minion

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"brine/internal/config"
	"brine/internal/execmod"
	"brine/internal/fileserver"
	"brine/internal/fleet/proto"
	"brine/internal/pillar"
	"brine/internal/value"
)

// Session is what a minion's runs take from the master: the salt:// file
// cache and the minion's pillar, compiled on the master.
type Session struct {
	Conn   *Conn
	Opts   *value.Map // the minion's options
	Grains *value.Map

	files *fileCache
	mu    sync.Mutex
	pil   *value.Map

	// A job process's session has no connection until it needs one:
	// dial makes it (once; connMu guards Conn then).
	id     string
	dial   func() (*Conn, error)
	connMu sync.Mutex

	// daemon marks the sessions of a minion daemon and its job
	// processes (not `brine call`): they have a local event bus.
	daemon bool
}

// CurrentGrains returns the grains the session's runs use.
func (s *Session) CurrentGrains() *value.Map {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Grains
}

// SetGrains replaces them (after a job that synced or refreshed grains).
func (s *Session) SetGrains(g *value.Map) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Grains = g
}

// minionID is the id of the session's minion.
func (s *Session) minionID() string {
	if s.Conn != nil {
		return s.Conn.ID
	}
	return s.id
}

// conn returns the connection to the master, dialling it first in a job
// process.
func (s *Session) conn() (*Conn, error) {
	if s.dial == nil {
		return s.Conn, nil
	}
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if s.Conn == nil {
		c, err := s.dial()
		if err != nil {
			return nil, fmt.Errorf("connecting to the master: %w", err)
		}
		s.Conn = c
	}
	return s.Conn, nil
}

// setPillar replaces the in-memory pillar.
func (s *Session) setPillar(p *value.Map) {
	s.mu.Lock()
	s.pil = p
	s.mu.Unlock()
}

// NewSession starts a session over c.
func NewSession(c *Conn, opts, grains *value.Map) *Session {
	if grains == nil {
		grains = value.MapOf("id", c.ID)
	}
	return &Session{Conn: c, Opts: opts, Grains: grains, files: newFileCache(optString(opts, "cachedir"))}
}

// Hello announces the minion and its grains and fetches its pillar.
func (s *Session) Hello() error {
	var rep proto.PillarReply
	req := proto.HelloRequest{Grains: proto.ValueJSON{V: s.CurrentGrains()}, Saltenv: optString(s.Opts, "saltenv"), Pillarenv: optString(s.Opts, "pillarenv")}
	if err := s.Conn.Request(proto.ReqHello, req, &rep, 30*time.Second); err != nil {
		return err
	}
	s.mu.Lock()
	s.pil = rep.Pillar.Map()
	s.mu.Unlock()
	return nil
}

// CachedPillar returns the pillar of the last Hello or refresh.
func (s *Session) CachedPillar() *value.Map {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pil == nil {
		return value.NewMap(0)
	}
	return s.pil
}

// Pillar asks the master for a fresh pillar.
func (s *Session) Pillar(saltenv, pillarenv string, override *value.Map) (*value.Map, error) {
	req := proto.PillarRequest{Grains: proto.ValueJSON{V: s.CurrentGrains()}, Saltenv: saltenv, Pillarenv: pillarenv}
	if override != nil {
		req.Override = &proto.ValueJSON{V: override}
	}
	var rep proto.PillarReply
	c, err := s.conn()
	if err != nil {
		return nil, err
	}
	if err := c.Request(proto.ReqPillar, req, &rep, 60*time.Second); err != nil {
		return nil, err
	}
	p := rep.Pillar.Map()
	if override == nil && pillarenv == "" {
		s.mu.Lock()
		s.pil = p
		s.mu.Unlock()
	}
	return p, nil
}

// SyncFiles mirrors the master's file roots and returns file_roots for
// the cache.
func (s *Session) SyncFiles() (*value.Map, error) {
	c, err := s.conn()
	if err != nil {
		return nil, err
	}
	return s.files.Sync(c)
}

// RefreshPillar fetches the minion's pillar from the master and makes it
// the in-memory pillar later jobs use (Salt's pillar_refresh event).
func (s *Session) RefreshPillar() error {
	p, err := s.Pillar(optString(s.Opts, "saltenv"), optString(s.Opts, "pillarenv"), nil)
	if err != nil {
		return err
	}
	s.setPillar(p)
	return nil
}

// pillarRefresh is the modules package's PillarRefresher service of a
// minion job: saltutil.refresh_pillar refreshes the session's pillar and
// the job reports it (a job process hands it to the minion).
type pillarRefresh struct {
	s    *Session
	done *atomic.Bool
}

func (p pillarRefresh) RefreshPillar() error {
	if err := p.s.RefreshPillar(); err != nil {
		return err
	}
	p.done.Store(true)
	return nil
}

// pillarRefreshService is the name the modules package looks the
// service up by.
const pillarRefreshService = "pillar_refresh"

// remotePillar is the run's pillar service: fresh pillar comes from the
// master (satisfies the modules package's PillarService).
type remotePillar struct {
	s     *Session
	local pillar.Service
}

// Compile asks the master for a fresh pillar.
func (r remotePillar) Compile(_, _ *value.Map, _, saltenv, pillarenv string, override, _ *value.Map) (*value.Map, error) {
	return r.s.Pillar(saltenv, pillarenv, override)
}

// Decrypt runs a decryption renderer locally.
func (r remotePillar) Decrypt(opts *value.Map, data any, renderer string, translateNewlines bool) (any, error) {
	return r.local.Decrypt(opts, data, renderer, translateNewlines)
}

// Attach wires ctx to the master: the file cache (synced first) becomes
// the file roots and ctx.Files, and pillar comes from the master (fresh
// when freshPillar, else the cached one).
func (s *Session) Attach(ctx *execmod.Context, syncFiles, freshPillar bool) error {
	if syncFiles {
		roots, err := s.SyncFiles()
		if err != nil {
			return fmt.Errorf("syncing files from the master: %w", err)
		}
		ctx.Opts.Set("file_roots", roots)
	}
	ctx.Files = &execmod.CachedFiles{Src: fileserver.New(mapOpt(ctx.Opts, "file_roots")), Cachedir: optString(ctx.Opts, "cachedir")}
	ctx.SetService("pillar", remotePillar{s: s, local: pillar.Service{Renderers: pillar.Renderers{Salt: ctx.Callable, Services: map[string]any{"execmod": ctx}}}})
	ctx.SetService("event", eventService{s: s})
	ctx.SetService(cpPushService, pushService{s: s})
	ctx.SetService("mine", mineService{s: s})          // mine.go
	ctx.SetService(peerServiceName, peerService{s: s}) // peer.go
	if freshPillar {
		p, err := s.Pillar(ctx.Saltenv, ctx.Pillarenv, nil)
		if err != nil {
			return fmt.Errorf("fetching pillar from the master: %w", err)
		}
		ctx.Pillar = p
	} else {
		ctx.Pillar = s.CachedPillar()
	}
	return nil
}

func mapOpt(opts *value.Map, k string) *value.Map {
	v, _ := opts.Get(k)
	if m, ok := v.(*value.Map); ok {
		return m
	}
	return value.NewMap(0)
}

// needsFiles reports whether fun may read salt:// files: the state
// system, file and cp functions, templates.
func needsFiles(fun string) bool {
	for _, p := range []string{"state.", "cp.", "file.", "slsutil.", "cmd.script", "jinja.", "saltutil.sync"} {
		if strings.HasPrefix(fun, p) {
			return true
		}
	}
	return false
}

// needsPillar reports whether fun runs with a freshly compiled pillar, as
// Salt's state system and pillar functions do. (saltutil.refresh_pillar
// fetches it itself, through the pillarRefresh service.)
func needsPillar(fun string) bool {
	return strings.HasPrefix(fun, "state.") || fun == "pillar.items" || fun == "pillar.data"
}

// Execute runs one job through the execution functions, as `brine call`
// runs a function, and returns the minion's return.
func (s *Session) Execute(job proto.Job) proto.Return {
	ret, _ := s.execute(job)
	return ret
}

// execute is Execute; it also reports whether the job refreshed the
// in-memory pillar (saltutil.refresh_pillar).
func (s *Session) execute(job proto.Job) (proto.Return, bool) {
	var refreshed atomic.Bool
	ret := s.run(job, &refreshed)
	return ret, refreshed.Load()
}

func (s *Session) run(job proto.Job, refreshed *atomic.Bool) proto.Return {
	ret := proto.Return{V: proto.Version, JID: job.JID, ID: s.minionID(), Fun: job.Fun, FunArgs: job.Arg}
	finish := func(v any, rc int) proto.Return {
		ret.Return = proto.ValueJSON{V: v}
		ret.Retcode = rc
		ret.Success = rc == 0
		ret.TS = time.Now().UnixNano()
		return ret
	}
	opts := s.Opts.Copy()
	opts.Set("jid", job.JID)
	ctx := execmod.NewContext()
	ctx.Opts = opts
	ctx.Grains = s.CurrentGrains()
	ctx.Saltenv = optString(opts, "saltenv")
	ctx.Pillarenv = optString(opts, "pillarenv")
	ctx.Test = value.Truthy(mustGet(opts, "test"))
	ctx.SetService("config", config.FromMap(opts))
	ctx.SetService(pillarRefreshService, pillarRefresh{s: s, done: refreshed})
	defer endRun(ctx)
	if err := s.Attach(ctx, needsFiles(job.Fun), needsPillar(job.Fun)); err != nil {
		return finish("ERROR: "+err.Error(), 1)
	}
	if err := execmod.RunSetups(ctx); err != nil {
		return finish("ERROR: "+err.Error(), 1)
	}
	fn, ok := ctx.Lookup(job.Fun)
	if !ok {
		return finish(ctx.Registry.MissingMessage(job.Fun), 254)
	}
	if e := ctx.Registry.Entry(job.Fun); e != nil {
		ret.Out = e.Outputter
	}
	args := job.Arg.List()
	if err := execmod.CheckKwargs(ctx.Registry, job.Fun, job.Kwarg.Map()); err != nil {
		return finish(fmt.Sprintf("ERROR executing '%s': %s", job.Fun, err), 1)
	}
	// Salt's publication data: functions binding their arguments drop
	// it; cmd.* reads __pub_jid to default python_shell to True.
	kwargs := job.Kwarg.Map().Copy()
	kwargs.Set("__pub_user", job.User)
	kwargs.Set("__pub_arg", job.Arg.V)
	kwargs.Set("__pub_fun", job.Fun)
	kwargs.Set("__pub_jid", job.JID)
	kwargs.Set("__pub_tgt", job.Tgt)
	kwargs.Set("__pub_tgt_type", job.TgtType)
	kwargs.Set("__pub_ret", "")
	// what ran before the function (the pillar's rendering) used a loader
	// of its own in Salt: its retcode is not the job's (as in brine call)
	ctx.SetRetcode(0)
	v, err := safeCall(fn, ctx, args, kwargs)
	if err != nil {
		var te *execmod.TypeError
		var inv *execmod.InvocationError
		var cee *execmod.CommandExecutionError
		switch {
		case errors.As(err, &te):
			doc := ""
			if e := ctx.Registry.Entry(job.Fun); e != nil {
				doc = e.Doc
			}
			return finish(fmt.Sprintf("Passed invalid arguments to %s: %s\n%s", job.Fun, te.Msg, doc), 1)
		case errors.As(err, &inv):
			return finish(fmt.Sprintf("ERROR executing '%s': %s", job.Fun, inv.Msg), 1)
		case errors.As(err, &cee):
			return finish("ERROR: "+cee.Msg, 1)
		}
		return finish(fmt.Sprintf("The minion function caused an exception: %s", err), 1)
	}
	rc := ctx.Retcode()
	if rc == 0 {
		if m, isMap := v.(*value.Map); isMap {
			for _, k := range []string{"result", "success"} {
				if x, has := m.Get(k); has && !value.Truthy(x) {
					rc = 1
				}
			}
		}
	}
	return finish(v, rc)
}

// endRun closes what a job's run started that must not outlive it: the
// python3 worker of the Python extensions, which internal/pyext keeps as
// the run's "pyext" service (an io.Closer). A job process would end it by
// exiting; a minion running jobs in itself must not collect one per job.
func endRun(ctx *execmod.Context) {
	if c, ok := ctx.Service("pyext").(io.Closer); ok {
		_ = c.Close()
	}
}

// safeCall runs fn, turning a panic in a function into an error so one
// bad job cannot take the minion down.
func safeCall(fn execmod.Func, ctx *execmod.Context, args []any, kwargs *value.Map) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return fn(ctx, args, kwargs)
}

func mustGet(m *value.Map, k string) any { v, _ := m.Get(k); return v }
