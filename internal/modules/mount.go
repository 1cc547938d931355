package modules

// mount.go is salt/modules/mount.py for Linux: active mounts
// (/proc/self/mounts, /proc/self/mountinfo), the fstab, mount(8) and
// umount(8), swap areas and Salt's mount cache. The fstab and /proc
// parsing live in internal/system/mounts, shared with the mount states.

import (
	"errors"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/system/mounts"
	"brine/internal/value"
	"brine/internal/yamlload"
)

func init() {
	execmod.Register("mount.active", mountActive, "Return the active mounts by mount point (extended: from /proc/self/mountinfo with blkid data).")
	execmod.Register("mount.fstab", mountFstab, "Return the fstab entries by mount point.")
	execmod.Register("mount.set_fstab", mountSetFstab, "Make an fstab entry as given: 'present', 'new' or 'change'.")
	execmod.Register("mount.rm_fstab", mountRmFstab, "Remove the fstab entries of name and device; True.")
	execmod.Register("mount.mount", mountMount, "Mount device on name (mkmnt: create it); True or mount's error text.")
	execmod.Register("mount.remount", mountRemount, "Remount name with opts (mount it when it is not mounted); True or mount's error text.")
	execmod.Register("mount.umount", mountUmount, "Unmount name (or device); True or the error text.")
	execmod.Register("mount.is_mounted", mountIsMounted, "True when name is an active mount point.")
	execmod.Register("mount.is_fuse_exec", mountIsFuseExec, "True when the command links libfuse (ldd).")
	execmod.Register("mount.swaps", mountSwaps, "Return the active swap areas from /proc/swaps.")
	execmod.Register("mount.swapon", mountSwapon, "Activate a swap area: {'stats': ..., 'new': bool}.")
	execmod.Register("mount.swapoff", mountSwapoff, "Deactivate a swap area: True, False, or None when it was not active.")
	execmod.Register("mount.read_mount_cache", mountReadCache, "Return the mount cache entry of name ({} when none).")
	execmod.Register("mount.write_mount_cache", mountWriteCache, "Record a mount in Salt's mount cache (cachedir/mounts); True.")
	execmod.Register("mount.delete_mount_cache", mountDeleteCache, "Remove a mount from Salt's mount cache; True.")
	execmod.Register("mount.get_mount_from_path", mountGetMountFromPath, "Return the mount point holding path.")
	execmod.Register("mount.get_device_from_path", mountGetDeviceFromPath, "Return the device mounted where path lives (None when unknown).")
}

func mountErr(err error) error {
	var me *mounts.Error
	if errors.As(err, &me) {
		return execmod.Errorf("%s", me.Msg)
	}
	return err
}

// mountList is Salt's _list_mounts: mount point -> device as `mount -l`
// prints them.
func mountList(ctx *execmod.Context) map[string]string {
	out, err := ctx.Call("cmd.run_stdout", []any{"mount -l"}, nil)
	ret := map[string]string{}
	if err != nil {
		return ret
	}
	for _, line := range strings.Split(execmod.String(out), "\n") {
		if f := strings.Fields(line); len(f) >= 3 {
			ret[f[2]] = f[0]
		}
	}
	return ret
}

var digitsRE = regexp.MustCompile(`^[0-9]+$`)

// resolveIDOpts is Salt's _resolve_user_group_names.
func resolveIDOpts(opts []string) *value.List {
	out := value.NewList()
	for _, o := range opts {
		k, v, ok := strings.Cut(o, "=")
		if ok && (k == "uid" || k == "gid") {
			v, _, _ = strings.Cut(v, "=")
			id := v
			if !digitsRE.MatchString(v) {
				if k == "uid" {
					if u, err := user.Lookup(v); err == nil {
						id = u.Uid
					}
				} else if g, err := user.LookupGroup(v); err == nil {
					id = g.Gid
				}
			}
			o = k + "=" + id
		}
		out.Append(strings.ReplaceAll(o, `\040`, `\ `))
	}
	return out
}

func orNone(m map[string]string, k string) any {
	if v, ok := m[k]; ok {
		return v
	}
	return nil
}

