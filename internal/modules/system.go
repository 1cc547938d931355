package modules

// system.go is salt/modules/system.py: power (halt, reboot, shutdown),
// the system clock (read, and set with date and hwclock) and the
// computer's description and name.

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"brine/internal/execmod"
	"brine/internal/pyops"
	"brine/internal/value"
)

func init() {
	execmod.Register("system.halt", systemCmd("halt", nil), "Halt the system (halt); the command's output.")
	execmod.Register("system.init", systemInit, "Change the system runlevel (init runlevel); the command's output.")
	execmod.Register("system.poweroff", systemCmd("poweroff", nil), "Power off the system (poweroff); the command's output.")
	execmod.Register("system.reboot", systemCmd("reboot", []string{"shutdown", "-r"}), "Reboot the system now, or at at_time (shutdown -r); the command's output.")
	execmod.Register("system.shutdown", systemCmd("shutdown", []string{"shutdown", "-h"}), "Shut down the system now, or at at_time (shutdown -h); the command's output.")
	execmod.Register("system.has_settable_hwclock", systemHasSettableHWClock, "True when hwclock can set the hardware clock.")
	execmod.Register("system.get_system_time", systemGetTime("get_system_time", "%I:%M:%S %p"), "Return the system time as 'hh:mm:ss AM' (utc_offset=None, e.g. '+0200').")
	execmod.Register("system.get_system_date", systemGetTime("get_system_date", "%a %m/%d/%Y"), "Return the system date as 'Day mm/dd/yyyy' (utc_offset=None).")
	execmod.Register("system.get_system_date_time", systemGetTime("get_system_date_time", "%Y-%m-%d %H:%M:%S"), "Return the system date and time as 'yyyy-mm-dd hh:mm:ss' (utc_offset=None).")
	execmod.Register("system.set_system_time", systemSetTime, "Set the system time from newtime (hh:mm[:ss] [AM|PM]); False when it does not parse.")
	execmod.Register("system.set_system_date", systemSetDate, "Set the system date from newdate (yyyy-mm-dd, mm/dd/yyyy, ...).")
	execmod.Register("system.set_system_date_time", systemSetDateTime, "Set the system clock (years, months, days, hours, minutes, seconds; the rest kept; utc_offset) and the hardware clock.")
	execmod.Register("system.get_computer_desc", systemGetComputerDesc, "Return the computer's description (PRETTY_HOSTNAME), False when there is none.")
	execmod.Register("system.set_computer_desc", systemSetComputerDesc, "Set the computer's description (PRETTY_HOSTNAME) to desc.")
	execmod.Register("system.get_computer_name", netGetHostname, "Return the host name.")
	execmod.Register("system.set_computer_name", systemSetComputerName, "Set the host name (network.mod_hostname).")
}

func systemRun(ctx *execmod.Context, cmd ...string) (any, error) {
	return ctx.Call("cmd.run", []any{strList(cmd)}, value.MapOf("python_shell", false))
}

// systemCmd runs bin, or cmd with "now" or the at_time argument.
func systemCmd(fun string, cmd []string) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		if cmd == nil {
			if _, _, err := execmod.Bind(fun, args, kwargs); err != nil {
				return nil, err
			}
			return systemRun(ctx, fun)
		}
		v, _, err := execmod.Bind(fun, args, kwargs, execmod.Opt("at_time", nil))
		if err != nil {
			return nil, err
		}
		when := "now"
		if value.Truthy(v[0]) {
			when = value.Str(v[0])
		}
		return systemRun(ctx, append(append([]string{}, cmd...), when)...)
	}
}

func systemInit(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("init", args, kwargs, execmod.Req("runlevel"))
	if err != nil {
		return nil, err
	}
	return systemRun(ctx, "init", value.Str(v[0]))
}

func systemRunAll(ctx *execmod.Context, cmd []string, kw ...any) (*value.Map, error) {
	res, err := ctx.Call("cmd.run_all", []any{strList(cmd)}, value.MapOf(append([]any{"python_shell", false}, kw...)...))
	if err != nil {
		return nil, err
	}
	return res.(*value.Map), nil
}

