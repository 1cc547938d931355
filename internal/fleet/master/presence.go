package master

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"brine/internal/fleet/proto"
)

// adminPresence answers which of the asked minions are not connected, so
// `brine run` can report a minion whose connection dropped mid-job
// without waiting for the timeout (Salt's "[Not connected]").
//
// With the embedded server the answer is the server's own subscription
// interest: a minion that is connected and serving has a subscription on
// its job subjects, which only its key may hold (MinionPermissions), and
// the server drops it the moment the connection closes. Asking the global
// account's subject index is a lookup per minion, with no allocation per
// connection. The two other ways nats-server offers cost more for the
// same answer: Connz, even with a user filter, copies the whole client
// map and allocates a ConnInfo for every connection on each call (with
// 10,000 minions and one call per asked id, quadratic work), and the
// system account's CONNECT/DISCONNECT events need a system-account user
// for the master and a table kept in step with them from start-up.
//
// With an external server the master may not read the server's state;
// it asks its own account's connection list ($SYS.REQ.ACCOUNT.PING.CONNZ,
// which every account imports when the server has a system account) and
// answers "unknown" when nobody replies, so the client falls back to
// asking the minions (saltutil.find_job).
func (m *Master) adminPresence(body json.RawMessage) (any, error) {
	var req proto.PresenceRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	rep := proto.PresenceReply{Known: true}
	if m.ns != nil {
		acc := m.ns.GlobalAccount()
		for _, id := range req.IDs {
			if !acc.SubscriptionInterest(proto.JobSubject(id, "0")) {
				rep.Absent = append(rep.Absent, id)
			}
		}
		return rep, nil
	}
	users, ok := m.presence.connectedUsers(m.nc)
	if !ok {
		return proto.PresenceReply{}, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range req.IDs {
		if k, ok := m.accepted[id]; !ok || !users[k] {
			rep.Absent = append(rep.Absent, id)
		}
	}
	return rep, nil
}

// extPresence caches the connected users of an external server for a
// moment, so that several clients polling at once cost one listing.
type extPresence struct {
	mu    sync.Mutex
	at    time.Time
	users map[string]bool
	ok    bool
}

// connzSubject lists the requesting account's connections, on every
// server of the cluster (each answers for its own).
const connzSubject = "$SYS.REQ.ACCOUNT.PING.CONNZ"

// connectedUsers returns the authorized users (nkey public keys) of the
// account's open connections, gathered from every server that answers
// within a short window; ok is false when none does.
func (p *extPresence) connectedUsers(nc *nats.Conn) (map[string]bool, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.at) < 900*time.Millisecond {
		return p.users, p.ok
	}
	p.users, p.ok = listConnections(nc)
	p.at = time.Now()
	return p.users, p.ok
}

func listConnections(nc *nats.Conn) (map[string]bool, bool) {
	inbox := nc.NewRespInbox()
	ch := make(chan *nats.Msg, 64)
	sub, err := nc.ChanSubscribe(inbox, ch)
	if err != nil {
		return nil, false
	}
	defer func() { _ = sub.Unsubscribe() }()
	req, _ := json.Marshal(map[string]any{"auth": true, "limit": 1 << 30})
	if err := nc.PublishRequest(connzSubject, inbox, req); err != nil {
		return nil, false
	}
	users := map[string]bool{}
	answered := false
	overall := time.NewTimer(2 * time.Second)
	defer overall.Stop()
	quiet := time.NewTimer(time.Hour)
	defer quiet.Stop()
	for {
		select {
		case msg := <-ch:
			var rep struct {
				Data *struct {
					Conns []struct {
						User string `json:"authorized_user"`
					} `json:"connections"`
				} `json:"data"`
			}
			if json.Unmarshal(msg.Data, &rep) != nil || rep.Data == nil {
				continue // an error reply, or no responders
			}
			answered = true
			for _, c := range rep.Data.Conns {
				users[c.User] = true
			}
			// The other servers of a cluster answer about as fast.
			quiet.Reset(300 * time.Millisecond)
		case <-quiet.C:
			return users, answered
		case <-overall.C:
			return users, answered
		}
	}
}