func mountActiveMap(ctx *execmod.Context, extended bool) (*value.Map, error) {
	ret := value.NewMap(0)
	list := mountList(ctx)
	if extended {
		if m, err := mountInfo(ctx, list); err == nil {
			return m, nil
		}
	}
	ms, err := mounts.Active(sysRoot(ctx))
	if err != nil {
		return nil, execmod.Errorf("File not readable /proc/self/mounts")
	}
	for _, m := range ms {
		ret.Set(m.Point, value.MapOf("device", m.Device, "alt_device", orNone(list, m.Point), "fstype", m.Fstype, "opts", resolveIDOpts(m.Opts)))
	}
	return ret, nil
}

// mountInfo is Salt's _active_mountinfo.
func mountInfo(ctx *execmod.Context, list map[string]string) (*value.Map, error) {
	data, err := os.ReadFile(filepath.Join("/", sysRoot(ctx), "proc/self/mountinfo"))
	if err != nil {
		return nil, err
	}
	blkid, ok := ctx.Cache().Get("disk.blkid").(*value.Map)
	if !ok {
		b, err := ctx.Call("disk.blkid", nil, nil)
		if err != nil {
			return nil, err
		}
		blkid, _ = b.(*value.Map)
		if blkid == nil {
			blkid = value.NewMap(0)
		}
		ctx.Cache().Store("disk.blkid", blkid)
	}
	ret := value.NewMap(0)
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		sep := -1
		for i, x := range f {
			if x == "-" {
				sep = i
				break
			}
		}
		if sep < 0 || len(f) < sep+4 || len(f) < 6 {
			continue
		}
		major, minor, _ := strings.Cut(f[2], ":")
		dev := f[sep+2]
		var uuid, label any
		if info, ok := blkid.GetString(dev); ok {
			if im, ok := info.(*value.Map); ok {
				if u, ok := im.GetString("UUID"); ok && value.Truthy(u) {
					uuid = strings.ToLower(value.Str(u))
				}
				label, _ = im.GetString("LABEL")
			}
		}
		ret.Set(f[4], value.MapOf("mountid", f[0], "parentid", f[1], "major", major, "minor", minor, "root", f[3],
			"opts", resolveIDOpts(strings.Split(f[5], ",")), "fstype", f[sep+1], "device", strings.ReplaceAll(dev, `\040`, `\ `),
			"alt_device", orNone(list, f[4]), "superopts", resolveIDOpts(strings.Split(f[sep+3], ",")),
			"device_uuid", uuid, "device_label", label))
	}
	return ret, nil
}

func mountActive(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("active", args, kwargs, execmod.Opt("extended", false))
	if err != nil {
		return nil, err
	}
	return mountActiveMap(ctx, value.Truthy(v[0]))
}

func mountFstab(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("fstab", args, kwargs, execmod.Opt("config", "/etc/fstab"))
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(0)
	for _, e := range mounts.Fstab(execmod.String(v[0])) {
		name := e.Name
		for {
			if _, dup := ret.GetString(name); !dup {
				break
			}
			name += "_"
		}
		ret.Set(name, value.MapOf("device", e.Device, "fstype", e.Fstype, "opts", strList(strings.Split(e.Opts, ",")), "dump", e.Dump, "pass", e.Pass))
	}
	return ret, nil
}

func joinOpts(v any) string {
	if l, ok := v.(*value.List); ok {
		parts := make([]string, 0, l.Len())
		for _, x := range l.Items {
			parts = append(parts, value.Str(x))
		}
		return strings.Join(parts, ",")
	}
	return execmod.String(v)
}

