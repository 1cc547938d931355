package states

// sysctl.go is salt/states/sysctl.py (sysctl.present) with the persist
// logic of salt/modules/linux_sysctl.py: the value is written to the
// configuration file and applied to the running kernel.

import (
	"os"
	"strings"

	"brine/internal/statemod"
	"brine/internal/system/sysctl"
	"brine/internal/value"
)

// SysctlService is the execmod service name under which a run (or a test)
// attaches its own Sysctl.
const SysctlService = sysctl.Service

// Sysctl reads and sets kernel parameters of the running system.
type Sysctl = sysctl.Kernel

// ProcSysctl is the Sysctl of /proc/sys under Root ("" for /).
type ProcSysctl = sysctl.Proc

func sysctlBackend(c *statemod.Call) Sysctl {
	if c.Env != nil && c.Env.Exec != nil {
		if s, ok := c.Env.Exec.Service(SysctlService).(Sysctl); ok {
			return s
		}
	}
	return ProcSysctl{}
}

func init() {
	statemod.Register(&statemod.Function{Name: "sysctl.present",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("value"), statemod.Opt("config", nil)},
		Doc:    "Ensure that the kernel parameter is set, now and in the configuration file.",
		Run:    sysctlPresent})
}

// sysctlShow is sysctl.show(config_file): the keys set in the file (nil
// when it cannot be read).
func sysctlShow(path string) map[string]string {
	pairs, _, err := sysctl.ShowFile(path)
	if err != nil {
		return nil
	}
	// A missing file is an empty configuration, not a failure.
	out := map[string]string{}
	for _, p := range pairs {
		out[p.Key] = p.Value
	}
	return out
}

func sysctlPresent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	val := c.Str("value")
	ret := value.MapOf("name", c.Get("name"), "result", true, "changes", value.NewMap(0), "comment", "")
	config := c.Str("config")
	if config == "" {
		config = sysctl.DefaultConfig()
	}
	sys := sysctlBackend(c)
	if c.Test {
		configured := sysctlShow(config)
		if configured == nil {
			ret.Set("result", nil)
			ret.Set("comment", "Sysctl option "+name+" might be changed, we failed to check config file at "+config+". The file is either unreadable, or missing.")
			return ret, nil
		}
		current, ok := sys.Get(name)
		if p, isProc := sys.(ProcSysctl); isProc && !ok {
			// Salt's sysctl.get returns sysctl(8)'s error text for an
			// unknown key, which counts as a current value.
			current = "sysctl: cannot stat " + p.Path(name) + ": No such file or directory"
		}
		_, inConfig := configured[name]
		switch {
		case current != "" && inConfig:
			if strings.Join(strings.Fields(val), " ") == strings.Join(strings.Fields(current), " ") {
				ret.Set("comment", "Sysctl value "+name+" = "+val+" is already set")
				return ret, nil
			}
		case current != "":
			ret.Set("result", nil)
			if sysctl.Sanitize(current) != sysctl.Sanitize(val) {
				ret.Set("comment", "Sysctl option "+name+" set to be changed to "+val)
			} else {
				ret.Set("comment", "Sysctl value is currently set on the running system but not in a config file. Sysctl option "+name+" set to be changed to "+val+" in config file.")
			}
			return ret, nil
		case inConfig:
			ret.Set("result", nil)
			ret.Set("comment", "Sysctl value "+name+" is present in configuration file but is not present in the running config. The value "+name+" is set to be changed to "+val)
			return ret, nil
		}
		ret.Set("result", nil)
		ret.Set("comment", "Sysctl option "+name+" would be changed to "+val)
		return ret, nil
	}
	set := func(n, v string) error {
		if p, isProc := sys.(ProcSysctl); isProc {
			if _, err := os.Stat(p.Path(n)); err != nil {
				return &sysctl.Error{Msg: "sysctl " + n + " does not exist"}
			}
		}
		return sys.Set(n, v)
	}
	status, err := sysctl.Persist(sysctl.KernelGet(sys), set, name, val, config)
	if err != nil {
		ret.Set("result", false)
		ret.Set("comment", "Failed to set "+name+" to "+val+": "+err.Error())
		return ret, nil
	}
	if status == "Updated" {
		ret.Set("changes", value.MapOf(name, c.Get("value")))
		ret.Set("comment", "Updated sysctl value "+name+" = "+val)
	} else {
		ret.Set("comment", "Sysctl value "+name+" = "+val+" is already set")
	}
	return ret, nil
}
