package modules

// cmdmod_more.go holds the rest of salt/modules/cmdmod.py that works on
// Linux: cmd.run_bg (start and do not wait), cmd.run_chroot (run inside a
// chroot with /dev, /proc and /sys mounted) and cmd.shell_info.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("cmd.run_bg", cmdRunBg,
		"Start cmd in the background and return {'pid': ...} at once; its output goes to brine's own stdout and stderr.")
	execmod.Register("cmd.run_chroot", cmdRunChroot,
		"Run cmd with a shell inside the chroot root (devtmpfs, proc and sysfs mounted meanwhile, binds bind-mounted); cmd.run_all's result.")
	execmod.Register("cmd.shell_info", cmdShellInfo,
		"Return what is known of a shell or script language (installed, path, version...).")
}

// startBg starts a command without waiting for it (cmd.run_bg): it keeps
// brine's own stdout and stderr, and a goroutine reaps it.
func startBg(cmd *exec.Cmd, r *cmdReq) (*value.Map, error) {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, os.Stdout, os.Stderr
	if err := startCmd(cmd, r); err != nil {
		return nil, err
	}
	go func() { _ = cmd.Wait() }()
	return value.MapOf("pid", int64(cmd.Process.Pid), "retcode", nil, "stdout", "", "stderr", ""), nil
}

func cmdRunBg(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	def := kwargs.Has("__pub_jid")
	if v, ok := ctx.Opts.Get("cmd_safe"); ok && v == false {
		def = true
	}
	r, err := bindCmd(ctx, "cmd.run_bg", args, kwargs, false, def)
	if err != nil {
		return nil, err
	}
	// In the background Salt ignores the return code, stdin, rstrip and
	// the timeout (nothing waits for the process).
	r.bg, r.ignoreRetcode, r.stdin, r.timeout, r.rstrip = true, true, nil, 0, false
	ret, err := runCmd(ctx, r)
	if err != nil {
		return nil, err
	}
	pid, _ := ret.Get("pid")
	return value.MapOf("pid", pid), nil
}

// chrootRunAllArgs are the keyword arguments run_chroot hands to
// cmd.run_all unchanged.
var chrootRunAllArgs = []string{"cwd", "stdin", "shell", "python_shell", "env", "clean_env", "template", "rstrip",
	"umask", "output_encoding", "output_loglevel", "log_callback", "timeout", "reset_system_locale",
	"ignore_retcode", "saltenv", "use_vt", "success_retcodes", "success_stdout", "success_stderr"}

// chrootPids lists the processes whose root directory lies under root
// (by string prefix, as Salt compares), brine itself excepted.
func chrootPids(root string) []int {
	var pids []int
	links, _ := filepath.Glob("/proc/[0-9]*/root")
	for _, l := range links {
		target, err := filepath.EvalSymlinks(l)
		if err != nil || !strings.HasPrefix(target, root) {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(l)))
		if err == nil && pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids
}

func cmdRunChroot(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	params := []execmod.Param{execmod.Req("root"), execmod.Req("cmd")}
	defaults := map[string]any{"python_shell": true, "output_loglevel": "quiet", "rstrip": true,
		"reset_system_locale": true, "clean_env": false, "ignore_retcode": false, "use_vt": false}
	for _, n := range []string{"cwd", "stdin", "runas", "group", "shell", "python_shell", "binds", "env", "clean_env",
		"template", "rstrip", "umask", "output_encoding", "output_loglevel", "log_callback", "hide_output", "timeout",
		"reset_system_locale", "ignore_retcode", "saltenv", "use_vt", "bg", "success_retcodes", "success_stdout",
		"success_stderr"} {
		d, ok := defaults[n]
		if !ok && (n == "hide_output" || n == "bg") {
			d = false
		}
		params = append(params, execmod.Opt(n, d))
	}
	v, extra, err := bindNamed("run_chroot", args, kwargs, params)
	if err != nil {
		return nil, err
	}
	root := execmod.String(v["root"])
	mount := func(name, device string, kw *value.Map) error {
		_, err := ctx.Call("mount.mount", []any{name, device}, kw)
		return err
	}
	if err := mount(filepath.Join(root, "dev"), "devtmpfs", value.MapOf("fstype", "devtmpfs")); err != nil {
		return nil, err
	}
	if err := mount(filepath.Join(root, "proc"), "proc", value.MapOf("fstype", "proc")); err != nil {
		return nil, err
	}
	if err := mount(filepath.Join(root, "sys"), "sysfs", value.MapOf("fstype", "sysfs")); err != nil {
		return nil, err
	}
	var binds []string
	if l, ok := v["binds"].(*value.List); ok {
		for _, b := range l.Items {
			binds = append(binds, execmod.String(b))
		}
	}
	bindTarget := func(b string) string {
		rel, err := filepath.Rel("/", b)
		if err != nil {
			rel = b
		}
		return filepath.Join(root, rel)
	}
	for _, b := range binds {
		if err := mount(bindTarget(b), b, value.MapOf("opts", "default,bind")); err != nil {
			return nil, err
		}
	}
	sh := "/bin/sh"
	if st, err := os.Stat(filepath.Join(root, "bin/bash")); err == nil && st.Mode().IsRegular() {
		sh = "/bin/bash"
	}
	cmd := execmod.String(v["cmd"])
	if l, ok := v["cmd"].(*value.List); ok {
		parts := make([]string, len(l.Items))
		for i, it := range l.Items {
			parts[i] = value.Str(it)
		}
		cmd = strings.Join(parts, " ")
	}
	userspec := ""
	if value.Truthy(v["runas"]) {
		group := ""
		if value.Truthy(v["group"]) {
			group = execmod.String(v["group"])
		}
		userspec = "--userspec " + execmod.String(v["runas"]) + ":" + group
	}
	full := fmt.Sprintf("chroot %s %s %s -c %s", userspec, root, sh, shellQuote(cmd))
	kw := value.NewMap(len(chrootRunAllArgs) + 2)
	for _, n := range chrootRunAllArgs {
		if val := v[n]; val != nil {
			kw.Set(n, val)
		}
	}
	for _, n := range []string{"pillarenv", "pillar"} {
		if val, ok := extra.Get(n); ok {
			kw.Set(n, val)
		}
	}
	out, runErr := ctx.Call("cmd.run_all", []any{full}, kw)
	// Stop what the command left running in the chroot: TERM three
	// times, then KILL.
	for i := 0; i < 6; i++ {
		pids := chrootPids(root)
		if len(pids) == 0 {
			break
		}
		sig := syscall.SIGTERM
		if i >= 3 {
			sig = syscall.SIGKILL
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, sig)
		}
	}
	if len(chrootPids(root)) > 0 {
		slog.Error("Processes running in chroot could not be killed, filesystem will remain mounted")
	}
	for _, b := range binds {
		_, _ = ctx.Call("mount.umount", []any{bindTarget(b)}, nil)
	}
	for _, d := range []string{"sys", "proc", "dev"} {
		_, _ = ctx.Call("mount.umount", []any{filepath.Join(root, d)}, nil)
	}
	if runErr != nil {
		return nil, runErr
	}
	ret, ok := out.(*value.Map)
	if ok && value.Truthy(v["hide_output"]) {
		ret.Set("stdout", "")
		ret.Set("stderr", "")
	}
	return out, nil
}

