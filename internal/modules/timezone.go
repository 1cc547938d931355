package modules

// timezone.go is salt/modules/timezone.py for Linux: the system's time
// zone from /etc/timezone or the /etc/localtime link, set and compared
// through internal/system/tzone (shared with timezone.system), and the
// hardware clock mode (timedatectl when installed, else /etc/adjtime).

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"brine/internal/execmod"
	"brine/internal/system/tzone"
	"brine/internal/value"
)

func init() {
	execmod.Register("timezone.get_zone", tzGetZone, "Return the system time zone name (e.g. Europe/Paris).")
	execmod.Register("timezone.get_offset", tzGetOffset, "Return the current UTC offset as +hhmm.")
	execmod.Register("timezone.get_zonecode", tzGetZonecode, "Return the current time zone abbreviation (e.g. CET).")
	execmod.Register("timezone.set_zone", tzSetZone, "Link /etc/localtime to the zone (and write /etc/timezone on Debian); True, or 'Zone does not exist: ...'.")
	execmod.Register("timezone.zone_compare", tzZoneCompare, "True when /etc/localtime has the content of the zone's zoneinfo file.")
	execmod.Register("timezone.get_hwclock", tzGetHwclock, "Return the hardware clock mode: 'UTC' or 'localtime' (None without a clock).")
	execmod.Register("timezone.set_hwclock", tzSetHwclock, "Set the hardware clock mode ('UTC' or 'localtime'); True on success.")
}

func tzSys(ctx *execmod.Context) tzone.System { return tzone.System{Root: sysRoot(ctx)} }

func tzSetZone(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_zone", args, kwargs, execmod.Req("timezone"))
	if err != nil {
		return nil, err
	}
	zone := value.Str(v[0])
	if hasCmd("timedatectl") && sysRoot(ctx) == "" {
		if _, err := ctx.Call("cmd.run", []any{"timedatectl set-timezone " + zone}, nil); err != nil {
			return nil, err
		}
	}
	s := tzSys(ctx)
	if _, err := os.Stat(s.Path(tzone.ZoneFile(zone))); err != nil {
		return "Zone does not exist: " + tzone.ZoneFile(zone), nil
	}
	debian := strings.Contains(execmod.String(ctxGrain(ctx, "os_family")), "Debian") || strings.Contains(execmod.String(ctxGrain(ctx, "os_family")), "Gentoo")
	if err := s.Link(zone, debian); err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return true, nil
}

func tzZoneCompare(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("zone_compare", args, kwargs, execmod.Req("timezone"))
	if err != nil {
		return nil, err
	}
	zone := value.Str(v[0])
	same, err := tzSys(ctx).Compare(zone)
	var ce *tzone.CompareError
	if errors.As(err, &ce) {
		if ce.Zone {
			return nil, &execmod.InvocationError{Msg: fmt.Sprintf("Can't find a local timezone \"%s\"", zone)}
		}
		return nil, execmod.Errorf("Failed to read /etc/localtime to determine current timezone: %s", pyStrerror(ce.Err))
	}
	return same, nil
}

// pyStrerror is the strerror part of an OS error (Python's exc.strerror).
func pyStrerror(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	s := err.Error()
	if s != "" {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

func tzGetHwclock(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("get_hwclock", args, kwargs); err != nil {
		return nil, err
	}
	if hasCmd("timedatectl") && sysRoot(ctx) == "" {
		res, err := runArgv(ctx, "cmd.run_all", []string{"timedatectl"})
		if err != nil {
			return nil, err
		}
		m, _ := res.(*value.Map)
		if !value.Equal(cmdGet(m, "retcode"), int64(0)) {
			return nil, execmod.Errorf("timedatectl failed: %s", execmod.String(cmdGet(m, "stderr")))
		}
		out := execmod.String(cmdGet(m, "stdout"))
		for _, line := range strings.Split(out, "\n") {
			line = strings.TrimSpace(line)
			if strings.Contains(strings.ToLower(line), "rtc in local tz") {
				parts := strings.Split(line, ":")
				if strings.ToLower(strings.TrimSpace(parts[len(parts)-1])) == "yes" {
					return "localtime", nil
				}
				return "UTC", nil
			}
		}
		return nil, execmod.Errorf("Failed to parse timedatectl output: %s\nPlease file an issue with SaltStack", out)
	}
	s := tzSys(ctx)
	if data, err := os.ReadFile(s.Path("/etc/default/rcS")); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(strings.TrimLeft(line, " \t"), "#") || !strings.Contains(line, "UTC=") {
				continue
			}
			parts := strings.Split(line, "=")
			if strings.ToLower(parts[len(parts)-1]) == "yes" {
				return "UTC", nil
			}
			return "localtime", nil
		}
	}
	if mode, ok := s.Adjtime(); ok {
		return mode, nil
	}
	if _, err := os.Stat(s.Path("/dev/rtc")); err == nil {
		return nil, execmod.Errorf("Unable to get hwclock timezone from /etc/adjtime")
	}
	return nil, nil
}

func tzSetHwclock(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_hwclock", args, kwargs, execmod.Req("clock"))
	if err != nil {
		return nil, err
	}
	clock := value.Str(v[0])
	if hasCmd("timedatectl") && sysRoot(ctx) == "" {
		local := "false"
		if clock == "localtime" {
			local = "true"
		}
		rc, err := runArgv(ctx, "cmd.retcode", []string{"timedatectl", "set-local-rtc", local})
		if err != nil {
			return nil, err
		}
		return value.Equal(rc, int64(0)), nil
	}
	zone, err := tzSys(ctx).Zone()
	if err != nil {
		return nil, execmod.Errorf("Unable to get timezone: %s", err)
	}
	s := tzSys(ctx)
	if _, err := os.Stat(s.Path(tzone.ZoneFile(zone))); err != nil {
		return nil, execmod.Errorf("Zone '%s' does not exist", tzone.ZoneFile(zone))
	}
	if err := s.Link(zone, false); err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	rcs := s.Path("/etc/default/rcS")
	if data, err := os.ReadFile(rcs); err == nil && (clock == "UTC" || clock == "localtime") {
		val := "UTC=yes"
		if clock == "localtime" {
			val = "UTC=no"
		}
		lines := strings.Split(string(data), "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "UTC=") {
				lines[i] = val
			}
		}
		if err := os.WriteFile(rcs, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			return nil, execmod.Errorf("%s", err)
		}
	}
	return true, nil
}

// SystemZone returns the system time zone name.
func SystemZone() (string, error) { return tzone.System{}.Zone() }

func tzGetZone(*execmod.Context, []any, *value.Map) (any, error) {
	z, err := SystemZone()
	if err != nil {
		return nil, execmod.Errorf("Unable to get timezone: %s", err)
	}
	return z, nil
}

func tzGetOffset(*execmod.Context, []any, *value.Map) (any, error) {
	return time.Now().Format("-0700"), nil
}

func tzGetZonecode(*execmod.Context, []any, *value.Map) (any, error) {
	name, _ := time.Now().Zone()
	return name, nil
}
