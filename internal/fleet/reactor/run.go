package reactor

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"brine/internal/diag"
	"brine/internal/execmod"
	"brine/internal/fleet/events"
	"brine/internal/fleet/keys"
	"brine/internal/fleet/proto"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// internalKeys are the chunk keys that are not arguments of the function
// a runner or wheel reaction calls (Salt's REACTOR_INTERNAL_KEYWORDS,
// with the argument forms themselves).
var internalKeys = map[string]bool{
	"__id__": true, "__sls__": true, "__env__": true, "name": true, "order": true,
	"fun": true, "key": true, "state": true, "arg": true, "kwarg": true, "args": true,
}

// callArgs works out the positional and keyword arguments of a reaction
// as Salt's ReactWrap.run does. "args", a list of one-key mappings, is
// the keyword arguments (a caller reaction's "args" that is a plain list
// is its positional arguments); otherwise "arg" and "kwarg" are used, and
// for runner and wheel reactions without them, the chunk's other keys
// are the keyword arguments.
func callArgs(c Chunk) (arg []any, kwarg *value.Map, err error) {
	kwarg = value.NewMap(0)
	if a, ok := c.Args.Get("args"); ok {
		l, isList := a.(*value.List)
		if c.State == "caller" && isList && !isDictList(l) {
			return l.Items, kwarg, nil
		}
		if m, isMap := a.(*value.Map); isMap {
			return nil, m, nil
		}
		if isList {
			for _, it := range l.Items {
				if m, ok := it.(*value.Map); ok {
					m.Range(func(k, v any) bool { kwarg.Set(k, v); return true })
				}
			}
		}
		if kwarg.Len() == 0 {
			return nil, nil, fmt.Errorf("Incorrect argument format, check the Reactor System documentation for the correct format.")
		}
		return nil, kwarg, nil
	}
	if a, ok := c.Args.Get("arg"); ok {
		l, isList := a.(*value.List)
		if !isList {
			return nil, nil, fmt.Errorf("arg must be a list, not %s", value.Str(a))
		}
		arg = l.Items
	}
	if k, ok := c.Args.Get("kwarg"); ok {
		m, isMap := k.(*value.Map)
		if !isMap {
			return nil, nil, fmt.Errorf("kwarg must be a mapping, not %s", value.Str(k))
		}
		kwarg = m.Copy()
	} else if c.State == "runner" || c.State == "wheel" {
		if _, hasArg := c.Args.Get("arg"); !hasArg {
			c.Args.Range(func(k, v any) bool {
				if ks := value.Str(k); !internalKeys[ks] && ks != "tgt" {
					kwarg.Set(ks, v)
				}
				return true
			})
		}
	}
	return arg, kwarg, nil
}

func isDictList(l *value.List) bool {
	for _, it := range l.Items {
		if _, ok := it.(*value.Map); !ok {
			return false
		}
	}
	return true
}

// Run runs one reaction; a failure comes back as a diagnostic placed on
// the reaction's file and line.
func (r *Reactor) Run(c Chunk) *diag.Diagnostic {
	fail := func(format string, a ...any) *diag.Diagnostic {
		return &diag.Diagnostic{
			Summary: fmt.Sprintf("Reactor '%s' failed to execute %s '%s': ", c.ID, c.State, c.Fun) + fmt.Sprintf(format, a...),
			Subject: c.where(),
		}
	}
	arg, kwarg, err := callArgs(c)
	if err != nil {
		return fail("%s", err)
	}
	switch c.State {
	case "local":
		tgt, ok := c.Args.Get("tgt")
		if !ok {
			return fail("no tgt given")
		}
		tgtType := "glob"
		for _, k := range []string{"tgt_type", "expr_form"} {
			if v, ok := c.Args.Get(k); ok {
				tgtType = value.Str(v)
				break
			}
		}
		target := value.Str(tgt)
		if l, isList := tgt.(*value.List); isList {
			ids := make([]string, len(l.Items))
			for i, e := range l.Items {
				ids[i] = value.Str(e)
			}
			target = strings.Join(ids, ",")
		}
		if r.cfg.Publisher == nil {
			return fail("no publisher")
		}
		jid, minions, err := r.cfg.Publisher.PublishJob(target, tgtType, c.Fun, arg, kwarg, r.user)
		if err != nil {
			return fail("%s", err)
		}
		r.log.Info("reaction published a job", "id", c.ID, "fun", c.Fun, "jid", jid, "minions", len(minions))
	case "runner":
		if r.cfg.Runner == nil {
			return fail("the runner system is unavailable on this master")
		}
		ctx, cancel := context.WithTimeout(r.ctx, time.Hour)
		defer cancel()
		kwarg.Set("__user__", EventUser)
		ret, err := r.cfg.Runner.CallRunner(ctx, c.Fun, arg, kwarg)
		if err != nil {
			return fail("%s", err)
		}
		r.log.Debug("runner reaction returned", "id", c.ID, "fun", c.Fun, "return", value.Str(ret))
	case "wheel":
		// Salt's wheel client announces the call and its return as a
		// job of its own, salt/wheel/<jid>/new and /ret.
		jid := proto.NewJID(time.Now())
		data := value.MapOf("fun", "wheel."+c.Fun, "jid", jid, "user", EventUser)
		funArgs := value.NewList(arg...)
		if kwarg.Len() > 0 {
			funArgs.Items = append(funArgs.Items, kwarg)
		}
		data.Set("fun_args", funArgs)
		r.fire(events.Tagify("salt", "wheel", jid, "new"), data)
		ret, err := r.wheel(c.Fun, arg, kwarg)
		if err != nil {
			data.Set("return", err.Error())
			data.Set("success", false)
		} else {
			data.Set("return", ret)
			data.Set("success", true)
		}
		r.fire(events.Tagify("salt", "wheel", jid, "ret"), data)
		if err != nil {
			return fail("%s", err)
		}
		r.log.Info("wheel reaction ran", "id", c.ID, "fun", c.Fun, "return", value.Str(ret))
	case "caller":
		ctx := r.execContext()
		if err := execmod.RunSetups(ctx); err != nil {
			return fail("%s", err)
		}
		ret, err := ctx.Call(c.Fun, arg, kwarg)
		if err != nil {
			return fail("%s", err)
		}
		r.log.Info("caller reaction ran", "id", c.ID, "fun", c.Fun, "return", value.Str(ret))
	default:
		return &diag.Diagnostic{Summary: fmt.Sprintf("ReactWrap is missing a wrapper function for '%s'", c.State), Subject: c.where()}
	}
	return nil
}

