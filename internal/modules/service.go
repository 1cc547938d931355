package modules

// service.go is Salt's service virtual module (systemd_service.py,
// debian_service.py, rh_service.py), through internal/system/svcmgr.

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
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

func init() {
	execmod.Register("service.get_enabled", serviceGetEnabled, "Return the sorted names of the services started at boot.")
	execmod.Register("service.get_disabled", serviceGetDisabled, "Return the sorted names of the services not started at boot.")
	execmod.Register("service.force_reload", serviceForceReload, "Force-reload service name; True on success.")
	execmod.Register("service.get_running", systemdOnly("get_running", serviceGetRunning), "Return the sorted names of the running units (systemd).")
	execmod.Register("service.get_static", systemdOnly("get_static", serviceGetStatic), "Return the sorted names of the static units (systemd).")
	execmod.Register("service.show", systemdOnly("show", serviceShow), "Return the properties of a unit (systemctl show) as a mapping (systemd).")
	execmod.Register("service.execs", systemdOnly("execs", serviceExecs), "Return {service: ExecStart path} of every service (systemd).")
	execmod.Register("service.offline", systemdOnly("offline", serviceOffline), "True when systemd is installed but not running (systemd).")
}

// systemdOnly wraps a function of Salt's systemd_service module: on a
// SysV machine Salt loads debian_service, which lacks it.
func systemdOnly(fun string, f func(ctx *execmod.Context, m *svcmgr.Systemd, args []any, kwargs *value.Map) (any, error)) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		m, ok := SvcManager(ctx).(*svcmgr.Systemd)
		if !ok {
			return nil, &execmod.CommandExecutionError{Msg: "'service." + fun + "' is not available."}
		}
		return f(ctx, m, args, kwargs)
	}
}

func systemctlOut(m *svcmgr.Systemd, root any, args ...string) string {
	argv := []string{}
	if value.Truthy(root) {
		argv = append(argv, "--root", value.Str(root))
	}
	res, err := m.Runner.Run(context.Background(), system.Cmd{Name: "systemctl", Args: append(argv, args...)})
	if err != nil {
		return ""
	}
	return res.Stdout
}

var validUnitTypes = map[string]bool{"service": true, "socket": true, "device": true, "mount": true, "automount": true,
	"swap": true, "target": true, "path": true, "timer": true}

// unitNames collects the units of systemctl list output whose column col
// satisfies keep: services by name, other units by full name.
func unitNames(out string, col int, keep func(string) bool) map[string]bool {
	ret := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) <= col || !keep(f[col]) {
			continue
		}
		i := strings.LastIndexByte(f[0], '.')
		if i < 0 || !validUnitTypes[f[0][i+1:]] {
			continue
		}
		if f[0][i+1:] == "service" {
			ret[f[0][:i]] = true
		} else {
			ret[f[0]] = true
		}
	}
	return ret
}

// sysvRunlevel is debian_service's _get_runlevel.
func sysvRunlevel(ctx *execmod.Context) string {
	out, err := ctx.Call("cmd.run", []any{"runlevel"}, nil)
	s := execmod.String(out)
	if err != nil || strings.Contains(s, "unknown") {
		return "2"
	}
	if f := strings.Fields(s); len(f) > 1 {
		return f[1]
	}
	return "2"
}

var rcDigits = regexp.MustCompile(`\d+`)

// sysvEnabled is debian_service's get_enabled: the S links of rcS.d and
// of the current runlevel's directory.
func sysvEnabled(ctx *execmod.Context, root string) map[string]bool {
	ret := map[string]bool{}
	matches, _ := filepath.Glob(filepath.Join("/", root, "/etc/rc[S"+sysvRunlevel(ctx)+"].d/S*"))
	for _, m := range matches {
		parts := rcDigits.Split(filepath.Base(m), -1)
		ret[parts[len(parts)-1]] = true
	}
	return ret
}

func serviceEnabledSet(ctx *execmod.Context, root any) (map[string]bool, error) {
	switch m := SvcManager(ctx).(type) {
	case *svcmgr.Systemd:
		out := systemctlOut(m, root, "--full", "--no-legend", "--no-pager", "list-unit-files")
		ret := unitNames(out, 1, func(s string) bool { return s == "enabled" })
		units := unitNames(out, 1, func(string) bool { return true })
		// Init scripts without a unit of their own count when their S
		// link exists (Salt's _get_sysv_services and _sysv_enabled).
		for n := range sysvEnabled(ctx, execmod.String(root)) {
			st, err := os.Stat(filepath.Join("/", execmod.String(root), "/etc/init.d", n))
			if err == nil && st.Mode()&0o111 != 0 && !units[n] {
				ret[n] = true
			}
		}
		return ret, nil
	case *svcmgr.SysV:
		return sysvEnabled(ctx, m.Root), nil
	}
	return nil, execmod.Errorf("service.get_enabled is not available for this init system")
}

func serviceGetEnabled(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_enabled", args, kwargs, execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	set, err := serviceEnabledSet(ctx, v[0])
	if err != nil {
		return nil, err
	}
	return sysStrList(kmodSorted(set)), nil
}

