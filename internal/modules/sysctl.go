package modules

// sysctl.go is salt/modules/linux_sysctl.py: kernel parameters read and
// set with sysctl(8), persisted in the sysctl configuration file (the file
// handling lives in internal/system/sysctl, shared with sysctl.present).

import (
	"errors"
	"os"
	"regexp"
	"strings"

	"brine/internal/execmod"
	"brine/internal/system/sysctl"
	"brine/internal/value"
)

func init() {
	execmod.Register("sysctl.default_config", sysctlDefaultConfig, "Return the file sysctl.persist writes by default (/etc/sysctl.d/99-salt.conf under systemd).")
	execmod.Register("sysctl.show", sysctlShow, "Return every kernel parameter (sysctl -a), or the settings of config_file.")
	execmod.Register("sysctl.get", sysctlGet, "Return the value of one kernel parameter (sysctl -n).")
	execmod.Register("sysctl.assign", sysctlAssign, "Set a kernel parameter now (sysctl -w); {name: value} as sysctl reports it.")
	execmod.Register("sysctl.persist", sysctlPersist, "Set a kernel parameter and persist it in config: 'Updated' or 'Already set'.")
}

// runArgv runs argv (no shell) through the cmd function fun.
func runArgv(ctx *execmod.Context, fun string, argv []string, kw ...any) (any, error) {
	l := value.NewList()
	for _, a := range argv {
		l.Append(a)
	}
	return ctx.Call(fun, []any{l}, value.MapOf(append([]any{"python_shell", false}, kw...)...))
}

func sysctlDefaultConfig(*execmod.Context, []any, *value.Map) (any, error) {
	return sysctl.DefaultConfig(), nil
}

func sysctlShow(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("show", args, kwargs, execmod.Opt("config_file", false))
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(0)
	if value.Truthy(v[0]) {
		pairs, ok, err := sysctl.ShowFile(execmod.String(v[0]))
		switch {
		case !ok:
			return value.NewList(), nil
		case err != nil:
			return nil, nil
		}
		for _, p := range pairs {
			ret.Set(p.Key, p.Value)
		}
		return ret, nil
	}
	out, err := runArgv(ctx, "cmd.run_stdout", []string{"sysctl", "-a"}, "output_loglevel", "trace")
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(execmod.String(out), "\n") {
		if k, val, ok := strings.Cut(line, " = "); ok {
			ret.Set(k, val)
		}
	}
	return ret, nil
}

func sysctlGetValue(ctx *execmod.Context, name string) (string, error) {
	out, err := runArgv(ctx, "cmd.run", []string{"sysctl", "-n", name})
	return execmod.String(out), err
}

func sysctlGet(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	return sysctlGetValue(ctx, execmod.String(v[0]))
}

func sysctlAssignValue(ctx *execmod.Context, name, val string) (*value.Map, error) {
	if _, err := os.Stat(sysctl.Proc{}.Path(name)); err != nil {
		return nil, execmod.Errorf("sysctl %s does not exist", name)
	}
	res, err := runArgv(ctx, "cmd.run_all", []string{"sysctl", "-w", name + "=" + val})
	if err != nil {
		return nil, err
	}
	m, _ := res.(*value.Map)
	out, serr := execmod.String(cmdGet(m, "stdout")), execmod.String(cmdGet(m, "stderr"))
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(name) + `\s+=\s+` + regexp.QuoteMeta(val) + `$`)
	if !re.MatchString(out) || strings.Contains(serr, "Invalid argument") {
		msg := out
		if !value.Equal(cmdGet(m, "retcode"), int64(0)) && serr != "" {
			msg = serr
		}
		return nil, execmod.Errorf("sysctl -w failed: %s", msg)
	}
	k, nv, _ := strings.Cut(out, " = ")
	return value.MapOf(k, nv), nil
}

func sysctlAssign(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("assign", args, kwargs, execmod.Req("name"), execmod.Req("value"))
	if err != nil {
		return nil, err
	}
	return sysctlAssignValue(ctx, execmod.String(v[0]), value.Str(v[1]))
}

func sysctlPersist(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("persist", args, kwargs, execmod.Req("name"), execmod.Req("value"), execmod.Opt("config", nil))
	if err != nil {
		return nil, err
	}
	config := execmod.String(v[2])
	if v[2] == nil {
		config = sysctl.DefaultConfig()
	}
	get := func(name string) (string, error) { return sysctlGetValue(ctx, name) }
	set := func(name, val string) error {
		_, err := sysctlAssignValue(ctx, name, val)
		return err
	}
	status, err := sysctl.Persist(get, set, execmod.String(v[0]), value.Str(v[1]), config)
	var se *sysctl.Error
	if errors.As(err, &se) {
		return nil, execmod.Errorf("%s", se.Msg)
	}
	if err != nil {
		var ce *execmod.CommandExecutionError
		if errors.As(err, &ce) {
			return nil, err
		}
		return nil, execmod.Errorf("%s", err)
	}
	return status, nil
}
