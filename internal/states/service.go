package states

// service.go is salt/states/service.py: service.running, service.dead,
// service.enabled, service.disabled, service.masked, service.unmasked and
// mod_watch (restart, reload or start when a watched state changed), over
// internal/system/svcmgr (systemd where it is PID 1, driven as Salt's
// systemd_service module does, else SysV scripts).

import (
	"errors"
	"strings"
	"time"

	"brine/internal/statemod"
	"brine/internal/system"
	"brine/internal/system/svcmgr"
	"brine/internal/value"
)

// svcManagerService is the execmod service name a run (or a test) attaches
// its own svcmgr.Manager under (the same name internal/modules uses).
const svcManagerService = "svcmgr"

func init() {
	common := []statemod.Param{statemod.Req("name"), statemod.Opt("enable", nil), statemod.Opt("sig", nil), statemod.Opt("init_delay", nil)}
	statemod.Register(&statemod.Function{Name: "service.running", Params: common, Kwargs: true,
		Doc: "Ensure that the service is running (and enabled or disabled at boot with enable).",
		Run: func(c *statemod.Call) (*value.Map, error) { return serviceRunDead(c, true) }})
	statemod.Register(&statemod.Function{Name: "service.dead", Params: common, Kwargs: true,
		Doc: "Ensure that the service is not running (and enabled or disabled at boot with enable).",
		Run: func(c *statemod.Call) (*value.Map, error) { return serviceRunDead(c, false) }})
	statemod.Register(&statemod.Function{Name: "service.enabled", Params: []statemod.Param{statemod.Req("name")}, Kwargs: true,
		Doc: "Ensure that the service starts at boot.",
		Run: func(c *statemod.Call) (*value.Map, error) {
			ret := statemod.Ret(c.Get("name"), true, "")
			svcToggle(c, ret, true, nil, true)
			if c.Test && getv(ret, "comment") == "The named service "+c.Name()+" is not available" {
				ret.Set("result", nil)
				ret.Set("comment", "Service "+c.Name()+" not present; if created in this state run, it would have been enabled")
			}
			return ret, nil
		}})
	statemod.Register(&statemod.Function{Name: "service.disabled", Params: []statemod.Param{statemod.Req("name")}, Kwargs: true,
		Doc: "Ensure that the service does not start at boot.",
		Run: func(c *statemod.Call) (*value.Map, error) {
			ret := statemod.Ret(c.Get("name"), true, "")
			svcToggle(c, ret, false, nil, true)
			return ret, nil
		}})
	mask := []statemod.Param{statemod.Req("name"), statemod.Opt("runtime", false)}
	statemod.Register(&statemod.Function{Name: "service.masked", Params: mask,
		Doc: "Ensure that the service is masked (systemd).",
		Run: func(c *statemod.Call) (*value.Map, error) { return svcMask(c, c.Name(), c.Bool("runtime"), true), nil }})
	statemod.Register(&statemod.Function{Name: "service.unmasked", Params: mask,
		Doc: "Ensure that the service is not masked (systemd).",
		Run: func(c *statemod.Call) (*value.Map, error) { return svcMask(c, c.Name(), c.Bool("runtime"), false), nil }})
	statemod.Register(&statemod.Function{Name: "service.mod_watch",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("sfun", nil), statemod.Opt("sig", nil),
			statemod.Opt("reload", false), statemod.Opt("full_restart", false), statemod.Opt("init_delay", nil),
			statemod.Opt("force", false)},
		Kwargs: true, Doc: "Restart (or reload, or start) the service when a watched state changed.",
		Run: serviceModWatch})
}

// svcManager returns the run's init system manager.
func svcManager(c *statemod.Call) svcmgr.Manager {
	if c.Env != nil && c.Env.Exec != nil {
		if m, ok := c.Env.Exec.Service(svcManagerService).(svcmgr.Manager); ok {
			return m
		}
	}
	m := svcmgr.New(system.Exec{})
	if sd, ok := m.(*svcmgr.Systemd); ok {
		if scope, err := c.Salt("config.get", []any{"systemd.scope", true}, nil); err == nil {
			sd.NoScope = !value.Truthy(scope)
		}
	}
	return m
}

