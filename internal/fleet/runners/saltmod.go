package runners

// saltmod.go is salt/states/saltmod.py, the master-side "salt" state
// module of orchestration: salt.state and salt.function run jobs on
// minions, salt.runner and salt.wheel run runner and wheel functions on
// the master. They are registered in the orchestration state registry
// only (OrchestrationStates).

import (
	"errors"
	"fmt"
	"strings"

	"brine/internal/execmod"
	"brine/internal/highstate"
	"brine/internal/pyops"
	"brine/internal/statemod"
	"brine/internal/value"
)

// saltStates are the functions of the salt state module.
func saltStates() []*statemod.Function {
	O, R := statemod.Opt, statemod.Req
	return []*statemod.Function{
		{
			Name: "salt.state", Kwargs: true, Run: saltState,
			Doc: "Run state.sls, state.highstate or state.top on the minions tgt selects.",
			Params: []statemod.Param{R("name"), R("tgt"), O("ssh", false), O("tgt_type", "glob"), O("ret", ""),
				O("ret_config", nil), O("ret_kwargs", nil), O("highstate", nil), O("sls", nil), O("top", nil),
				O("saltenv", nil), O("test", nil), O("pillar", nil), O("pillarenv", nil), O("expect_minions", true),
				O("exclude", nil), O("fail_minions", nil), O("allow_fail", int64(0)), O("concurrent", false),
				O("timeout", nil), O("batch", nil), O("queue", false), O("subset", nil), O("orchestration_jid", nil),
				O("failhard", nil)},
		},
		{
			Name: "salt.function", Kwargs: true, Run: saltFunction,
			Doc: "Run the execution function name on the minions tgt selects.",
			Params: []statemod.Param{R("name"), R("tgt"), O("ssh", false), O("tgt_type", "glob"), O("ret", ""),
				O("ret_config", nil), O("ret_kwargs", nil), O("expect_minions", false), O("fail_minions", nil),
				O("fail_function", nil), O("arg", nil), O("kwarg", nil), O("timeout", nil), O("batch", nil),
				O("subset", nil), O("failhard", nil)},
		},
		{
			Name: "salt.runner", Kwargs: true, Run: saltRunner,
			Doc:    "Run the runner function name on the master with the other arguments as its keyword arguments.",
			Params: []statemod.Param{R("name")},
		},
		{
			Name: "salt.wheel", Kwargs: true, Run: saltWheel,
			Doc:    "Run the wheel function name (key.accept, key.reject, key.delete, key.list_all, ...) on the master.",
			Params: []statemod.Param{R("name")},
		},
		waitForEventState(),
	}
}

// errNotMaster is the failure of a salt.* state outside orchestration.
var errNotMaster = errors.New("the salt state module runs on the master only (salt-run state.orchestrate)")

// runnerOf returns the runner context of an orchestration run.
func runnerOf(c *statemod.Call) (*Context, error) {
	if c.Env != nil && c.Env.Exec != nil {
		if rc, ok := c.Env.Exec.Service(RunnerService).(*Context); ok {
			return rc, nil
		}
	}
	return nil, errNotMaster
}

// unsupported returns the failing state return of an option brine's
// master cannot honour, or nil.
func unsupported(c *statemod.Call, ret *value.Map) *value.Map {
	for _, k := range []string{"ssh", "ret", "ret_config", "ret_kwargs", "subset"} {
		if value.Truthy(c.Get(k)) {
			ret.Set("result", false)
			ret.Set("comment", fmt.Sprintf("'%s' is not supported by brine's master", k))
			return ret
		}
	}
	return nil
}

// failMinions reads fail_minions: a list, or comma-separated text; any
// other value is ignored with Salt's warning.
func failMinions(v any, ret *value.Map) map[string]bool {
	out := map[string]bool{}
	switch x := v.(type) {
	case nil:
	case string:
		for _, m := range strings.Split(x, ",") {
			out[strings.TrimSpace(m)] = true
		}
	case *value.List:
		for _, m := range x.Items {
			out[execmod.String(m)] = true
		}
	default:
		addWarning(ret, "'fail_minions' needs to be a list or a comma separated string. Ignored.")
	}
	return out
}

func addWarning(ret *value.Map, w string) {
	if l, ok := ret.Get("warnings"); ok {
		if ll, ok := l.(*value.List); ok {
			ll.Append(w)
			return
		}
	}
	ret.Set("warnings", value.NewList(w))
}

// timeoutOf reads a timeout argument (0 when unset: the master's).
func timeoutOf(v any) float64 {
	f, _ := number(v)
	return f
}

