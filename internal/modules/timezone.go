package modules

// timezone.go is salt/modules/timezone.py for Linux: the system's time
// zone and hardware clock mode from timedatectl when it is installed,
// else from the files of the OS family (/etc/timezone, /etc/adjtime on
// Debian); set and compared through internal/system/tzone.

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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
	zone, err := tzZone(ctx)
	if err != nil {
		return nil, err
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

func tzGetZone(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("get_zone", args, kwargs); err != nil {
		return nil, err
	}
	z, err := tzZone(ctx)
	if err != nil {
		return nil, err
	}
	return z, nil
}

// timeZoneLine matches the zone line of timedatectl's status.
var timeZoneLine = regexp.MustCompile(`^Time ?zone:\s+(\S+)`)

// tzZone is Salt's get_zone: timedatectl's "Time zone" when it is
// installed (an error when it fails, as in a container without systemd),
// else the file the OS family keeps it in.
func tzZone(ctx *execmod.Context) (string, error) {
	if hasCmd("timedatectl") && sysRoot(ctx) == "" {
		res, err := runArgv(ctx, "cmd.run_all", []string{"timedatectl"})
		if err != nil {
			return "", err
		}
		m, _ := res.(*value.Map)
		if !value.Equal(cmdGet(m, "retcode"), int64(0)) {
			return "", execmod.Errorf("timedatectl failed: %s", execmod.String(cmdGet(m, "stderr")))
		}
		out := execmod.String(cmdGet(m, "stdout"))
		for _, line := range strings.Split(out, "\n") {
			if sub := timeZoneLine.FindStringSubmatch(strings.TrimSpace(line)); sub != nil {
				return sub[1], nil
			}
		}
		return "", execmod.Errorf("Failed to parse timedatectl output: %s\nPlease file an issue with SaltStack", out)
	}
	s := tzSys(ctx)
	family := execmod.String(ctxGrain(ctx, "os_family"))
	switch {
	case strings.ToLower(execmod.String(ctxGrain(ctx, "os"))) == "centos":
		return tzEtcLocaltime(s)
	case strings.Contains(family, "RedHat") || strings.Contains(family, "Suse"):
		return tzSysconfigClock(s)
	case strings.Contains(family, "Debian") || strings.Contains(family, "Gentoo"):
		data, err := os.ReadFile(s.Path("/etc/timezone"))
		if err != nil {
			return "", execmod.Errorf("Problem reading timezone file /etc/timezone: %s", pyStrerror(err))
		}
		return strings.TrimSpace(string(data)), nil
	case family == "FreeBSD" || family == "OpenBSD" || family == "NetBSD" || family == "NILinuxRT" || family == "Slackware":
		return tzEtcLocaltime(s)
	}
	return "", execmod.Errorf("Unable to get timezone")
}

// tzSysconfigClock reads the zone from /etc/sysconfig/clock (RedHat, Suse).
func tzSysconfigClock(s tzone.System) (string, error) {
	data, err := os.ReadFile(s.Path("/etc/sysconfig/clock"))
	if err != nil {
		return "", execmod.Errorf("%s", pyStrerror(err))
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") || !strings.Contains(line, "ZONE") || !strings.Contains(line, "=") {
			continue
		}
		parts := strings.Split(line, "=")
		if z := strings.Trim(parts[len(parts)-1], `'"`); z != "" {
			return z, nil
		}
		return "UTC", nil
	}
	return "", execmod.Errorf("Unable to get timezone from /etc/sysconfig/clock")
}

// tzEtcLocaltime names the zone /etc/localtime links to or, for a copy,
// the first zoneinfo file with the same content.
func tzEtcLocaltime(s tzone.System) (string, error) {
	const dir = "/usr/share/zoneinfo/"
	lt := s.Path("/etc/localtime")
	target, err := os.Readlink(lt)
	if err == nil {
		if !filepath.IsAbs(target) {
			target = filepath.Join("/etc", target)
		}
		if z, ok := strings.CutPrefix(filepath.Clean(target), dir); ok {
			return z, nil
		}
		return "", execmod.Errorf("Unable to determine timezone")
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "", execmod.Errorf("/etc/localtime does not exist")
	}
	have, err := os.ReadFile(lt)
	if err != nil {
		return "", execmod.Errorf("Unable to determine timezone")
	}
	found := ""
	filepath.WalkDir(s.Path(dir), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || found != "" {
			return nil
		}
		rel, _ := filepath.Rel(s.Path(dir), p)
		if rel == "" || (rel[0] >= 'a' && rel[0] <= 'z') {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil && bytes.Equal(data, have) {
			found = rel
			return filepath.SkipAll
		}
		return nil
	})
	if found == "" {
		return "", execmod.Errorf("Unable to determine timezone")
	}
	return found, nil
}

func tzGetOffset(*execmod.Context, []any, *value.Map) (any, error) {
	return time.Now().Format("-0700"), nil
}

func tzGetZonecode(*execmod.Context, []any, *value.Map) (any, error) {
	name, _ := time.Now().Zone()
	return name, nil
}