// svcErr is the message of a failed service command (Salt raises the
// command's stderr).
func svcErr(err error) string {
	var ce *system.CommandError
	if errors.As(err, &ce) {
		if s := strings.TrimSpace(ce.Result.Stderr); s != "" {
			return s
		}
		if s := strings.TrimSpace(ce.Result.Stdout); s != "" {
			return s
		}
	}
	return err.Error()
}

// enableArg is the enable argument as Salt reads it: None, True or False.
func enableArg(c *statemod.Call) any {
	switch v := c.Get("enable").(type) {
	case nil:
		return nil
	case bool:
		return v
	case string:
		switch strings.ToLower(v) {
		case "true", "yes", "1", "on":
			return true
		}
		return false
	default:
		return value.Truthy(v)
	}
}

func initDelay(c *statemod.Call) {
	switch v := c.Get("init_delay").(type) {
	case int64:
		time.Sleep(time.Duration(v) * time.Second)
	case float64:
		time.Sleep(time.Duration(v * float64(time.Second)))
	}
}

// serviceOffline is Salt's _offline: the service module is
// systemd_service in its offline mode (systemd installed, not PID 1, and
// systemd_service not in disable_modules), where service.running and
// service.dead do nothing.
func serviceOffline(c *statemod.Call) bool {
	v, err := c.Salt("service.offline", nil, nil)
	return err == nil && value.Truthy(v)
}

func serviceRunDead(c *statemod.Call, run bool) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "")
	if c.Args.Has("enabled") {
		ret.Set("result", false)
		ret.Set("comment", "Service "+name+" uses non-existent option \"enabled\".  Perhaps \"enable\" option was intended?")
		return ret, nil
	}
	enable := enableArg(c)
	if serviceOffline(c) {
		return statemod.Ret(c.Get("name"), true, "Running in OFFLINE mode. Nothing to do"), nil
	}
	m := svcManager(c)
	ctx := bg(c)
	verb := "started"
	if !run {
		verb = "stopped"
	}
	if ok, err := m.Available(ctx, name); err != nil {
		return statemod.Ret(c.Get("name"), false, err.Error()), nil
	} else if !ok {
		if c.Test {
			ret.Set("result", nil)
			ret.Set("comment", "Service "+name+" not present; if created in this state run, it would have been "+verb)
		} else if run {
			ret.Set("result", false)
			ret.Set("comment", "The named service "+name+" is not available")
		} else {
			ret.Set("comment", "The named service "+name+" is not available")
		}
		return ret, nil
	}
	before, err := m.Status(ctx, name)
	if err != nil {
		return statemod.Ret(c.Get("name"), false, svcErr(err)), nil
	}
	beforeEnabled, _ := m.Enabled(ctx, name)
	unmaskComment := ""
	if run && value.Truthy(kwOr(c, "unmask", false)) {
		r := svcMask(c, name, value.Truthy(kwOr(c, "unmask_runtime", false)), false)
		unmaskComment = value.Str(getv(r, "comment"))
	}
	join := func(parts ...string) string {
		var out []string
		for _, p := range parts {
			if p != "" {
				out = append(out, p)
			}
		}
		return strings.Join(out, "\n")
	}
	if before == run {
		if run {
			ret.Set("comment", join("The service "+name+" is already running", unmaskComment))
		} else {
			ret.Set("comment", "The service "+name+" is already dead")
		}
		if enable == true && !beforeEnabled {
			svcToggle(c, ret, true, nil, true)
		} else if enable == false && beforeEnabled {
			svcToggle(c, ret, false, nil, true)
		}
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		if run {
			ret.Set("comment", join("Service "+name+" is set to start", unmaskComment))
		} else {
			ret.Set("comment", "Service "+name+" is set to be killed")
		}
		return ret, nil
	}
	if run {
		err = m.Start(ctx, name)
	} else {
		err = m.Stop(ctx, name)
	}
	if err != nil {
		if run {
			ret.Set("result", false)
			ret.Set("comment", svcErr(err))
			if enable == true {
				svcToggle(c, ret, true, false, false)
			} else if enable == false {
				svcToggle(c, ret, false, false, false)
			}
			return ret, nil
		}
		ret.Set("result", false)
		ret.Set("comment", "Service "+name+" failed to die")
		if enable == true {
			svcToggle(c, ret, true, true, false)
		} else if enable == false {
			svcToggle(c, ret, false, true, false)
		}
		return ret, nil
	}
	initDelay(c)
	after, _ := m.Status(ctx, name)
	afterEnabled, _ := m.Enabled(ctx, name)
	changes := getv(ret, "changes").(*value.Map)
	if (beforeEnabled != afterEnabled || before != after) && changes.Len() == 0 {
		changes.Set(name, after)
	}
	ok := after == run
	switch {
	case run && ok:
		ret.Set("comment", "Started service "+name)
	case run:
		ret.Set("comment", "Service "+name+" failed to start")
		ret.Set("result", false)
	case ok:
		ret.Set("comment", "Service "+name+" was killed")
	default:
		ret.Set("result", false)
		ret.Set("comment", "Service "+name+" failed to die")
	}
	if enable == true {
		svcToggle(c, ret, true, after, ok)
	} else if enable == false {
		svcToggle(c, ret, false, after, ok)
	}
	if d := c.Get("init_delay"); value.Truthy(d) {
		ret.Set("comment", value.Str(getv(ret, "comment"))+"\nDelayed return for "+value.Str(d)+" seconds")
	}
	if run && value.Truthy(kwOr(c, "unmask", false)) {
		ret.Set("comment", value.Str(getv(ret, "comment"))+"\n"+unmaskComment)
	}
	return ret, nil
}

