package states

// kmod.go is salt/states/kmod.py (kmod.present, kmod.absent) over the
// kmod execution functions as Salt's states call them (mod_list,
// available, load, remove); a test may attach its own KernelModules.

import (
	"sort"
	"strings"

	"brine/internal/statemod"
	"brine/internal/system/kmod"
	"brine/internal/value"
)

// KmodService is the execmod service name under which a test attaches its
// own KernelModules in place of the kmod execution functions.
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

// kmodOps are the kmod execution functions the states use: mod_list,
// available, load and remove (load and remove return the modules loaded
// or removed, or Salt's error string).
type kmodOps interface {
	ModList(persist bool) ([]string, error)
	Available() ([]string, error)
	Load(mod string, persist bool) (any, error)
	Remove(mod string, persist, comment bool) (any, error)
}

func kmodBackend(c *statemod.Call) kmodOps {
	if c.Env != nil && c.Env.Exec != nil {
		if k, ok := c.Env.Exec.Service(KmodService).(KernelModules); ok {
			return attachedKmod{c, k}
		}
	}
	return execKmod{c}
}

// execKmod calls the kmod execution functions.
type execKmod struct{ c *statemod.Call }

func (e execKmod) list(fun string, args ...any) ([]string, error) {
	v, err := e.c.Salt("kmod."+fun, args, nil)
	if err != nil {
		return nil, err
	}
	return listStrings(v), nil
}

func (e execKmod) ModList(persist bool) ([]string, error) { return e.list("mod_list", persist) }
func (e execKmod) Available() ([]string, error)           { return e.list("available") }
func (e execKmod) Load(mod string, persist bool) (any, error) {
	return e.c.Salt("kmod.load", []any{mod, persist}, nil)
}
func (e execKmod) Remove(mod string, persist, comment bool) (any, error) {
	return e.c.Salt("kmod.remove", []any{mod, persist, comment}, nil)
}

// attachedKmod is a test's KernelModules, with the modules file under
// the run's system root.
type attachedKmod struct {
	c *statemod.Call
	k KernelModules
}

func (a attachedKmod) conf() string { return rootPath(a.c, "/etc/modules") }

func (a attachedKmod) ModList(persist bool) ([]string, error) {
	if persist {
		return kmod.Persisted(a.conf()), nil
	}
	return a.k.Loaded(), nil
}

func (a attachedKmod) Available() ([]string, error) { return a.k.Available(), nil }

// change is kmod.load/kmod.remove: the modules that appeared (or went),
// with the one the modules file got (or lost).
func (a attachedKmod) change(mod string, load bool, persist func() ([]string, error)) (any, error) {
	pre := setOf(a.k.Loaded())
	op, verb := a.k.Unload, "removing"
	if load {
		op, verb = a.k.Load, "loading"
	}
	if err := op(mod); err != nil {
		return "Error " + verb + " module " + mod + ": " + err.Error(), nil
	}
	post := setOf(a.k.Loaded())
	set := map[string]bool{}
	for m := range post {
		if load && !pre[m] {
			set[m] = true
		}
	}
	for m := range pre {
		if !load && !post[m] {
			set[m] = true
		}
	}
	names, err := persist()
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		set[n] = true
	}
	out := make([]string, 0, len(set))
	for m := range set {
		out = append(out, m)
	}
	sort.Strings(out)
	return strsValue(out), nil
}

func (a attachedKmod) Load(mod string, persist bool) (any, error) {
	return a.change(mod, true, func() ([]string, error) {
		if !persist {
			return nil, nil
		}
		return kmod.AddPersist(a.conf(), mod, a.k.Available())
	})
}

func (a attachedKmod) Remove(mod string, persist, comment bool) (any, error) {
	return a.change(mod, false, func() ([]string, error) {
		if !persist {
			return nil, nil
		}
		return kmod.RemovePersist(a.conf(), mod, comment)
	})
}

func init() {
	statemod.Register(&statemod.Function{Name: "kmod.present",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("persist", false), statemod.Opt("mods", nil)},
		Doc:    "Ensure that the kernel modules are loaded (and loaded at boot with persist).", Run: kmodPresent})
	statemod.Register(&statemod.Function{Name: "kmod.absent",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("persist", false), statemod.Opt("comment", true), statemod.Opt("mods", nil)},
		Doc:    "Ensure that the kernel modules are not loaded.", Run: kmodAbsent})
}

// modList is the mods argument, or the name alone unless mods is a list.
func modList(c *statemod.Call) []string {
	if l, ok := c.Get("mods").(*value.List); ok {
		return listStrings(l)
	}
	return []string{value.Str(c.Get("name"))}
}

