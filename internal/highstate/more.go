package highstate

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"brine/internal/engine"
	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("state.high", stateHigh, "Execute the compound calls stored in a single set of high data.")
	execmod.Register("state.template_str", stateTemplateStr, "Execute the states in a template string.")
	execmod.Register("state.running", stateRunning, "Return a message for each state run already going on on this minion.")
	execmod.Register("state.list_disabled", listDisabled, "List the states disabled by the state_runs_disabled grain.")
	execmod.Register("state.request", stateRequest, "Request that the given states be applied at the next run_request.")
	execmod.Register("state.check_request", checkRequest, "Return the state request information, if any.")
	execmod.Register("state.clear_request", clearRequest, "Clear out the state execution request.")
	execmod.Register("state.run_request", runRequest, "Execute the pending state request.")
	for _, n := range []string{"state.high", "state.template_str", "state.request", "state.run_request"} {
		execmod.SetOutputter(n, "highstate")
	}
}

// stateHigh is state.high: high data given on the command line, run as
// State.call_high runs it (no __sls__, no __env__).
func stateHigh(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, rest, err := execmod.Bind("state.high", args, kwargs, execmod.Req("data"), execmod.Opt("test", nil), execmod.Opt("queue", nil))
	if err != nil {
		return nil, err
	}
	if c := checkQueue(ctx, vals[2], kwargs); c != nil {
		return c, nil
	}
	data, ok := vals[0].(*value.Map)
	if !ok {
		return nil, &execmod.CommandExecutionError{Msg: fmt.Sprintf("state.high needs high data (a mapping), not a %s", value.TypeName(vals[0]))}
	}
	test := testValue(ctx, vals[1], rest)
	restore, err := statePillar(ctx, kwargs)
	if err != nil {
		return nil, err
	}
	defer restore()
	r := NewRun(ctx, kwargs)
	ret, err := withTest(ctx, test, func() (any, error) { return r.CallHigh(data, test) })
	if err != nil {
		return nil, err
	}
	ctx.SetRetcode(engine.StateRetcode(ret, data))
	return ret, nil
}

// stateTemplateStr is state.template_str: the text rendered with the
// default renderer, checked as State.render_template does, then run.
func stateTemplateStr(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, _, err := execmod.Bind("state.template_str", args, kwargs, execmod.Req("tem"), execmod.Opt("queue", nil))
	if err != nil {
		return nil, err
	}
	if c := checkQueue(ctx, vals[1], kwargs); c != nil {
		return c, nil
	}
	r := NewRun(ctx, kwargs)
	out, err := r.renderData([]byte(value.Str(vals[0])), "", "", "base", "")
	if err != nil {
		return nil, err
	}
	var ret any = out
	if value.Truthy(out) {
		high, errs := renderTemplate(out, "<template-str>")
		if len(errs) > 0 {
			ret = errList(errs)
		} else {
			test := optBool(r.Opts, "test", false)
			ret, err = r.CallHigh(high, test)
			if err != nil {
				return nil, err
			}
		}
	}
	ctx.SetRetcode(engine.StateRetcode(ret, nil))
	return ret, nil
}

// renderTemplate is Salt's State.render_template: the high data of a
// single template, with "id: mod.fun" and "mod.fun: [...]" short forms
// expanded; include, exclude and extends are refused.
func renderTemplate(data any, name string) (*value.Map, []string) {
	high, ok := data.(*value.Map)
	if !ok {
		return nil, []string{fmt.Sprintf("Template %s does not render to a dictionary", name)}
	}
	for _, item := range []string{"include", "exclude", "extends"} {
		if high.Has(item) {
			return nil, []string{fmt.Sprintf("The '%s' declaration found on '%s' is invalid when rendering single templates", item, name)}
		}
	}
	var errs []string
	for _, id := range high.Keys() {
		v, _ := high.Get(id)
		body, ok := v.(*value.Map)
		if !ok {
			if s, isStr := v.(string); isStr && strings.Contains(s, ".") {
				comps := strings.Split(s, ".")
				high.Set(id, value.MapOf(comps[0], value.NewList(comps[1])))
				continue
			}
			errs = append(errs, fmt.Sprintf("ID %s in template %s is not a dictionary", value.Str(id), name))
			continue
		}
		keys := make([]string, 0, body.Len())
		for _, k := range body.Keys() {
			if ks, ok := k.(string); ok {
				keys = append(keys, ks)
			}
		}
		sort.Strings(keys)
		seen := map[string]bool{}
		for _, key := range keys {
			if strings.HasPrefix(key, "_") {
				continue
			}
			val, _ := body.Get(key)
			if val == nil {
				errs = append(errs, fmt.Sprintf("ID '%s' in template %s contains a short declaration (%s) with a trailing colon. When not passing any arguments to a state, the colon must be omitted.", value.Str(id), name, key))
				continue
			}
			l, ok := val.(*value.List)
			if !ok {
				continue
			}
			if mod, fun, dotted := strings.Cut(key, "."); dotted {
				if seen[mod] {
					errs = append(errs, fmt.Sprintf("ID '%s' in template '%s' contains multiple state declarations of the same type", value.Str(id), name))
					continue
				}
				body.Delete(key)
				if i := strings.IndexByte(fun, '.'); i >= 0 {
					fun = fun[:i]
				}
				l.Append(fun)
				body.Set(mod, l)
				seen[mod] = true
				continue
			}
			seen[key] = true
		}
	}
	return high, errs
}