// svcToggle is Salt's _enable / _disable: it updates ret with the boot
// state change. started is true, false or nil (the service is in the
// desired state).
func svcToggle(c *statemod.Call, ret *value.Map, enable bool, started any, result bool) {
	name := c.Name()
	m := svcManager(c)
	ctx := bg(c)
	if ok, err := m.Available(ctx, name); err != nil || !ok {
		ret.Set("result", !enable)
		if err != nil {
			ret.Set("result", false)
			ret.Set("comment", err.Error())
			return
		}
		ret.Set("comment", "The named service "+name+" is not available")
		if enable {
			ret.Set("result", false)
		}
		return
	}
	ret.Set("result", result)
	word, past := "enabled", "enabled"
	if !enable {
		word, past = "disabled", "disabled"
	}
	tail := func() string {
		switch started {
		case true:
			return ", and is running"
		case nil:
			return ", and is in the desired state"
		}
		return ", and is dead"
	}
	isEnabled, _ := m.Enabled(ctx, name)
	if isEnabled == enable {
		ret.Set("comment", "Service "+name+" is already "+word+tail())
		return
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "Service "+name+" set to be "+word)
		return
	}
	var err error
	failed := false
	switch {
	case debianService(c, m):
		fun := "service.disable"
		if enable {
			fun = "service.enable"
		}
		var ok any
		ok, err = c.Salt(fun, []any{name}, nil)
		failed = err != nil || !value.Truthy(ok)
	case enable:
		err = m.Enable(ctx, name)
		failed = err != nil
	default:
		err = m.Disable(ctx, name)
		failed = err != nil
	}
	if !failed {
		changes := value.NewMap(0)
		if now, _ := m.Enabled(ctx, name); now != isEnabled {
			changes.Set(name, true)
		}
		ret.Set("changes", changes)
		ret.Set("comment", "Service "+name+" has been "+past+tail())
		return
	}
	ret.Set("result", false)
	var msg string
	switch {
	case enable && started == true:
		msg = "Failed when setting service " + name + " to start at boot, but the service is running"
	case enable && started == nil:
		msg = "Failed when setting service " + name + " to start at boot, but the service was already running"
	case enable:
		msg = "Failed when setting service " + name + " to start at boot, and the service is dead"
	case started == true:
		msg = "Failed when setting service " + name + " to not start at boot, and is running"
	case started == nil:
		msg = "Failed when setting service " + name + " to not start at boot, but the service was already running"
	default:
		msg = "Failed when setting service " + name + " to not start at boot, and the service is dead"
	}
	if enable && err != nil {
		msg += ". Additional information follows:\n\n" + svcErr(err)
	}
	ret.Set("comment", msg)
}