func mountSetFstab(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, kw, err := execmod.Bind("set_fstab", args, kwargs, execmod.Req("name"), execmod.Req("device"), execmod.Req("fstype"),
		execmod.Opt("opts", "defaults"), execmod.Opt("dump", int64(0)), execmod.Opt("pass_num", int64(0)),
		execmod.Opt("config", "/etc/fstab"), execmod.Opt("test", false), execmod.Opt("match_on", "auto"), execmod.Opt("not_change", false))
	if err != nil {
		return nil, err
	}
	e := mounts.Entry{Name: execmod.String(v[0]), Device: strings.ReplaceAll(execmod.String(v[1]), `\ `, `\040`), Fstype: execmod.String(v[2]),
		Opts: strings.ReplaceAll(joinOpts(v[3]), `\ `, `\040`), Dump: value.Str(v[4]), Pass: value.Str(v[5])}
	var matchOn []string
	switch m := v[8].(type) {
	case *value.List:
		for _, x := range m.Items {
			matchOn = append(matchOn, value.Str(x))
		}
	case string:
		matchOn = []string{m}
	default:
		return nil, execmod.Errorf("match_on must be a string or list of strings")
	}
	test := value.Truthy(v[7]) || ctx.Test
	if t, ok := kw.GetString("test"); ok {
		test = value.Truthy(t)
	}
	config := execmod.String(v[6])
	out, err := mounts.SetFstab(config, e, matchOn, value.Truthy(v[9]), test)
	if errors.Is(err, mounts.ErrBadConfig) {
		return nil, execmod.Errorf(`Bad config file "%s"`, config)
	}
	if err != nil {
		return nil, mountErr(err)
	}
	return out, nil
}

func mountRmFstab(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("rm_fstab", args, kwargs, execmod.Req("name"), execmod.Req("device"), execmod.Opt("config", "/etc/fstab"))
	if err != nil {
		return nil, err
	}
	config := execmod.String(v[2])
	if _, err := os.ReadFile(config); err != nil {
		return nil, execmod.Errorf("Couldn't read from %s: %v", config, fileops.PyOSError(err))
	}
	crit := mounts.Criteria{}
	if v[0] != nil {
		crit["name"] = value.Str(v[0])
	}
	if v[1] != nil {
		crit["device"] = value.Str(v[1])
	}
	if _, err := mounts.RmFstab(config, crit); err != nil {
		return nil, mountErr(err)
	}
	return true, nil
}

// mountRun runs argv with runas user; True or the command's stderr.
func mountRun(ctx *execmod.Context, argv []string, runas any) (any, error) {
	kw := []any{}
	if runas != nil {
		kw = append(kw, "runas", runas)
	}
	res, err := runArgv(ctx, "cmd.run_all", argv, kw...)
	if err != nil {
		return nil, err
	}
	m, _ := res.(*value.Map)
	if !value.Equal(cmdGet(m, "retcode"), int64(0)) {
		return cmdGet(m, "stderr"), nil
	}
	return true, nil
}

func optsList(v any) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case *value.List:
		out := make([]string, 0, x.Len())
		for _, o := range x.Items {
			out = append(out, value.Str(o))
		}
		return out
	}
	return strings.Split(value.Str(v), ",")
}

func mountArgs(opts []string, optsSet bool, fstype string) []string {
	var args []string
	if optsSet {
		args = append(args, "-o", strings.Join(opts, ","))
	}
	if fstype != "" {
		args = append(args, "-t", fstype)
	}
	return args
}

func mountParams() []execmod.Param {
	return []execmod.Param{execmod.Req("name"), execmod.Opt("device", false), execmod.Opt("mkmnt", false), execmod.Opt("fstype", ""),
		execmod.Opt("opts", "defaults"), execmod.Opt("user", nil)}
}

func mountMount(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("mount", args, kwargs, append(mountParams(), execmod.Opt("util", "mount"))...)
	if err != nil {
		return nil, err
	}
	if execmod.String(v[6]) != "mount" {
		return false, nil
	}
	return mountDo(ctx, v)
}

func mountDo(ctx *execmod.Context, v []any) (any, error) {
	name := execmod.String(v[0])
	if _, err := os.Stat(name); err != nil && value.Truthy(v[2]) {
		if _, err := ctx.Call("file.mkdir", []any{name}, value.MapOf("user", v[5])); err != nil {
			return nil, err
		}
	}
	argv := append([]string{"mount"}, mountArgs(optsList(v[4]), v[4] != nil, execmod.String(v[3]))...)
	if value.Truthy(v[1]) {
		argv = append(argv, execmod.String(v[1]), name)
	} else {
		argv = []string{"mount", name}
	}
	return mountRun(ctx, argv, v[5])
}