// appendComment is the states' _append_comment.
func appendComment(ret *value.Map, s string) {
	cur := value.Str(getv(ret, "comment"))
	if cur != "" {
		cur = strings.TrimRight(cur, " \t\n\r\v\f") + "\n" + s
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

// inSet returns the members of mods (in order, once) that are (or, with
// want false, are not) in set.
func inSet(mods []string, set map[string]bool, want bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range mods {
		if set[m] == want && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

// loadedMods is mod_list, joined with the persisted modules (intersection
// for present, union for absent) with persist.
func loadedMods(c *statemod.Call, k kmodOps, fun string, union bool) (map[string]bool, error) {
	loaded, err := k.ModList(false)
	if err != nil {
		return nil, raised(err, "salt/states/kmod.py", fun, "salt/modules/kmod.py", "mod_list")
	}
	set := setOf(loaded)
	if c.Bool("persist") {
		p, err := k.ModList(true)
		if err != nil {
			return nil, raised(err, "salt/states/kmod.py", fun, "salt/modules/kmod.py", "mod_list")
		}
		ps := setOf(p)
		if union {
			for m := range ps {
				set[m] = true
			}
		} else {
			for m := range set {
				if !ps[m] {
					delete(set, m)
				}
			}
		}
	}
	return set, nil
}

func kmodPresent(c *statemod.Call) (*value.Map, error) {
	mods := modList(c)
	persist := c.Bool("persist")
	ret := statemod.Ret(c.Get("name"), true, "")
	k := kmodBackend(c)
	loaded, err := loadedMods(c, k, "present", false)
	if err != nil {
		return nil, err
	}
	already := inSet(mods, loaded, true)
	if len(already) > 0 {
		appendComment(ret, plural2(already, "Kernel module %s is already present", "Kernel modules %s are already present"))
	}
	if len(already) == len(mods) {
		return ret, nil
	}
	notLoaded := inSet(mods, loaded, false)
	if c.Test {
		ret.Set("result", nil)
		appendComment(ret, plural2(notLoaded, "Kernel module %s is set to be loaded", "Kernel modules %s are set to be loaded"))
		return ret, nil
	}
	availList, err := k.Available()
	if err != nil {
		return nil, raised(err, "salt/states/kmod.py", "present", "salt/modules/kmod.py", "available")
	}
	avail := setOf(availList)
	unavailable := inSet(notLoaded, avail, false)
	if len(unavailable) > 0 {
		appendComment(ret, plural2(unavailable, "Kernel module %s is unavailable", "Kernel modules %s are unavailable"))
		ret.Set("result", false)
	}
	changes := getv(ret, "changes").(*value.Map)
	var yes, no []string
	var failed [][2]string
	byDep := map[string]bool{}
	for _, m := range inSet(notLoaded, avail, true) {
		if byDep[m] {
			yes = append(yes, m)
			continue
		}
		res, err := k.Load(m, persist)
		if err != nil {
			return nil, raised(err, "salt/states/kmod.py", "present", "salt/modules/kmod.py", "load")
		}
		if l, ok := res.(*value.List); ok {
			if len(l.Items) == 0 {
				ret.Set("result", false)
				no = append(no, m)
				continue
			}
			for _, x := range listStrings(l) {
				changes.Set(x, "loaded")
				if x != m {
					byDep[x] = true
				}
			}
			yes = append(yes, m)
			continue
		}
		ret.Set("result", false)
		failed = append(failed, [2]string{m, value.Str(res)})
	}
	if len(yes) > 0 {
		appendComment(ret, plural2(yes, "Loaded kernel module %s", "Loaded kernel modules %s"))
	}
	if len(no) > 0 {
		appendComment(ret, plural2(no, "Failed to load kernel module %s", "Failed to load kernel modules %s"))
	}
	for _, f := range failed {
		appendComment(ret, "Failed to load kernel module "+f[0]+": "+f[1])
	}
	return ret, nil
}

func kmodAbsent(c *statemod.Call) (*value.Map, error) {
	mods := modList(c)
	ret := statemod.Ret(c.Get("name"), true, "")
	k := kmodBackend(c)
	loaded, err := loadedMods(c, k, "absent", true)
	if err != nil {
		return nil, err
	}
	toUnload := inSet(mods, loaded, true)
	if len(toUnload) == 0 {
		ret.Set("comment", plural2(mods, "Kernel module %s is already removed", "Kernel modules %s are already removed"))
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		appendComment(ret, plural2(toUnload, "Kernel module %s is set to be removed", "Kernel modules %s are set to be removed"))
		return ret, nil
	}
	changes := getv(ret, "changes").(*value.Map)
	var yes, no []string
	var failed [][2]string
	for _, m := range toUnload {
		res, err := k.Remove(m, c.Bool("persist"), c.Bool("comment"))
		if err != nil {
			return nil, raised(err, "salt/states/kmod.py", "absent", "salt/modules/kmod.py", "remove")
		}
		if l, ok := res.(*value.List); ok {
			if len(l.Items) == 0 {
				ret.Set("result", false)
				no = append(no, m)
				continue
			}
			for _, x := range listStrings(l) {
				changes.Set(x, "removed")
			}
			yes = append(yes, m)
			continue
		}
		ret.Set("result", false)
		failed = append(failed, [2]string{m, value.Str(res)})
	}
	if len(yes) > 0 {
		appendComment(ret, plural2(yes, "Removed kernel module %s", "Removed kernel modules %s"))
	}
	if len(no) > 0 {
		appendComment(ret, plural2(no, "Failed to remove kernel module %s", "Failed to remove kernel modules %s"))
	}
	for _, f := range failed {
		appendComment(ret, "Failed to remove kernel module "+f[0]+": "+f[1])
	}
	return ret, nil
}
