package modules

// service.go is Salt's service virtual module on Debian: with systemd
// booted, systemd_service.py; without it, debian_service.py. Where
// systemctl is installed but systemd is not PID 1 (a container), Salt
// loads both under "service": debian_service's functions, plus the ones
// only systemd_service has (mask, show, get_static, ...) running
// systemctl in its offline mode. The systemd work is done by
// internal/system/svcmgr.Systemd.

import (
	"context"
	"fmt"
	"os/exec"
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
// can supply its own svcmgr.Manager: a *svcmgr.Systemd (its Runner runs
// the commands) or a *svcmgr.SysV (its Root relocates /etc).
const SvcManagerService = "svcmgr"

// SvcManager returns the init system manager of the run: the one attached
// as the svcmgr service, else systemd or SysV as this machine runs.
func SvcManager(ctx *execmod.Context) svcmgr.Manager {
	if m, ok := ctx.Service(SvcManagerService).(svcmgr.Manager); ok {
		return m
	}
	m := svcmgr.New(system.Exec{})
	if sd, ok := m.(*svcmgr.Systemd); ok {
		scope, err := ctx.Call("config.get", []any{"systemd.scope", true}, nil)
		sd.NoScope = err == nil && !value.Truthy(scope)
	}
	return m
}

// svcSystemd is the systemd manager systemd_service's functions use:
// booted, or offline where systemctl is installed; nil where Salt would
// not load systemd_service.
func svcSystemd(ctx *execmod.Context) *svcmgr.Systemd {
	if systemdDisabled(ctx) {
		return nil
	}
	switch m := SvcManager(ctx).(type) {
	case *svcmgr.Systemd:
		return m
	case *svcmgr.SysV:
		if m.Root == "" && hasCmd("systemctl") {
			return &svcmgr.Systemd{Runner: m.Runner, Offline: true}
		}
	}
	return nil
}

// systemdDisabled reports whether the minion's disable_modules names
// systemd_service: Salt then loads debian_service alone (where systemd is
// not PID 1), which has none of systemd_service's own functions.
func systemdDisabled(ctx *execmod.Context) bool {
	if ctx.Opts == nil {
		return false
	}
	l, ok := ctx.Opts.Get("disable_modules")
	if !ok {
		return false
	}
	if list, ok := l.(*value.List); ok {
		for _, it := range list.Items {
			if value.Str(it) == "systemd_service" {
				return true
			}
		}
	}
	return false
}

// svcBooted is the manager when systemd is booted (the functions both
// modules have are then systemd_service's), else nil (debian_service's).
func svcBooted(ctx *execmod.Context) *svcmgr.Systemd {
	if m, ok := SvcManager(ctx).(*svcmgr.Systemd); ok && !m.Offline {
		return m
	}
	return nil
}

// svcRoot is the directory debian_service's paths are relative to ("" is
// /; a test's SysV manager may move it).
func svcRoot(ctx *execmod.Context) string {
	if m, ok := SvcManager(ctx).(*svcmgr.SysV); ok {
		return m.Root
	}
	return ""
}

func init() {
	// Functions of both modules: systemd_service's when systemd is
	// booted, else debian_service's.
	both := map[string][2]execmod.Func{
		"status":       {sdStatus, debStatus},
		"available":    {sdAvailable, debAvailable},
		"missing":      {sdMissing, debMissing},
		"enabled":      {sdEnabled, debEnabled},
		"disabled":     {sdDisabled, debDisabled},
		"get_all":      {sdGetAll, debGetAll},
		"get_enabled":  {sdGetEnabled, debGetEnabled},
		"get_disabled": {sdGetDisabled, debGetDisabled},
		"start":        {sdAct("start", false), debAct("start", "start")},
		"restart":      {sdAct("restart", false), debAct("restart", "restart")},
		"reload":       {sdAct("reload", false), debAct("reload", "reload")},
		"force_reload": {sdAct("force-reload", true), debAct("force_reload", "force-reload")},
		"stop":         {sdStop, debAct("stop", "stop")},
		"enable":       {sdEnable, debEnable},
		"disable":      {sdDisable, debDisable},
	}
	docs := map[string]string{
		"status":       "True when service name is running; a glob gives {service: bool}.",
		"available":    "True when service name exists.",
		"missing":      "True when service name does not exist.",
		"enabled":      "True when service name starts at boot.",
		"disabled":     "True when service name does not start at boot.",
		"get_all":      "Return the sorted names of all services (and, with systemd, other units).",
		"get_enabled":  "Return the sorted names of the services started at boot.",
		"get_disabled": "Return the sorted names of the services not started at boot.",
		"start":        "Start service name; True on success.",
		"restart":      "Restart service name; True on success.",
		"reload":       "Reload service name; True on success.",
		"force_reload": "Force-reload service name; True on success.",
		"stop":         "Stop service name; True on success.",
		"enable":       "Make service name start at boot; True on success.",
		"disable":      "Make service name not start at boot; True on success.",
	}
	for fun, fs := range both {
		sd, deb := fs[0], fs[1]
		execmod.Register("service."+fun, func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
			if svcBooted(ctx) != nil {
				return sd(ctx, args, kwargs)
			}
			return deb(ctx, args, kwargs)
		}, docs[fun])
	}
	only := map[string]struct {
		f   func(*execmod.Context, *svcmgr.Systemd, []any, *value.Map) (any, error)
		doc string
	}{
		"systemctl_reload": {sdSystemctlReload, "Reload systemd's unit files (systemctl --system daemon-reload); True on success."},
		"get_running":      {sdGetRunning, "Return the sorted names of the running units."},
		"get_static":       {sdGetStatic, "Return the sorted names of the static units."},
		"mask":             {sdMask, "Mask service name (runtime: until reboot); True on success."},
		"unmask":           {sdUnmask, "Unmask service name (runtime: its runtime mask); True on success."},
		"masked":           {sdMasked, "True when service name is masked (runtime: masked until reboot)."},
		"show":             {sdShow, "Return the properties of a unit (systemctl show) as a mapping."},
		"execs":            {sdExecs, "Return {service: ExecStart path} of every service."},
		"firstboot":        {sdFirstboot, "Run systemd-firstboot with the settings given (locale, keymap, timezone, hostname, ...); True on success."},
		"offline":          {sdOffline, "The path of systemctl when systemd is installed but not running, else False."},
	}
	for fun, o := range only {
		f, name := o.f, fun
		execmod.Register("service."+name, func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
			m := svcSystemd(ctx)
			if m == nil {
				return nil, &execmod.CommandExecutionError{Msg: "'service." + name + "' is not available."}
			}
			return f(ctx, m, args, kwargs)
		}, o.doc)
	}
}

