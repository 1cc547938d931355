package proto

// The mine and the scheduler's returns travel as minion requests like the
// others (brine.req.<tok>.<kind>): the master checks and stores them, so a
// minion never touches JetStream, and writes only what belongs to it.

// Request kinds of the mine and the scheduler.
const (
	// ReqMine carries a MineRequest: store, delete or flush the
	// minion's own mine data, or get mine data (as Salt's _mine,
	// _mine_delete, _mine_flush and _mine_get loads).
	ReqMine = "mine"
	// ReqSchedReturn carries a SchedReturn: the return of a job the
	// minion's scheduler ran. The master gives it a job id and stores a
	// job record and the return (Salt's jid "req").
	ReqSchedReturn = "schedret"
)

// MineBucket is the JetStream key-value bucket of mine data: key <tok>,
// value the minion's function -> data mapping (JSON).
const MineBucket = "BRINE_MINE"

// Mine operations.
const (
	MineStore  = "store"
	MineDelete = "delete"
	MineFlush  = "flush"
	MineGet    = "get"
)

// MineRequest is one mine operation of a minion. The minion is the one
// the request subject names: nothing in the body can name another.
type MineRequest struct {
	Op string `json:"op"`
	// Data (store) maps function names (or aliases) to their data.
	Data ValueJSON `json:"data,omitzero"`
	// Clear (store) replaces the minion's mine data instead of updating it.
	Clear bool `json:"clear,omitempty"`
	// Fun (delete, get) is a function name; for get also a
	// comma-separated string or a list of names.
	Fun ValueJSON `json:"fun,omitzero"`
	// Tgt and TgtType (get) select the minions whose data is read.
	Tgt     string `json:"tgt,omitempty"`
	TgtType string `json:"tgt_type,omitempty"`
}

// MineReply is the result of a mine operation: true or false for store,
// delete and flush, the mapping Salt's mine.get returns for get.
type MineReply struct {
	Result ValueJSON `json:"result"`
}

// SchedReturn is a scheduled job's return. Return.JID is ignored (the
// master assigns one); NoCache asks the master not to store it (Salt's
// return_job: nocache).
type SchedReturn struct {
	Return   Return `json:"return"`
	Schedule string `json:"schedule"`
	NoCache  bool   `json:"nocache,omitempty"`
}

// SchedReturnReply names the job id the master gave the return.
type SchedReturnReply struct {
	JID string `json:"jid"`
}

// AdminMine asks the master for mine data as its own minion would (the
// mine.get runner): a MineAdminRequest, answered with a MineReply.
const AdminMine = "mine"

// MineAdminRequest is a mine.get from an administrative client: Requester
// is the id the master's mine_get and allow_tgt rules are checked for
// (the runner passes the master's own minion id, as Salt's runner does).
type MineAdminRequest struct {
	Requester string    `json:"requester"`
	Fun       ValueJSON `json:"fun"`
	Tgt       string    `json:"tgt"`
	TgtType   string    `json:"tgt_type,omitempty"`
}
