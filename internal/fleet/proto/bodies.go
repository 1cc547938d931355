package proto

import "encoding/json"

// Bodies of minion requests and their replies.
type (
	// HelloRequest announces a minion and its grains.
	HelloRequest struct {
		Grains    ValueJSON `json:"grains"`
		Saltenv   string    `json:"saltenv,omitempty"`
		Pillarenv string    `json:"pillarenv,omitempty"`
	}
	// PillarRequest asks for a fresh pillar.
	PillarRequest struct {
		Grains    ValueJSON  `json:"grains"`
		Saltenv   string     `json:"saltenv,omitempty"`
		Pillarenv string     `json:"pillarenv,omitempty"`
		Override  *ValueJSON `json:"override,omitempty"`
	}
	// PillarReply carries a pillar.
	PillarReply struct {
		Pillar ValueJSON `json:"pillar"`
	}
	// FilesRequest asks for the manifests of the file roots.
	FilesRequest struct {
		Saltenv string `json:"saltenv,omitempty"` // "" means every environment
	}
	// FilesReply lists environments and their files.
	FilesReply struct {
		Envs  []string              `json:"envs"`
		Files map[string][]FileInfo `json:"files"`
	}
	// FileRequest asks for a piece of one file.
	FileRequest struct {
		Saltenv string `json:"saltenv"`
		Path    string `json:"path"`
		Offset  int64  `json:"offset"`
	}
	// FileReply carries a piece of a file.
	FileReply struct {
		Data []byte `json:"data"`
		Size int64  `json:"size"`
	}
	// CatchupRequest asks for the jobs a minion missed since a time.
	CatchupRequest struct {
		Since int64 `json:"since"` // Unix nanoseconds; 0 means the whole window
	}
	// CatchupReply holds signed jobs, oldest first.
	CatchupReply struct {
		Jobs []json.RawMessage `json:"jobs"`
	}
)

// Bodies of administrative requests.
type (
	// PublishRequest asks the master to publish a job.
	PublishRequest struct {
		Tgt     string    `json:"tgt"`
		TgtType string    `json:"tgt_type"`
		Fun     string    `json:"fun"`
		Arg     ValueJSON `json:"arg"`
		Kwarg   ValueJSON `json:"kwarg"`
		User    string    `json:"user,omitempty"`
		Timeout float64   `json:"timeout,omitempty"`
		// ResolveOnly returns the minions without publishing.
		ResolveOnly bool `json:"resolve_only,omitempty"`
		ReturnSpec
	}
	// PublishReply is the job id and the minions it went to.
	PublishReply struct {
		JID     string   `json:"jid,omitempty"`
		Minions []string `json:"minions"`
	}
)

// FileInfo describes one file of a manifest.
type FileInfo struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Mode   uint32 `json:"mode"`
}

// AdminPresence asks the master which of some minions are connected (a
// PresenceRequest, answered with a PresenceReply). It is declared here,
// beside its bodies, rather than with the other kinds in proto.go.
const AdminPresence = "presence"

type (
	// PresenceRequest lists the minions whose presence is asked.
	PresenceRequest struct {
		IDs []string `json:"ids"`
	}
	// PresenceReply names those of the asked minions that are not
	// connected. Known is false when the master cannot tell (an external
	// NATS server that does not let it list connections): Absent is then
	// empty and means nothing.
	PresenceReply struct {
		Known  bool     `json:"known"`
		Absent []string `json:"absent,omitempty"`
	}
)
