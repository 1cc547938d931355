package minion

import (
	"os"
	"time"

	"brine/internal/fleet/keys"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// peerServiceName is the name the modules package looks the master
// service up by (modules.MasterServiceName).
const peerServiceName = "master"

// peerService is the "master" service of a run (modules.MasterService):
// peer publications, peer runners and key revocation, as requests over
// the minion's own connection. The master checks each against its peer,
// peer_run and allow_minion_key_revoke options for this minion.
type peerService struct{ s *Session }

func (p peerService) request(kind string, body, out any, timeout time.Duration) error {
	c, err := p.s.conn()
	if err != nil {
		return err
	}
	return c.Request(kind, body, out, timeout)
}

// Publish asks the master to publish a job; an empty jid means the
// master refused it.
func (p peerService) Publish(tgt, tgtType, fun string, arg []any, kwarg *value.Map, ret string, timeout float64) (string, []string, error) {
	var rep proto.PeerPubReply
	req := proto.PeerPubRequest{Tgt: tgt, TgtType: tgtType, Fun: fun, Arg: proto.ValueJSON{V: value.NewList(arg...)},
		Kwarg: proto.ValueJSON{V: kwarg}, Ret: ret, Timeout: timeout}
	if err := p.request(proto.ReqPeerPub, req, &rep, 30*time.Second); err != nil {
		return "", nil, err
	}
	return rep.JID, rep.Minions, nil
}

// Returns reads the returns so far of a job this minion published.
func (p peerService) Returns(jid string) (*value.Map, error) {
	var rep proto.PeerRetReply
	if err := p.request(proto.ReqPeerRet, proto.PeerRetRequest{JID: jid}, &rep, 30*time.Second); err != nil {
		return nil, err
	}
	if m, ok := rep.Returns.V.(*value.Map); ok {
		return m, nil
	}
	return value.NewMap(0), nil
}

// Runner runs a runner on the master and returns its return.
func (p peerService) Runner(fun string, arg []any, kwarg *value.Map, timeout time.Duration) (any, error) {
	var rep proto.PeerRunReply
	req := proto.PeerRunRequest{Fun: fun, Arg: proto.ValueJSON{V: value.NewList(arg...)}, Kwarg: proto.ValueJSON{V: kwarg}}
	if err := p.request(proto.ReqPeerRun, req, &rep, timeout); err != nil {
		return nil, err
	}
	return rep.Return.V, nil
}

// RevokeAuth asks the master to delete this minion's key.
func (p peerService) RevokeAuth(preserveMinionCache bool) error {
	return p.request(proto.ReqRevokeAuth, proto.RevokeAuthRequest{PreserveMinionCache: preserveMinionCache}, nil, 30*time.Second)
}

// RegenKey creates a new minion key at pki_dir/minion.nk (the files of
// pki_dir were removed by saltutil.regen_keys); the running minion keeps
// its connection until it restarts, as Salt's does.
func (p peerService) RegenKey(pki string) error {
	if err := os.MkdirAll(pki, 0o700); err != nil {
		return err
	}
	_, err := keys.LoadOrCreate(KeyPath(pki))
	return err
}