// svcErr turns a svcmgr failure into what Salt gives: False for a
// command Salt only checks, else a CommandExecutionError.
func svcErr(err error) (any, error) {
	if err == nil {
		return true, nil
	}
	if svcmgr.IsFalsy(err) {
		return false, nil
	}
	return nil, execmod.Errorf("%s", err)
}

var globChars = regexp.MustCompile(`\*|\?|\[.+\]`)

// --- systemd_service ---

func sdGetAll(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_all", args, kwargs, execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	return sysStrList(svcmgr.GetAll(svcOptStr(v[0]))), nil
}

// svcOptStr is an optional string argument, "" when falsy (root=None).
func svcOptStr(v any) string {
	if !value.Truthy(v) {
		return ""
	}
	return value.Str(v)
}

func sdStatus(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("status", args, kwargs, execmod.Req("name"), execmod.Opt("sig", nil))
	if err != nil {
		return nil, err
	}
	m := svcBooted(ctx)
	name := value.Str(v[0])
	if !globChars.MatchString(name) {
		ok, err := m.Status(context.Background(), name)
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		return ok, nil
	}
	out := value.NewMap(0)
	for _, s := range svcmgr.GetAll("") {
		if !match.Fnmatch(s, name) {
			continue
		}
		ok, err := m.Status(context.Background(), s)
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		out.Set(s, ok)
	}
	return out, nil
}