// debianService reports whether boot changes go through Salt's
// debian_service functions (service.enable runs insserv, then update-rc.d):
// a SysV manager on this machine's own root, on a Debian-family minion.
func debianService(c *statemod.Call, m svcmgr.Manager) bool {
	sv, ok := m.(*svcmgr.SysV)
	if !ok || sv.Root != "" || c.Env == nil || c.Env.Exec == nil || c.Env.Exec.Grains == nil {
		return false
	}
	fam, _ := c.Env.Exec.Grains.Get("os_family")
	return value.Str(fam) == "Debian"
}

func svcMask(c *statemod.Call, name string, runtime, mask bool) *value.Map {
	ret := statemod.Ret(c.Get("name"), true, "")
	m := svcManager(c)
	ctx := bg(c)
	maskType, action := "masked", "unmasked"
	if runtime {
		maskType, action = "runtime masked", "runtime unmasked"
	}
	masked, err := m.Masked(ctx, name, runtime)
	if err != nil {
		return statemod.Ret(c.Get("name"), false, svcErr(err))
	}
	expected := value.MapOf(maskType, value.MapOf("old", !mask, "new", mask))
	if masked == mask {
		if mask {
			ret.Set("comment", "Service "+name+" is already "+maskType)
		} else {
			ret.Set("comment", "Service "+name+" was already "+action)
		}
		return ret
	}
	word := maskType
	if !mask {
		word = action
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("changes", expected)
		ret.Set("comment", "Service "+name+" would be "+word)
		return ret
	}
	if mask {
		err = m.Mask(ctx, name, runtime)
	} else {
		err = m.Unmask(ctx, name, runtime)
	}
	if err != nil {
		return statemod.Ret(c.Get("name"), false, svcErr(err))
	}
	if now, _ := m.Masked(ctx, name, runtime); now == mask {
		ret.Set("changes", expected)
		ret.Set("comment", "Service "+name+" was "+word)
	} else if mask {
		ret.Set("comment", "Failed to mask service "+name)
	} else {
		ret.Set("comment", "Failed to unmask service "+name)
	}
	return ret
}

// errActionFailed is a service action whose execution function returned
// False (Salt's "Failed to <verb> the service").
var errActionFailed = errors.New("service action failed")

func serviceModWatch(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "")
	m := svcManager(c)
	ctx := bg(c)
	var verb, past string
	var act func() error
	switch c.Str("sfun") {
	case "dead":
		verb, past = "stop", "stopped"
		if up, _ := m.Status(ctx, name); !up {
			ret.Set("comment", "Service is already stopped")
			return ret, nil
		}
		act = func() error { return m.Stop(ctx, name) }
	case "running":
		if up, _ := m.Status(ctx, name); up {
			// full_restart is ignored: no Linux service module of Salt's
			// has service.full_restart.
			switch {
			case c.Bool("reload") && c.Bool("force"):
				verb = "forcefully reload"
				act = func() error {
					ok, err := c.Salt("service.force_reload", []any{name}, nil)
					if err == nil && !value.Truthy(ok) {
						return errActionFailed
					}
					return err
				}
			case c.Bool("reload"):
				verb = "reload"
				act = func() error { return m.Reload(ctx, name) }
			default:
				verb = "restart"
				act = func() error { return m.Restart(ctx, name) }
			}
		} else {
			verb = "start"
			act = func() error {
				_ = m.Stop(ctx, name)
				return m.Start(ctx, name)
			}
		}
		past = verb + "ed"
		if verb == "stop" {
			past = "stopped"
		}
	default:
		ret.Set("comment", "Unable to trigger watch for service."+c.Str("sfun"))
		ret.Set("result", false)
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "Service is set to be "+past)
		return ret, nil
	}
	if err := act(); err != nil {
		var ce *system.CommandError
		if errors.As(err, &ce) || errors.Is(err, errActionFailed) {
			if _, isSysV := m.(*svcmgr.SysV); isSysV || errors.Is(err, errActionFailed) {
				ret.Set("changes", value.MapOf(name, false))
				ret.Set("result", false)
				ret.Set("comment", "Failed to "+verb+" the service")
				return ret, nil
			}
		}
		ret.Set("result", false)
		ret.Set("comment", svcErr(err))
		return ret, nil
	}
	initDelay(c)
	ret.Set("changes", value.MapOf(name, true))
	ret.Set("comment", "Service "+past)
	return ret, nil
}
