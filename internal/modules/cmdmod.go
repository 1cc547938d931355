package modules

// cmdmod.go is salt/modules/cmdmod.py: cmd.run, cmd.run_all, cmd.retcode,
// cmd.shell, cmd.run_stdout, cmd.run_stderr, cmd.script, cmd.script_retcode,
// cmd.which, cmd.has_exec.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/system"
	"brine/internal/value"
)

// cmdParams are the keyword parameters shared by the cmd.run family, in
// Salt's signature order.
var cmdParams = []execmod.Param{
	execmod.Req("cmd"),
	execmod.Opt("cwd", nil),
	execmod.Opt("stdin", nil),
	execmod.Opt("runas", nil),
	execmod.Opt("group", nil),
	execmod.Opt("shell", nil),
	execmod.Opt("python_shell", nil),
	execmod.Opt("env", nil),
	execmod.Opt("clean_env", false),
	execmod.Opt("template", nil),
	execmod.Opt("rstrip", true),
	execmod.Opt("umask", nil),
	execmod.Opt("output_encoding", nil),
	execmod.Opt("output_loglevel", "debug"),
	execmod.Opt("log_callback", nil),
	execmod.Opt("hide_output", false),
	execmod.Opt("timeout", nil),
	execmod.Opt("reset_system_locale", true),
	execmod.Opt("ignore_retcode", false),
	execmod.Opt("saltenv", nil),
	execmod.Opt("use_vt", false),
	execmod.Opt("redirect_stderr", false),
	execmod.Opt("password", nil),
	execmod.Opt("prepend_path", nil),
	execmod.Opt("success_retcodes", nil),
	execmod.Opt("success_stdout", nil),
	execmod.Opt("success_stderr", nil),
	execmod.Opt("root", nil),
}

// cmdReq is one command to run, decoded from the bound parameters.
type cmdReq struct {
	cmd           string
	argv          []string // cmd given as a list: run without a shell
	cwd           string
	stdin         *string
	runas         string
	group         string
	shell         string
	pythonShell   bool
	env           *value.Map
	cleanEnv      bool
	rstrip        bool
	umask         *int
	timeout       time.Duration
	resetLocale   bool
	ignoreRetcode bool
	redirect      bool
	prependPath   string
	successRC     []int64
	successOut    []string
	successErr    []string
	hideOutput    bool
	logLevel      *slog.Level   // output_loglevel; nil is quiet
	bg            bool          // start and return without waiting (cmd.run_bg)
	fun           string        // the cmd function that runs it
	timeoutArg    any           // timeout as given
	encodedCmd    bool          // a PowerShell command given base64 encoded (-EncodedCommand)
	popenCtx      func() string // the repr of Salt's Popen arguments, for errors
}

// bindNamed binds args and kwargs to params and returns the values by
// parameter name, with the keyword arguments left over.
func bindNamed(fun string, args []any, kwargs *value.Map, params []execmod.Param) (map[string]any, *value.Map, error) {
	vals, rest, err := execmod.Bind(fun, args, kwargs, params...)
	if err != nil {
		return nil, nil, err
	}
	v := make(map[string]any, len(params))
	for i, p := range params {
		v[p.Name] = vals[i]
	}
	return v, rest, nil
}