func (r *Reactor) fire(tag string, data *value.Map) {
	if r.cfg.Fire != nil {
		r.cfg.Fire(tag, data)
	}
}

// wheel runs the wheel functions brine has: key.accept, key.reject and
// key.delete, on the master's key store.
func (r *Reactor) wheel(fun string, arg []any, kwarg *value.Map) (any, error) {
	if r.cfg.Keys == nil {
		return nil, fmt.Errorf("no key store")
	}
	get := func(name string, pos int) any {
		if v, ok := kwarg.Get(name); ok {
			return v
		}
		if pos < len(arg) {
			return arg[pos]
		}
		return nil
	}
	match := get("match", 0)
	if match == nil {
		return nil, fmt.Errorf("%s() missing 1 required positional argument: 'match'", fun)
	}
	var from []keys.State
	var to keys.State
	act := ""
	switch fun {
	case "key.accept":
		from, to, act = []keys.State{keys.Pending}, keys.Accepted, "accept"
		if value.Truthy(get("include_rejected", 1)) {
			from = append(from, keys.Rejected)
		}
		if value.Truthy(get("include_denied", 2)) {
			from = append(from, keys.Denied)
		}
	case "key.reject":
		from, to, act = []keys.State{keys.Pending}, keys.Rejected, "reject"
		if value.Truthy(get("include_accepted", 1)) {
			from = append(from, keys.Accepted)
		}
		if value.Truthy(get("include_denied", 2)) {
			from = append(from, keys.Denied)
		}
	case "key.delete":
		from, act = keys.States, "delete"
	default:
		return nil, fmt.Errorf("'%s' is not available", fun)
	}
	pats := patterns(match)
	var done []string
	seen := map[string]bool{}
	for _, st := range from {
		ids, err := r.cfg.Keys.List(st)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			if seen[id] || !matchAny(pats, id) {
				continue
			}
			if act == "delete" {
				err = r.cfg.Keys.Delete(id)
			} else {
				err = r.cfg.Keys.Move(id, st, to)
			}
			if err != nil {
				return nil, err
			}
			seen[id] = true
			done = append(done, id)
			// Keys entering or leaving the accepted set are announced by
			// the master when it reloads them; the others here.
			if st != keys.Accepted && to != keys.Accepted {
				r.fire(events.TagKey, events.Key(act, id, true))
			}
		}
	}
	if len(done) > 0 && r.cfg.KeysChanged != nil {
		if err := r.cfg.KeysChanged(); err != nil {
			return nil, err
		}
	}
	l := value.NewList()
	for _, id := range done {
		l.Items = append(l.Items, id)
	}
	return value.MapOf("minions", l), nil
}

// patterns reads a wheel key function's match: a glob, globs separated by
// commas, or a list of them.
func patterns(match any) []string {
	if l, ok := match.(*value.List); ok {
		out := make([]string, len(l.Items))
		for i, e := range l.Items {
			out[i] = value.Str(e)
		}
		return out
	}
	return strings.Split(value.Str(match), ",")
}

func matchAny(pats []string, id string) bool {
	for _, p := range pats {
		if events.Match(p, id) {
			return true
		}
	}
	return false
}

// loadReactMap reads a reactor option that names a YAML file.
func loadReactMap(path string) ([]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("Failed to read reactor map: %q", path)
	}
	v, err := yamlload.SafeLoad(data, path)
	if err != nil {
		return nil, fmt.Errorf("Failed to parse YAML in reactor map: %q", path)
	}
	l, _ := v.(*value.List)
	if l == nil {
		return nil, nil
	}
	return l.Items, nil
}