func sdAvailable(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("available", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	ok, err := svcBooted(ctx).Available(context.Background(), value.Str(v[0]))
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return ok, nil
}

func sdMissing(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("missing", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	ok, err := svcBooted(ctx).Available(context.Background(), value.Str(v[0]))
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return !ok, nil
}

func sdEnabled(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("enabled", args, kwargs, execmod.Req("name"), execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	ok, err := svcBooted(ctx).EnabledRoot(context.Background(), value.Str(v[0]), svcOptStr(v[1]))
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return ok, nil
}

func sdDisabled(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("disabled", args, kwargs, execmod.Req("name"), execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	ok, err := svcBooted(ctx).EnabledRoot(context.Background(), value.Str(v[0]), svcOptStr(v[1]))
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return !ok, nil
}

// unitFileStates reads `systemctl list-unit-files` (stderr merged, as
// cmd.run gives it): the units whose state passes keep.
func unitFileStates(ctx context.Context, m *svcmgr.Systemd, root string, keep func(state string) bool) map[string]bool {
	out := m.Output(ctx, m.Cmd(ctx, "--full --no-legend --no-pager list-unit-files", "", false, false, root))
	ret := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !keep(f[1]) {
			continue
		}
		addUnit(ret, f[0])
	}
	return ret
}

// addUnit adds a unit to set: a service by its name, others in full.
func addUnit(set map[string]bool, full string) {
	i := strings.LastIndexByte(full, '.')
	if i < 0 || !svcmgr.ValidUnitType(full[i+1:]) {
		return
	}
	if full[i+1:] == "service" {
		set[full[:i]] = true
	} else {
		set[full] = true
	}
}

func sdGetEnabled(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_enabled", args, kwargs, execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	return sdSysVFiltered(svcBooted(ctx), svcOptStr(v[0]), "enabled", true), nil
}

func sdGetDisabled(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_disabled", args, kwargs, execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	return sdSysVFiltered(svcBooted(ctx), svcOptStr(v[0]), "disabled", false), nil
}

// sdSysVFiltered lists the units in state, plus the unit-less init
// scripts whose start link exists (enabled) or not.
func sdSysVFiltered(m *svcmgr.Systemd, root, state string, enabled bool) *value.List {
	bg := context.Background()
	set := unitFileStates(bg, m, root, func(s string) bool { return s == state })
	for _, n := range svcmgr.SysVServices(root, nil) {
		if m.SysVEnabled(bg, n, root) == enabled {
			set[n] = true
		}
	}
	return sysStrList(kmodSorted(set))
}

func sdGetStatic(_ *execmod.Context, m *svcmgr.Systemd, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_static", args, kwargs, execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	set := unitFileStates(context.Background(), m, svcOptStr(v[0]), func(s string) bool { return s == "static" })
	return sysStrList(kmodSorted(set)), nil
}

// sdGetRunning reads `systemctl --full --no-legend --no-pager`: units
// whose fourth column (SUB) is running. A line of three columns or fewer
// keeps the previous line's state, as Salt's loop does.
func sdGetRunning(_ *execmod.Context, m *svcmgr.Systemd, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("get_running", args, kwargs); err != nil {
		return nil, err
	}
	bg := context.Background()
	out := m.Output(bg, m.Cmd(bg, "--full --no-legend --no-pager", "", false, false, ""))
	set := map[string]bool{}
	active := ""
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) > 3 {
			active = f[3]
		}
		if active == "running" {
			addUnit(set, f[0])
		}
	}
	return sysStrList(kmodSorted(set)), nil
}

// unmaskFirst removes the masks start, restart, reload and enable were
// asked to remove.
func unmaskFirst(m *svcmgr.Systemd, name string, unmask, unmaskRuntime any, root string) error {
	bg := context.Background()
	if value.Truthy(unmask) {
		if err := m.UnmaskRoot(bg, name, false, root); err != nil {
			return err
		}
	}
	if value.Truthy(unmaskRuntime) {
		if err := m.UnmaskRoot(bg, name, true, root); err != nil {
			return err
		}
	}
	return nil
}

func sdAct(action string, noBlockDefault bool) execmod.Func {
	fun := strings.ReplaceAll(action, "-", "_")
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind(fun, args, kwargs, execmod.Req("name"), execmod.Opt("no_block", noBlockDefault),
			execmod.Opt("unmask", false), execmod.Opt("unmask_runtime", false))
		if err != nil {
			return nil, err
		}
		m, name := svcBooted(ctx), value.Str(v[0])
		if err := m.CheckForUnitChanges(context.Background(), name); err != nil {
			return svcErr(err)
		}
		if err := unmaskFirst(m, name, v[2], v[3], ""); err != nil {
			return svcErr(err)
		}
		return svcErr(m.Act(context.Background(), action, name, value.Truthy(v[1])))
	}
}

