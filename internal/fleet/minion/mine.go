package minion

import (
	"time"

	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// mineService is the "mine" service of a run (modules.MineService): the
// master's mine, reached with ReqMine requests over the minion's own
// connection (a job process dials it when first needed). The master
// takes the minion from the request subject: this minion's data is the
// only data these requests can write.
type mineService struct{ s *Session }

func (m mineService) request(req proto.MineRequest) (any, error) {
	c, err := m.s.conn()
	if err != nil {
		return nil, err
	}
	var rep proto.MineReply
	if err := c.Request(proto.ReqMine, req, &rep, 30*time.Second); err != nil {
		return nil, err
	}
	return rep.Result.V, nil
}

// MineStore stores (or with clear, replaces) the minion's mine data.
func (m mineService) MineStore(data *value.Map, clear bool) (any, error) {
	return m.request(proto.MineRequest{Op: proto.MineStore, Data: proto.ValueJSON{V: data}, Clear: clear})
}

// MineDelete removes one function's data.
func (m mineService) MineDelete(fun string) (any, error) {
	return m.request(proto.MineRequest{Op: proto.MineDelete, Fun: proto.ValueJSON{V: fun}})
}

// MineFlush removes all the minion's data.
func (m mineService) MineFlush() (any, error) {
	return m.request(proto.MineRequest{Op: proto.MineFlush})
}

// MineGet reads mine data as the master lets this minion.
func (m mineService) MineGet(tgt string, fun any, tgtType string) (any, error) {
	return m.request(proto.MineRequest{Op: proto.MineGet, Tgt: tgt, Fun: proto.ValueJSON{V: fun}, TgtType: tgtType})
}