func bindCmd(ctx *execmod.Context, fun string, args []any, kwargs *value.Map, redirect bool, pyShellDefault bool) (*cmdReq, error) {
	v, rest, err := bindNamed(fun, args, kwargs, cmdParams)
	if err != nil {
		return nil, err
	}
	r := &cmdReq{
		cwd:           execmod.String(v["cwd"]),
		runas:         execmod.String(v["runas"]),
		group:         execmod.String(v["group"]),
		shell:         execmod.String(v["shell"]),
		cleanEnv:      value.Truthy(v["clean_env"]),
		rstrip:        value.Truthy(v["rstrip"]),
		resetLocale:   value.Truthy(v["reset_system_locale"]),
		ignoreRetcode: value.Truthy(v["ignore_retcode"]),
		redirect:      redirect,
		prependPath:   execmod.String(v["prepend_path"]),
		hideOutput:    value.Truthy(v["hide_output"]),
		logLevel:      cmdLogLevel(v["output_loglevel"]),
		fun:           fun,
		timeoutArg:    v["timeout"],
	}
	if e, ok := rest.Get("encoded_cmd"); ok {
		r.encodedCmd = value.Truthy(e)
	}
	if l, ok := v["cmd"].(*value.List); ok {
		for _, it := range l.Items {
			r.argv = append(r.argv, execmod.String(it))
		}
		r.cmd = strings.Join(r.argv, " ")
	} else {
		r.cmd = execmod.String(v["cmd"])
	}
	if fun != "cmd.run" && fun != "cmd.shell" {
		r.redirect = value.Truthy(v["redirect_stderr"])
	}
	if s := v["stdin"]; s != nil {
		str := execmod.String(s)
		r.stdin = &str
	}
	switch ps := v["python_shell"].(type) {
	case nil:
		r.pythonShell = pyShellDefault
	default:
		r.pythonShell = value.Truthy(ps)
	}
	if r.shell == "" {
		r.shell = defaultShell(ctx)
	}
	switch e := v["env"].(type) {
	case *value.Map:
		r.env = e
	case *value.List:
		r.env = value.NewMap(len(e.Items))
		for _, it := range e.Items {
			if m, ok := it.(*value.Map); ok {
				r.env.Update(m)
			}
		}
	}
	if u := v["umask"]; u != nil {
		s := strings.TrimLeft(execmod.String(u), "0")
		if s == "" {
			return nil, execmod.Errorf("Zero umask is not allowed.")
		}
		n, err := strconv.ParseInt(s, 8, 32)
		if err != nil {
			return nil, execmod.Errorf("Invalid umask: '%s'", execmod.String(u))
		}
		m := int(n)
		r.umask = &m
	}
	if t := v["timeout"]; t != nil {
		r.timeout = time.Duration(value.ToFloat(t) * float64(time.Second))
	}
	if sr := v["success_retcodes"]; sr != nil {
		for _, x := range splitInput(sr) {
			n, err := strconv.ParseInt(strings.TrimSpace(execmod.String(x)), 10, 64)
			if err != nil {
				return nil, &execmod.InvocationError{Msg: "success_retcodes must be a list of integers"}
			}
			r.successRC = append(r.successRC, n)
		}
	}
	for _, x := range splitInput(v["success_stdout"]) {
		r.successOut = append(r.successOut, execmod.String(x))
	}
	for _, x := range splitInput(v["success_stderr"]) {
		r.successErr = append(r.successErr, execmod.String(x))
	}
	return r, nil
}

// splitInput is salt.utils.args.split_input: a list as is, anything else
// split on commas.
func splitInput(v any) []any {
	switch x := v.(type) {
	case nil:
		return nil
	case *value.List:
		return x.Items
	case string:
		var out []any
		for _, p := range strings.Split(x, ",") {
			out = append(out, strings.TrimSpace(p))
		}
		return out
	}
	return []any{v}
}

func defaultShell(ctx *execmod.Context) string {
	if ctx != nil && ctx.Grains != nil {
		if s, ok := ctx.Grains.Get("shell"); ok {
			if str, ok := s.(string); ok && str != "" {
				return str
			}
		}
	}
	if s := os.Getenv("SHELL"); s != "" {
		return s
	}
	return "/bin/sh"
}

var umaskMu sync.Mutex

var localeVars = []string{
	"LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE", "LC_MONETARY", "LC_MESSAGES",
	"LC_PAPER", "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE", "LC_MEASUREMENT",
	"LC_IDENTIFICATION", "LANGUAGE",
}

// startCmd starts cmd under the request's umask; the error is Salt's.
func startCmd(cmd *exec.Cmd, r *cmdReq) error {
	var err error
	if r.umask != nil {
		umaskMu.Lock()
		old := syscall.Umask(*r.umask)
		err = cmd.Start()
		syscall.Umask(old)
		umaskMu.Unlock()
	} else {
		err = cmd.Start()
	}
	if err != nil {
		reason := err.Error()
		var pe *os.PathError
		if errors.As(err, &pe) {
			reason = fileops.PyOSError(pe).Error()
		}
		return execmod.Errorf("Unable to run command '%s' with the context '%s', reason: %s", cmdRepr(r, cmd.Args), r.popenCtx(), reason)
	}
	return nil
}

// isPowershell reports a PowerShell shell ("powershell", "pwsh" or a path
// naming one), whose commands Salt wraps.
func isPowershell(shell string) bool {
	s := strings.ToLower(strings.TrimSpace(shell))
	return strings.Contains(s, "powershell") || strings.Contains(s, "pwsh")
}

