package modules

// file_selinux.go is the SELinux part of salt/modules/file.py:
// file.get_selinux_context (stat -c %C), file.set_selinux_context (chcon,
// with persist: selinux.fcontext_add_policy) and file.restorecon. Like
// Salt they only run the commands; without SELinux (Debian's default
// kernel) stat cannot read a context, chcon fails and restorecon is not
// installed, and the answers are Salt's for those failures.

import (
	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("file.get_selinux_context", fileGetSelinuxContext,
		"Return the SELinux context of path (stat -c %C), or a sentence saying none is available.")
	execmod.Register("file.set_selinux_context", fileSetSelinuxContext,
		"Set the SELinux user, role, type or range of path with chcon (persist: also as an fcontext policy); the new context or False.")
	execmod.Register("file.restorecon", fileRestorecon,
		"Reset the SELinux context of path (recursive: the tree) with restorecon -F; True when it succeeds.")
}

// selinuxContext is file.get_selinux_context.
func selinuxContext(ctx *execmod.Context, path string) (any, error) {
	res, err := ctx.Call("cmd.run_all", []any{strList([]string{"stat", "-c", "%C", path})}, value.MapOf("python_shell", false))
	if err != nil {
		return nil, err
	}
	m, _ := res.(*value.Map)
	if value.Equal(cmdGet(m, "retcode"), int64(0)) {
		return cmdGet(m, "stdout"), nil
	}
	return "No selinux context information is available for " + path, nil
}

func fileGetSelinuxContext(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_selinux_context", args, kwargs, execmod.Req("path"))
	if err != nil {
		return nil, err
	}
	return selinuxContext(ctx, execmod.String(v[0]))
}

// cmdSucceeded runs argv with cmd.retcode and reports a zero return code.
func cmdSucceeded(ctx *execmod.Context, argv ...string) (bool, error) {
	rc, err := ctx.Call("cmd.retcode", []any{strList(argv)}, value.MapOf("python_shell", false))
	if err != nil {
		return false, err
	}
	return !value.Truthy(rc), nil
}

func fileSetSelinuxContext(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_selinux_context", args, kwargs, execmod.Req("path"), execmod.Opt("user", nil),
		execmod.Opt("role", nil), execmod.Opt("type", nil), execmod.Opt("range", nil), execmod.Opt("persist", false))
	if err != nil {
		return nil, err
	}
	path := execmod.String(v[0])
	user, role, typ, rng := v[1], v[2], v[3], v[4]
	if !value.Truthy(user) && !value.Truthy(role) && !value.Truthy(typ) && !value.Truthy(rng) {
		return false, nil
	}
	if value.Truthy(v[5]) {
		const fun = "selinux.fcontext_add_policy"
		if _, ok := ctx.Lookup(fun); !ok {
			// Salt's loader has no selinux module without the SELinux tools
			return nil, netPyErrorf("KeyError", "'%s'", fun)
		}
		res, err := ctx.Call(fun, []any{path}, value.MapOf("sel_type", typ, "sel_user", user, "sel_level", rng))
		if err != nil {
			return nil, err
		}
		var rc any
		if m, ok := res.(*value.Map); ok {
			rc, _ = m.Get("retcode")
		}
		if !value.Equal(rc, int64(0)) {
			return nil, execmod.Errorf("Problem setting fcontext: %s", value.Repr(res))
		}
	}
	argv := []string{"chcon"}
	for _, o := range []struct {
		flag string
		val  any
	}{{"-u", user}, {"-r", role}, {"-t", typ}, {"-l", rng}} {
		if value.Truthy(o.val) {
			argv = append(argv, o.flag, execmod.String(o.val))
		}
	}
	ok, err := cmdSucceeded(ctx, append(argv, path)...)
	if err != nil || !ok {
		return false, err
	}
	return selinuxContext(ctx, path)
}

func fileRestorecon(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("restorecon", args, kwargs, execmod.Req("path"), execmod.Opt("recursive", false))
	if err != nil {
		return nil, err
	}
	flag := "-F"
	if value.Truthy(v[1]) {
		flag = "-FR"
	}
	return cmdSucceeded(ctx, "restorecon", flag, execmod.String(v[0]))
}
