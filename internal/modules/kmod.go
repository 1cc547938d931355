package modules

// kmod.go is salt/modules/kmod.py: Linux kernel modules, loaded ones from
// /proc/modules (what lsmod prints), available ones under /lib/modules,
// loading with modprobe and removal with rmmod, persistence in the modules
// file (internal/system/kmod, shared with the kmod states).

import (
	"os/exec"
	"path/filepath"
	"sort"

	"brine/internal/execmod"
	"brine/internal/system/kmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("kmod.available", kmodAvailable, "Return the kernel modules available to load, sorted.")
	execmod.Register("kmod.check_available", kmodCheckAvailable, "True when the kernel module mod is available.")
	execmod.Register("kmod.lsmod", kmodLsmod, "Return the loaded modules: [{'size', 'module', 'depcount', 'deps'}].")
	execmod.Register("kmod.mod_list", kmodModList, "Return the names of the loaded modules (only_persist: those in the modules file).")
	execmod.Register("kmod.is_loaded", kmodIsLoaded, "True when the kernel module mod is loaded.")
	execmod.Register("kmod.load", kmodLoad, "Load mod with modprobe (persist: also in the modules file); the modules that became loaded.")
	execmod.Register("kmod.remove", kmodRemove, "Remove mod with rmmod (persist: also from the modules file, comment: only commented out).")
}

// SysRootService is the execmod service under which a test attaches a
// directory (a string) that file-based system functions treat as the
// root of the machine (the states use the same name).
const SysRootService = "sysroot"

func sysRoot(ctx *execmod.Context) string {
	s, _ := ctx.Service(SysRootService).(string)
	return s
}

func kmodProc(ctx *execmod.Context) kmod.Proc { return kmod.Proc{Root: sysRoot(ctx)} }

// kmodConf is Salt's _get_modules_conf.
func kmodConf(ctx *execmod.Context) string {
	p := "/etc/modules"
	if _, ok := ctx.Grains.GetString("systemd"); ok {
		p = "/etc/modules-load.d/salt_managed.conf"
	}
	return filepath.Join("/", sysRoot(ctx), p)
}

func kmodAvailable(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("available", args, kwargs); err != nil {
		return nil, err
	}
	return strList(kmodProc(ctx).Available()), nil
}

func kmodCheckAvailable(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("check_available", args, kwargs, execmod.Req("mod"))
	if err != nil {
		return nil, err
	}
	return contains(kmodProc(ctx).Available(), execmod.String(v[0])), nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// kmodLsmodList is Salt's lsmod: it needs the lsmod command, whose list
// is /proc/modules (under a test's system root, the file stands for both).
func kmodLsmodList(ctx *execmod.Context) ([]kmod.Module, error) {
	p := kmodProc(ctx)
	if p.Root == "" {
		if _, err := exec.LookPath("lsmod"); err != nil {
			return nil, execmod.Errorf("Command 'lsmod' cannot be found")
		}
		mods, _ := p.Lsmod()
		return mods, nil
	}
	mods, err := p.Lsmod()
	if err != nil {
		return nil, execmod.Errorf("Command 'lsmod' cannot be found")
	}
	return mods, nil
}

func kmodLsmod(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("lsmod", args, kwargs); err != nil {
		return nil, err
	}
	mods, err := kmodLsmodList(ctx)
	if err != nil {
		return nil, err
	}
	out := value.NewList()
	for _, m := range mods {
		out.Append(value.MapOf("size", m.Size, "module", m.Name, "depcount", m.Depcount, "deps", strList(m.Deps)))
	}
	return out, nil
}

func kmodLoadedNames(ctx *execmod.Context) ([]string, error) {
	mods, err := kmodLsmodList(ctx)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, m := range mods {
		set[m.Name] = true
	}
	return kmodSorted(set), nil
}

func kmodSorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func kmodModList(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("mod_list", args, kwargs, execmod.Opt("only_persist", false))
	if err != nil {
		return nil, err
	}
	if value.Truthy(v[0]) {
		return strList(kmod.Persisted(kmodConf(ctx))), nil
	}
	names, err := kmodLoadedNames(ctx)
	if err != nil {
		return nil, err
	}
	return strList(names), nil
}

func kmodIsLoaded(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("is_loaded", args, kwargs, execmod.Req("mod"))
	if err != nil {
		return nil, err
	}
	names, err := kmodLoadedNames(ctx)
	if err != nil {
		return nil, err
	}
	return contains(names, execmod.String(v[0])), nil
}

// kmodChange runs tool on mod and returns the modules that appeared
// (load) or disappeared (remove), with the persisted ones.
func kmodChange(ctx *execmod.Context, tool, mod, errFmt string, persist func() ([]string, error)) (any, error) {
	pre, err := kmodLoadedNames(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := exec.LookPath(tool); err != nil {
		return nil, execmod.Errorf("Command '%s' cannot be found", tool)
	}
	res, err := runArgv(ctx, "cmd.run_all", []string{tool, mod})
	if err != nil {
		return nil, err
	}
	m, _ := res.(*value.Map)
	if !value.Equal(cmdGet(m, "retcode"), int64(0)) {
		return errFmt + execmod.String(cmdGet(m, "stderr")), nil
	}
	post, err := kmodLoadedNames(ctx)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	a, b := pre, post
	if tool == "modprobe" {
		a, b = post, pre
	}
	for _, x := range a {
		if !contains(b, x) {
			set[x] = true
		}
	}
	if persist != nil {
		names, err := persist()
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		for _, n := range names {
			set[n] = true
		}
	}
	return strList(kmodSorted(set)), nil
}

func kmodLoad(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("load", args, kwargs, execmod.Req("mod"), execmod.Opt("persist", false))
	if err != nil {
		return nil, err
	}
	mod := execmod.String(v[0])
	var persist func() ([]string, error)
	if value.Truthy(v[1]) {
		persist = func() ([]string, error) { return kmod.AddPersist(kmodConf(ctx), mod, kmodProc(ctx).Available()) }
	}
	return kmodChange(ctx, "modprobe", mod, "Error loading module "+mod+": ", persist)
}

func kmodRemove(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("remove", args, kwargs, execmod.Req("mod"), execmod.Opt("persist", false), execmod.Opt("comment", true))
	if err != nil {
		return nil, err
	}
	mod := execmod.String(v[0])
	var persist func() ([]string, error)
	if value.Truthy(v[1]) {
		persist = func() ([]string, error) { return kmod.RemovePersist(kmodConf(ctx), mod, value.Truthy(v[2])) }
	}
	return kmodChange(ctx, "rmmod", mod, "Error removing module "+mod+": ", persist)
}
