package proto

// ReturnSpec names the returners a job's minions run after the job, with
// their configuration: Salt's ret, ret_config and ret_kwargs of a
// publication (`salt --return NAME[,NAME] --return_config ALT
// --return_kwargs '{...}'`). It is embedded in PublishRequest and Job.
type ReturnSpec struct {
	Ret       string     `json:"ret,omitempty"`
	RetConfig string     `json:"ret_config,omitempty"`
	RetKwargs *ValueJSON `json:"ret_kwargs,omitempty"`
}

// ReqPush carries a piece of a file a minion sends to the master (Salt's
// _file_recv, cp.push): a PushRequest, answered with nothing. The master
// stores it under cachedir/minions/<id>/files only with file_recv: True.
const ReqPush = "push"

// PushRequest is one piece of a pushed file.
type PushRequest struct {
	// Path is the file's path below the minion's directory, one element
	// per item (Salt's load["path"] list).
	Path []string `json:"path"`
	// Size is the whole file's size; Loc the offset of Data in it.
	Size int64  `json:"size"`
	Loc  int64  `json:"loc"`
	Data []byte `json:"data"`
}