// prepPowershell turns the command into a PowerShell command line, as
// Salt's _run does for a PowerShell shell: double quotes escaped, run
// with -Command (scripts unquoted) or -EncodedCommand.
func prepPowershell(r *cmdReq) {
	c := r.cmd
	if r.argv != nil {
		c, r.argv = strings.Join(r.argv, " "), nil
	}
	c = strings.ReplaceAll(strings.TrimSpace(c), `"`, `\"`)
	switch {
	case r.fun == "cmd.script" || r.fun == "cmd.script_retcode":
		c = r.shell + " -NonInteractive -NoProfile -ExecutionPolicy Bypass -Command " + c
	case r.encodedCmd:
		c = r.shell + " -NonInteractive -NoProfile -EncodedCommand " + c
	default:
		c = r.shell + ` -NonInteractive -NoProfile -Command "` + c + `"`
	}
	r.cmd = c
}

// lookPathIn finds an executable named name in the directories of path
// (an empty entry is the current directory), as Popen does.
func lookPathIn(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if dir == "" {
			p = name
		}
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			if !filepath.IsAbs(p) {
				if abs, err := filepath.Abs(p); err == nil {
					p = abs
				}
			}
			return p, nil
		}
	}
	return "", os.ErrNotExist
}

// cmdRepr is how Salt's "Unable to run command" error shows the command:
// the text run by a shell, else the argument list.
func cmdRepr(r *cmdReq, argv []string) string {
	if r.logLevel == nil {
		return "REDACTED"
	}
	if r.pythonShell && r.argv == nil {
		return r.cmd
	}
	return value.Repr(strList(argv))
}

// pyRepr is text that already is a Python repr.
type pyRepr string

// Repr returns the text.
func (p pyRepr) Repr() string { return string(p) }

// popenContext is the repr of the keyword arguments Salt's _run passes to
// Popen, which its "Unable to run command" error shows.
func popenContext(r *cmdReq, cwd string, envOrder []string, env map[string]string) string {
	envMap := value.NewMap(len(envOrder))
	for _, k := range envOrder {
		if v, ok := env[k]; ok {
			envMap.Set(k, v)
		}
	}
	var stdin, stdout, stderr any = nil, int64(-1), int64(-1)
	if r.stdin != nil {
		stdin = *r.stdin
	}
	if r.bg {
		stdout, stderr = nil, nil
	} else if r.redirect || r.fun == "cmd.retcode" {
		stderr = int64(-2) // subprocess.STDOUT
	}
	m := value.MapOf("cwd", cwd, "shell", r.pythonShell, "env", envMap, "stdin", stdin, "stdout", stdout, "stderr", stderr,
		"with_communicate", !r.bg, "timeout", r.timeoutArg, "bg", r.bg)
	if r.runas != "" || r.group != "" || r.umask != nil {
		var runas, group, umask any
		if r.runas != "" {
			runas = r.runas
		}
		if r.group != "" {
			group = r.group
		}
		if r.umask != nil {
			umask = int64(*r.umask)
		}
		m.Set("preexec_fn", pyRepr(fmt.Sprintf("functools.partial(<function chugid_and_umask at %p>, %s, %s, %s)",
			r, value.Repr(runas), value.Repr(umask), value.Repr(group))))
	}
	if r.pythonShell {
		m.Set("executable", r.shell)
	}
	m.Set("close_fds", true)
	return value.Repr(m)
}

