package master

// peer.go is Salt's peer communication (salt/daemons/masterapi.py:
// minion_pub, pub_ret, minion_runner and revoke_auth, with
// salt/utils/minions.py's auth_check): a minion publishes jobs to other
// minions only as the master's peer option allows, runs runners only as
// peer_run allows, reads only the returns of jobs it published, and
// deletes only its own key (when allow_minion_key_revoke is on). The
// requester is always the minion of the request subject.

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// peerJobs remembers which minion published which job (Salt's
// cachedir/publish_auth/<jid> files), per master.
var peerJobs sync.Map // *Master -> *peerBook

type peerBook struct {
	mu   sync.Mutex
	jobs map[string]peerJob
}

type peerJob struct {
	id      string
	minions []string
	at      time.Time
}

// peerJobTTL bounds how long a publisher may read a job's returns.
const peerJobTTL = time.Hour

func (m *Master) peerBook() *peerBook {
	b, _ := peerJobs.LoadOrStore(m, &peerBook{jobs: map[string]peerJob{}})
	return b.(*peerBook)
}

func (b *peerBook) add(jid string, j peerJob) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k, old := range b.jobs {
		if j.at.Sub(old.at) > peerJobTTL {
			delete(b.jobs, k)
		}
	}
	b.jobs[jid] = j
}

func (b *peerBook) get(jid string) (peerJob, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	j, ok := b.jobs[jid]
	return j, ok
}

// pyMatch is Python's re.match: the pattern anchored at the start only.
// A pattern Go cannot compile matches nothing.
func pyMatch(pat, s string) bool {
	re, err := regexp.Compile(`\A(?:` + pat + `)`)
	return err == nil && re.MatchString(s)
}

// peerPerms gathers the entries of option opt (peer or peer_run) whose
// minion regex matches id; ok is false when the option is not a mapping.
func (m *Master) peerPerms(opt, id string) (perms []any, ok bool) {
	v, _ := m.Opts.Get(opt)
	conf, isMap := v.(*value.Map)
	if !isMap {
		return nil, false
	}
	conf.Range(func(k, v any) bool {
		if l, isList := v.(*value.List); isList && pyMatch(value.Str(k), id) {
			perms = append(perms, l.Items...)
		}
		return true
	})
	return perms, true
}

// peerAllowed is Salt's __verify_minion_publish: no publish.* functions
// (no publication loops), no target whose pillar globbing or regexes
// select more minions than exact matching would, and a peer entry that
// allows fun: a function regex, or {target: [function regexes]} whose
// target (compound) covers every minion the job selects.
func (m *Master) peerAllowed(id string, req proto.PeerPubRequest) bool {
	perms, ok := m.peerPerms("peer", id)
	if !ok || pyMatch("publish.*", req.Fun) || strings.Contains(req.Fun, ",") {
		return false
	}
	minions, err := m.Resolve(req.Tgt, req.TgtType)
	if err != nil {
		return false
	}
	var exact []string
	switch strings.ToLower(req.TgtType) {
	case "pillar", "pillar_pcre":
		exact, err = m.Resolve(req.Tgt, "pillar_exact")
	case "compound":
		exact, err = m.Resolve(m.exactCompound(req.Tgt), "compound")
	default:
		exact = minions
	}
	if err != nil || !subsetOf(minions, exact) {
		return false
	}
	for _, p := range perms {
		switch e := p.(type) {
		case string:
			if pyMatch(e, req.Fun) {
				return true
			}
		case *value.Map:
			if e.Len() != 1 {
				continue
			}
			k, funs := e.At(0)
			valid, err := m.Resolve(value.Str(k), "compound")
			if err != nil || !subsetOf(minions, valid) {
				continue
			}
			if l, isList := funs.(*value.List); isList {
				for _, f := range l.Items {
					// argument conditions ({fun: {args, kwargs}}) are not
					// supported: such an entry allows nothing
					if s, isStr := f.(string); isStr && pyMatch(s, req.Fun) {
						return true
					}
				}
			}
		}
	}
	return false
}

// exactCompound is the compound target tgt with its pillar terms (I@
// and J@) matched exactly, as Salt's compound_pillar_exact: each becomes
// the list (L@) of the minions whose pillar holds exactly that value.
func (m *Master) exactCompound(tgt string) string {
	words := strings.Fields(tgt)
	for i, w := range words {
		core := strings.TrimLeft(w, "(")
		lead := w[:len(w)-len(core)]
		core = strings.TrimRight(core, ")")
		trail := w[len(lead)+len(core):]
		if !strings.HasPrefix(core, "I@") && !strings.HasPrefix(core, "J@") {
			continue
		}
		ids, err := m.Resolve(core[2:], "pillar_exact")
		if err != nil || len(ids) == 0 {
			ids = []string{"\x00"} // an id no minion can have: matches none
		}
		words[i] = lead + "L@" + strings.Join(ids, ",") + trail
	}
	return strings.Join(words, " ")
}

func subsetOf(a, b []string) bool {
	in := make(map[string]bool, len(b))
	for _, x := range b {
		in[x] = true
	}
	for _, x := range a {
		if !in[x] {
			return false
		}
	}
	return true
}