func systemRC(m *value.Map) int64 {
	rc, _ := m.Get("retcode")
	n, _ := rc.(int64)
	return n
}

func systemHasHWClock(ctx *execmod.Context) (bool, error) {
	if _, err := exec.LookPath("hwclock"); err != nil {
		return false, nil
	}
	res, err := systemRunAll(ctx, []string{"hwclock", "--test", "--systohc"}, "output_loglevel", "quiet", "ignore_retcode", true)
	if err != nil {
		return false, err
	}
	return systemRC(res) == 0, nil
}

func systemHasSettableHWClock(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("has_settable_hwclock", args, kwargs); err != nil {
		return nil, err
	}
	return systemHasHWClock(ctx)
}

var systemOffsetRe = regexp.MustCompile(`^([+-])?(\d\d)(\d\d)$`)

// systemOffsetTime is _get_offset_time: now in the zone utc_offset
// ("+HHMM", "-HHMM" or "HHMM"), or local time without one.
func systemOffsetTime(utcOffset any) (time.Time, bool, error) {
	if utcOffset == nil {
		return time.Now(), false, nil
	}
	str, ok := utcOffset.(string)
	if !ok {
		// re.match on a number: `utc_offset=+0200` is YAML's octal 128.
		return time.Time{}, false, netPyErrorf("TypeError", "expected string or bytes-like object")
	}
	m := systemOffsetRe.FindStringSubmatch(str)
	if m == nil {
		return time.Time{}, false, &execmod.InvocationError{Msg: "Invalid UTC offset"}
	}
	h, _ := strconv.Atoi(m[2])
	mi, _ := strconv.Atoi(m[3])
	mins := h*60 + mi
	if m[1] == "-" {
		mins = -mins
	}
	return time.Now().In(time.FixedZone("", mins*60)), true, nil
}

func systemGetTime(fun, format string) execmod.Func {
	return func(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind(fun, args, kwargs, execmod.Opt("utc_offset", nil))
		if err != nil {
			return nil, err
		}
		t, _, err := systemOffsetTime(v[0])
		if err != nil {
			return nil, err
		}
		return pyops.Strftime(t, format), nil
	}
}

// systemParsed is the fields a strptime format filled.
type systemParsed struct {
	year, month, day, hour, min, sec int
}

// systemStrptime is datetime.strptime for the numeric directives the
// date and time setters use (%Y %y %m %d %H %I %M %S %p); ok false when
// text does not match format or names no valid date.
func systemStrptime(text, format string) (systemParsed, bool) {
	p := systemParsed{year: 1900, month: 1, day: 1}
	pm, hasP, i12 := false, false, -1
	s := text
	num := func(min, max int) (int, bool) {
		n := 0
		k := 0
		for k < len(s) && k < max && s[k] >= '0' && s[k] <= '9' {
			n = n*10 + int(s[k]-'0')
			k++
		}
		if k < min {
			return 0, false
		}
		s = s[k:]
		return n, true
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 >= len(format) {
			if c == ' ' {
				s = strings.TrimLeft(s, " \t")
				continue
			}
			if s == "" || s[0] != c {
				return p, false
			}
			s = s[1:]
			continue
		}
		i++
		var ok bool
		switch format[i] {
		case 'Y':
			p.year, ok = num(4, 4)
		case 'y':
			var y int
			if y, ok = num(2, 2); ok {
				if y < 69 {
					p.year = 2000 + y
				} else {
					p.year = 1900 + y
				}
			}
		case 'm':
			p.month, ok = num(1, 2)
			ok = ok && p.month >= 1 && p.month <= 12
		case 'd':
			p.day, ok = num(1, 2)
			ok = ok && p.day >= 1 && p.day <= 31
		case 'H':
			p.hour, ok = num(1, 2)
			ok = ok && p.hour <= 23
		case 'I':
			i12, ok = num(1, 2)
			ok = ok && i12 >= 1 && i12 <= 12
		case 'M':
			p.min, ok = num(1, 2)
			ok = ok && p.min <= 59
		case 'S':
			p.sec, ok = num(1, 2)
			ok = ok && p.sec <= 61
		case 'p':
			hasP = true
			switch u := strings.ToUpper(s); {
			case strings.HasPrefix(u, "AM"):
				ok = true
			case strings.HasPrefix(u, "PM"):
				ok, pm = true, true
			}
			if ok {
				s = s[2:]
			}
		default:
			return p, false
		}
		if !ok {
			return p, false
		}
	}
	if s != "" {
		return p, false
	}
	if i12 >= 0 {
		p.hour = i12 % 12
		if hasP && pm {
			p.hour += 12
		}
	}
	if t := time.Date(p.year, time.Month(p.month), p.day, 0, 0, 0, 0, time.UTC); t.Day() != p.day {
		return p, false
	}
	return p, true
}

