package minion

import (
	"time"

	"brine/internal/fleet/proto"
)

// cpPushService is the name the modules package looks the cp.push
// service up by.
const cpPushService = "cp_push"

// pushService sends the pieces of a file cp.push reads to the master
// (satisfies the modules package's FilePusher).
type pushService struct{ s *Session }

// PushChunkMax is the largest piece one push request carries: minion
// requests other than returns are bounded by the master (1 MiB, with the
// base64 of the data and the envelope).
const PushChunkMax = 512 << 10

// PushFile sends one piece of the file at path (below the minion's
// directory on the master), size bytes in all, data at offset loc.
func (p pushService) PushFile(path []string, size, loc int64, data []byte) error {
	c, err := p.s.conn()
	if err != nil {
		return err
	}
	return c.Request(proto.ReqPush, proto.PushRequest{Path: path, Size: size, Loc: loc, Data: data}, nil, 60*time.Second)
}

// MaxChunk is the largest piece PushFile may be given.
func (pushService) MaxChunk() int { return PushChunkMax }