// firstJID copies the job id of the first minion's return to __jid__.
func firstJID(cmdRet *value.Map, ret *value.Map) {
	if cmdRet.Len() == 0 {
		return
	}
	_, md := cmdRet.At(0)
	if m, ok := md.(*value.Map); ok {
		if j, ok := m.Get("jid"); ok {
			ret.Set("__jid__", j)
		}
	}
}

func saltState(c *statemod.Call) (*value.Map, error) {
	rc, err := runnerOf(c)
	if err != nil {
		return nil, err
	}
	ret := value.MapOf("name", c.Get("name"), "changes", value.NewMap(0), "comment", "", "result", true)
	allowFail, err := pyInt(c.Get("allow_fail"))
	if err != nil {
		ret.Set("result", false)
		ret.Set("comment", "Passed invalid value for 'allow_fail', must be an int")
		return ret, nil
	}
	if r := unsupported(c, ret); r != nil {
		return r, nil
	}
	spec := cmdSpec{tgt: c.Str("tgt"), tgtType: c.Str("tgt_type"), timeout: timeoutOf(c.Get("timeout")),
		expectMinions: c.Bool("expect_minions"), kwarg: value.NewMap(0)}
	switch {
	case c.Bool("highstate"):
		spec.fun = "state.highstate"
	case c.Bool("top"):
		spec.fun = "state.top"
		spec.arg = []any{c.Get("top")}
	case c.Bool("sls"):
		spec.fun = "state.sls"
		sls := c.Get("sls")
		if l, ok := sls.(*value.List); ok {
			parts := make([]string, len(l.Items))
			for i, e := range l.Items {
				parts[i] = value.Str(e)
			}
			sls = strings.Join(parts, ",")
		}
		spec.arg = []any{sls}
	default:
		ret.Set("comment", "No highstate or sls specified, no execution made")
		ret.Set("result", false)
		return ret, nil
	}
	optTest := c.Opt("test")
	if c.Get("test") != nil || value.Truthy(optTest) {
		t := c.Get("test")
		if t == nil {
			t = optTest
		}
		spec.kwarg.Set("test", t)
	}
	if c.Bool("pillar") {
		spec.kwarg.Set("pillar", c.Get("pillar"))
	}
	for _, k := range []string{"pillarenv", "saltenv", "exclude"} {
		if c.Has(k) {
			spec.kwarg.Set(k, c.Get(k))
		}
	}
	spec.kwarg.Set("queue", c.Get("queue"))
	conc, ok := c.Get("concurrent").(bool)
	if !ok {
		ret.Set("comment", "Must pass in boolean for value of 'concurrent'")
		ret.Set("result", false)
		return ret, nil
	}
	spec.kwarg.Set("concurrent", conc)
	if c.Has("batch") {
		spec.batch = value.Str(c.Get("batch"))
	}
	spec.failhard = c.Get("failhard") == true || value.Truthy(c.Opt("failhard"))
	cmdRet, err := rc.stateCmd(c, spec)
	if err != nil {
		return nil, err
	}
	firstJID(cmdRet, ret)
	skip := failMinions(c.Get("fail_minions"), ret)
	if cmdRet.Len() == 0 && spec.expectMinions {
		ret.Set("result", false)
		ret.Set("comment", "No minions returned")
		return ret, nil
	}
	changes := value.NewMap(0)
	var fail, noChange []string
	cmdRet.Range(func(k, md any) bool {
		id := k.(string)
		m := md.(*value.Map)
		var mRet any = false
		ok := true
		if value.Truthy(mapGet(m, "failed")) {
			ok = false
		} else if r, has := m.Get("ret"); has {
			mRet = r
			ok = highstate.CheckResult(r, true)
		} else {
			ok = false
		}
		if !ok {
			if !skip[id] {
				fail = append(fail, id)
			}
			changes.Set(id, mRet)
			return true
		}
		changed := false
		if rm, isMap := mRet.(*value.Map); isMap {
			rm.Range(func(_, item any) bool {
				if im, ok := item.(*value.Map); ok && value.Truthy(mapGet(im, "changes")) {
					changed = true
					return false
				}
				return true
			})
		}
		if changed {
			changes.Set(id, mRet)
		} else {
			noChange = append(noChange, id)
		}
		return true
	})
	if changes.Len() > 0 {
		ret.Set("changes", value.MapOf("out", "highstate", "ret", changes))
	}
	if int64(len(fail)) > allowFail {
		ret.Set("result", false)
		ret.Set("comment", "Run failed on minions: "+strings.Join(fail, ", "))
	} else {
		comment := "States ran successfully."
		if changes.Len() > 0 {
			comment += " Updating " + strings.Join(mapKeys(changes), ", ") + "."
		}
		if len(noChange) > 0 {
			comment += " No changes made to " + strings.Join(noChange, ", ") + "."
		}
		ret.Set("comment", comment)
	}
	if value.Truthy(c.Get("test")) || value.Truthy(optTest) {
		if value.Truthy(mapGet(ret, "changes")) && mapGet(ret, "result") == true {
			ret.Set("result", nil)
		}
	}
	return ret, nil
}

