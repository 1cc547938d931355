package states

// kmod.go is salt/states/kmod.py (kmod.present, kmod.absent) with the
// Linux handling of salt/modules/kmod.py: loaded modules from
// /proc/modules, available ones from /lib/modules/<release>, loading with
// modprobe, persistence in /etc/modules.

import (
	"os/exec"
	"sort"
	"strings"

	"brine/internal/statemod"
	"brine/internal/system/kmod"
	"brine/internal/value"
)

// KmodService is the execmod service name under which a run (or a test)
// attaches its own KernelModules.
const KmodService = "kmod"

// KernelModules loads and unloads kernel modules.
type KernelModules interface {
	// Loaded returns the loaded modules.
	Loaded() []string
	// Available returns the modules that can be loaded.
	Available() []string
	// Load loads a module (with its dependencies).
	Load(name string) error
	// Unload removes a module.
	Unload(name string) error
}

// procModules is the KernelModules of this machine.
type procModules struct{ kmod.Proc }

func (procModules) Load(name string) error   { return exec.Command("modprobe", name).Run() }
func (procModules) Unload(name string) error { return exec.Command("modprobe", "-r", name).Run() }

func kmods(c *statemod.Call) KernelModules {
	if c.Env != nil && c.Env.Exec != nil {
		if k, ok := c.Env.Exec.Service(KmodService).(KernelModules); ok {
			return k
		}
	}
	return procModules{}
}

func init() {
	statemod.Register(&statemod.Function{Name: "kmod.present",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("persist", false), statemod.Opt("mods", nil)},
		Doc:    "Ensure that the kernel modules are loaded (and loaded at boot with persist).", Run: kmodPresent})
	statemod.Register(&statemod.Function{Name: "kmod.absent",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("persist", false), statemod.Opt("comment", true), statemod.Opt("mods", nil)},
		Doc:    "Ensure that the kernel modules are not loaded.", Run: kmodAbsent})
}

func persistedMods(c *statemod.Call) []string {
	return kmod.Persisted(rootPath(c, "/etc/modules"))
}

func setPersist(c *statemod.Call, mod string, add, comment bool) error {
	p := rootPath(c, "/etc/modules")
	var err error
	if add {
		_, err = kmod.AddPersist(p, mod, nil)
	} else {
		_, err = kmod.RemovePersist(p, mod, comment)
	}
	return err
}

func modList(c *statemod.Call) []string {
	if v := c.Get("mods"); v != nil {
		if l, ok := v.(*value.List); ok {
			return listStrings(l)
		}
	}
	return []string{c.Name()}
}

func appendComment(ret *value.Map, s string) {
	cur := value.Str(getv(ret, "comment"))
	if cur != "" {
		cur = strings.TrimRight(cur, " \t\n") + "\n" + s
	} else {
		cur = s
	}
	ret.Set("comment", cur)
}

func plural2(list []string, one, many string) string {
	if len(list) == 1 {
		return strings.Replace(one, "%s", list[0], 1)
	}
	return strings.Replace(many, "%s", strings.Join(list, ", "), 1)
}

func kmodPresent(c *statemod.Call) (*value.Map, error) {
	mods := modList(c)
	persist := c.Bool("persist")
	ret := statemod.Ret(c.Get("name"), true, "")
	k := kmods(c)
	loaded := setOf(k.Loaded())
	if persist {
		p := setOf(persistedMods(c))
		for m := range loaded {
			if !p[m] {
				delete(loaded, m)
			}
		}
	}
	var already, missing []string
	for _, m := range mods {
		if loaded[m] {
			already = append(already, m)
		} else {
			missing = append(missing, m)
		}
	}
	if len(already) > 0 {
		appendComment(ret, plural2(already, "Kernel module %s is already present", "Kernel modules %s are already present"))
	}
	if len(missing) == 0 {
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		appendComment(ret, plural2(missing, "Kernel module %s is set to be loaded", "Kernel modules %s are set to be loaded"))
		return ret, nil
	}
	avail := setOf(k.Available())
	var unavailable, ok []string
	for _, m := range missing {
		if !avail[m] {
			unavailable = append(unavailable, m)
		}
	}
	if len(unavailable) > 0 {
		appendComment(ret, plural2(unavailable, "Kernel module %s is unavailable", "Kernel modules %s are unavailable"))
		ret.Set("result", false)
	}
	changes := getv(ret, "changes").(*value.Map)
	for _, m := range missing {
		if !avail[m] {
			continue
		}
		before := setOf(k.Loaded())
		wasLoaded := before[m]
		if !wasLoaded {
			if err := k.Load(m); err != nil {
				ret.Set("result", false)
				appendComment(ret, "Failed to load kernel module "+m+": "+err.Error())
				continue
			}
		}
		if persist {
			if err := setPersist(c, m, true, false); err != nil {
				ret.Set("result", false)
				appendComment(ret, "Failed to load kernel module "+m+": "+err.Error())
				continue
			}
		}
		var newly []string
		for _, x := range k.Loaded() {
			if !before[x] {
				newly = append(newly, x)
			}
		}
		if len(newly) == 0 {
			newly = []string{m}
		}
		sort.Strings(newly)
		for _, x := range newly {
			changes.Set(x, "loaded")
		}
		ok = append(ok, m)
	}
	if len(ok) > 0 {
		appendComment(ret, plural2(ok, "Loaded kernel module %s", "Loaded kernel modules %s"))
	}
	return ret, nil
}

func kmodAbsent(c *statemod.Call) (*value.Map, error) {
	mods := modList(c)
	persist := c.Bool("persist")
	ret := statemod.Ret(c.Get("name"), true, "")
	k := kmods(c)
	loaded := setOf(k.Loaded())
	if persist {
		for _, m := range persistedMods(c) {
			loaded[m] = true
		}
	}
	var toUnload []string
	for _, m := range mods {
		if loaded[m] {
			toUnload = append(toUnload, m)
		}
	}
	if len(toUnload) == 0 {
		appendComment(ret, plural2(mods, "Kernel module %s is already removed", "Kernel modules %s are already removed"))
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		appendComment(ret, plural2(toUnload, "Kernel module %s is set to be removed", "Kernel modules %s are set to be removed"))
		return ret, nil
	}
	changes := getv(ret, "changes").(*value.Map)
	var ok []string
	for _, m := range toUnload {
		if setOf(k.Loaded())[m] {
			if err := k.Unload(m); err != nil {
				ret.Set("result", false)
				appendComment(ret, "Failed to remove kernel module "+m+": "+err.Error())
				continue
			}
		}
		if persist {
			setPersist(c, m, false, c.Bool("comment"))
		}
		changes.Set(m, "removed")
		ok = append(ok, m)
	}
	if len(ok) > 0 {
		appendComment(ret, plural2(ok, "Removed kernel module %s", "Removed kernel modules %s"))
	}
	return ret, nil
}