// runCmd is cmdmod._run: it returns {pid, retcode, stdout, stderr}.
func runCmd(ctx *execmod.Context, r *cmdReq) (*value.Map, error) {
	var cred *syscall.Credential
	var home string
	var runasUser *user.User
	if r.runas != "" {
		u, err := user.Lookup(r.runas)
		if err != nil {
			return nil, execmod.Errorf("User '%s' is not available", r.runas)
		}
		runasUser = u
		home = u.HomeDir
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		if cur, err := user.Current(); err != nil || cur.Uid != u.Uid {
			cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		}
	} else if h, err := os.UserHomeDir(); err == nil {
		home = h
	}
	if r.group != "" {
		g, err := user.LookupGroup(r.group)
		if err != nil {
			return nil, execmod.Errorf("Group '%s' is not available", r.group)
		}
		gid, _ := strconv.ParseUint(g.Gid, 10, 32)
		if cred == nil {
			cred = &syscall.Credential{Uid: uint32(os.Getuid())}
		}
		cred.Gid = uint32(gid)
	}
	cwd := r.cwd
	if cwd == "" {
		cwd = home
		if cwd == "" || syscall.Access(cwd, 4) != nil {
			cwd = "/"
		}
	}
	// As Salt, the shell must exist (relative to the current directory
	// when it is a bare name) even when no shell runs the command.
	if st, err := os.Stat(r.shell); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return nil, execmod.Errorf("The shell %s is not available", r.shell)
	}
	if isPowershell(r.shell) {
		prepPowershell(r)
	}
	env := map[string]string{}
	var envOrder []string
	setEnv := func(k, v string) {
		if _, ok := env[k]; !ok {
			envOrder = append(envOrder, k)
		}
		env[k] = v
	}
	if !r.cleanEnv {
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			setEnv(k, v)
		}
	}
	if runasUser != nil {
		setEnv("USER", runasUser.Username)
		setEnv("LOGNAME", runasUser.Username)
		setEnv("HOME", runasUser.HomeDir)
	}
	userEnv := map[string]bool{}
	if r.env != nil {
		r.env.Range(func(k, v any) bool {
			ks := execmod.String(k)
			userEnv[ks] = true
			if v == nil {
				setEnv(ks, "")
			} else {
				setEnv(ks, execmod.String(v))
			}
			return true
		})
	}
	if r.resetLocale {
		for _, k := range localeVars {
			if !userEnv[k] {
				setEnv(k, "C")
			}
		}
	}
	if r.prependPath != "" {
		setEnv("PATH", r.prependPath+":"+env["PATH"])
	}
	if !userEnv["NOTIFY_SOCKET"] {
		delete(env, "NOTIFY_SOCKET")
	}
	if !filepath.IsAbs(cwd) {
		return nil, execmod.Errorf("Specified cwd '%s' either not absolute or does not exist", cwd)
	}
	if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
		return nil, execmod.Errorf("Specified cwd '%s' either not absolute or does not exist", cwd)
	}
	var argv []string
	if r.argv != nil {
		argv = r.argv
		if len(argv) == 0 {
			return nil, execmod.Errorf("Unable to run command '' with the context '%s', reason: empty command", cwd)
		}
		r.pythonShell = false
	} else if r.pythonShell {
		argv = []string{r.shell, "-c", r.cmd}
	} else {
		var err error
		argv, err = system.ShlexSplit(r.cmd)
		if err != nil || len(argv) == 0 {
			return nil, execmod.Errorf("Unable to run command '%s' with the context '%s', reason: %v", r.cmd, cwd, err)
		}
	}
	runCtx := context.Background()
	var cancel context.CancelFunc
	if r.timeout > 0 {
		runCtx, cancel = context.WithTimeout(runCtx, r.timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(runCtx, argv[0], argv[1:]...)
	if r.pythonShell {
		cmd.Path = r.shell
		if !strings.Contains(r.shell, "/") {
			// Popen looks a bare executable up on the PATH it passes on
			p, err := lookPathIn(r.shell, env["PATH"])
			if err != nil {
				return nil, execmod.Errorf("Unable to run command '%s' with the context '%s', reason: [Errno 2] No such file or directory: %s",
					cmdRepr(r, argv), popenContext(r, cwd, envOrder, env), value.QuoteString(r.shell))
			}
			cmd.Path = p
		}
	} else if lp, err := exec.LookPath(argv[0]); err == nil {
		cmd.Path = lp
	} else {
		return nil, execmod.Errorf("Unable to run command '%s' with the context '%s', reason: [Errno 2] No such file or directory: %s",
			cmdRepr(r, argv), popenContext(r, cwd, envOrder, env), value.QuoteString(argv[0]))
	}
	r.popenCtx = func() string { return popenContext(r, cwd, envOrder, env) }
	cmd.Dir = cwd
	cmd.Env = make([]string, 0, len(envOrder))
	for _, k := range envOrder {
		if v, ok := env[k]; ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	if r.stdin != nil {
		cmd.Stdin = strings.NewReader(*r.stdin)
	}
	logExecuting(r, cwd)
	if r.bg {
		return startBg(cmd, r)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	if r.redirect {
		cmd.Stderr = &stdout
	} else {
		cmd.Stderr = &stderr
	}
	var pipes *timedPipes
	if r.timeout > 0 {
		var err error
		if pipes, err = attachTimedPipes(cmd, &stdout, &stderr, r.redirect); err != nil {
			return nil, execmod.Errorf("%v", err)
		}
	}
	if err := startCmd(cmd, r); err != nil {
		pipes.abort()
		return nil, err
	}
	pipes.started()
	err := cmd.Wait()
	ret := value.NewMap(4)
	if !pipes.wait(runCtx) || runCtx.Err() == context.DeadlineExceeded {
		ret.Set("stdout", timedOutText(r, argv))
		ret.Set("stderr", "")
		ret.Set("retcode", int64(1))
		ret.Set("pid", int64(cmd.Process.Pid))
		setRetcode(ctx, r, 1)
		logCmdResult(r, ret)
		return ret, nil
	}
	ret.Set("pid", int64(cmd.Process.Pid))
	rc := int64(0)
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			rc = -int64(ws.Signal())
		} else {
			rc = int64(exitErr.ExitCode())
		}
	} else if err != nil {
		return nil, execmod.Errorf("%v", err)
	}
	out, errOut := decodeOutput(stdout.Bytes()), decodeOutput(stderr.Bytes())
	if r.rstrip {
		out = strings.TrimRight(out, " \t\n\r\v\f")
		errOut = strings.TrimRight(errOut, " \t\n\r\v\f")
	}
	if len(r.successRC) == 0 {
		r.successRC = []int64{0}
	}
	for _, s := range r.successRC {
		if rc == s {
			rc = 0
		}
	}
	ret.Set("retcode", rc)
	ret.Set("stdout", out)
	ret.Set("stderr", errOut)
	for _, s := range r.successOut {
		if strings.Contains(out, s) {
			ret.Set("retcode", int64(0))
		}
	}
	for _, s := range r.successErr {
		if strings.Contains(errOut, s) {
			ret.Set("retcode", int64(0))
		}
	}
	rcv, _ := ret.Get("retcode")
	setRetcode(ctx, r, int(rcv.(int64)))
	logCmdResult(r, ret)
	if r.hideOutput {
		ret.Set("stdout", "")
		ret.Set("stderr", "")
	}
	return ret, nil
}

func setRetcode(ctx *execmod.Context, r *cmdReq, rc int) {
	if ctx == nil {
		return
	}
	if r.ignoreRetcode {
		ctx.SetRetcode(0)
	} else {
		ctx.SetRetcode(rc)
	}
}

// decodeOutput turns process output into text, replacing invalid UTF-8 as
// Python's errors="replace" does.
func decodeOutput(b []byte) string {
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func cmdFunc(fun string, redirect, pyShell bool, result func(ret *value.Map) any) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		// Salt's _python_shell_default: a shell only for calls straight
		// from the command line (they carry __pub_jid) or with
		// cmd_safe: False; cross-module calls (templates) split the
		// command with shlex instead.
		def := pyShell
		if kwargs.Has("__pub_jid") {
			def = true
		} else if v, ok := ctx.Opts.Get("cmd_safe"); ok && v == false {
			def = true
		}
		r, err := bindCmd(ctx, fun, args, kwargs, redirect, def)
		if err != nil {
			return nil, err
		}
		ret, err := runCmd(ctx, r)
		if err != nil {
			return nil, err
		}
		if fun == "cmd.run" || fun == "cmd.shell" {
			logRunOutput(r, ret)
		}
		return result(ret), nil
	}
}

