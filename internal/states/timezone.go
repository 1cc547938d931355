package states

// timezone.go is salt/states/timezone.py (timezone.system) with the
// Debian-family handling of salt/modules/timezone.py: the zone is the
// /etc/localtime link (and /etc/timezone), compared by content with the
// zoneinfo file; the hardware clock mode is the third line of /etc/adjtime.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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

// readLocaltime returns the content of /etc/localtime, following a link
// inside the system root.
func readLocaltime(c *statemod.Call) ([]byte, error) {
	p := rootPath(c, "/etc/localtime")
	if target, err := os.Readlink(p); err == nil && filepath.IsAbs(target) {
		return os.ReadFile(rootPath(c, target))
	}
	return os.ReadFile(p)
}

func hwclockUTC(c *statemod.Call) bool {
	data, err := os.ReadFile(rootPath(c, "/etc/adjtime"))
	if err != nil {
		return true
	}
	lines := strings.Split(string(data), "\n")
	return !(len(lines) > 2 && strings.TrimSpace(lines[2]) == "LOCAL")
}

func setHwclock(c *statemod.Call, utc bool) error {
	p := rootPath(c, "/etc/adjtime")
	lines := []string{"0.0 0 0.0", "0"}
	if data, err := os.ReadFile(p); err == nil {
		lines = strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		for len(lines) < 2 {
			lines = append(lines, "0")
		}
	}
	mode := "UTC"
	if !utc {
		mode = "LOCAL"
	}
	if len(lines) > 2 {
		lines[2] = mode
	} else {
		lines = append(lines[:2], mode)
	}
	return writeFileAtomic(p, []byte(strings.Join(lines, "\n")+"\n"))
}

func timezoneSystem(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), nil, "")
	zone := rootPath(c, filepath.Join("/usr/share/zoneinfo", name))
	want, err := os.ReadFile(zone)
	if err != nil || strings.Contains(name, "..") {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("Unable to compare desired timezone '%s' to system timezone: zoneinfo file %s does not exist", name, filepath.Join("/usr/share/zoneinfo", name)))
		return ret, nil
	}
	have, _ := readLocaltime(c)
	same := bytes.Equal(want, have)
	utc := c.Get("utc")
	wantUTC := value.Truthy(utc)
	myUTC := hwclockUTC(c)
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
		lt := rootPath(c, "/etc/localtime")
		os.Remove(lt)
		err := os.Symlink(filepath.Join("/usr/share/zoneinfo", name), lt)
		if err == nil && (exists(rootPath(c, "/etc/timezone")) || isDebianRoot(c)) {
			err = writeFileAtomic(rootPath(c, "/etc/timezone"), []byte(name+"\n"))
		}
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
		if err := setHwclock(c, wantUTC); err == nil {
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
