package api

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"time"

	"brine/internal/fleet/client"
	"brine/internal/fleet/events"
	"brine/internal/fleet/proto"
	"brine/internal/fleet/runners"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// Clients are the lowstate clients brine serves (Salt's NetapiClient
// methods of the same names).
var Clients = []string{"local", "local_async", "runner", "wheel"}

// saltClients are the other clients Salt 3006 has.
var saltClients = []string{"local_batch", "local_subset", "runner_async", "ssh", "wheel_async"}

// lowKeys are the lowstate keys that are not a runner's or a wheel
// function's keyword arguments.
var lowKeys = map[string]bool{
	"client": true, "fun": true, "token": true, "eauth": true, "username": true, "password": true,
	"arg": true, "kwarg": true, "timeout": true, "full_return": true,
}

// Exec runs one lowstate chunk for the user of t (Salt's NetapiClient.run
// with the user's ACL) and returns what salt-api puts in its return list.
func (s *Server) Exec(ctx context.Context, t *Token, low *value.Map) (any, error) {
	cl := str(mget(low, "client"))
	if !slices.Contains(Clients, cl) {
		if slices.Contains(saltClients, cl) {
			return nil, errorf(http.StatusBadRequest, "Client not available in brine: '%s'", cl)
		}
		return nil, errorf(http.StatusBadRequest, "Invalid client specified: '%s'", cl)
	}
	enabled := false
	for _, c := range items(mget(s.Opts, "netapi_enable_clients")) {
		enabled = enabled || value.Str(c) == cl
	}
	if !enabled {
		return nil, errorf(http.StatusBadRequest, "Client disabled: '%s'. Add to 'netapi_enable_clients' master config option to enable.", cl)
	}
	fun := str(mget(low, "fun"))
	if fun == "" {
		return nil, errorf(http.StatusBadRequest, "Missing 'fun' in the lowstate")
	}
	args := items(mget(low, "arg"))
	kwargs, _ := mget(low, "kwarg").(*value.Map)
	if kwargs == nil {
		kwargs = value.NewMap(0)
	}
	switch cl {
	case "runner", "wheel":
		// Runner and wheel functions take the lowstate's other keys as
		// keyword arguments.
		kw := kwargs.Copy()
		low.Range(func(k, v any) bool {
			if ks := value.Str(k); !lowKeys[ks] {
				kw.Set(ks, v)
			}
			return true
		})
		if !specCheck(s.AuthList(t), fun, args, kw, cl) {
			return nil, errorf(http.StatusUnauthorized, "Authentication failure of type \"token\" occurred for user %s.", t.Name)
		}
		return s.runMaster(ctx, t, cl, fun, args, kw)
	}
	return s.local(ctx, t, cl, low, fun, args, kwargs)
}

