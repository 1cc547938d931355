package client

import (
	"context"
	"sort"

	"brine/internal/fleet/proto"
)

// CmdResult is what Cmd gathered for one published job.
type CmdResult struct {
	JID     string
	Minions []string                // the minions the job went to, sorted
	Returns map[string]proto.Return // by minion id
	Failed  []Failed                // the minions given up on, sorted by id
}

// Cmd publishes req and waits for the returns as the salt command does
// (see Wait): Salt's LocalClient.cmd as runners and orchestration use it.
// A target that selects no minion publishes nothing and gives an empty
// result with no job id.
func (c *Client) Cmd(ctx context.Context, req proto.PublishRequest, o WaitOptions) (CmdResult, error) {
	var res CmdResult
	rep, err := c.Publish(req)
	if err != nil {
		return res, err
	}
	res.JID = rep.JID
	res.Minions = append([]string(nil), rep.Minions...)
	sort.Strings(res.Minions)
	if len(rep.Minions) == 0 {
		res.Returns = map[string]proto.Return{}
		return res, nil
	}
	got, failed, err := c.Wait(ctx, rep.JID, rep.Minions, o)
	if err != nil {
		return res, err
	}
	// A minion may be given up on and still return before the end.
	seen := map[string]bool{}
	for _, f := range failed {
		if _, ok := got[f.ID]; !ok && !seen[f.ID] {
			seen[f.ID] = true
			res.Failed = append(res.Failed, f)
		}
	}
	// Minions the wait ended without (ctx ended) count as not returned.
	for _, id := range res.Minions {
		if _, ok := got[id]; !ok && !seen[id] {
			seen[id] = true
			res.Failed = append(res.Failed, Failed{ID: id, Why: NoResponse})
		}
	}
	sort.Slice(res.Failed, func(i, j int) bool { return res.Failed[i].ID < res.Failed[j].ID })
	res.Returns = got
	return res, nil
}