// cmdLogLevels are Salt's LOG_LEVELS for output_loglevel.
var cmdLogLevels = map[string]slog.Level{
	"all": slog.LevelDebug - 8, "garbage": slog.LevelDebug - 6, "trace": slog.LevelDebug - 4,
	"debug": slog.LevelDebug, "profile": slog.LevelDebug + 2, "info": slog.LevelInfo,
	"warning": slog.LevelWarn, "error": slog.LevelError, "critical": logLevelCritical,
}

// cmdLogLevel is _check_loglevel: nil for quiet; an unknown name is
// logged and falls back to info.
func cmdLogLevel(v any) *slog.Level {
	name := strings.ToLower(execmod.String(v))
	if name == "quiet" {
		return nil
	}
	lv, ok := cmdLogLevels[name]
	if !ok {
		lv = slog.LevelInfo
		names := make([]string, 0, len(cmdLogLevels)+1)
		for n := range cmdLogLevels {
			names = append(names, n)
		}
		names = append(names, "quiet")
		sort.Sort(sort.Reverse(sort.StringSlice(names)))
		slog.Error(fmt.Sprintf("Invalid output_loglevel '%s'. Valid levels are: %s. Falling back to 'info'.", execmod.String(v), strings.Join(names, ", ")))
	}
	return &lv
}

// logCmd is _log_cmd: the command's first word.
func logCmd(r *cmdReq) string {
	if r.argv != nil {
		if len(r.argv) == 0 {
			return ""
		}
		return strings.TrimSpace(r.argv[0])
	}
	if f := strings.Fields(r.cmd); len(f) > 0 {
		return f[0]
	}
	return ""
}

