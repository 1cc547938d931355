package states

// timezone.go is salt/states/timezone.py (timezone.system) with the
// Debian-family handling of salt/modules/timezone.py: the zone is the
// /etc/localtime link (and /etc/timezone), compared by content with the
// zoneinfo file; the hardware clock mode is the third line of /etc/adjtime.

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"brine/internal/statemod"
	"brine/internal/system/tzone"
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

func tzSys(c *statemod.Call) tzone.System { return tzone.System{Root: sysRoot(c)} }

func timezoneSystem(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), nil, "")
	same, err := tzSys(c).Compare(name)
	if ce := (*tzone.CompareError)(nil); errors.As(err, &ce) && ce.Zone {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Unable to compare desired timezone '%s' to system timezone: zoneinfo file %s does not exist", name, filepath.Join("/usr/share/zoneinfo", name)))
		return ret, nil
	}
	utc := c.Get("utc")
	wantUTC := value.Truthy(utc)
	myUTC := tzSys(c).UTC()
	var messages []string
	if same {
		ret.Set("result", true)
		messages = append(messages, "Timezone "+name+" already set")
	}
	doUTC := false
	if wantUTC && wantUTC != myUTC {
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
		if !same {
			messages = append(messages, "Timezone "+name+" needs to be set")
		}
		if doUTC {
			messages = append(messages, "UTC needs to be set to "+value.Repr(utc))
		}
		ret.Set("comment", strings.Join(messages, ", "))
		return ret, nil
	}
	messages = nil
	changes := getv(ret, "changes").(*value.Map)
	if !same {
		err := tzSys(c).Link(name, exists(rootPath(c, "/etc/timezone")) || isDebianRoot(c))
		if err == nil {
			changes.Set("timezone", name)
			messages = append(messages, "Set timezone "+name)
			ret.Set("result", true)
		} else {
			messages = append(messages, "Failed to set timezone")
			ret.Set("result", false)
		}
	}
	if doUTC {
		if err := tzSys(c).SetUTC(wantUTC); err == nil {
			changes.Set("utc", utc)
			messages = append(messages, "Set UTC to "+value.Repr(utc))
			ret.Set("result", true)
		} else {
			messages = append(messages, "Failed to set UTC to "+value.Repr(utc))
			ret.Set("result", false)
		}
	}
	ret.Set("comment", strings.Join(messages, ", "))
	return ret, nil
}

func isDebianRoot(c *statemod.Call) bool {
	return exists(rootPath(c, "/etc/debian_version"))
}
