package states

// cmd.go is salt/states/cmd.py: cmd.run, cmd.wait (cmd.watch), cmd.script,
// cmd.wait_script, cmd.call, cmd.wait_call and mod_watch.

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"brine/internal/statemod"
	"brine/internal/system"
	"brine/internal/value"
)

var cmdRunParams = []statemod.Param{
	statemod.Req("name"), statemod.Opt("cwd", nil), statemod.Opt("root", nil),
	statemod.Opt("runas", nil), statemod.Opt("shell", nil), statemod.Opt("env", nil),
	statemod.Opt("prepend_path", nil), statemod.Opt("stateful", false),
	statemod.Opt("output_loglevel", "debug"), statemod.Opt("hide_output", false),
	statemod.Opt("timeout", nil), statemod.Opt("ignore_timeout", false),
	statemod.Opt("use_vt", false), statemod.Opt("success_retcodes", nil),
	statemod.Opt("success_stdout", nil), statemod.Opt("success_stderr", nil),
}

var cmdWaitParams = []statemod.Param{
	statemod.Req("name"), statemod.Opt("cwd", nil), statemod.Opt("root", nil),
	statemod.Opt("runas", nil), statemod.Opt("shell", nil), statemod.Opt("env", value.Tuple{}),
	statemod.Opt("stateful", false), statemod.Opt("output_loglevel", "debug"),
	statemod.Opt("hide_output", false), statemod.Opt("use_vt", false),
	statemod.Opt("success_retcodes", nil), statemod.Opt("success_stdout", nil),
	statemod.Opt("success_stderr", nil),
}

var cmdScriptParams = []statemod.Param{
	statemod.Req("name"), statemod.Opt("source", nil), statemod.Opt("template", nil),
	statemod.Opt("cwd", nil), statemod.Opt("runas", nil), statemod.Opt("password", nil),
	statemod.Opt("shell", nil), statemod.Opt("env", nil), statemod.Opt("stateful", false),
	statemod.Opt("timeout", nil), statemod.Opt("use_vt", false),
	statemod.Opt("output_loglevel", "debug"), statemod.Opt("hide_output", false),
	statemod.Opt("defaults", nil), statemod.Opt("context", nil),
	statemod.Opt("success_retcodes", nil), statemod.Opt("success_stdout", nil),
	statemod.Opt("success_stderr", nil),
}

func init() {
	statemod.Register(&statemod.Function{Name: "cmd.run", Params: cmdRunParams, Kwargs: true,
		Doc: "Run a command if certain circumstances are met.", Run: cmdRun})
	wait := func(c *statemod.Call) (*value.Map, error) {
		return statemod.Ret(c.Get("name"), true, ""), nil
	}
	statemod.Register(&statemod.Function{Name: "cmd.wait", Params: cmdWaitParams, Kwargs: true,
		Doc: "Run the given command only if the watch statement calls it.", Run: wait})
	statemod.Register(&statemod.Function{Name: "cmd.watch", Params: cmdWaitParams, Kwargs: true,
		Doc: "Alias of cmd.wait.", Run: wait})
	statemod.Register(&statemod.Function{Name: "cmd.script", Params: cmdScriptParams, Kwargs: true,
		Doc: "Download a script and execute it with specified arguments.", Run: cmdScript})
	statemod.Register(&statemod.Function{Name: "cmd.wait_script", Params: cmdScriptParams, Kwargs: true,
		Doc: "Download a script and execute it only if a watch statement calls it.", Run: wait})
	statemod.Register(&statemod.Function{Name: "cmd.call",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("func"), statemod.Opt("args", value.Tuple{}),
			statemod.Opt("kws", nil), statemod.Opt("output_loglevel", "debug"), statemod.Opt("hide_output", false),
			statemod.Opt("use_vt", false)}, Kwargs: true,
		Doc: "Invoke a pre-defined Go function with arguments (not supported).",
		Run: func(c *statemod.Call) (*value.Map, error) {
			return nil, errors.New("cmd.call needs a Python function and is not supported")
		}})
	statemod.Register(&statemod.Function{Name: "cmd.wait_call",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("func"), statemod.Opt("args", value.Tuple{}),
			statemod.Opt("kws", nil), statemod.Opt("stateful", false), statemod.Opt("use_vt", false),
			statemod.Opt("output_loglevel", "debug"), statemod.Opt("hide_output", false)}, Kwargs: true,
		Doc: "Do nothing until a watch requisite fires, then cmd.call func (its arguments are ignored here, as in Salt).",
		Run: func(c *statemod.Call) (*value.Map, error) {
			return value.MapOf("name", c.Get("name"), "changes", value.NewMap(0), "result", true, "comment", ""), nil
		}})
	statemod.Register(&statemod.Function{Name: "cmd.mod_watch", Params: []statemod.Param{statemod.Req("name")}, Kwargs: true,
		Doc: "Execute a cmd function based on a watch call.", Run: cmdModWatch})
}

