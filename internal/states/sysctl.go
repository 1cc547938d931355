package states

// sysctl.go is salt/states/sysctl.py (sysctl.present) with the persist
// logic of salt/modules/linux_sysctl.py: the value is written to the
// configuration file and applied to the running kernel.

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"brine/internal/statemod"
	"brine/internal/value"
)

// SysctlService is the execmod service name under which a run (or a test)
// attaches its own Sysctl.
const SysctlService = "sysctl"

// Sysctl reads and sets kernel parameters of the running system.
type Sysctl interface {
	// Get returns the current value ("" and false when there is none).
	Get(name string) (string, bool)
	// Set assigns the value.
	Set(name, value string) error
}

// ProcSysctl is the Sysctl of /proc/sys under Root ("" for /).
type ProcSysctl struct{ Root string }

func (p ProcSysctl) path(name string) string {
	return filepath.Join("/", p.Root, "proc/sys", strings.ReplaceAll(name, ".", "/"))
}

// Get reads /proc/sys/<name with dots as slashes>.
func (p ProcSysctl) Get(name string) (string, bool) {
	data, err := os.ReadFile(p.path(name))
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(strings.ReplaceAll(string(data), "\t", " ")), true
}

// Set writes the value to /proc/sys.
func (p ProcSysctl) Set(name, v string) error {
	return os.WriteFile(p.path(name), []byte(v+"\n"), 0o644)
}

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

// sysctlDefaultConfig is linux_sysctl.default_config.
func sysctlDefaultConfig() string {
	if _, err := os.Stat("/run/systemd/system"); err == nil {
		return "/etc/sysctl.d/99-salt.conf"
	}
	return "/etc/sysctl.conf"
}

var wsRE = regexp.MustCompile(`[ \t]+`)

func sanitizeSysctl(v string) string {
	return strings.TrimSpace(wsRE.ReplaceAllString(v, " "))
}

// sysctlShow is sysctl.show(config_file): the keys set in the file (nil
// when it cannot be read).
func sysctlShow(path string) map[string]string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") || !strings.Contains(line, "=") {
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out
}

func sysctlPresent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	val := c.Str("value")
	ret := value.MapOf("name", c.Get("name"), "result", true, "changes", value.NewMap(0), "comment", "")
	config := c.Str("config")
	if config == "" {
		config = sysctlDefaultConfig()
	}
	sys := sysctlBackend(c)
	if c.Test {
		configured := sysctlShow(config)
		if configured == nil {
			ret.Set("result", nil)
			ret.Set("comment", "Sysctl option "+name+" might be changed, we failed to check config file at "+config+". The file is either unreadable, or missing.")
			return ret, nil
		}
		current, _ := sys.Get(name)
		_, inConfig := configured[name]
		switch {
		case current != "" && inConfig:
			if strings.Join(strings.Fields(val), " ") == strings.Join(strings.Fields(current), " ") {
				ret.Set("comment", "Sysctl value "+name+" = "+val+" is already set")
				return ret, nil
			}
		case current != "":
			ret.Set("result", nil)
			if sanitizeSysctl(current) != sanitizeSysctl(val) {
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
	update, err := sysctlPersist(sys, name, val, config)
	if err != nil {
		ret.Set("result", false)
		ret.Set("comment", "Failed to set "+name+" to "+val+": "+err.Error())
		return ret, nil
	}
	if update {
		ret.Set("changes", value.MapOf(name, c.Get("value")))
		ret.Set("comment", "Updated sysctl value "+name+" = "+val)
	} else {
		ret.Set("comment", "Sysctl value "+name+" = "+val+" is already set")
	}
	return ret, nil
}

// sysctlPersist is linux_sysctl.persist: true for "Updated", false for
// "Already set".
func sysctlPersist(sys Sysctl, name, val, config string) (bool, error) {
	if _, err := os.Stat(config); err != nil {
		if err := os.MkdirAll(filepath.Dir(config), 0o755); err != nil {
			return false, err
		}
		if err := os.WriteFile(config, []byte("#\n# Kernel sysctl configuration\n#\n"), 0o644); err != nil {
			return false, &invocationError{"Could not write to file: " + config}
		}
	}
	data, err := os.ReadFile(config)
	if err != nil {
		return false, &invocationError{"Could not read from file: " + config}
	}
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	edited := false
	want := sanitizeSysctl(val)
	var out []string
	for _, line := range lines {
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || strings.HasPrefix(k, "#") || k != name {
			out = append(out, line)
			continue
		}
		if sanitizeSysctl(v) == want {
			cur, _ := sys.Get(name)
			if sanitizeSysctl(cur) != want {
				return true, sys.Set(name, val)
			}
			return false, nil
		}
		out = append(out, name+" = "+val+"\n")
		edited = true
	}
	if !edited {
		out = append(out, name+" = "+val+"\n")
	}
	if err := writeFileAtomic(config, []byte(strings.Join(out, ""))); err != nil {
		return false, err
	}
	return true, sys.Set(name, val)
}