func systemTryParse(text string, formats []string) (systemParsed, bool) {
	for _, f := range formats {
		if p, ok := systemStrptime(text, f); ok {
			return p, true
		}
	}
	return systemParsed{}, false
}

func systemSetTime(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_system_time", args, kwargs, execmod.Req("newtime"), execmod.Opt("utc_offset", nil))
	if err != nil {
		return nil, err
	}
	p, ok := systemTryParse(value.Str(v[0]), []string{"%I:%M:%S %p", "%I:%M %p", "%H:%M:%S", "%H:%M"})
	if !ok {
		return false, nil
	}
	return systemSetClock(ctx, [6]any{nil, nil, nil, int64(p.hour), int64(p.min), int64(p.sec)}, v[1])
}

func systemSetDate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_system_date", args, kwargs, execmod.Req("newdate"), execmod.Opt("utc_offset", nil))
	if err != nil {
		return nil, err
	}
	p, ok := systemTryParse(value.Str(v[0]), []string{"%Y-%m-%d", "%m-%d-%Y", "%m-%d-%y", "%m/%d/%Y", "%m/%d/%y", "%Y/%m/%d"})
	if !ok {
		return nil, &execmod.InvocationError{Msg: "Invalid date format"}
	}
	return systemSetClock(ctx, [6]any{int64(p.year), int64(p.month), int64(p.day), nil, nil, nil}, v[1])
}

func systemSetDateTime(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_system_date_time", args, kwargs, execmod.Opt("years", nil), execmod.Opt("months", nil),
		execmod.Opt("days", nil), execmod.Opt("hours", nil), execmod.Opt("minutes", nil), execmod.Opt("seconds", nil),
		execmod.Opt("utc_offset", nil))
	if err != nil {
		return nil, err
	}
	return systemSetClock(ctx, [6]any(v[:6]), v[6])
}

// systemSetClock is set_system_date_time: the fields not given are
// today's (in utc_offset's zone), set with date (UTC with -u when an
// offset is given), then the hardware clock from the system clock.
func systemSetClock(ctx *execmod.Context, f [6]any, utcOffset any) (any, error) {
	now, hasOffset, err := systemOffsetTime(utcOffset)
	if err != nil {
		return nil, err
	}
	cur := [6]int{now.Year(), int(now.Month()), now.Day(), now.Hour(), now.Minute(), now.Second()}
	var n [6]int
	for i, x := range f {
		switch y := x.(type) {
		case nil:
			n[i] = cur[i]
		case int64:
			n[i] = int(y)
		default:
			return nil, &execmod.InvocationError{Msg: fmt.Sprintf("'%s' object cannot be interpreted as an integer", value.TypeName(x))}
		}
	}
	switch {
	case n[0] < 1 || n[0] > 9999:
		return nil, &execmod.InvocationError{Msg: fmt.Sprintf("year %d is out of range", n[0])}
	case n[1] < 1 || n[1] > 12:
		return nil, &execmod.InvocationError{Msg: "month must be in 1..12"}
	case n[2] < 1 || time.Date(n[0], time.Month(n[1]), n[2], 0, 0, 0, 0, time.UTC).Day() != n[2]:
		return nil, &execmod.InvocationError{Msg: "day is out of range for month"}
	case n[3] < 0 || n[3] > 23:
		return nil, &execmod.InvocationError{Msg: "hour must be in 0..23"}
	case n[4] < 0 || n[4] > 59:
		return nil, &execmod.InvocationError{Msg: "minute must be in 0..59"}
	case n[5] < 0 || n[5] > 59:
		return nil, &execmod.InvocationError{Msg: "second must be in 0..59"}
	}
	t := time.Date(n[0], time.Month(n[1]), n[2], n[3], n[4], n[5], 0, now.Location())
	cmd := []string{"date"}
	if hasOffset {
		t = t.UTC()
		cmd = append(cmd, "-u")
	}
	nonPosix := fmt.Sprintf("%02d%02d%02d%02d%04d.%02d", t.Month(), t.Day(), t.Hour(), t.Minute(), t.Year(), t.Second())
	res, err := systemRunAll(ctx, append(cmd, nonPosix))
	if err != nil {
		return nil, err
	}
	if systemRC(res) != 0 {
		posix := fmt.Sprintf(" %02d%02d%02d%02d%04d", t.Month(), t.Day(), t.Hour(), t.Minute(), t.Year())
		res2, err := systemRunAll(ctx, append(cmd, posix))
		if err != nil {
			return nil, err
		}
		if systemRC(res2) != 0 {
			stderr, _ := res.Get("stderr")
			return nil, execmod.Errorf("date failed: %s", value.Str(stderr))
		}
	}
	ok, err := systemHasHWClock(ctx)
	if err != nil || !ok {
		return true, err
	}
	res, err = systemRunAll(ctx, []string{"hwclock", "--systohc"})
	if err != nil {
		return nil, err
	}
	if systemRC(res) != 0 {
		stderr, _ := res.Get("stderr")
		return nil, execmod.Errorf("hwclock failed to set hardware clock from software clock: %s", value.Str(stderr))
	}
	return true, nil
}

