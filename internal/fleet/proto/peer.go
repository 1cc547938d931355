package proto

// Peer communication (Salt's minion_pub, pub_ret, minion_runner and
// revoke_auth loads): a minion asks the master to publish a job to other
// minions, to read the returns of a job it published, to run a runner, or
// to delete its own key. The master takes the requester from the request
// subject and checks its peer and peer_run options; nothing in a body can
// name another minion.

// Request kinds of peer communication.
const (
	// ReqPeerPub carries a PeerPubRequest, answered with a PeerPubReply.
	ReqPeerPub = "peer_pub"
	// ReqPeerRet carries a PeerRetRequest, answered with a PeerRetReply.
	ReqPeerRet = "peer_ret"
	// ReqPeerRun carries a PeerRunRequest, answered with a PeerRunReply.
	ReqPeerRun = "peer_run"
	// ReqRevokeAuth carries a RevokeAuthRequest (no reply body).
	ReqRevokeAuth = "revoke_auth"
)

type (
	// PeerPubRequest is a job a minion publishes (publish.publish); Ret
	// names returners the targets also send their returns to. Timeout is
	// how long the publisher waits (the master, as Salt's, ignores it).
	PeerPubRequest struct {
		Tgt     string    `json:"tgt"`
		TgtType string    `json:"tgt_type"`
		Fun     string    `json:"fun"`
		Arg     ValueJSON `json:"arg"`
		Kwarg   ValueJSON `json:"kwarg"`
		Ret     string    `json:"ret,omitempty"`
		Timeout float64   `json:"timeout,omitempty"`
	}
	// PeerPubReply is the job id and the minions it went to; both empty
	// when the master's peer option does not allow the publication.
	PeerPubReply struct {
		JID     string   `json:"jid,omitempty"`
		Minions []string `json:"minions,omitempty"`
	}
	// PeerRetRequest asks for the returns of a job the minion published.
	PeerRetRequest struct {
		JID string `json:"jid"`
	}
	// PeerRetReply maps the minions that returned to {ret, out}
	// (Salt's get_cache_returns); empty for a job of another publisher.
	PeerRetReply struct {
		Returns ValueJSON `json:"returns"`
	}
	// PeerRunRequest is a runner a minion runs on the master
	// (publish.runner).
	PeerRunRequest struct {
		Fun   string    `json:"fun"`
		Arg   ValueJSON `json:"arg"`
		Kwarg ValueJSON `json:"kwarg"`
	}
	// PeerRunReply is the runner's return ({} when peer_run does not
	// allow it).
	PeerRunReply struct {
		Return ValueJSON `json:"return"`
	}
	// RevokeAuthRequest asks the master to delete the requester's key.
	RevokeAuthRequest struct {
		PreserveMinionCache bool `json:"preserve_minion_cache,omitempty"`
	}
)