// stateRunning is state.running: one message per state run going on on
// this minion (other brine call processes, minion jobs), found in the
// proc directory; none with concurrent.
func stateRunning(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, _, err := execmod.Bind("state.running", args, kwargs, execmod.Opt("concurrent", false))
	if err != nil {
		return nil, err
	}
	if value.Truthy(vals[0]) {
		return value.NewList(), nil
	}
	return runningStateMessages(ctx, ownJID(kwargs)), nil
}

// listDisabled is state.list_disabled: the state_runs_disabled grain, or
// an empty list.
func listDisabled(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("state.list_disabled", args, kwargs); err != nil {
		return nil, err
	}
	if ctx.Grains != nil {
		if v, ok := ctx.Grains.Get("state_runs_disabled"); ok && v != nil {
			return v, nil
		}
	}
	return value.NewList(), nil
}

// requestPath is where state.request keeps its requests (Salt's
// req_state.p in the cachedir; brine writes JSON).
func requestPath(ctx *execmod.Context) string {
	return filepath.Join(optString(ctx.Opts, "cachedir", ""), "req_state.p")
}

func loadRequests(ctx *execmod.Context) (*value.Map, error) {
	data, err := os.ReadFile(requestPath(ctx))
	if os.IsNotExist(err) {
		return value.NewMap(0), nil
	}
	if err != nil {
		return nil, err
	}
	v, err := value.FromJSON(data)
	if err != nil {
		return nil, fmt.Errorf("state request file %s: %w", requestPath(ctx), err)
	}
	m, ok := v.(*value.Map)
	if !ok {
		return value.NewMap(0), nil
	}
	return m, nil
}

func saveRequests(ctx *execmod.Context, req *value.Map) error {
	text := value.ToJSON(req, value.JSONOptions{})
	path := requestPath(ctx)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o600)
}

// stateRequest is state.request: state.apply in test mode, remembered
// under name (default "default") for run_request.
func stateRequest(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, rest, err := execmod.Bind("state.request", args, kwargs, execmod.Opt("mods", nil))
	if err != nil {
		return nil, err
	}
	rest.Set("test", true)
	ret, err := stateApply(ctx, []any{vals[0]}, rest)
	if err != nil {
		return nil, err
	}
	req, err := loadRequests(ctx)
	if err != nil {
		return nil, err
	}
	name, ok := rest.Get("name")
	if !ok {
		name = "default"
	}
	req.Set(name, value.MapOf("test_run", ret, "mods", vals[0], "kwargs", rest))
	if err := saveRequests(ctx, req); err != nil {
		return nil, err
	}
	return ret, nil
}

func checkRequest(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, _, err := execmod.Bind("state.check_request", args, kwargs, execmod.Opt("name", nil))
	if err != nil {
		return nil, err
	}
	req, err := loadRequests(ctx)
	if err != nil {
		return nil, err
	}
	if value.Truthy(vals[0]) {
		v, ok := req.Get(vals[0])
		if !ok {
			return nil, &execmod.CommandExecutionError{Msg: "KeyError: " + value.Repr(vals[0])}
		}
		return v, nil
	}
	return req, nil
}

func clearRequest(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, _, err := execmod.Bind("state.clear_request", args, kwargs, execmod.Opt("name", nil))
	if err != nil {
		return nil, err
	}
	path := requestPath(ctx)
	if _, err := os.Stat(path); err != nil {
		return true, nil
	}
	if !value.Truthy(vals[0]) {
		_ = os.Remove(path)
		return true, nil
	}
	req, err := loadRequests(ctx)
	if err != nil {
		return nil, err
	}
	if _, ok := req.Delete(vals[0]); !ok {
		return false, nil
	}
	if err := saveRequests(ctx, req); err != nil {
		return nil, err
	}
	return true, nil
}

func runRequest(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, rest, err := execmod.Bind("state.run_request", args, kwargs, execmod.Opt("name", "default"))
	if err != nil {
		return nil, err
	}
	req, err := loadRequests(ctx)
	if err != nil {
		return nil, err
	}
	v, ok := req.Get(vals[0])
	n, _ := v.(*value.Map)
	if !ok || n == nil || !n.Has("mods") || !n.Has("kwargs") {
		return value.NewMap(0), nil
	}
	kw, _ := n.Get("kwargs")
	kwm, ok := kw.(*value.Map)
	if !ok {
		kwm = value.NewMap(0)
	}
	kwm.Update(rest)
	kwm.Delete("test")
	mods, _ := n.Get("mods")
	ret, err := stateApply(ctx, []any{mods}, kwm)
	if err != nil {
		return nil, err
	}
	_ = os.Remove(requestPath(ctx))
	return ret, nil
}