func saltFunction(c *statemod.Call) (*value.Map, error) {
	rc, err := runnerOf(c)
	if err != nil {
		return nil, err
	}
	name := c.Str("name")
	ret := value.MapOf("name", c.Get("name"), "changes", value.NewMap(0), "comment", "", "result", true)
	kwarg, _ := c.Get("kwarg").(*value.Map)
	if kwarg == nil {
		kwarg = value.NewMap(0)
	}
	var arg []any
	switch x := c.Get("arg").(type) {
	case string:
		ret.Set("warnings", value.NewList("Please specify 'arg' as a list of arguments."))
		for _, f := range strings.Fields(x) {
			arg = append(arg, f)
		}
	case *value.List:
		arg = x.Items
	case nil:
	default:
		arg = []any{x}
	}
	if r := unsupported(c, ret); r != nil {
		return r, nil
	}
	spec := cmdSpec{tgt: c.Str("tgt"), tgtType: c.Str("tgt_type"), fun: name, arg: arg, kwarg: kwarg.Copy(),
		timeout: timeoutOf(c.Get("timeout")), expectMinions: c.Bool("expect_minions"),
		failhard: c.Get("failhard") == true || value.Truthy(c.Opt("failhard"))}
	if c.Has("batch") {
		spec.batch = value.Str(c.Get("batch"))
	}
	if c.Test {
		ret.Set("comment", fmt.Sprintf("Function %s would be executed on target %s", name, c.Str("tgt")))
		ret.Set("result", nil)
		return ret, nil
	}
	cmdRet, err := rc.cmd(spec)
	if err != nil {
		ret.Set("result", false)
		ret.Set("comment", err.Error())
		return ret, nil
	}
	firstJID(cmdRet, ret)
	skip := failMinions(c.Get("fail_minions"), ret)
	failFun := c.Str("fail_function")
	changes := value.NewMap(0)
	var fail []string
	failed := map[string]bool{}
	addFail := func(id string) {
		if !failed[id] {
			failed[id] = true
			fail = append(fail, id)
		}
	}
	var callErr error
	cmdRet.Range(func(k, md any) bool {
		id := k.(string)
		m := md.(*value.Map)
		var mRet any = false
		if value.Truthy(mapGet(m, "retcode")) {
			ret.Set("result", false)
			addFail(id)
		}
		ok := true
		if value.Truthy(mapGet(m, "failed")) {
			ok = false
		} else {
			mRet = mapGet(m, "ret")
			if failFun != "" {
				v, err := c.Salt(failFun, []any{mRet}, nil)
				if err != nil {
					callErr = err
					return false
				}
				ok = value.Truthy(v)
			}
			if mRet == false {
				ok = false
			}
		}
		if !ok && !skip[id] {
			addFail(id)
		}
		changes.Set(id, mRet)
		return true
	})
	if callErr != nil {
		return nil, callErr
	}
	if cmdRet.Len() == 0 {
		ret.Set("result", false)
		ret.Set("comment", "No minions responded")
		return ret, nil
	}
	if changes.Len() > 0 {
		ret.Set("changes", value.MapOf("ret", changes))
	}
	comment := "Function ran successfully."
	if len(fail) > 0 {
		ret.Set("result", false)
		comment = fmt.Sprintf("Running function %s failed on minions: %s", name, strings.Join(fail, ", "))
	}
	if changes.Len() > 0 {
		comment += fmt.Sprintf(" Function %s ran on %s.", name, strings.Join(mapKeys(changes), ", "))
	}
	ret.Set("comment", comment)
	return ret, nil
}