var systemPrettyRe = regexp.MustCompile(`^\s*PRETTY_HOSTNAME=(.*)$`)

// systemMachineInfo is where the description lives without hostnamectl.
var systemMachineInfo = "/etc/machine-info"

func systemGetComputerDesc(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("get_computer_desc", args, kwargs); err != nil {
		return nil, err
	}
	var desc string
	if hc, err := exec.LookPath("hostnamectl"); err == nil {
		out, err := systemRun(ctx, hc, "status", "--pretty")
		if err != nil {
			return nil, err
		}
		desc = value.Str(out)
	} else {
		found := false
		if data, err := os.ReadFile(systemMachineInfo); err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if m := systemPrettyRe.FindStringSubmatch(line); m != nil {
					desc, found = strings.TrimSpace(m[1]), true
					if len(desc) > 1 && desc[0] == desc[len(desc)-1] && (desc[0] == '"' || desc[0] == '\'') {
						desc = desc[1 : len(desc)-1]
					}
				}
			}
		}
		if !found {
			return false, nil
		}
	}
	return strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\n`, "\n", `\t`, "\t").Replace(desc), nil
}

func systemSetComputerDesc(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_computer_desc", args, kwargs, execmod.Req("desc"))
	if err != nil {
		return nil, err
	}
	desc := strings.NewReplacer(`"`, `\"`, "\n", `\n`, "\t", `\t`).Replace(value.Str(v[0]))
	if hc, err := exec.LookPath("hostnamectl"); err == nil {
		rc, err := ctx.Call("cmd.retcode", []any{strList([]string{hc, "set-hostname", "--pretty", desc})}, value.MapOf("python_shell", false))
		if err != nil {
			return nil, err
		}
		return value.Equal(rc, int64(0)), nil
	}
	data, err := os.ReadFile(systemMachineInfo)
	if err != nil && !os.IsNotExist(err) {
		return false, nil
	}
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	newLine := `PRETTY_HOSTNAME="` + desc + `"`
	replaced := false
	for i, l := range lines {
		if systemPrettyRe.MatchString(strings.TrimRight(l, "\n")) {
			lines[i], replaced = newLine, true
			break
		}
	}
	if !replaced {
		lines = append(lines, newLine)
	}
	if err := os.WriteFile(systemMachineInfo, []byte(strings.Join(lines, "")), 0o644); err != nil {
		return false, nil
	}
	return true, nil
}

func systemSetComputerName(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_computer_name", args, kwargs, execmod.Req("hostname"))
	if err != nil {
		return nil, err
	}
	return ctx.Call("network.mod_hostname", []any{v[0]}, nil)
}
