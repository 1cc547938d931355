package client

import (
	"time"

	"brine/internal/fleet/proto"
)

// Mine asks the master for the mine data of the minions tgt selects, as
// the minion requester would see it (Salt's _mine_get).
func (c *Client) Mine(requester, tgt, tgtType string, fun any) (any, error) {
	var rep proto.MineReply
	err := c.request(proto.AdminMine, proto.MineAdminRequest{Requester: requester, Tgt: tgt, TgtType: tgtType, Fun: proto.ValueJSON{V: fun}}, &rep, 30*time.Second)
	return rep.Result.V, err
}