func sdStop(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("stop", args, kwargs, execmod.Req("name"), execmod.Opt("no_block", false))
	if err != nil {
		return nil, err
	}
	return svcErr(svcBooted(ctx).StopBlock(context.Background(), value.Str(v[0]), value.Truthy(v[1])))
}

func sdEnable(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("enable", args, kwargs, execmod.Req("name"), execmod.Opt("no_block", false),
		execmod.Opt("unmask", false), execmod.Opt("unmask_runtime", false), execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	m, name, root := svcBooted(ctx), value.Str(v[0]), svcOptStr(v[4])
	if err := m.CheckForUnitChanges(context.Background(), name); err != nil {
		return svcErr(err)
	}
	if err := unmaskFirst(m, name, v[2], v[3], root); err != nil {
		return svcErr(err)
	}
	return svcErr(m.EnableRoot(context.Background(), name, value.Truthy(v[1]), root))
}

func sdDisable(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("disable", args, kwargs, execmod.Req("name"), execmod.Opt("no_block", false),
		execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	return svcErr(svcBooted(ctx).DisableRoot(context.Background(), value.Str(v[0]), value.Truthy(v[1]), svcOptStr(v[2])))
}

func sdSystemctlReload(_ *execmod.Context, m *svcmgr.Systemd, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("systemctl_reload", args, kwargs); err != nil {
		return nil, err
	}
	return svcErr(m.DaemonReload(context.Background()))
}

func sdMaskArgs(fun string, args []any, kwargs *value.Map) (string, bool, string, error) {
	v, _, err := execmod.Bind(fun, args, kwargs, execmod.Req("name"), execmod.Opt("runtime", false), execmod.Opt("root", nil))
	if err != nil {
		return "", false, "", err
	}
	return value.Str(v[0]), value.Truthy(v[1]), svcOptStr(v[2]), nil
}

func sdMask(_ *execmod.Context, m *svcmgr.Systemd, args []any, kwargs *value.Map) (any, error) {
	name, runtime, root, err := sdMaskArgs("mask", args, kwargs)
	if err != nil {
		return nil, err
	}
	return svcErr(m.MaskRoot(context.Background(), name, runtime, root))
}

func sdUnmask(_ *execmod.Context, m *svcmgr.Systemd, args []any, kwargs *value.Map) (any, error) {
	name, runtime, root, err := sdMaskArgs("unmask", args, kwargs)
	if err != nil {
		return nil, err
	}
	return svcErr(m.UnmaskRoot(context.Background(), name, runtime, root))
}

func sdMasked(_ *execmod.Context, m *svcmgr.Systemd, args []any, kwargs *value.Map) (any, error) {
	name, runtime, root, err := sdMaskArgs("masked", args, kwargs)
	if err != nil {
		return nil, err
	}
	ok, err := m.MaskedRoot(context.Background(), name, runtime, root)
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return ok, nil
}

// systemdShow parses `systemctl show` output as Salt's show does: a
// value in braces becomes a mapping of its "k=v ; ..." items, Before,
// After and Wants become lists.
func systemdShow(out string) *value.Map {
	ret := value.NewMap(0)
	for _, line := range strings.Split(out, "\n") {
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

// sdShowOf runs systemctl show as Salt does, through cmd.run: the call's
// retcode becomes systemctl's exit status.
func sdShowOf(ctx *execmod.Context, m *svcmgr.Systemd, name, root string) *value.Map {
	bg := context.Background()
	res, err := m.Run(bg, m.Cmd(bg, "show", name, false, false, root))
	if err != nil {
		return systemdShow("")
	}
	ctx.SetRetcode(res.Code)
	out := res.Stdout
	if res.Stderr != "" {
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		out += res.Stderr
	}
	return systemdShow(strings.TrimRight(out, " \t\r\n"))
}

func sdShow(ctx *execmod.Context, m *svcmgr.Systemd, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("show", args, kwargs, execmod.Req("name"), execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	return sdShowOf(ctx, m, value.Str(v[0]), svcOptStr(v[1])), nil
}

func sdExecs(ctx *execmod.Context, m *svcmgr.Systemd, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("execs", args, kwargs, execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	root := svcOptStr(v[0])
	ret := value.NewMap(0)
	for _, s := range svcmgr.GetAll(root) {
		es, ok := sdShowOf(ctx, m, s, root).GetString("ExecStart")
		if !ok {
			continue
		}
		if em, ok := es.(*value.Map); ok {
			p, _ := em.GetString("path")
			ret.Set(s, p)
		}
	}
	return ret, nil
}

func sdFirstboot(_ *execmod.Context, m *svcmgr.Systemd, args []any, kwargs *value.Map) (any, error) {
	names := []string{"locale", "locale_message", "keymap", "timezone", "hostname", "machine_id", "root"}
	flags := []string{"locale", "locale-message", "keymap", "timezone", "hostname", "machine-ID", "root"}
	params := make([]execmod.Param, len(names))
	for i, n := range names {
		params[i] = execmod.Opt(n, nil)
	}
	v, _, err := execmod.Bind("firstboot", args, kwargs, params...)
	if err != nil {
		return nil, err
	}
	bin := "systemd-firstboot"
	if p, err := exec.LookPath(bin); err == nil {
		bin = p
	}
	c := system.Cmd{Name: bin}
	for i, f := range flags {
		if value.Truthy(v[i]) {
			c.Args = append(c.Args, "--"+f, value.Str(v[i]))
		}
	}
	res, err := m.Run(context.Background(), c)
	if err != nil {
		return nil, execmod.Errorf("systemd-firstboot error: %s", err)
	}
	if res.Code != 0 {
		return nil, execmod.Errorf("systemd-firstboot error: %s", strings.TrimRight(res.Stderr, " \t\r\n"))
	}
	return true, nil
}

func sdOffline(_ *execmod.Context, m *svcmgr.Systemd, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("offline", args, kwargs); err != nil {
		return nil, err
	}
	if !m.Offline {
		return false, nil
	}
	p, err := exec.LookPath("systemctl")
	if err != nil {
		return false, nil
	}
	return p, nil
}

// --- debian_service ---

// debRunlevel is debian_service's _get_runlevel: "2" when runlevel says
// unknown (a container).
func debRunlevel(ctx *execmod.Context) string {
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

// debEnabledSet is debian_service's get_enabled: what follows the last
// run of digits in the names of the S links of rcS.d and the current
// runlevel's directory (so "S01x11-common" gives "-common", as in Salt).
func debEnabledSet(ctx *execmod.Context) map[string]bool {
	ret := map[string]bool{}
	matches, _ := filepath.Glob(filepath.Join("/", svcRoot(ctx), "/etc/rc[S"+debRunlevel(ctx)+"].d/S*"))
	for _, m := range matches {
		parts := rcDigits.Split(filepath.Base(m), -1)
		ret[parts[len(parts)-1]] = true
	}
	return ret
}

func debAllSet(ctx *execmod.Context) map[string]bool {
	ret := debEnabledSet(ctx)
	scripts, _ := filepath.Glob(filepath.Join("/", svcRoot(ctx), "/etc/init.d/*"))
	for _, s := range scripts {
		if n := filepath.Base(s); n != "README" {
			ret[n] = true
		}
	}
	return ret
}

func debDisabledSet(ctx *execmod.Context) map[string]bool {
	all, enabled := debAllSet(ctx), debEnabledSet(ctx)
	for n := range enabled {
		delete(all, n)
	}
	return all
}

func debNoArgs(fun string, args []any, kwargs *value.Map) error {
	_, _, err := execmod.Bind(fun, args, kwargs)
	return err
}

func debGetAll(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if err := debNoArgs("get_all", args, kwargs); err != nil {
		return nil, err
	}
	return sysStrList(kmodSorted(debAllSet(ctx))), nil
}

func debGetEnabled(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if err := debNoArgs("get_enabled", args, kwargs); err != nil {
		return nil, err
	}
	return sysStrList(kmodSorted(debEnabledSet(ctx))), nil
}

func debGetDisabled(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if err := debNoArgs("get_disabled", args, kwargs); err != nil {
		return nil, err
	}
	return sysStrList(kmodSorted(debDisabledSet(ctx))), nil
}

// debName binds fun(name).
func debName(fun string, args []any, kwargs *value.Map) (string, error) {
	v, _, err := execmod.Bind(fun, args, kwargs, execmod.Req("name"))
	if err != nil {
		return "", err
	}
	return value.Str(v[0]), nil
}

func debAvailable(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	name, err := debName("available", args, kwargs)
	if err != nil {
		return nil, err
	}
	return debAllSet(ctx)[name], nil
}

func debMissing(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	name, err := debName("missing", args, kwargs)
	if err != nil {
		return nil, err
	}
	return !debAllSet(ctx)[name], nil
}

func debEnabled(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	name, err := debName("enabled", args, kwargs)
	if err != nil {
		return nil, err
	}
	return debEnabledSet(ctx)[name], nil
}

func debDisabled(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	name, err := debName("disabled", args, kwargs)
	if err != nil {
		return nil, err
	}
	return debDisabledSet(ctx)[name], nil
}

// debRetcode runs cmd with cmd.retcode; true when it exits 0.
func debRetcode(ctx *execmod.Context, cmd string, kw *value.Map) (any, error) {
	rc, err := ctx.Call("cmd.retcode", []any{cmd}, kw)
	if err != nil {
		return nil, err
	}
	return value.Equal(rc, int64(0)), nil
}

func debAct(fun, action string) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		name, err := debName(fun, args, kwargs)
		if err != nil {
			return nil, err
		}
		return debRetcode(ctx, fmt.Sprintf("service %s %s", name, action), nil)
	}
}

func debStatus(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("status", args, kwargs, execmod.Req("name"), execmod.Opt("sig", nil))
	if err != nil {
		return nil, err
	}
	if value.Truthy(v[1]) {
		pids, err := ctx.Call("status.pid", []any{v[1]}, nil)
		if err != nil {
			return nil, err
		}
		return value.Truthy(pids), nil
	}
	name := value.Str(v[0])
	services := []string{name}
	glob := globChars.MatchString(name)
	if glob {
		services = nil
		all := kmodSorted(debAllSet(ctx))
		sort.Strings(all)
		for _, s := range all {
			if match.Fnmatch(s, name) {
				services = append(services, s)
			}
		}
	}
	out := value.NewMap(len(services))
	for _, s := range services {
		ok, err := debRetcode(ctx, fmt.Sprintf("service %s status", s), value.MapOf("ignore_retcode", true))
		if err != nil {
			return nil, err
		}
		out.Set(s, ok)
	}
	if glob {
		return out, nil
	}
	r, _ := out.GetString(name)
	return r, nil
}

func debEnable(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	name, err := debName("enable", args, kwargs)
	if err != nil {
		return nil, err
	}
	q := shellQuote(name)
	return debRetcode(ctx, fmt.Sprintf("insserv %s && update-rc.d %s enable", q, q), value.MapOf("python_shell", true))
}

func debDisable(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	name, err := debName("disable", args, kwargs)
	if err != nil {
		return nil, err
	}
	return debRetcode(ctx, fmt.Sprintf("update-rc.d %s disable", name), nil)
}