// shellVersionProbes are the commands shell_info runs and the pattern
// finding the version in their output (Salt's regex_shells; cmd and
// powershell run only where they exist).
var shellVersionProbes = map[string][]string{
	"bash":            {`version (\d\S*)`, "bash", "--version"},
	"bash-test-error": {`versioZ ([-\w.]+)`, "bash", "--version"},
	"bash-test-env":   {`(HOME=.*)`, "bash", "-c", "declare"},
	"zsh":             {`^zsh (\d\S*)`, "zsh", "--version"},
	"tcsh":            {`^tcsh (\d\S*)`, "tcsh", "--version"},
	"cmd":             {`Version ([\d.]+)`, "cmd.exe", "/C", "ver"},
	"powershell":      {`PSVersion\s+(\d\S*)`, "powershell", "-NonInteractive", "$PSVersionTable"},
	"perl":            {`^(\d\S*)`, "perl", "-e", "printf \"%vd\\n\", $^V;"},
	"python":          {`^Python (\d\S*)`, "python", "-V"},
	"ruby":            {`^ruby (\d\S*)`, "ruby", "-v"},
	"php":             {`^PHP (\d\S*)`, "php", "-v"},
}

// cmdShellInfo is Salt 3006's shell_info, including its failure: Salt
// matches its str pattern against the probe's bytes output, so for every
// shell that runs it raises TypeError, which salt-call reports as
// invalid arguments. Only the unknown-shell, not-installed and timeout
// answers are dictionaries.
func cmdShellInfo(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("shell_info", args, kwargs, execmod.Req("shell"), execmod.Opt("list_modules", false))
	if err != nil {
		return nil, err
	}
	shell := value.Str(v[0])
	probe, ok := shellVersionProbes[shell]
	if !ok {
		return value.MapOf("error", "Salt does not know how to get the version number for "+shell, "installed", nil), nil
	}
	argv := probe[1:]
	joined := strings.Join(argv, " ")
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return value.MapOf("error", fmt.Sprintf("Unable to run command '%s' Reason: %s", joined, pyOSErrorText(err, argv[0])),
			"installed", false), nil
	}
	runCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(runCtx, path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Env = os.Environ()
	if os.Getenv("HOME") == "" {
		if h, err := os.UserHomeDir(); err == nil {
			cmd.Env = append(cmd.Env, "HOME="+h)
		}
	}
	if _, err := cmd.CombinedOutput(); err != nil {
		if runCtx.Err() == context.DeadlineExceeded {
			return value.MapOf("error", fmt.Sprintf("Unable to run command '%s' Reason: Timed out.", joined), "installed", false), nil
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return value.MapOf("error", fmt.Sprintf("Unable to run command '%s' Reason: %s", joined, pyOSErrorText(err, argv[0])),
				"installed", false), nil
		}
	}
	return nil, &execmod.InvocationError{Msg: "cannot use a string pattern on a bytes-like object"}
}

// pyOSErrorText is str() of the OSError Python raises when it cannot
// start name: "[Errno 2] No such file or directory: 'name'".
func pyOSErrorText(err error, name string) string {
	var en syscall.Errno
	switch {
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist):
		en = syscall.ENOENT
	case errors.As(err, &en):
	case errors.Is(err, os.ErrPermission):
		en = syscall.EACCES
	default:
		return err.Error()
	}
	return fmt.Sprintf("[Errno %d] %s: '%s'", int(en), strerror(en), name)
}