// handlePeerPub is Salt's minion_pub: publish the job when the peer
// option allows it, and remember its publisher. A refused publication
// is an empty reply, as Salt's {}.
func (m *Master) handlePeerPub(id string, body json.RawMessage) (any, error) {
	var req proto.PeerPubRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	if req.TgtType == "" {
		req.TgtType = "glob"
	}
	if !m.peerAllowed(id, req) {
		m.refused(id, "refused peer publication", "fun", req.Fun, "tgt", req.Tgt)
		return proto.PeerPubReply{}, nil
	}
	if strings.HasPrefix(req.TgtType, "node") {
		groups, _ := m.Opts.Get("nodegroups")
		g, _ := groups.(*value.Map)
		if g == nil || !g.Has(req.Tgt) {
			return proto.PeerPubReply{}, nil
		}
	}
	pub, err := m.Publish(proto.PublishRequest{Tgt: req.Tgt, TgtType: req.TgtType, Fun: req.Fun,
		Arg: req.Arg, Kwarg: req.Kwarg, User: masterUser(), ReturnSpec: proto.ReturnSpec{Ret: req.Ret}})
	if err != nil {
		return nil, err
	}
	if pub.JID != "" {
		m.peerBook().add(pub.JID, peerJob{id: id, minions: pub.Minions, at: time.Now()})
	}
	m.Log.Info("peer publication", "minion", id, "fun", req.Fun, "jid", pub.JID, "minions", len(pub.Minions))
	return proto.PeerPubReply(pub), nil
}

// masterUser is the user the master runs as: Salt's LocalClient
// publishes peer jobs as its salt_user, not as the requesting minion.
func masterUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}

// handlePeerRet is Salt's pub_ret: the returns so far of a job the
// requester published, {minion: {ret, out}}; nothing for another's job.
func (m *Master) handlePeerRet(id string, body json.RawMessage) (any, error) {
	var req proto.PeerRetRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	out := value.NewMap(0)
	job, ok := m.peerBook().get(req.JID)
	if !ok || job.id != id {
		if req.JID != "" {
			m.refused(id, "refused the returns of a job it did not publish", "jid", req.JID)
		}
		return proto.PeerRetReply{Returns: proto.ValueJSON{V: out}}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, mid := range job.minions {
		e, err := m.rets.Get(ctx, proto.ReturnKey(req.JID, mid))
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var ret proto.Return
		if json.Unmarshal(e.Value(), &ret) != nil || ret.ID != mid {
			continue
		}
		d := value.MapOf("ret", ret.Return.V)
		if ret.Out != "" {
			d.Set("out", ret.Out)
		}
		out.Set(mid, d)
	}
	return proto.PeerRetReply{Returns: proto.ValueJSON{V: out}}, nil
}

// handlePeerRun is Salt's minion_runner: run the runner when a peer_run
// entry for the requester matches fun; {} otherwise.
func (m *Master) handlePeerRun(id string, body json.RawMessage) (any, error) {
	var req proto.PeerRunRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	empty := proto.PeerRunReply{Return: proto.ValueJSON{V: value.NewMap(0)}}
	perms, ok := m.peerPerms("peer_run", id)
	if !ok {
		return empty, nil
	}
	good := false
	for _, p := range perms {
		if s, isStr := p.(string); isStr && pyMatch(s, req.Fun) {
			good = true
		}
	}
	if !good {
		m.refused(id, "refused peer runner", "fun", req.Fun)
		return empty, nil
	}
	if m.Runner == nil {
		return nil, errors.New("this master runs no runners")
	}
	var args []any
	if l, isList := req.Arg.V.(*value.List); isList {
		args = l.Items
	}
	kw, _ := req.Kwarg.V.(*value.Map)
	if kw == nil {
		kw = value.NewMap(0)
	}
	ret, err := m.Runner.CallRunner(context.Background(), req.Fun, args, kw)
	if err != nil {
		return nil, err
	}
	m.Log.Info("peer runner", "minion", id, "fun", req.Fun)
	return proto.PeerRunReply{Return: proto.ValueJSON{V: ret}}, nil
}

// handleRevokeAuth is Salt's revoke_auth: delete the requester's own key
// when allow_minion_key_revoke is on (Salt's default), and unless
// preserve_minion_cache, what the master caches of it. The accepted keys
// are reloaded after the reply is sent: the reload closes the
// requester's connection.
func (m *Master) handleRevokeAuth(id string, body json.RawMessage) (any, error) {
	var req proto.RevokeAuthRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	if v, ok := m.Opts.Get("allow_minion_key_revoke"); ok && !value.Truthy(v) {
		m.Log.Warn("minion requested key revoke, but allow_minion_key_revoke is set to False", "minion", id)
		return nil, nil
	}
	if err := m.Store.Delete(id); err != nil {
		return nil, err
	}
	if !req.PreserveMinionCache {
		m.mu.Lock()
		delete(m.cache, id)
		m.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = m.minions.Delete(ctx, proto.Token(id))
		cancel()
		_ = os.RemoveAll(filepath.Join(optString(m.Opts, "cachedir"), "minions", id))
	}
	m.Log.Info("minion revoked its own key", "minion", id)
	time.AfterFunc(200*time.Millisecond, func() {
		if err := m.ReloadKeys(); err != nil {
			m.Log.Warn("reloading keys after revoke_auth", "err", err)
		}
	})
	return nil, nil
}