func init() {
	execmod.Register("state.get_pauses", getPauses, "Get a report on all of the currently paused state runs.")
	execmod.Register("state.pause", statePause, "Set up a state id pause for a running job id.")
	execmod.Register("state.resume", stateResume, "Remove a pause from a job id.")
	execmod.Register("state.soft_kill", stateSoftKill, "Set up a state run to die before executing the given state id.")
}

func pauseDir(ctx *execmod.Context) string {
	return filepath.Join(optString(ctx.Opts, "cachedir", ""), "state_pause")
}

// getPauses is state.get_pauses: the pause data of the state runs going
// on (of jid, a list of jids, or all); the pause files of jobs no longer
// running are removed.
func getPauses(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, _, err := execmod.Bind("state.get_pauses", args, kwargs, execmod.Opt("jid", nil))
	if err != nil {
		return nil, err
	}
	dir := pauseDir(ctx)
	if _, err := os.Stat(dir); err != nil {
		return value.NewMap(0), nil
	}
	var jids []string
	switch x := vals[0].(type) {
	case nil:
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			jids = append(jids, e.Name())
		}
	case *value.List:
		for _, j := range x.Items {
			jids = append(jids, value.Str(j))
		}
	default:
		jids = []string{value.Str(x)}
	}
	active := map[string]bool{}
	for _, m := range runningStates(ctx, ownJID(kwargs)) {
		j, _ := m.Get("jid")
		active[value.Str(j)] = true
	}
	ret := value.NewMap(0)
	for _, j := range jids {
		path := filepath.Join(dir, filepath.Base(j))
		if !active[j] {
			_ = os.Remove(path)
			continue
		}
		data := value.NewMap(0)
		if raw, err := os.ReadFile(path); err == nil {
			if v, err := value.FromJSON(raw); err == nil {
				if m, ok := v.(*value.Map); ok {
					data = m
				}
			}
		}
		ret.Set(j, data)
	}
	return ret, nil
}

// updatePause is Salt's _get_pause followed by a write of the changed
// pause data of jid.
func updatePause(ctx *execmod.Context, jid, stateID any, change func(data *value.Map, id string)) error {
	dir := pauseDir(ctx)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	id := "__all__"
	if stateID != nil {
		id = value.Str(stateID)
	}
	path := filepath.Join(dir, filepath.Base(value.Str(jid)))
	data := value.MapOf(id, value.NewMap(0))
	if raw, err := os.ReadFile(path); err == nil {
		if v, err := value.FromJSON(raw); err == nil {
			if m, ok := v.(*value.Map); ok {
				data = m
			}
		}
	}
	change(data, id)
	return os.WriteFile(path, []byte(value.ToJSON(data, value.JSONOptions{})), 0o600)
}

func pauseEntry(data *value.Map, id string) (*value.Map, error) {
	v, _ := data.Get(id)
	m, ok := v.(*value.Map)
	if !ok {
		return nil, &execmod.CommandExecutionError{Msg: "KeyError: " + value.Repr(id)}
	}
	return m, nil
}

func statePause(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, _, err := execmod.Bind("state.pause", args, kwargs, execmod.Req("jid"), execmod.Opt("state_id", nil), execmod.Opt("duration", nil))
	if err != nil {
		return nil, err
	}
	var ferr error
	err = updatePause(ctx, vals[0], vals[1], func(data *value.Map, id string) {
		if !value.Truthy(vals[2]) {
			return
		}
		m, err := pauseEntry(data, id)
		if err != nil {
			ferr = err
			return
		}
		n, err := pyInt(vals[2])
		if err != nil {
			ferr = err
			return
		}
		m.Set("duration", n)
	})
	if ferr != nil {
		return nil, ferr
	}
	return nil, err
}

func stateSoftKill(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, _, err := execmod.Bind("state.soft_kill", args, kwargs, execmod.Req("jid"), execmod.Opt("state_id", nil))
	if err != nil {
		return nil, err
	}
	var ferr error
	err = updatePause(ctx, vals[0], vals[1], func(data *value.Map, id string) {
		m, err := pauseEntry(data, id)
		if err != nil {
			ferr = err
			return
		}
		m.Set("kill", true)
	})
	if ferr != nil {
		return nil, ferr
	}
	return nil, err
}

func stateResume(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	vals, _, err := execmod.Bind("state.resume", args, kwargs, execmod.Req("jid"), execmod.Opt("state_id", nil))
	if err != nil {
		return nil, err
	}
	return nil, updatePause(ctx, vals[0], vals[1], func(data *value.Map, id string) {
		data.Delete(id)
		if id == "__all__" {
			for _, k := range data.Keys() {
				data.Delete(k)
			}
		}
	})
}

// pyInt is Python's int() of a number or numeric text.
func pyInt(v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case float64:
		return int64(x), nil
	case string:
		if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return n, nil
		}
	}
	return 0, &execmod.CommandExecutionError{Msg: fmt.Sprintf("ValueError: invalid literal for int() with base 10: %s", value.Repr(v))}
}
