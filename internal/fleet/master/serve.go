package master

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"brine/internal/execmod"
	"brine/internal/fleet/keys"
	"brine/internal/fleet/proto"
	"brine/internal/pillar"
	"brine/internal/value"
)

type handler func(id string, body json.RawMessage) (any, error)

// queued is a minion request waiting for a worker.
type queued struct {
	msg *nats.Msg
	id  string
}

func (m *Master) handlers() map[string]handler {
	return map[string]handler{
		proto.ReqHello:   m.handleHello,
		proto.ReqPillar:  m.handlePillar,
		proto.ReqFiles:   m.handleFiles,
		proto.ReqFile:    m.handleFile,
		proto.ReqCatchup: m.handleCatchup,
		proto.ReqReturn:  m.handleReturn,

		proto.ReqMine:        m.handleMine,        // mine.go
		proto.ReqSchedReturn: m.handleSchedReturn, // schedret.go
		proto.ReqPush:        m.handlePush,        // cp.go

		proto.ReqPeerPub:    m.handlePeerPub, // peer.go
		proto.ReqPeerRet:    m.handlePeerRet,
		proto.ReqPeerRun:    m.handlePeerRun,
		proto.ReqRevokeAuth: m.handleRevokeAuth,
	}
}

// subscribe starts serving key requests, minion requests and the
// administrative requests.
func (m *Master) subscribe() error {
	if err := m.subscribeKeyRequests(); err != nil {
		return err
	}
	if err := m.startEventReturn(); err != nil { // returners.go
		return err
	}
	// Returns wait on JetStream, not on the CPU: they get a pool of their
	// own, wide enough that a thousand minions answering at once are not
	// queued behind a few workers, nor behind pillar compilations.
	work := make(chan queued, 8192)
	rets := make(chan queued, 8192)
	hs := m.handlers()
	serve := func(ch chan queued, n int) {
		for range n {
			m.wg.Add(1)
			go func() {
				defer m.wg.Done()
				for {
					select {
					case <-m.stop:
						return
					case q := <-ch:
						m.serveRequest(hs, q.msg)
						m.reqs.leave(q.id)
					}
				}
			}()
		}
	}
	serve(work, max(4, 2*runtime.GOMAXPROCS(0)))
	serve(rets, 64)
	m.wg.Add(1)
	go m.logRefusals()
	// The callback never blocks: a request is queued, within its
	// minion's bounds (guard.go), or dropped at once (the minion's
	// request times out and it asks again), so a flooding minion costs
	// neither memory nor the other minions' service.
	sub, err := m.nc.QueueSubscribe(proto.ReqWildcard, "brine-master", func(msg *nats.Msg) {
		id, kind, err := proto.ParseReqSubject(msg.Subject)
		if err != nil {
			return
		}
		ch, limit := work, reqInflight
		if kind == proto.ReqReturn {
			ch, limit = rets, retInflight
		} else if len(msg.Data) > reqMaxBody {
			m.refused(id, "dropped request larger than allowed", "kind", kind, "bytes", len(msg.Data))
			return
		}
		if !m.reqs.enter(id, limit) {
			m.refused(id, "dropped request: too many of this minion's requests at once", "kind", kind)
			return
		}
		select {
		case ch <- queued{msg: msg, id: id}:
		default:
			m.reqs.leave(id)
			m.refused(id, "dropped request: the master's queue is full", "kind", kind)
		}
	})
	if err != nil {
		return err
	}
	_ = sub.SetPendingLimits(1<<16, 256<<20)
	admin := map[string]func(body json.RawMessage) (any, error){
		proto.AdminPublish: m.adminPublish,
		proto.AdminResolve: m.adminResolve,
		proto.AdminKeys:    func(json.RawMessage) (any, error) { return nil, m.ReloadKeys() },

		proto.AdminPresence: m.adminPresence, // presence.go
		proto.AdminMine:     m.adminMine,     // mine.go
	}
	for kind, h := range admin {
		if _, err := m.nc.Subscribe(proto.AdminSubject(kind), func(msg *nats.Msg) {
			var req proto.Request
			if err := json.Unmarshal(msg.Data, &req); err != nil {
				return
			}
			res, err := h(req.Body)
			m.respond(msg, "", req.Nonce, res, err)
		}); err != nil {
			return err
		}
	}
	return m.nc.Flush()
}