// logExecuting logs the command about to run at info, as Salt always
// does unless output_loglevel is quiet.
func logExecuting(r *cmdReq, cwd string) {
	if r.logLevel == nil || !slog.Default().Enabled(context.Background(), slog.LevelInfo) {
		return
	}
	q := "'"
	if r.argv != nil {
		q = ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Executing command %s%s%s ", q, logCmd(r), q)
	if r.runas != "" {
		fmt.Fprintf(&b, "as user '%s' ", r.runas)
	}
	if r.group != "" {
		fmt.Fprintf(&b, "in group '%s' ", r.group)
	}
	fmt.Fprintf(&b, "in directory '%s'", cwd)
	if r.bg {
		b.WriteString(". Executing command in the background, no output will be logged.")
	}
	slog.Info(b.String())
}

// logCmdResult logs what a command gave, as _run does: a failure (unless
// ignore_retcode) at error, then its stdout, stderr and return code at
// output_loglevel (error for a failure). brine logs the return code of a
// successful command too ("retcode: 0"), so every command's exit shows.
func logCmdResult(r *cmdReq, ret *value.Map) {
	if r.logLevel == nil {
		return
	}
	lv := *r.logLevel
	rc, _ := ret.Get("retcode")
	failed := !r.ignoreRetcode && rc != int64(0)
	if failed {
		if lv < slog.LevelError {
			lv = slog.LevelError
		}
		slog.Error(fmt.Sprintf("Command '%s' failed with return code: %s", logCmd(r), value.Str(rc)))
	}
	if !slog.Default().Enabled(context.Background(), lv) {
		return
	}
	if !r.hideOutput {
		if out := execmod.String(cmdGet(ret, "stdout")); out != "" {
			slog.Log(context.Background(), lv, "stdout: "+out)
		}
		if errOut := execmod.String(cmdGet(ret, "stderr")); errOut != "" {
			slog.Log(context.Background(), lv, "stderr: "+errOut)
		}
	}
	slog.Log(context.Background(), lv, "retcode: "+value.Str(rc))
}

// logRunOutput is cmd.run's own log of the output (after _run's).
func logRunOutput(r *cmdReq, ret *value.Map) {
	if r.logLevel == nil {
		return
	}
	lv := *r.logLevel
	rc, _ := ret.Get("retcode")
	if !r.ignoreRetcode && rc != int64(0) {
		if lv < slog.LevelError {
			lv = slog.LevelError
		}
		slog.Error(fmt.Sprintf("Command '%s' failed with return code: %s", logCmd(r), value.Str(rc)))
	}
	if slog.Default().Enabled(context.Background(), lv) {
		out := ""
		if !r.hideOutput {
			out = execmod.String(cmdGet(ret, "stdout"))
		}
		slog.Log(context.Background(), lv, "output: "+out)
	}
}

func cmdGet(m *value.Map, k string) any {
	v, _ := m.Get(k)
	return v
}

func init() {
	get := func(k string) func(*value.Map) any {
		return func(m *value.Map) any { v, _ := m.Get(k); return v }
	}
	execmod.Register("cmd.run", cmdFunc("cmd.run", true, false, get("stdout")),
		"Execute the passed command and return the output as a string.")
	execmod.Register("cmd.shell", cmdFunc("cmd.shell", true, true, get("stdout")),
		"Execute the passed command in a shell and return the output as a string.")
	execmod.Register("cmd.run_stdout", cmdFunc("cmd.run_stdout", false, false, get("stdout")),
		"Execute a command and return only its standard output.")
	execmod.Register("cmd.run_stderr", cmdFunc("cmd.run_stderr", false, false, get("stderr")),
		"Execute a command and return only its standard error.")
	execmod.Register("cmd.run_all", cmdFunc("cmd.run_all", false, false, func(m *value.Map) any { return m }),
		"Execute the passed command and return a dict of pid, retcode, stdout and stderr.")
	execmod.Register("cmd.retcode", cmdFunc("cmd.retcode", false, false, get("retcode")),
		"Execute a shell command and return the command's return code.")
	execmod.Register("cmd.which", func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		vals, _, err := execmod.Bind("cmd.which", args, kwargs, execmod.Req("cmd"))
		if err != nil {
			return nil, err
		}
		p, err := exec.LookPath(execmod.String(vals[0]))
		if err != nil {
			return nil, nil
		}
		return p, nil
	}, "Returns the path of an executable, or None.")
	execmod.Register("cmd.has_exec", func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		vals, _, err := execmod.Bind("cmd.has_exec", args, kwargs, execmod.Req("cmd"))
		if err != nil {
			return nil, err
		}
		_, err = exec.LookPath(execmod.String(vals[0]))
		return err == nil, nil
	}, "Returns true if the executable is available on the minion.")
}