func mountRemount(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	params := mountParams()
	params[1] = execmod.Req("device")
	v, _, err := execmod.Bind("remount", args, kwargs, params...)
	if err != nil {
		return nil, err
	}
	active, err := mountActiveMap(ctx, false)
	if err != nil {
		return nil, err
	}
	if _, ok := active.GetString(execmod.String(v[0])); !ok {
		return mountDo(ctx, v)
	}
	opts := optsList(v[4])
	if !contains(opts, "remount") {
		opts = append(opts, "remount")
	}
	argv := append([]string{"mount"}, mountArgs(opts, len(opts) > 0, execmod.String(v[3]))...)
	return mountRun(ctx, append(argv, execmod.String(v[1]), execmod.String(v[0])), v[5])
}

func mountUmount(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("umount", args, kwargs, execmod.Req("name"), execmod.Opt("device", nil), execmod.Opt("user", nil), execmod.Opt("util", "mount"))
	if err != nil {
		return nil, err
	}
	switch execmod.String(v[3]) {
	case "guestfs", "qemu_nbd":
		return nil, execmod.Errorf("umount util %s is not available", execmod.String(v[3]))
	}
	name := execmod.String(v[0])
	active, err := mountActiveMap(ctx, false)
	if err != nil {
		return nil, err
	}
	if _, ok := active.GetString(name); !ok {
		return name + " does not have anything mounted", nil
	}
	target := name
	if value.Truthy(v[1]) {
		target = execmod.String(v[1])
	}
	return mountRun(ctx, []string{"umount", target}, v[2])
}