// respond signs and sends the reply to a request. It publishes only on a
// reply subject under allowed (when allowed is not empty): the master's
// connection may publish anywhere, JetStream's API and buckets included,
// so a reply subject chosen by a minion must never steer it outside the
// inbox that minion may itself subscribe to. Every reply to a minion goes
// through here with that minion's inbox prefix.
func (m *Master) respond(msg *nats.Msg, allowed, nonce string, res any, err error) {
	if msg.Reply == "" {
		return
	}
	if allowed != "" && !strings.HasPrefix(msg.Reply, allowed) {
		m.Log.Warn("refused reply subject outside the requester's inbox", "subject", msg.Subject, "reply", msg.Reply)
		return
	}
	rep := proto.Reply{Nonce: nonce}
	if err != nil {
		rep.Error = err.Error()
	} else if res != nil {
		b, merr := json.Marshal(res)
		if merr != nil {
			rep.Error = merr.Error()
		} else {
			rep.Body = b
		}
	}
	data, serr := proto.Sign(m.Key, rep)
	if serr != nil {
		m.Log.Error("signing reply", "err", serr)
		return
	}
	_ = msg.Respond(data)
}

// serveRequest authenticates one minion request (the id comes from the
// subject, which only that minion may publish to; the nonce and time must
// be fresh; the reply subject must lie in that minion's inbox) and runs
// its handler. A request whose reply subject lies elsewhere is dropped
// before its handler runs: it is an attempt to have the master write
// where the minion may not (another minion's return slot, a job record).
func (m *Master) serveRequest(hs map[string]handler, msg *nats.Msg) {
	id, kind, err := proto.ParseReqSubject(msg.Subject)
	if err != nil {
		return
	}
	inbox := proto.InboxPrefix(id) + "."
	if msg.Reply != "" && !strings.HasPrefix(msg.Reply, inbox) {
		m.refused(id, "refused request with a reply subject outside the minion's inbox", "kind", kind, "reply", msg.Reply)
		return
	}
	var req proto.Request
	if err := json.Unmarshal(msg.Data, &req); err != nil || req.V != proto.Version {
		m.respond(msg, inbox, req.Nonce, nil, errors.New("bad request"))
		return
	}
	if err := m.guard.Check(id+"\x00"+req.Nonce, time.Unix(0, req.TS), time.Now()); err != nil {
		m.refused(id, "refused request", "kind", kind, "err", err.Error())
		m.respond(msg, inbox, req.Nonce, nil, err)
		return
	}
	h, ok := hs[kind]
	if !ok {
		m.respond(msg, inbox, req.Nonce, nil, fmt.Errorf("unknown request %q", kind))
		return
	}
	res, err := h(id, req.Body)
	m.respond(msg, inbox, req.Nonce, res, err)
}

func (m *Master) handleHello(id string, body json.RawMessage) (any, error) {
	var req proto.HelloRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	if err := checkEnvs(req.Saltenv, req.Pillarenv); err != nil {
		return nil, err
	}
	grains := req.Grains.Map()
	m.mu.Lock()
	pub := m.accepted[id]
	m.mu.Unlock()
	m.fireAuth(id, pub, keys.Accepted)
	p, err := m.CompilePillar(id, grains, req.Saltenv, req.Pillarenv, nil)
	if err != nil {
		return nil, err
	}
	m.remember(id, grains, p)
	return proto.PillarReply{Pillar: proto.ValueJSON{V: p}}, nil
}

