package runners

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"brine/internal/fleet/client"
	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// cmdSpec is a job to run on minions the way Salt's saltutil.cmd runs one
// from the master (LocalClient.cmd_iter with its keyword arguments).
type cmdSpec struct {
	tgt, tgtType, fun string
	arg               []any
	kwarg             *value.Map
	// timeout is Salt's client timeout in seconds; 0 means the master's
	// timeout option.
	timeout float64
	// gather is Salt's gather_job_timeout; 0 means the master's option.
	gather float64
	// expectMinions reports the minions that did not return as
	// {"failed": True}; without it they are left out.
	expectMinions bool
	// batch, when set, runs the job on that many minions (or percent) at
	// a time; failhard stops after a batch in which a minion failed.
	batch    string
	failhard bool
}

// cmd runs spec and returns, per minion in id order, what Salt's
// saltutil.cmd gives: {"ret", "out", "retcode", "jid"} for a return,
// {"failed": True} for a minion that did not return (with expectMinions).
func (c *Context) cmd(spec cmdSpec) (*value.Map, error) {
	conn, err := c.Client()
	if err != nil {
		return nil, err
	}
	if spec.tgtType == "" {
		spec.tgtType = "glob"
	}
	if spec.kwarg == nil {
		spec.kwarg = value.NewMap(0)
	}
	timeout := spec.timeout
	if timeout <= 0 {
		timeout = float64(c.optInt("timeout", 5))
	}
	gather := spec.gather
	if gather <= 0 {
		gather = float64(c.optInt("gather_job_timeout", 10))
	}
	o := client.WaitOptions{
		Timeout:          time.Duration(timeout * float64(time.Second)),
		GatherJobTimeout: time.Duration(gather * float64(time.Second)),
		User:             c.User,
	}
	req := proto.PublishRequest{
		Tgt: spec.tgt, TgtType: spec.tgtType, Fun: spec.fun,
		Arg: proto.ValueJSON{V: value.NewList(spec.arg...)}, Kwarg: proto.ValueJSON{V: spec.kwarg},
		User: c.User, Timeout: timeout,
	}
	out := value.NewMap(0)
	if spec.batch == "" {
		res, err := conn.Cmd(c.Ctx, req, o)
		if err != nil {
			return nil, err
		}
		addCmdResult(out, res, spec.expectMinions)
		return out, nil
	}
	minions, err := conn.Resolve(spec.tgt, spec.tgtType)
	if err != nil {
		return nil, err
	}
	size, err := batchSize(spec.batch, len(minions))
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(minions); i += size {
		part := minions[i:min(i+size, len(minions))]
		req.Tgt, req.TgtType = strings.Join(part, ","), "list"
		res, err := conn.Cmd(c.Ctx, req, o)
		if err != nil {
			return nil, err
		}
		addCmdResult(out, res, spec.expectMinions)
		if spec.failhard && batchFailed(res) {
			break
		}
		if c.Ctx.Err() != nil {
			break
		}
	}
	return out, nil
}

// addCmdResult adds one job's returns to out in minion id order.
func addCmdResult(out *value.Map, res client.CmdResult, expect bool) {
	failed := map[string]bool{}
	for _, f := range res.Failed {
		failed[f.ID] = true
	}
	for _, id := range res.Minions {
		if r, ok := res.Returns[id]; ok {
			m := value.MapOf("ret", r.Return.V)
			if r.Out != "" {
				m.Set("out", r.Out)
			}
			m.Set("retcode", int64(r.Retcode))
			m.Set("jid", res.JID)
			out.Set(id, m)
		} else if expect && failed[id] {
			out.Set(id, value.MapOf("failed", true))
		}
	}
}

// batchFailed reports whether a minion of a batch failed or did not
// return (what stops a failhard batch run).
func batchFailed(res client.CmdResult) bool {
	if len(res.Failed) > 0 {
		return true
	}
	for _, r := range res.Returns {
		if r.Retcode != 0 {
			return true
		}
	}
	return false
}

// batchSize reads a batch size: a count or a percentage of n, at least 1.
func batchSize(s string, n int) (int, error) {
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("invalid batch size %q", s)
	}
	if pct {
		v = float64(n) * v / 100
	}
	return max(int(v), 1), nil
}