// local runs the local and local_async clients.
func (s *Server) local(ctx context.Context, t *Token, cl string, low *value.Map, fun string, args []any, kwargs *value.Map) (any, error) {
	tgt := str(mget(low, "tgt"))
	if tgt == "" {
		return nil, errorf(http.StatusBadRequest, "Missing 'tgt' in the lowstate")
	}
	tgtType := str(mget(low, "tgt_type"))
	if tgtType == "" {
		tgtType = str(mget(low, "expr_form"))
	}
	if tgtType == "" {
		tgtType = "glob"
	}
	c, err := s.Client()
	if err != nil {
		return nil, err
	}
	minions, err := c.Resolve(tgt, tgtType)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "%v", err)
	}
	if !authCheck(s.AuthList(t), fun, args, kwargs, minions, s.resolve) {
		return nil, errorf(http.StatusUnauthorized, "Authorization error occurred.")
	}
	// Arguments written key=value are keyword arguments, as the minion
	// reads them (salt.utils.args.parse_input).
	var pos []any
	kw := kwargs.Copy()
	for _, a := range args {
		if sv, ok := a.(string); ok {
			if k, v, ok := yamlload.ParseKwarg(sv); ok {
				kw.Set(k, yamlload.LoadArg(v))
				continue
			}
		}
		pos = append(pos, a)
	}
	timeout := float64(intOpt(s.Opts, "timeout", 5))
	switch x := mget(low, "timeout").(type) {
	case int64:
		timeout = float64(x)
	case float64:
		timeout = x
	}
	req := proto.PublishRequest{
		Tgt: tgt, TgtType: tgtType, Fun: fun,
		Arg: proto.ValueJSON{V: value.NewList(pos...)}, Kwarg: proto.ValueJSON{V: kw},
		User: t.Name, Timeout: timeout,
	}
	req.Ret = str(mget(low, "ret"))
	if cl == "local_async" {
		rep, err := c.Publish(req)
		if err != nil {
			return nil, errorf(http.StatusInternalServerError, "%v", err)
		}
		if len(rep.Minions) == 0 {
			return value.NewMap(0), nil
		}
		ms := append([]string(nil), rep.Minions...)
		sort.Strings(ms)
		return value.MapOf("jid", rep.JID, "minions", strList(ms)), nil
	}
	res, err := c.Cmd(ctx, req, client.WaitOptions{
		Timeout:          time.Duration(timeout * float64(time.Second)),
		GatherJobTimeout: time.Duration(intOpt(s.Opts, "gather_job_timeout", 10)) * time.Second,
		User:             t.Name,
	})
	if err != nil {
		return nil, errorf(http.StatusInternalServerError, "%v", err)
	}
	out := value.NewMap(len(res.Returns))
	for _, id := range res.Minions {
		if r, ok := res.Returns[id]; ok {
			out.Set(id, r.Return.V)
		}
	}
	return out, nil
}

// runMaster runs a runner or wheel function as Salt's RunnerClient and
// WheelClient cmd_sync do, firing their new and ret events.
func (s *Server) runMaster(ctx context.Context, t *Token, cl, fun string, args []any, kwargs *value.Map) (any, error) {
	rc := runners.NewContext(ctx, s.Opts)
	rc.User = t.Name
	defer rc.Close()
	jid := proto.NewJID(time.Now())
	prefix := "run"
	if cl == "wheel" {
		prefix = "wheel"
	}
	funArgs := value.NewList(args...)
	if kwargs.Len() > 0 {
		kw := kwargs.Copy()
		kw.Set("__kwarg__", true)
		funArgs.Append(kw)
	}
	tag := events.Tagify("salt", prefix, jid)
	full := cl + "." + fun
	s.fire(events.Tagify(tag, "new"), value.MapOf("fun", full, "fun_args", funArgs, "jid", jid, "user", t.Name))
	var ret any
	var err error
	if cl == "wheel" {
		ret, err = rc.Wheel(fun, args, kwargs)
	} else {
		ret, err = rc.Call(fun, args, kwargs)
	}
	success := err == nil
	if err != nil {
		ret = err.Error()
	}
	s.fire(events.Tagify(tag, "ret"), value.MapOf("fun", full, "fun_args", funArgs, "jid", jid, "user", t.Name, "return", ret, "success", success))
	if cl == "runner" {
		return ret, nil
	}
	return value.MapOf("tag", tag, "data", value.MapOf(
		"fun", full, "jid", jid, "user", t.Name, "_stamp", events.Stamp(time.Now()),
		"tag", tag, "return", ret, "success", success,
	)), nil
}

// fire publishes an event on the master's bus; a failure is logged.
func (s *Server) fire(tag string, data *value.Map) {
	c, err := s.Client()
	if err == nil {
		err = events.Publish(c.NC, tag, data)
	}
	if err != nil {
		s.Log.Warn(fmt.Sprintf("REST API: firing %s: %v", tag, err))
	}
}

func strList(xs []string) *value.List {
	l := value.NewList()
	for _, x := range xs {
		l.Append(x)
	}
	return l
}