// fetchSource returns the content of a salt:// URL or local path, or
// ok=false when it cannot be read (Salt's cp.cache_file returning False).
func fetchSource(ctx *execmod.Context, source, saltenv string) ([]byte, bool) {
	if rest, ok := strings.CutPrefix(source, "salt://"); ok {
		if ctx == nil || ctx.Files == nil {
			return nil, false
		}
		env := saltenv
		if p, q, found := strings.Cut(rest, "?saltenv="); found {
			rest, env = p, q
		}
		data, _, err := ctx.Files.ReadFile(env, rest)
		if err != nil {
			return nil, false
		}
		return data, true
	}
	data, err := os.ReadFile(strings.TrimPrefix(source, "file://"))
	if err != nil {
		return nil, false
	}
	return data, true
}

// cmdScript is cmd.script: fetch the script, write it to a temporary
// file, run it with args.
func cmdScript(ctx *execmod.Context, args []any, kwargs *value.Map, retcodeOnly bool) (any, error) {
	params := append([]execmod.Param{execmod.Req("source"), execmod.Opt("args", nil)}, cmdParams[1:]...)
	v, rest, err := bindNamed("cmd.script", args, kwargs, params)
	if err != nil {
		return nil, err
	}
	source := execmod.String(v["source"])
	saltenv := execmod.String(v["saltenv"])
	if saltenv == "" {
		saltenv = ctx.SaltenvOr("base")
	}
	cacheError := func() any {
		if retcodeOnly {
			return int64(1)
		}
		return value.MapOf("pid", int64(0), "retcode", int64(1), "stdout", "", "stderr", "", "cache_error", true)
	}
	var data []byte
	if value.Truthy(v["template"]) {
		// Salt renders the script with cp.get_template, passing the
		// call's other keyword arguments (context, defaults, pillar...)
		// to the template
		out, err := renderScript(ctx, source, saltenv, v["template"], rest)
		if err != nil {
			return cacheError(), nil
		}
		data = out
	} else {
		var ok bool
		if data, ok = fetchSource(ctx, source, saltenv); !ok {
			return cacheError(), nil
		}
	}
	dir := execmod.String(v["cwd"])
	ext := filepath.Ext(strings.SplitN(source, "?", 2)[0])
	f, err := os.CreateTemp(dir, "__salt.tmp.*"+ext)
	if err != nil {
		return nil, execmod.Errorf("%v", err)
	}
	path := f.Name()
	defer os.Remove(path)
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		return nil, execmod.Errorf("Unable to write script %s", path)
	}
	if err := os.Chmod(path, 0o500); err != nil {
		return nil, execmod.Errorf("%v", err)
	}
	if runas := execmod.String(v["runas"]); runas != "" {
		if u, err := user.Lookup(runas); err == nil {
			uid, _ := strconv.Atoi(u.Uid)
			_ = os.Chown(path, uid, -1)
		}
	}
	cmdline := shellQuote(path)
	if a := v["args"]; value.Truthy(a) {
		cmdline += " " + execmod.String(a)
	}
	kw := kwargs.Copy()
	kw.Delete("source")
	kw.Delete("args")
	kw.Delete("template")
	kw.Delete("context")
	kw.Delete("__env__")
	r, err := bindCmd(ctx, "cmd.script", []any{cmdline}, kw, false, true)
	if err != nil {
		return nil, err
	}
	ret, err := runCmd(ctx, r)
	if err != nil {
		return nil, err
	}
	if retcodeOnly {
		rc, _ := ret.Get("retcode")
		return rc, nil
	}
	return ret, nil
}

// shellQuote is Python's shlex.quote.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./-_", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

func init() {
	execmod.Register("cmd.script", func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		return cmdScript(ctx, args, kwargs, false)
	}, "Download a script from a remote location and execute it locally.")
	execmod.Register("cmd.script_retcode", func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		return cmdScript(ctx, args, kwargs, true)
	}, "Run cmd.script and return only the return code.")
}