func mountIsMounted(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("is_mounted", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	_, ok, err := mountActiveOne(ctx, execmod.String(v[0]))
	return ok, err
}

func mountIsFuseExec(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("is_fuse_exec", args, kwargs, execmod.Req("cmd"))
	if err != nil {
		return nil, err
	}
	path, err := exec.LookPath(execmod.String(v[0]))
	if err != nil {
		return false, nil
	}
	if !hasCmd("ldd") {
		return nil, execmod.Errorf("ldd")
	}
	out, err := runArgv(ctx, "cmd.run", []string{"ldd", path})
	if err != nil {
		return nil, err
	}
	return strings.Contains(execmod.String(out), "libfuse"), nil
}

func mountSwapsMap(ctx *execmod.Context) (*value.Map, error) {
	sw, err := mounts.Swaps(sysRoot(ctx))
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	ret := value.NewMap(0)
	for _, s := range sw {
		ret.Set(s.Name, value.MapOf("type", s.Type, "size", s.Size, "used", s.Used, "priority", s.Priority))
	}
	return ret, nil
}

func mountSwaps(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("swaps", args, kwargs); err != nil {
		return nil, err
	}
	return mountSwapsMap(ctx)
}

func mountSwapon(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("swapon", args, kwargs, execmod.Req("name"), execmod.Opt("priority", nil))
	if err != nil {
		return nil, err
	}
	name := execmod.String(v[0])
	if st, ok, err := mountSwap(ctx, name); err != nil || ok {
		return value.MapOf("stats", st, "new", false), err
	}
	argv := []string{"swapon", name}
	if value.Truthy(v[1]) {
		argv = append(argv, "-p", value.Str(v[1]))
	}
	if _, err := runArgv(ctx, "cmd.run", argv); err != nil {
		return nil, err
	}
	if st, ok, err := mountSwap(ctx, name); err != nil || ok {
		return value.MapOf("stats", st, "new", true), err
	}
	return value.NewMap(0), nil
}

// mountSwap is swaps()[name].
func mountSwap(ctx *execmod.Context, name string) (any, bool, error) {
	on, err := mountSwapsMap(ctx)
	if err != nil {
		return nil, false, err
	}
	st, ok := on.GetString(name)
	return st, ok, nil
}

func mountSwapoff(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("swapoff", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	name := execmod.String(v[0])
	if _, ok, err := mountSwap(ctx, name); err != nil || !ok {
		return nil, err
	}
	if _, err := runArgv(ctx, "cmd.run", []string{"swapoff", name}); err != nil {
		return nil, err
	}
	_, still, err := mountSwap(ctx, name)
	return !still, err
}

// mountCachePath is salt.utils.mount.get_cache.
func mountCachePath(ctx *execmod.Context) string {
	dir, _ := ctx.Opts.GetString("cachedir")
	return filepath.Join(execmod.String(dir), "mounts")
}

func mountCacheRead(ctx *execmod.Context) *value.Map {
	data, err := os.ReadFile(mountCachePath(ctx))
	if err != nil {
		return value.NewMap(0)
	}
	v, err := yamlload.SafeLoad(data, mountCachePath(ctx))
	if m, ok := v.(*value.Map); ok && err == nil {
		return m
	}
	return value.NewMap(0)
}

func mountCacheWrite(ctx *execmod.Context, cache *value.Map) error {
	out, err := yamlload.Dump(cache, yamlload.DumpOptions{})
	if err == nil {
		err = os.WriteFile(mountCachePath(ctx), []byte(out), 0o644)
	}
	if err != nil {
		return execmod.Errorf("Unable to write mount cache.")
	}
	return nil
}

func mountReadCache(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("read_mount_cache", args, kwargs, execmod.Req("name"))
	if err != nil {
		return nil, err
	}
	if ms, ok := mountCacheRead(ctx).GetString("mounts"); ok {
		if m, ok := ms.(*value.Map); ok {
			if e, ok := m.Get(v[0]); ok {
				return e, nil
			}
		}
	}
	return value.NewMap(0), nil
}

func mountWriteCache(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("write_mount_cache", args, kwargs, execmod.Req("real_name"), execmod.Req("device"), execmod.Req("mkmnt"),
		execmod.Req("fstype"), execmod.Req("mount_opts"))
	if err != nil {
		return nil, err
	}
	cache := mountCacheRead(ctx)
	ms, ok := cache.GetString("mounts")
	m, isMap := ms.(*value.Map)
	if !ok || !isMap {
		m = value.NewMap(0)
		cache.Set("mounts", m)
	}
	m.Set(v[0], value.MapOf("device", v[1], "fstype", v[3], "mkmnt", v[2], "opts", v[4]))
	if err := mountCacheWrite(ctx, cache); err != nil {
		return nil, err
	}
	return true, nil
}

func mountDeleteCache(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("delete_mount_cache", args, kwargs, execmod.Req("real_name"))
	if err != nil {
		return nil, err
	}
	cache := mountCacheRead(ctx)
	if ms, ok := cache.GetString("mounts"); ok {
		if m, ok := ms.(*value.Map); ok {
			if _, ok := m.Get(v[0]); ok {
				m.Delete(v[0])
				if err := mountCacheWrite(ctx, cache); err != nil {
					return nil, err
				}
			}
		}
	}
	return true, nil
}

// isMount is os.path.ismount.
func isMount(p string) bool {
	var st, pst syscall.Stat_t
	if syscall.Lstat(p, &st) != nil || st.Mode&syscall.S_IFMT == syscall.S_IFLNK {
		return false
	}
	if syscall.Lstat(filepath.Join(p, ".."), &pst) != nil {
		return false
	}
	return st.Dev != pst.Dev || st.Ino == pst.Ino
}

func mountFromPath(p string) string {
	abs, _ := filepath.Abs(p)
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	for abs != "/" {
		if isMount(abs) {
			return abs
		}
		abs = filepath.Dir(abs)
	}
	return abs
}

func mountGetMountFromPath(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_mount_from_path", args, kwargs, execmod.Req("path"))
	if err != nil {
		return nil, err
	}
	return mountFromPath(execmod.String(v[0])), nil
}

func mountGetDeviceFromPath(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_device_from_path", args, kwargs, execmod.Req("path"))
	if err != nil {
		return nil, err
	}
	e, ok, err := mountActiveOne(ctx, mountFromPath(execmod.String(v[0])))
	if err != nil || !ok {
		return nil, err
	}
	d, _ := e.GetString("device")
	return d, nil
}

// mountActiveOne is mount.active()[point].
func mountActiveOne(ctx *execmod.Context, point string) (*value.Map, bool, error) {
	active, err := mountActiveMap(ctx, false)
	if err != nil {
		return nil, false, err
	}
	e, ok := active.GetString(point)
	m, _ := e.(*value.Map)
	return m, ok, nil
}