// rebind builds the arguments of fun from another call's arguments (a
// Python f(name, **kwargs) call).
func rebind(c *statemod.Call, full string) (*statemod.Call, error) {
	f, ok := statemod.Default.Lookup(full)
	if !ok {
		return nil, fmt.Errorf("state function %s is not registered", full)
	}
	args, _ := f.BindArgs(c.Args)
	nc := *c
	nc.Fun = f
	nc.Args = args
	return &nc, nil
}

func cmdModWatch(c *statemod.Call) (*value.Map, error) {
	sfun := c.Str("sfun")
	name := c.Get("name")
	switch sfun {
	case "wait", "run", "watch":
		nc, err := rebind(c, "cmd.run")
		if err != nil {
			return nil, err
		}
		if c.Bool("stateful") {
			nc.Args.Set("stateful", false)
			ret, err := cmdRun(nc)
			if err != nil {
				return nil, err
			}
			return reinterpretedState(ret), nil
		}
		return cmdRun(nc)
	case "wait_script", "script":
		nc, err := rebind(c, "cmd.script")
		if err != nil {
			return nil, err
		}
		if c.Bool("stateful") {
			nc.Args.Set("stateful", false)
			ret, err := cmdScript(nc)
			if err != nil {
				return nil, err
			}
			return reinterpretedState(ret), nil
		}
		return cmdScript(nc)
	case "wait_call", "call":
		if value.Truthy(c.Get("func")) {
			return nil, errors.New("cmd.call needs a Python function and is not supported")
		}
		return value.MapOf("name", name, "changes", value.NewMap(0),
			"comment", fmt.Sprintf("cmd.%s needs a named parameter func", sfun), "result", false), nil
	}
	return value.MapOf("name", name, "changes", value.NewMap(0),
		"comment", fmt.Sprintf("cmd.%s does not work with the watch requisite, please use cmd.wait or cmd.wait_script", sfun),
		"result", false), nil
}

// statefulTestName decodes the stateful argument: stateful is true, and
// test_name the name to run in test mode.
func statefulTestName(c *statemod.Call) (stateful bool, testName any) {
	s := c.Get("stateful")
	if l, ok := s.(*value.List); ok {
		if len(l.Items) > 0 {
			if m, ok := l.Items[0].(*value.Map); ok && m.Has("test_name") {
				testName = mapGet(m, "test_name")
			}
		}
		return true, testName
	}
	return s == true, nil
}

func validEnv(v any) bool {
	switch v.(type) {
	case nil, *value.List, *value.Map:
		return true
	}
	return false
}