func serviceGetDisabled(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_disabled", args, kwargs, execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	enabled, err := serviceEnabledSet(ctx, v[0])
	if err != nil {
		return nil, err
	}
	m := SvcManager(ctx)
	if sd, ok := m.(*svcmgr.Systemd); ok {
		ret := unitNames(systemctlOut(sd, v[0], "--full", "--no-legend", "--no-pager", "list-unit-files"), 1, func(s string) bool { return s == "disabled" })
		return sysStrList(kmodSorted(ret)), nil
	}
	all, err := m.List(context.Background())
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	ret := map[string]bool{}
	for _, s := range all {
		if !enabled[s] {
			ret[s] = true
		}
	}
	return sysStrList(kmodSorted(ret)), nil
}

func serviceForceReload(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("force_reload", args, kwargs, execmod.Req("name"), execmod.Opt("no_block", true),
		execmod.Opt("unmask", false), execmod.Opt("unmask_runtime", false))
	if err != nil {
		return nil, err
	}
	name := value.Str(v[0])
	switch m := SvcManager(ctx).(type) {
	case *svcmgr.Systemd:
		if value.Truthy(v[2]) || value.Truthy(v[3]) {
			if err := m.Unmask(context.Background(), name, value.Truthy(v[3])); err != nil {
				return nil, execmod.Errorf("%s", err)
			}
		}
		args := []string{}
		if value.Truthy(v[1]) {
			args = append(args, "--no-block")
		}
		unit := name
		if !strings.Contains(unit, ".") {
			unit += ".service"
		}
		res, err := m.Runner.Run(context.Background(), system.Cmd{Name: "systemctl", Args: append(args, "force-reload", unit)})
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		if res.Code != 0 {
			return nil, execmod.Errorf("%s", strings.TrimSpace(res.Stderr))
		}
		return true, nil
	case *svcmgr.SysV:
		rc, err := ctx.Call("cmd.retcode", []any{"service " + name + " force-reload"}, nil)
		if err != nil {
			return nil, err
		}
		return value.Equal(rc, int64(0)), nil
	}
	return nil, execmod.Errorf("service.force_reload is not available for this init system")
}

func serviceGetRunning(_ *execmod.Context, m *svcmgr.Systemd, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("get_running", args, kwargs); err != nil {
		return nil, err
	}
	ret := unitNames(systemctlOut(m, nil, "--full", "--no-legend", "--no-pager"), 3, func(s string) bool { return s == "running" })
	return sysStrList(kmodSorted(ret)), nil
}

func serviceGetStatic(_ *execmod.Context, m *svcmgr.Systemd, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_static", args, kwargs, execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	ret := unitNames(systemctlOut(m, v[0], "--full", "--no-legend", "--no-pager", "list-unit-files"), 1, func(s string) bool { return s == "static" })
	return sysStrList(kmodSorted(ret)), nil
}

// systemdShow parses `systemctl show` output as Salt's show does.
func systemdShow(out string) *value.Map {
	ret := value.NewMap(0)
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		name, val, _ := strings.Cut(line, "=")
		switch {
		case strings.HasPrefix(val, "{"):
			val = strings.NewReplacer("{", "", "}", "").Replace(val)
			m := value.NewMap(0)
			for _, item := range strings.Split(val, " ; ") {
				k, v, _ := strings.Cut(item, "=")
				if i := strings.IndexByte(v, '='); i >= 0 {
					v = v[:i]
				}
				m.Set(strings.TrimSpace(k), strings.TrimSpace(v))
			}
			ret.Set(name, m)
		case name == "Before" || name == "After" || name == "Wants":
			ret.Set(name, sysStrList(strings.Fields(val)))
		default:
			ret.Set(name, val)
		}
	}
	return ret
}

func serviceShow(_ *execmod.Context, m *svcmgr.Systemd, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("show", args, kwargs, execmod.Req("name"), execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	unit := value.Str(v[0])
	if !strings.Contains(unit, ".") {
		unit += ".service"
	}
	return systemdShow(systemctlOut(m, v[1], "show", unit)), nil
}

func serviceExecs(_ *execmod.Context, m *svcmgr.Systemd, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("execs", args, kwargs, execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	all, err := m.List(context.Background())
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	sort.Strings(all)
	ret := value.NewMap(0)
	for _, s := range all {
		unit := s
		if !strings.Contains(unit, ".") {
			unit += ".service"
		}
		data := systemdShow(systemctlOut(m, v[0], "show", unit))
		if es, ok := data.GetString("ExecStart"); ok {
			if em, ok := es.(*value.Map); ok {
				p, _ := em.GetString("path")
				ret.Set(s, p)
			}
		}
	}
	return ret, nil
}

func serviceOffline(_ *execmod.Context, _ *svcmgr.Systemd, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("offline", args, kwargs); err != nil {
		return nil, err
	}
	return hasCmd("systemctl") && !svcmgr.SystemdBooted(), nil
}