func (m *Master) handlePillar(id string, body json.RawMessage) (any, error) {
	var req proto.PillarRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	if err := checkEnvs(req.Saltenv, req.Pillarenv); err != nil {
		return nil, err
	}
	grains := req.Grains.Map()
	var override *value.Map
	if req.Override != nil {
		override = req.Override.Map()
	}
	p, err := m.CompilePillar(id, grains, req.Saltenv, req.Pillarenv, override)
	if err != nil {
		return nil, err
	}
	if override == nil && req.Pillarenv == "" {
		m.remember(id, grains, p)
	}
	return proto.PillarReply{Pillar: proto.ValueJSON{V: p}}, nil
}

// checkEnvs refuses a saltenv or pillarenv a minion sent that could not
// name an environment: with __env__ in pillar_roots, it would become part
// of a path on the master.
func checkEnvs(envs ...string) error {
	for _, e := range envs {
		if e != "" && !ValidEnv(e) {
			return fmt.Errorf("invalid environment %q", e)
		}
	}
	return nil
}

// CompilePillar compiles the pillar of minion id on the master, with the
// master's pillar options and roots and the grains the minion reported.
func (m *Master) CompilePillar(id string, grains *value.Map, saltenv, pillarenv string, override *value.Map) (*value.Map, error) {
	opts := m.Opts.Copy()
	opts.Set("id", id)
	opts.Set("__role", "minion")
	ctx := execmod.NewContext()
	ctx.Opts = opts
	ctx.Grains = grains
	ctx.Files = m.Files.Roots
	svc := pillar.Service{Renderers: pillar.Renderers{Salt: ctx.Callable, Services: map[string]any{"execmod": ctx}}}
	ctx.SetService("pillar", svc)
	return svc.Compile(opts, grains, id, saltenv, pillarenv, override, nil)
}

// remember caches a minion's grains and pillar for targeting, in memory
// and in the minion bucket.
func (m *Master) remember(id string, grains, pil *value.Map) {
	m.mu.Lock()
	m.cache[id] = &MinionData{Grains: grains, Pillar: pil}
	m.mu.Unlock()
	data := value.MapOf("grains", grains, "pillar", pil)
	b, _ := json.Marshal(proto.ValueJSON{V: data})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := m.minions.Put(ctx, proto.Token(id), b); err != nil {
		m.Log.Warn("caching minion data", "minion", id, "err", err)
	}
}

// loadMinionCache reads the minion bucket at start-up.
func (m *Master) loadMinionCache() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, err := m.minions.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return
	}
	defer w.Stop()
	for e := range w.Updates() {
		if e == nil {
			return
		}
		id, err := proto.IDFromToken(e.Key())
		if err != nil {
			continue
		}
		var v proto.ValueJSON
		if json.Unmarshal(e.Value(), &v) != nil {
			continue
		}
		d := v.Map()
		g, _ := d.Get("grains")
		p, _ := d.Get("pillar")
		gm, _ := g.(*value.Map)
		pm, _ := p.(*value.Map)
		m.mu.Lock()
		m.cache[id] = &MinionData{Grains: gm, Pillar: pm}
		m.mu.Unlock()
	}
}

func (m *Master) handleFiles(_ string, body json.RawMessage) (any, error) {
	var req proto.FilesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	envs := []string{req.Saltenv}
	if req.Saltenv == "" {
		envs = nil
		for _, e := range m.Files.Roots.Envs() {
			if ValidEnv(e) && e != "__env__" {
				envs = append(envs, e)
			}
		}
	}
	rep := proto.FilesReply{Envs: envs, Files: map[string][]proto.FileInfo{}}
	for _, e := range envs {
		list, err := m.Files.Manifest(e)
		if err != nil {
			return nil, err
		}
		rep.Files[e] = list
	}
	return rep, nil
}

func (m *Master) handleFile(id string, body json.RawMessage) (any, error) {
	var req proto.FileRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	data, size, err := m.Files.ReadChunk(req.Saltenv, req.Path, req.Offset)
	if err != nil {
		if errors.Is(err, ErrRefused) {
			m.refused(id, "refused file request", "path", req.Path, "err", err.Error())
		}
		return nil, err
	}
	return proto.FileReply{Data: data, Size: size}, nil
}
