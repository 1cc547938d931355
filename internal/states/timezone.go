package states

// timezone.go is salt/states/timezone.py: timezone.system, over the
// timezone execution functions as Salt's state calls them.

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

// SysRootService is the execmod service name under which a test attaches
// a directory (a string) that the file-based system states (timezone,
// locale, kmod persistence, alternatives) treat as the root of the
// machine.
const SysRootService = "sysroot"

func sysRoot(c *statemod.Call) string {
	if c.Env != nil && c.Env.Exec != nil {
		if s, ok := c.Env.Exec.Service(SysRootService).(string); ok {
			return s
		}
	}
	return ""
}

// rootPath is p under the run's system root.
func rootPath(c *statemod.Call, p string) string {
	return filepath.Join("/", sysRoot(c), p)
}

func init() {
	statemod.Register(&statemod.Function{Name: "timezone.system",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("utc", true)},
		Doc:    "Set the system time zone and whether the hardware clock is in UTC.",
		Run:    timezoneSystem})
}

func timezoneSystem(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), nil, "")
	cmp, err := c.Salt("timezone.zone_compare", []any{name}, nil)
	if err != nil {
		var ce *execmod.CommandExecutionError
		var ie *execmod.InvocationError
		if errors.As(err, &ce) || errors.As(err, &ie) {
			ret.Set("result", false)
			ret.Set("comment", fmt.Sprintf("Unable to compare desired timezone '%s' to system timezone: %s", name, err))
			return ret, nil
		}
		return nil, err
	}
	same := cmp == true
	clock, err := c.Salt("timezone.get_hwclock", nil, nil)
	if err != nil {
		return nil, raised(err, "salt/states/timezone.py", "system", "salt/modules/timezone.py", "get_hwclock")
	}
	// Salt only recognises "localtime" here: the UTC/LOCAL that Debian's
	// /etc/adjtime gives counts as UTC.
	myUTC := clock != "localtime"
	utc := c.Get("utc")
	wantUTC := value.Truthy(utc)
	var messages []string
	if same {
		ret.Set("result", true)
		messages = append(messages, "Timezone "+name+" already set")
	}
	// utc != myutc in Python: only a boolean (or 0/1) can equal myutc.
	utcDiffers := !pyEqualInt(utc, boolInt(myUTC))
	doUTC := false
	if wantUTC && utcDiffers {
		ret.Set("result", nil)
		doUTC = true
	} else if wantUTC {
		messages = append(messages, "UTC already set to "+name)
	}
	if getv(ret, "result") == true {
		ret.Set("comment", strings.Join(messages, ", "))
		return ret, nil
	}
	if c.Test {
		messages = nil
		if cmp == false {
			messages = append(messages, "Timezone "+name+" needs to be set")
		}
		if doUTC {
			messages = append(messages, "UTC needs to be set to "+value.Str(utc))
		}
		ret.Set("comment", strings.Join(messages, ", "))
		return ret, nil
	}
	messages = nil
	changes := getv(ret, "changes").(*value.Map)
	if !same {
		ok, err := c.Salt("timezone.set_zone", []any{name}, nil)
		if err != nil {
			return nil, raised(err, "salt/states/timezone.py", "system", "salt/modules/timezone.py", "set_zone")
		}
		if value.Truthy(ok) {
			changes.Set("timezone", name)
			messages = append(messages, "Set timezone "+name)
			ret.Set("result", true)
		} else {
			messages = append(messages, "Failed to set timezone")
			ret.Set("result", false)
		}
	}
	if doUTC {
		mode := "localtime"
		if wantUTC {
			mode = "UTC"
		}
		ok, err := c.Salt("timezone.set_hwclock", []any{mode}, nil)
		if err != nil {
			return nil, raised(err, "salt/states/timezone.py", "system", "salt/modules/timezone.py", "set_hwclock")
		}
		if value.Truthy(ok) {
			changes.Set("utc", utc)
			messages = append(messages, "Set UTC to "+value.Str(utc))
			ret.Set("result", true)
		} else {
			messages = append(messages, "Failed to set UTC to "+value.Str(utc))
			ret.Set("result", false)
		}
	}
	ret.Set("comment", strings.Join(messages, ", "))
	return ret, nil
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