func init() {
	execmod.Register("cmd.shells", cmdShells, "Return the valid login shells listed in /etc/shells.")
	execmod.Register("cmd.which_bin", cmdWhichBin, "Return the path of the first of cmds found on the PATH, or None.")
	execmod.Register("cmd.exec_code", cmdExecCode(false), "Run code with the interpreter lang (python3, perl, ...); its standard output.")
	execmod.Register("cmd.exec_code_all", cmdExecCode(true), "Run code with the interpreter lang; cmd.run_all's result.")
	execmod.Register("cmd.tty", cmdTTY, "Echo a message to a terminal device (tty1, pts/3 as pts3).")
}

func cmdShells(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("shells", args, kwargs); err != nil {
		return nil, err
	}
	out := value.NewList()
	data, err := os.ReadFile("/etc/shells")
	if err != nil {
		return out, nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out.Append(line)
		}
	}
	return out, nil
}

func cmdWhichBin(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("which_bin", args, kwargs, execmod.Req("cmds"))
	if err != nil {
		return nil, err
	}
	var cmds []string
	switch c := v[0].(type) {
	case *value.List:
		for _, x := range c.Items {
			cmds = append(cmds, value.Str(x))
		}
	case string:
		// Salt iterates what it is given: a string, character by character.
		for _, r := range c {
			cmds = append(cmds, string(r))
		}
	}
	for _, c := range cmds {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return nil, nil
}

func cmdExecCode(all bool) execmod.Func {
	fun := "exec_code"
	if all {
		fun = "exec_code_all"
	}
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, rest, err := execmod.Bind(fun, args, kwargs, execmod.Req("lang"), execmod.Req("code"), execmod.Opt("cwd", nil), execmod.Opt("args", nil))
		if err != nil {
			return nil, err
		}
		f, err := os.CreateTemp("", "")
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		defer os.Remove(f.Name())
		_, werr := f.WriteString(value.Str(v[1]))
		if cerr := f.Close(); werr != nil || cerr != nil {
			return nil, execmod.Errorf("writing %s failed", f.Name())
		}
		if ru, ok := rest.GetString("runas"); ok && ru != nil {
			if uid, ok := fileops.ResolveUID(ru); ok {
				os.Chown(f.Name(), uid, -1)
			}
		}
		argv := value.NewList(v[0], f.Name())
		switch a := v[3].(type) {
		case string:
			argv.Append(a)
		case *value.List:
			argv.Items = append(argv.Items, a.Items...)
		}
		kw := value.MapOf("cwd", v[2], "python_shell", false)
		rest.Range(func(k, x any) bool {
			kw.Set(k, x)
			return true
		})
		res, err := ctx.Call("cmd.run_all", []any{argv}, kw)
		if err != nil || all {
			return res, err
		}
		m, _ := res.(*value.Map)
		return cmdGet(m, "stdout"), nil
	}
}

func cmdTTY(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("tty", args, kwargs, execmod.Req("device"), execmod.Opt("echo", ""))
	if err != nil {
		return nil, err
	}
	dev := value.Str(v[0])
	var tty string
	switch {
	case strings.HasPrefix(dev, "tty"):
		tty = "/dev/" + dev
	case strings.HasPrefix(dev, "pts"):
		tty = "/dev/" + strings.Replace(dev, "pts", "pts/", -1)
	default:
		return value.MapOf("Error", "The specified device is not a valid TTY"), nil
	}
	f, err := os.OpenFile(tty, os.O_WRONLY|os.O_TRUNC|os.O_CREATE, 0o666)
	if err == nil {
		_, err = f.WriteString(value.Str(v[1]))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return value.MapOf("Error", "Echoing to "+tty+" returned error"), nil
	}
	return value.MapOf("Success", "Message was successfully echoed to "+tty), nil
}

// renderScript is cmd.script's template step: cp.get_template of source
// into a temporary file, whose text it returns (an error when the source
// is missing or does not render).
func renderScript(ctx *execmod.Context, source, saltenv string, template any, rest *value.Map) ([]byte, error) {
	f, err := os.CreateTemp("", "__salt.tmp.*")
	if err != nil {
		return nil, err
	}
	dest := f.Name()
	_ = f.Close()
	defer os.Remove(dest)
	kw := value.NewMap(rest.Len() + 2)
	rest.Range(func(k, val any) bool {
		if s, ok := k.(string); !ok || !strings.HasPrefix(s, "__pub_") {
			kw.Set(k, val)
		}
		return true
	})
	kw.Set("template", template)
	kw.Set("saltenv", saltenv)
	out, err := ctx.Call("cp.get_template", []any{source, dest}, kw)
	if err != nil {
		return nil, err
	}
	if !value.Truthy(out) {
		return nil, fmt.Errorf("%s could not be rendered", source)
	}
	return os.ReadFile(dest)
}
