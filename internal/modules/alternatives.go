package modules

// alternatives.go is salt/modules/alternatives.py for Debian-family
// systems: update-alternatives run through cmd.run_all, current links read
// from /etc/alternatives (internal/system/alternatives, shared with the
// alternatives states).

import (
	"brine/internal/execmod"
	"brine/internal/system/alternatives"
	"brine/internal/value"
)

func init() {
	execmod.Register("alternatives.display", altDisplay, "Return update-alternatives --display of name (stderr when it fails).")
	execmod.Register("alternatives.show_link", altShowLink, "Return the master link of the alternative name, or False.")
	execmod.Register("alternatives.show_current", altShowCurrent, "Return the path /etc/alternatives/<name> points to, or False.")
	execmod.Register("alternatives.check_exists", altCheckExists, "True when path is an alternative of name.")
	execmod.Register("alternatives.check_installed", altCheckInstalled, "True when the alternative name currently points to path.")
	execmod.Register("alternatives.install", altInstall, "Register path as an alternative of name for link with priority; the command's output.")
	execmod.Register("alternatives.remove", altRemove, "Remove path from the alternatives of name; the command's output.")
	execmod.Register("alternatives.auto", altAuto, "Put the alternative name in automatic mode; the command's output.")
	execmod.Register("alternatives.set", altSet, "Point the alternative name at path (manual mode); the command's output.")
}

func altTool(ctx *execmod.Context) alternatives.Tool { return alternatives.Tool{Root: sysRoot(ctx)} }

// altRun runs update-alternatives args; ignore is Salt's ignore_retcode.
func altRun(ctx *execmod.Context, ignore bool, args ...string) (stdout, stderr string, rc int64, err error) {
	kw := []any{}
	if ignore {
		kw = append(kw, "ignore_retcode", true)
	}
	res, err := runArgv(ctx, "cmd.run_all", altTool(ctx).Argv(args...), kw...)
	if err != nil {
		return "", "", 0, err
	}
	m, _ := res.(*value.Map)
	rc, _ = cmdGet(m, "retcode").(int64)
	return execmod.String(cmdGet(m, "stdout")), execmod.String(cmdGet(m, "stderr")), rc, nil
}

func altArgs(fun string, args []any, kwargs *value.Map, names ...string) ([]string, error) {
	params := make([]execmod.Param, len(names))
	for i, n := range names {
		params[i] = execmod.Req(n)
	}
	v, _, err := execmod.Bind(fun, args, kwargs, params...)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = value.Str(x)
	}
	return out, nil
}

// altQuery runs a reading command (ignore_retcode): its stdout, and
// failed with its stderr when it exited non-zero with an error text.
func altQuery(ctx *execmod.Context, flag, name string) (out, stderr string, failed bool, err error) {
	out, stderr, rc, err := altRun(ctx, true, flag, name)
	return out, stderr, rc > 0 && stderr != "", err
}

func altDisplay(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, err := altArgs("display", args, kwargs, "name")
	if err != nil {
		return nil, err
	}
	out, serr, failed, err := altQuery(ctx, "--display", a[0])
	if err != nil {
		return nil, err
	}
	if failed {
		return serr, nil
	}
	return out, nil
}

func altShowLink(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, err := altArgs("show_link", args, kwargs, "name")
	if err != nil {
		return nil, err
	}
	out, _, failed, err := altQuery(ctx, "--query", a[0])
	if err != nil || failed {
		return false, err
	}
	if l, ok := alternatives.QueryLink(out); ok {
		return l, nil
	}
	return false, nil
}

func altShowCurrent(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, err := altArgs("show_current", args, kwargs, "name")
	if err != nil {
		return nil, err
	}
	cur, err := altTool(ctx).Current(a[0])
	if err != nil {
		return false, nil
	}
	return cur, nil
}

func altCheckExists(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, err := altArgs("check_exists", args, kwargs, "name", "path")
	if err != nil {
		return nil, err
	}
	out, _, failed, err := altQuery(ctx, "--display", a[0])
	if err != nil || failed {
		return false, err
	}
	return alternatives.DisplayHas(out, a[1]), nil
}

func altCheckInstalled(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, err := altArgs("check_installed", args, kwargs, "name", "path")
	if err != nil {
		return nil, err
	}
	cur, err := altTool(ctx).Current(a[0])
	return err == nil && cur == a[1], nil
}

// altChange runs a changing command: stderr when it failed (and, with
// needStderr, only when it wrote one), else stdout.
func altChange(ctx *execmod.Context, needStderr bool, args ...string) (any, error) {
	out, serr, rc, err := altRun(ctx, false, args...)
	if err != nil {
		return nil, err
	}
	if rc > 0 && (!needStderr || serr != "") {
		return serr, nil
	}
	return out, nil
}

func altInstall(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, err := altArgs("install", args, kwargs, "name", "link", "path", "priority")
	if err != nil {
		return nil, err
	}
	return altChange(ctx, true, "--install", a[1], a[0], a[2], a[3])
}

func altRemove(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, err := altArgs("remove", args, kwargs, "name", "path")
	if err != nil {
		return nil, err
	}
	return altChange(ctx, false, "--remove", a[0], a[1])
}

func altAuto(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, err := altArgs("auto", args, kwargs, "name")
	if err != nil {
		return nil, err
	}
	return altChange(ctx, false, "--auto", a[0])
}

func altSet(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	a, err := altArgs("set_", args, kwargs, "name", "path")
	if err != nil {
		return nil, err
	}
	return altChange(ctx, false, "--set", a[0], a[1])
}