func cmdRun(c *statemod.Call) (*value.Map, error) {
	name := c.Get("name")
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", false, "comment", "")
	stateful, testName := statefulTestName(c)
	if c.Test && testName != nil {
		name = testName
	}
	env := c.Get("env")
	if !validEnv(env) {
		ret.Set("comment", "Invalidly-formatted 'env' parameter. See documentation.")
		return ret, nil
	}
	kw := c.ExtraKwargs()
	shell := cmdShell(c)
	for _, k := range []string{"cwd", "root", "runas", "use_vt"} {
		kw.Set(k, c.Get(k))
	}
	kw.Set("shell", shell)
	for _, k := range []string{"env", "prepend_path", "output_loglevel", "hide_output", "success_retcodes", "success_stdout", "success_stderr"} {
		kw.Set(k, c.Get(k))
	}
	if kw.Has("shell") && mapGet(kw, "shell") == nil {
		kw.Delete("shell")
	}
	if c.Test && testName == nil {
		ret.Set("result", nil)
		ret.Set("comment", fmt.Sprintf("Command \"%s\" would have been executed", value.Str(name)))
		if stateful {
			return reinterpretedState(ret), nil
		}
		return ret, nil
	}
	if cwd := c.Str("cwd"); cwd != "" {
		if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
			ret.Set("comment", fmt.Sprintf("Desired working directory \"%s\" is not available", cwd))
			return ret, nil
		}
	}
	kw.Set("cmd", name)
	kw.Set("timeout", c.Get("timeout"))
	kw.Set("python_shell", true)
	fun := "cmd.run_all"
	if c.Bool("root") {
		fun = "cmd.run_chroot"
	}
	out, err := c.Salt(fun, nil, kw)
	if err != nil {
		ret.Set("comment", err.Error())
		return ret, nil
	}
	all, ok := out.(*value.Map)
	if !ok {
		all = value.NewMap(0)
	}
	rc := mapGet(all, "retcode")
	ret.Set("changes", all)
	ret.Set("result", !value.Truthy(rc))
	ret.Set("comment", fmt.Sprintf("Command \"%s\" run", value.Str(name)))
	if c.Bool("ignore_timeout") {
		if value.Equal(mapGet(all, "retcode"), int64(1)) && strings.Contains(value.Str(mapGet(all, "stdout")), "Timed out after") {
			all.Set("retcode", int64(0))
			ret.Set("result", true)
		}
	}
	if stateful {
		ret = reinterpretedState(ret)
	}
	if c.Test && value.Equal(rc, int64(0)) && value.Truthy(mapGet(ret, "changes")) {
		ret.Set("result", nil)
	}
	return ret, nil
}

func cmdScript(c *statemod.Call) (*value.Map, error) {
	stateful, testName := statefulTestName(c)
	name := c.Get("name")
	if c.Test && testName != nil {
		name = testName
	}
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "result", false, "comment", "")
	if !validEnv(c.Get("env")) {
		ret.Set("comment", "Invalidly-formatted 'env' parameter. See documentation.")
		return ret, nil
	}
	if ctx := c.Get("context"); value.Truthy(ctx) {
		if _, ok := ctx.(*value.Map); !ok {
			ret.Set("comment", "Invalidly-formatted 'context' parameter. Must be formed as a dict.")
			return ret, nil
		}
	}
	if d := c.Get("defaults"); value.Truthy(d) {
		if _, ok := d.(*value.Map); !ok {
			ret.Set("comment", "Invalidly-formatted 'defaults' parameter. Must be formed as a dict.")
			return ret, nil
		}
	}
	tmpctx := value.NewMap(0)
	if d, ok := c.Get("defaults").(*value.Map); ok {
		tmpctx = d.Copy()
	}
	if cx, ok := c.Get("context").(*value.Map); ok {
		tmpctx.Update(cx)
	}
	kw := c.ExtraKwargs()
	shell := cmdShell(c)
	for _, k := range []string{"runas", "password"} {
		kw.Set(k, c.Get(k))
	}
	if shell != nil {
		kw.Set("shell", shell)
	}
	for _, k := range []string{"env", "cwd", "template", "timeout", "output_loglevel", "hide_output", "use_vt"} {
		kw.Set(k, c.Get(k))
	}
	kw.Set("context", tmpctx)
	kw.Set("saltenv", c.Saltenv)
	for _, k := range []string{"success_retcodes", "success_stdout", "success_stderr"} {
		kw.Set(k, c.Get(k))
	}
	source := c.Get("source")
	if source == nil {
		source = name
	}
	nameStr := value.Str(name)
	if !value.Truthy(mapGet(kw, "args")) && len(strings.Fields(nameStr)) > 1 {
		_, rest, _ := strings.Cut(nameStr, " ")
		kw.Set("args", rest)
	}
	if c.Test && testName == nil {
		ret.Set("result", nil)
		ret.Set("comment", fmt.Sprintf("Command '%s' would have been executed", nameStr))
		if stateful {
			return reinterpretedState(ret), nil
		}
		return ret, nil
	}
	if cwd := c.Str("cwd"); cwd != "" {
		if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
			ret.Set("comment", fmt.Sprintf("Desired working directory \"%s\" is not available", cwd))
			return ret, nil
		}
	}
	kw.Set("python_shell", true)
	out, err := c.Salt("cmd.script", []any{source}, kw)
	if err != nil {
		ret.Set("comment", err.Error())
		return ret, nil
	}
	all, ok := out.(*value.Map)
	if !ok {
		all = value.NewMap(0)
	}
	ret.Set("changes", all)
	if value.Truthy(mapGet(c.Args, "retcode")) {
		ret.Set("result", !value.Truthy(all))
	} else {
		ret.Set("result", !value.Truthy(mapGet(all, "retcode")))
	}
	if value.Truthy(mapGet(all, "cache_error")) {
		ret.Set("comment", fmt.Sprintf("Unable to cache script %s from saltenv '%s'", value.Str(source), c.Saltenv))
	} else {
		ret.Set("comment", fmt.Sprintf("Command '%s' run", nameStr))
	}
	if stateful {
		ret = reinterpretedState(ret)
	}
	if c.Test && value.Equal(mapGet(all, "retcode"), int64(0)) && value.Truthy(mapGet(ret, "changes")) {
		ret.Set("result", nil)
	}
	return ret, nil
}