// callFull runs a runner function as Salt's RunnerClient.cmd with
// full_return does, for salt.runner: the return and whether it succeeded.
func (c *Context) callFull(name string, args []any, kwargs *value.Map) (any, bool) {
	e, ok := c.registry().Lookup(name)
	if !ok {
		return (&UnknownError{Name: name, Suggestion: c.registry().Suggest(name)}).Error(), false
	}
	ret, err := e.Func(c, args, kwargs)
	if err != nil {
		var inv *execmod.InvocationError
		if errors.As(err, &inv) {
			// A TypeError: the usage, and success as far as the run's
			// return code goes.
			return fmt.Sprintf("\nPassed invalid arguments: %s\n\nUsage:\n%s", inv.Msg, e.Doc), true
		}
		return fmt.Sprintf("Exception occurred in runner %s: %s", name, err), false
	}
	if m, ok := ret.(*value.Map); ok {
		if d, ok := m.Get("data"); ok {
			return ret, highstate.CheckResult(d, false)
		}
	}
	return ret, true
}

// saltenvRunners are the runner functions with a saltenv parameter:
// saltutil.runner passes them the calling state's environment.
var saltenvRunners = map[string]bool{
	"state.orchestrate": true, "state.orch": true, "state.sls": true,
	"fileserver.file_list": true, "fileserver.dir_list": true,
}

// cleanKwargs drops the keyword arguments starting with "__".
func cleanKwargs(kw *value.Map) *value.Map {
	out := value.NewMap(kw.Len())
	kw.Range(func(k, v any) bool {
		if !strings.HasPrefix(execmod.String(k), "__") {
			out.Set(k, v)
		}
		return true
	})
	return out
}

func saltRunner(c *statemod.Call) (*value.Map, error) {
	rc, err := runnerOf(c)
	if err != nil {
		return nil, err
	}
	name := c.Str("name")
	if c.Test {
		return value.MapOf("name", c.Get("name"), "result", nil, "changes", value.NewMap(0),
			"comment", fmt.Sprintf("Runner function '%s' would be executed.", name)), nil
	}
	// saltutil.runner: arg and kwarg are the runner's own; the other
	// keyword arguments join kwarg.
	kw := cleanKwargs(c.ExtraKwargs())
	var args []any
	if a, ok := kw.Delete("arg"); ok {
		if l, ok := a.(*value.List); ok {
			args = l.Items
		} else if a != nil {
			args = []any{a}
		}
	}
	kwarg := value.NewMap(0)
	if k, ok := kw.Delete("kwarg"); ok {
		if m, ok := k.(*value.Map); ok {
			kwarg = m.Copy()
		}
	}
	kwarg.Update(kw)
	if saltenvRunners[name] {
		kwarg.Set("saltenv", c.Saltenv)
	}
	out, success := rc.callFull(name, args, kwarg)
	if m, ok := out.(*value.Map); ok && m.Has("Error") {
		success = false
	}
	verb := "executed"
	if !success {
		verb = "failed"
	}
	return value.MapOf("name", c.Get("name"), "changes", value.MapOf("return", out), "result", success,
		"comment", fmt.Sprintf("Runner function '%s' %s.", name, verb)), nil
}

func saltWheel(c *statemod.Call) (*value.Map, error) {
	rc, err := runnerOf(c)
	if err != nil {
		return nil, err
	}
	name := c.Str("name")
	if c.Test {
		// Salt sets the result to the tuple (None,).
		return value.MapOf("name", c.Get("name"), "result", value.NewList(nil), "changes", value.NewMap(0),
			"comment", fmt.Sprintf("Wheel function '%s' would be executed.", name)), nil
	}
	out, err := rc.Wheel(name, nil, cleanKwargs(c.ExtraKwargs()))
	success := err == nil
	if err != nil {
		out = fmt.Sprintf("Exception occurred in wheel %s: %s", name, err)
	}
	if m, ok := out.(*value.Map); ok && m.Has("Error") {
		success = false
	}
	verb := "executed"
	if !success {
		verb = "failed"
	}
	return value.MapOf("name", c.Get("name"), "changes", value.MapOf("return", out), "result", success,
		"comment", fmt.Sprintf("Wheel function '%s' %s.", name, verb)), nil
}

// pyInt is Python's int() of an argument that must fit an int64.
func pyInt(v any) (int64, error) {
	n, err := pyops.Int(v, 10)
	if err != nil {
		return 0, err
	}
	i, ok := n.(int64)
	if !ok {
		return 0, fmt.Errorf("int() of %v is out of range", value.Repr(v))
	}
	return i, nil
}

func mapKeys(m *value.Map) []string {
	out := make([]string, 0, m.Len())
	m.Range(func(k, _ any) bool {
		out = append(out, execmod.String(k))
		return true
	})
	return out
}
