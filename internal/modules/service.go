package modules

// service.go is Salt's service virtual module (systemd_service.py,
// debian_service.py, rh_service.py), through internal/system/svcmgr.

import (
	"context"
	"sort"
	"strings"

	"brine/internal/execmod"
	"brine/internal/match"
	"brine/internal/system"
	"brine/internal/system/svcmgr"
	"brine/internal/value"
)

// SvcManagerService is the ctx service name under which a run (or a test)
// can supply its own svcmgr.Manager.
const SvcManagerService = "svcmgr"

func init() {
	execmod.Register("service.status", serviceStatus, "True when service name is running (a mapping for a glob).")
	execmod.Register("service.available", serviceAvailable, "True when service name exists.")
	execmod.Register("service.missing", serviceMissing, "True when service name does not exist.")
	execmod.Register("service.enabled", serviceEnabled, "True when service name starts at boot.")
	execmod.Register("service.disabled", serviceDisabled, "True when service name does not start at boot.")
	execmod.Register("service.masked", serviceMasked, "True when service name is masked (systemd).")
	execmod.Register("service.get_all", serviceGetAll, "Return the sorted names of all services.")
	for _, a := range []string{"start", "stop", "restart", "reload", "enable", "disable", "mask", "unmask"} {
		action := a
		execmod.Register("service."+action, func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
			return serviceAction(ctx, action, args, kwargs)
		}, strings.ToUpper(action[:1])+action[1:]+" service name; True on success.")
	}
}

// SvcManager returns the init system manager of the run: the one attached
// as the svcmgr service, else systemd or SysV as this machine runs.
func SvcManager(ctx *execmod.Context) svcmgr.Manager {
	if m, ok := ctx.Service(SvcManagerService).(svcmgr.Manager); ok {
		return m
	}
	return svcmgr.New(system.Exec{})
}

func serviceNameArg(fun string, args []any, kwargs *value.Map) (string, error) {
	v, _, err := execmod.Bind(fun, args, kwargs, execmod.Req("name"), execmod.Opt("sig", nil))
	if err != nil {
		return "", err
	}
	return execmod.String(v[0]), nil
}

func serviceBoolFunc(ctx *execmod.Context, fun string, args []any, kwargs *value.Map, f func(svcmgr.Manager, string) (bool, error)) (any, error) {
	name, err := serviceNameArg(fun, args, kwargs)
	if err != nil {
		return nil, err
	}
	m := SvcManager(ctx)
	if strings.ContainsAny(name, "*?[") {
		all, err := m.List(context.Background())
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		out := value.NewMap(0)
		for _, s := range all {
			if match.Fnmatch(s, name) {
				ok, err := f(m, s)
				if err != nil {
					return nil, execmod.Errorf("%s", err)
				}
				out.Set(s, ok)
			}
		}
		return out, nil
	}
	ok, err := f(m, name)
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return ok, nil
}

func serviceStatus(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return serviceBoolFunc(ctx, "status", args, kwargs, func(m svcmgr.Manager, n string) (bool, error) {
		return m.Status(context.Background(), n)
	})
}

func serviceAvailable(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return serviceBoolFunc(ctx, "available", args, kwargs, func(m svcmgr.Manager, n string) (bool, error) {
		return m.Available(context.Background(), n)
	})
}

func serviceMissing(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return serviceBoolFunc(ctx, "missing", args, kwargs, func(m svcmgr.Manager, n string) (bool, error) {
		ok, err := m.Available(context.Background(), n)
		return !ok, err
	})
}

func serviceEnabled(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return serviceBoolFunc(ctx, "enabled", args, kwargs, func(m svcmgr.Manager, n string) (bool, error) {
		return m.Enabled(context.Background(), n)
	})
}

func serviceDisabled(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return serviceBoolFunc(ctx, "disabled", args, kwargs, func(m svcmgr.Manager, n string) (bool, error) {
		ok, err := m.Enabled(context.Background(), n)
		return !ok, err
	})
}

func serviceMasked(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	return serviceBoolFunc(ctx, "masked", args, kwargs, func(m svcmgr.Manager, n string) (bool, error) {
		return m.Masked(context.Background(), n)
	})
}

func serviceGetAll(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	all, err := SvcManager(ctx).List(context.Background())
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	sort.Strings(all)
	return sysStrList(all), nil
}

func serviceAction(ctx *execmod.Context, action string, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind(action, args, kwargs, execmod.Req("name"), execmod.Opt("runtime", false))
	if err != nil {
		return nil, err
	}
	name := execmod.String(v[0])
	m := SvcManager(ctx)
	bg := context.Background()
	switch action {
	case "start":
		err = m.Start(bg, name)
	case "stop":
		err = m.Stop(bg, name)
	case "restart":
		err = m.Restart(bg, name)
	case "reload":
		err = m.Reload(bg, name)
	case "enable":
		err = m.Enable(bg, name)
	case "disable":
		err = m.Disable(bg, name)
	case "mask":
		err = m.Mask(bg, name, value.Truthy(v[1]))
	case "unmask":
		err = m.Unmask(bg, name, value.Truthy(v[1]))
	}
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return true, nil
}