// reinterpretedState is cmd's _reinterpreted_state: the script's stdout
// (JSON or a last line of key=value pairs) becomes the state's changes and
// comment.
func reinterpretedState(state *value.Map) *value.Map {
	ret, _ := mapGet(state, "changes").(*value.Map)
	if ret == nil {
		ret = value.NewMap(0)
	}
	state.Set("changes", value.NewMap(0))
	state.Set("comment", "")
	out, _ := mapGet(ret, "stdout").(string)
	if out == "" {
		if e := mapGet(ret, "stderr"); value.Truthy(e) {
			state.Set("comment", e)
		}
		return state
	}
	isJSON := false
	var data *value.Map
	idx := -1
	if v, err := value.FromJSON([]byte(out)); err == nil {
		m, ok := v.(*value.Map)
		if !ok {
			return failout(state, "script JSON output must be a JSON object (e.g., {})!")
		}
		data = m
		isJSON = true
	} else {
		trimmed := strings.TrimRight(out, " \t\n\r\v\f")
		idx = strings.LastIndexByte(trimmed, '\n')
		line := out
		if idx != -1 {
			line = out[idx+1:]
		}
		data = value.NewMap(4)
		words, err := system.ShlexSplit(line)
		bad := err != nil
		if !bad {
			for _, w := range words {
				k, v, ok := strings.Cut(w, "=")
				if !ok || strings.Contains(v, "=") {
					bad = true
					break
				}
				data.Set(k, v)
			}
		}
		if bad {
			state = failout(state, "Failed parsing script output! Stdout must be JSON or a line of name=value pairs.")
			mapGet(state, "changes").(*value.Map).Update(ret)
			return state
		}
	}
	changedV, ok := data.Get("changed")
	if !ok {
		changedV = "no"
	}
	changed, err := isTrue(changedV)
	if err != nil {
		// Salt raises here; the runtime reports the exception.
		panic(err)
	}
	if cm, ok := data.Get("comment"); ok {
		state.Set("comment", cm)
		data.Delete("comment")
	}
	if changed {
		ret.Range(func(k, v any) bool {
			if !data.Has(k) {
				data.Set(k, v)
			}
			return true
		})
		if isJSON {
			data.Set("stdout", "")
		} else {
			s := value.Str(mapGet(data, "stdout"))
			if idx >= 0 && idx <= len(s) {
				s = s[:idx]
			} else if idx < 0 && len(s) > 0 {
				s = s[:len(s)-1]
			}
			data.Set("stdout", s)
		}
		state.Set("changes", data)
	}
	return state
}

func failout(state *value.Map, msg string) *value.Map {
	state.Set("comment", msg)
	state.Set("result", false)
	return state
}

func isTrue(v any) (bool, error) {
	s := strings.ToLower(value.Str(v))
	if value.Truthy(v) && (s == "true" || s == "yes" || s == "1") {
		return true, nil
	}
	if s == "false" || s == "no" || s == "0" {
		return false, nil
	}
	return false, fmt.Errorf("ValueError: Failed parsing boolean value: %s", value.Str(v))
}

// cmdShell is the shell argument, defaulting to the shell grain.
func cmdShell(c *statemod.Call) any {
	if shell := c.Get("shell"); value.Truthy(shell) {
		return shell
	}
	shell, _ := c.Grains().Get("shell")
	return shell
}
