package modules

// disk.go is salt/modules/disk.py on Linux: df, blkid, lsblk, blockdev,
// wipefs, resize2fs and mkfs.

import (
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("disk.usage", diskUsage, "Return df -P by mount point: filesystem, 1K-blocks, used, available, capacity (args: extra df flags).")
	execmod.Register("disk.inodeusage", diskInodeUsage, "Return df -iP by mount point: inodes, used, free, use, filesystem (args: extra df flags).")
	execmod.Register("disk.percent", diskPercent, "Return the capacity used of each mount point, or of the mount point args.")
	execmod.Register("disk.blkid", diskBlkid, "Return blkid's attributes by device (device=None token=None, e.g. token='TYPE=ext4').")
	execmod.Register("disk.fstype", diskFstype, "Return the filesystem type of device (lsblk, else df -T).")
	execmod.Register("disk.get_fstype_from_path", diskFstypeFromPath, "Return the filesystem type of the device holding path.")
	execmod.Register("disk.dump", diskDump, "Return the blockdev values of device (args: the names to keep).")
	execmod.Register("disk.tune", diskTune, "Set block device options of device (read-ahead, filesystem-read-ahead, read-only, read-write) and return them.")
	execmod.Register("disk.wipe", diskWipe, "Remove the filesystem signatures of device (wipefs -a); True on success.")
	execmod.Register("disk.resize2fs", diskResize2fs, "Resize the ext filesystem of device to its partition (resize2fs); True on success, else None.")
	execmod.Register("disk.hdparms", diskHdparms, "Return hdparm's parameters of disks (args: the hdparm flags, all the readable ones by default).")
	execmod.Register("disk.hpa", diskHpa, "Return the host protected area of disks (hdparm -N); with size, set it (a number of sectors or a percentage).")
	execmod.Register("disk.smart_attributes", diskSmartAttributes, "Return the SMART attributes of dev by id (smartctl --attributes; attributes and values filter).")
	execmod.Register("disk.iostat", diskIostat, "Return the averages of iostat -x over count samples of interval seconds (disks=None).")
	execmod.Register("disk.format", diskFormat, "Make a filesystem of fs_type (default ext4) on device (inode_size, lazy_itable_init, fat, force); True on success.")
}

// diskFlags is _clean_flags: the characters (or items) of args must be
// df flags.
func diskFlags(args any, caller string) (string, error) {
	if args == nil {
		return "", nil
	}
	var items []string
	switch x := args.(type) {
	case string:
		for _, r := range x {
			items = append(items, string(r))
		}
	case *value.List:
		for _, it := range x.Items {
			items = append(items, value.Str(it))
		}
	default:
		items = []string{value.Str(x)}
	}
	flags := ""
	for _, f := range items {
		if len(f) != 1 || !strings.Contains("aBhHiklPtTxv", f) {
			return "", execmod.Errorf("Invalid flag passed to %s", caller)
		}
		flags += f
	}
	return flags, nil
}

func diskDF(ctx *execmod.Context, cmd string) ([]string, error) {
	out, err := netRun(ctx, cmd, "python_shell", false)
	if err != nil {
		return nil, err
	}
	return strings.Split(out, "\n"), nil
}

// diskJoinNames joins the fields of a filesystem name with spaces: the
// second field must be a number.
func diskJoinNames(c []string) []string {
	for len(c) >= 2 && !isDigits(c[1]) {
		c[0] = c[0] + " " + c[1]
		c = append(c[:1], c[2:]...)
	}
	return c
}

func isDigits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

func diskUsage(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("usage", args, kwargs, execmod.Opt("args", nil))
	if err != nil {
		return nil, err
	}
	flags, err := diskFlags(v[0], "disk.usage")
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat("/etc/mtab"); err != nil {
		return value.NewMap(0), nil
	}
	cmd := "df -P"
	if flags != "" {
		cmd += " -" + flags
	}
	lines, err := diskDF(ctx, cmd)
	if err != nil {
		return nil, err
	}
	return diskParseUsage(lines), nil
}

func diskParseUsage(lines []string) *value.Map {
	ret := value.NewMap(0)
	old := ""
	for _, line := range lines {
		if line == "" || strings.HasPrefix(line, "Filesystem") {
			continue
		}
		if old != "" {
			line = old + " " + line
		}
		c := strings.Fields(line)
		if len(c) == 1 {
			old = line
			continue
		}
		old = ""
		c = diskJoinNames(c)
		if len(c) < 2 {
			continue
		}
		if len(c) < 6 {
			return value.NewMap(0)
		}
		ret.Set(c[5], value.MapOf("filesystem", c[0], "1K-blocks", c[1], "used", c[2], "available", c[3], "capacity", c[4]))
	}
	return ret
}

func diskInodeUsage(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("inodeusage", args, kwargs, execmod.Opt("args", nil))
	if err != nil {
		return nil, err
	}
	flags, err := diskFlags(v[0], "disk.inodeusage")
	if err != nil {
		return nil, err
	}
	cmd := "df -iP"
	if flags != "" {
		cmd += " -" + flags
	}
	lines, err := diskDF(ctx, cmd)
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(0)
	for _, line := range lines {
		if strings.HasPrefix(line, "Filesystem") {
			continue
		}
		c := strings.Fields(line)
		if len(c) == 0 {
			continue
		}
		if len(c) < 6 {
			ret = value.NewMap(0)
			continue
		}
		ret.Set(c[5], value.MapOf("inodes", c[1], "used", c[2], "free", c[3], "use", c[4], "filesystem", c[0]))
	}
	return ret, nil
}

func diskPercent(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("percent", args, kwargs, execmod.Opt("args", nil))
	if err != nil {
		return nil, err
	}
	lines, err := diskDF(ctx, "df -P")
	if err != nil {
		return nil, err
	}
	ret := value.NewMap(0)
	for _, line := range lines {
		if line == "" || strings.HasPrefix(line, "Filesystem") {
			continue
		}
		c := diskJoinNames(strings.Fields(line))
		if len(c) < 2 {
			continue
		}
		if len(c) < 6 {
			ret = value.NewMap(0)
			continue
		}
		ret.Set(c[5], c[4])
	}
	if value.Truthy(v[0]) {
		got, ok := ret.Get(v[0])
		if !ok {
			return value.NewMap(0), nil
		}
		return got, nil
	}
	return ret, nil
}

var diskQuotes = regexp.MustCompile(`"+`)

// diskParseBlkid reads blkid lines: `/dev/sda1: UUID="..." TYPE="ext4"`.
func diskParseBlkid(out string) *value.Map {
	ret := value.NewMap(0)
	for _, line := range strings.Split(out, "\n") {
		if line == "" {
			continue
		}
		c := strings.Fields(line)
		dev := c[0][:len(c[0])-1]
		_, rest, _ := strings.Cut(line, " ")
		parts := diskQuotes.Split(rest, -1)
		info := value.NewMap(0)
		for i := 0; i+1 < len(parts); i += 2 {
			k := strings.Trim(strings.Trim(parts[i], "="), " ")
			info.Set(k, strings.Trim(parts[i+1], `"`))
		}
		ret.Set(dev, info)
	}
	return ret
}

func diskBlkid(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("blkid", args, kwargs, execmod.Opt("device", nil), execmod.Opt("token", nil))
	if err != nil {
		return nil, err
	}
	if err := netNeedBinary("blkid"); err != nil {
		return nil, err
	}
	cmd := value.NewList("blkid")
	if value.Truthy(v[0]) {
		cmd.Append(execmod.String(v[0]))
	} else if value.Truthy(v[1]) {
		cmd.Append("-t", execmod.String(v[1]))
	}
	res, err := ctx.Call("cmd.run_all", []any{cmd}, value.MapOf("python_shell", false))
	if err != nil {
		return nil, err
	}
	m := res.(*value.Map)
	if rc, _ := m.Get("retcode"); !value.Equal(rc, int64(0)) {
		return value.NewMap(0), nil
	}
	out, _ := m.Get("stdout")
	return diskParseBlkid(execmod.String(out)), nil
}

func diskFstypeOf(ctx *execmod.Context, device string) (any, error) {
	_, lerr := exec.LookPath("lsblk")
	_, derr := exec.LookPath("df")
	if lerr != nil && derr != nil {
		return nil, execmod.Errorf("None of the following binaries was found in $PATH: lsblk, df")
	}
	if lerr == nil {
		out, err := netRun(ctx, "lsblk -o fstype "+device)
		if err != nil {
			return nil, err
		}
		if l := strings.Split(out, "\n"); len(l) > 1 && strings.TrimSpace(l[1]) != "" {
			return strings.TrimSpace(l[1]), nil
		}
	}
	if derr == nil {
		out, err := netRun(ctx, "df -T "+device)
		if err != nil {
			return nil, err
		}
		// As Salt: the whole second line of df's output.
		if l := strings.Split(out, "\n"); len(l) > 1 && l[1] != "" {
			return l[1], nil
		}
	}
	return "", nil
}

func diskFstype(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("fstype", args, kwargs, execmod.Req("device"))
	if err != nil {
		return nil, err
	}
	return diskFstypeOf(ctx, value.Str(v[0]))
}

// diskMountOf is mount.get_mount_from_path: the mount point holding path.
func diskMountOf(path string) string {
	p, err := filepath.Abs(path)
	if err != nil {
		return "/"
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	for p != "/" {
		var st, pst syscall.Stat_t
		if syscall.Lstat(p, &st) == nil && syscall.Lstat(filepath.Dir(p), &pst) == nil {
			if st.Dev != pst.Dev || st.Ino == pst.Ino {
				return p
			}
		}
		p = filepath.Dir(p)
	}
	return p
}

// diskDeviceOf is mount.get_device_from_path: the device of the mount
// point holding path (the last mount of it), nil when unknown.
func diskDeviceOf(path string) any {
	mnt := diskMountOf(path)
	data, _ := os.ReadFile("/proc/self/mountinfo")
	var dev any
	for _, line := range strings.Split(string(data), "\n") {
		c := strings.Fields(line)
		if len(c) < 10 || diskUnescape(c[4]) != mnt {
			continue
		}
		for i, f := range c {
			if f == "-" && i+2 < len(c) {
				dev = diskUnescape(c[i+2])
			}
		}
	}
	return dev
}

// diskUnescape undoes the octal escapes of /proc mount tables (\040).
func diskUnescape(s string) string {
	return strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`).Replace(s)
}

func diskFstypeFromPath(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_fstype_from_path", args, kwargs, execmod.Req("path"))
	if err != nil {
		return nil, err
	}
	return diskFstypeOf(ctx, value.Str(diskDeviceOf(execmod.String(v[0]))))
}

var diskDumpOpts = []string{"getro", "getsz", "getss", "getpbsz", "getiomin", "getioopt", "getalignoff", "getmaxsect",
	"getsize", "getsize64", "getra", "getfra"}

func diskDumpOf(ctx *execmod.Context, device string, keep []string) (any, error) {
	cmd := "blockdev --" + strings.Join(diskDumpOpts, " --") + " " + device
	res, err := ctx.Call("cmd.run_all", []any{cmd}, value.MapOf("python_shell", false))
	if err != nil {
		return nil, err
	}
	m := res.(*value.Map)
	if rc, _ := m.Get("retcode"); !value.Equal(rc, int64(0)) {
		return false, nil
	}
	out, _ := m.Get("stdout")
	ret := value.NewMap(0)
	i := 0
	for _, line := range strings.Split(execmod.String(out), "\n") {
		if line == "" || i >= len(diskDumpOpts) {
			continue
		}
		ret.Set(diskDumpOpts[i], line)
		i++
	}
	if len(keep) == 0 {
		return ret, nil
	}
	sub := value.NewMap(len(keep))
	for _, k := range keep {
		x, ok := ret.Get(k)
		if !ok {
			return nil, netPyErrorf("KeyError", "%s", value.Repr(k))
		}
		sub.Set(k, x)
	}
	return sub, nil
}

func diskDump(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("dump", args, kwargs, execmod.Req("device"), execmod.Opt("args", nil))
	if err != nil {
		return nil, err
	}
	var keep []string
	for _, a := range splitInput(v[1]) {
		keep = append(keep, value.Str(a))
	}
	return diskDumpOf(ctx, value.Str(v[0]), keep)
}

func diskTune(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("tune", args, kwargs, execmod.Req("device"))
	if err != nil {
		return nil, err
	}
	switches := map[string]string{"read-ahead": "setra", "filesystem-read-ahead": "setfra", "read-only": "setro", "read-write": "setrw"}
	opts := ""
	var keep []string
	rest.Range(func(k, x any) bool {
		key := value.Str(k)
		sw, ok := switches[key]
		if !ok {
			return true
		}
		if key != "read-write" {
			keep = append(keep, strings.Replace(sw, "set", "get", 1))
		} else {
			keep = append(keep, "getro")
		}
		if x == "True" || x == true {
			opts += "--" + key + " "
		} else {
			opts += "--" + sw + " " + value.Str(x) + " "
		}
		return true
	})
	device := value.Str(v[0])
	if _, err := netRun(ctx, "blockdev "+opts+device, "python_shell", false); err != nil {
		return nil, err
	}
	return diskDumpOf(ctx, device, keep)
}

// diskRunOK runs cmd through cmd.run_all and reports a zero exit.
func diskRunOK(ctx *execmod.Context, cmd any) (bool, error) {
	res, err := ctx.Call("cmd.run_all", []any{cmd}, value.MapOf("python_shell", false))
	if err != nil {
		return false, err
	}
	rc, _ := res.(*value.Map).Get("retcode")
	return value.Equal(rc, int64(0)), nil
}

func diskWipe(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("wipe", args, kwargs, execmod.Req("device"))
	if err != nil {
		return nil, err
	}
	return diskRunOK(ctx, "wipefs -a "+value.Str(v[0]))
}

func diskResize2fs(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("resize2fs", args, kwargs, execmod.Req("device"))
	if err != nil {
		return nil, err
	}
	ok, err := diskRunOK(ctx, "resize2fs "+value.Str(v[0]))
	if err != nil || !ok {
		return nil, err
	}
	return true, nil
}

func diskFormat(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("format_", args, kwargs, execmod.Req("device"), execmod.Opt("fs_type", "ext4"),
		execmod.Opt("inode_size", nil), execmod.Opt("lazy_itable_init", nil), execmod.Opt("fat", nil), execmod.Opt("force", false))
	if err != nil {
		return nil, err
	}
	for _, bin := range []string{"mkfs", "sync"} {
		if err := netNeedBinary(bin); err != nil {
			return nil, err
		}
	}
	fs := value.Str(v[1])
	ext := strings.HasPrefix(fs, "ext")
	cmd := value.NewList("mkfs", "-t", fs)
	if v[2] != nil {
		if ext {
			cmd.Append("-i", value.Str(v[2]))
		} else if fs == "xfs" {
			cmd.Append("-i", "size="+value.Str(v[2]))
		}
	}
	if v[3] != nil && ext {
		cmd.Append("-E", "lazy_itable_init="+value.Str(v[3]))
	}
	if f, ok := v[4].(int64); ok && (f == 12 || f == 16 || f == 32) && strings.HasSuffix(fs, "fat") {
		cmd.Append("-F", value.Str(f))
	}
	if value.Truthy(v[5]) {
		if ext {
			cmd.Append("-F")
		} else if fs == "xfs" {
			cmd.Append("-f")
		}
	}
	cmd.Append(value.Str(v[0]))
	rc, err := ctx.Call("cmd.retcode", []any{cmd}, value.MapOf("ignore_retcode", true))
	if err != nil {
		return nil, err
	}
	src, err := ctx.Call("cmd.retcode", []any{"sync"}, value.MapOf("ignore_retcode", true))
	if err != nil {
		return nil, err
	}
	return value.Equal(rc, int64(0)) && value.Equal(src, int64(0)), nil
}

var (
	diskHdparmNum = regexp.MustCompile(`^[0-9]+ \(.*\)`)
	diskHdparmSep = regexp.MustCompile(`[/,]`)
	diskIsKey     = regexp.MustCompile(` is$`)
)

// diskHdparm runs hdparm args; a failure is logged (or an error with
// failhard) and the output returned anyway, as Salt's _hdparm.
func diskHdparm(ctx *execmod.Context, args string, failhard bool) (string, error) {
	cmd := "hdparm " + args
	res, err := ctx.Call("cmd.run_all", []any{cmd}, nil)
	if err != nil {
		return "", err
	}
	m := res.(*value.Map)
	if rc, _ := m.Get("retcode"); !value.Equal(rc, int64(0)) {
		stderr, _ := m.Get("stderr")
		msg := cmd + ": " + value.Str(stderr)
		if failhard {
			return "", execmod.Errorf("%s", msg)
		}
		slog.Warn(msg)
	}
	out, _ := m.Get("stdout")
	return value.Str(out), nil
}

// diskParseHdparm reads hdparm's "key = value" and "key: value" lines of
// one disk.
func diskParseHdparm(disk, out string) *value.Map {
	data := value.NewMap(0)
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line == disk+":" {
			continue
		}
		var key, vals string
		if k, v, ok := strings.Cut(line, ":"); ok {
			key, vals = diskIsKey.ReplaceAllString(k, ""), v
		} else if k, v, ok := strings.Cut(line, "="); ok {
			key, vals = k, v
		} else {
			continue
		}
		key = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(key)), " ", "_")
		vals = strings.TrimSpace(vals)
		rvals := value.NewList()
		if diskHdparmNum.MatchString(vals) {
			f := strings.Split(vals, " ")
			n, _ := strconv.ParseInt(f[0], 10, 64)
			rvals.Append(n, strings.Trim(f[1], "()"))
			data.Set(key, rvals)
			continue
		}
		valdict := value.NewMap(0)
		for _, val := range diskHdparmSep.Split(vals, -1) {
			val = strings.TrimSpace(val)
			if n, err := strconv.ParseInt(val, 10, 64); err == nil {
				rvals.Append(n)
			} else if dk, dv, ok := strings.Cut(val, "="); ok {
				if dv = strings.TrimSpace(dv); dv != "" {
					valdict.Set(strings.TrimSpace(dk), dv)
				}
			} else if val != "" {
				rvals.Append(val)
			}
		}
		if valdict.Len() > 0 {
			rvals.Append(valdict)
		}
		switch rvals.Len() {
		case 0:
		case 1:
			data.Set(key, rvals.Items[0])
		default:
			data.Set(key, rvals)
		}
	}
	return data
}

func diskHdparmsOf(ctx *execmod.Context, disks, args any) (*value.Map, error) {
	if err := netNeedBinary("hdparm"); err != nil {
		return nil, err
	}
	flags := "aAbBcCdgHiJkMmNnQrRuW"
	switch a := args.(type) {
	case nil:
	case *value.List:
		flags = ""
		for _, x := range a.Items {
			flags += value.Str(x)
		}
	default:
		flags = value.Str(a)
	}
	var list []any
	if l, ok := disks.(*value.List); ok {
		list = l.Items
	} else {
		list = []any{disks}
	}
	out := value.NewMap(0)
	for _, d := range list {
		disk := value.Str(d)
		if !strings.HasPrefix(disk, "/dev") {
			disk = "/dev/" + disk
		}
		text, err := diskHdparm(ctx, "-"+flags+" "+disk, false)
		if err != nil {
			return nil, err
		}
		out.Set(disk, diskParseHdparm(disk, text))
	}
	return out, nil
}

func diskHdparms(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("hdparms", args, kwargs, execmod.Req("disks"), execmod.Opt("args", nil))
	if err != nil {
		return nil, err
	}
	return diskHdparmsOf(ctx, v[0], v[1])
}

// diskHpa is disk.hpa: the visible, total and hidden sectors of disks
// (hdparm -N); with size the host protected area is set (and, as Salt,
// None returned).
func diskHpa(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("hpa", args, kwargs, execmod.Req("disks"), execmod.Opt("size", nil))
	if err != nil {
		return nil, err
	}
	parms, err := diskHdparmsOf(ctx, v[0], "N")
	if err != nil {
		return nil, err
	}
	hpa := value.NewMap(0)
	var ierr error
	parms.Range(func(disk, data any) bool {
		dm := data.(*value.Map)
		if dm.Len() == 0 {
			ierr = netPyErrorf("StopIteration", "")
			return false
		}
		first, _ := dm.Get(dm.Keys()[0])
		l, ok := first.(*value.List)
		if !ok || l.Len() != 3 {
			ierr = netPyErrorf("ValueError", "not enough values to unpack (expected 3)")
			return false
		}
		visible, _ := l.Items[0].(int64)
		total, _ := l.Items[1].(int64)
		if visible == total || strings.Contains(value.Str(l.Items[2]), "disabled") {
			hpa.Set(disk, value.MapOf("total", total))
		} else {
			hpa.Set(disk, value.MapOf("total", total, "visible", visible, "hidden", total-visible))
		}
		return true
	})
	if ierr != nil {
		return nil, ierr
	}
	if v[1] == nil {
		return hpa, nil
	}
	size := v[1]
	var serr error
	hpa.Range(func(disk, data any) bool {
		tv, _ := data.(*value.Map).Get("total")
		total := tv.(int64)
		var n int64
		switch s := size.(type) {
		case int64:
			n = total - s
		default:
			str := value.Str(s)
			if i, err := strconv.ParseInt(strings.TrimSpace(str), 10, 64); err == nil {
				n = total - i
			} else if strings.Contains(str, "%") {
				p, _ := strconv.ParseInt(strings.Trim(str, "%"), 10, 64)
				n = (100 - p) * total / 100
			}
		}
		if n <= 0 {
			n = total
		}
		size = n
		_, serr = diskHdparm(ctx, "--yes-i-know-what-i-am-doing -Np"+strconv.FormatInt(n, 10)+" "+value.Str(disk), true)
		return serr == nil
	})
	return nil, serr
}

var (
	diskSpace    = regexp.MustCompile(`\s+`)
	diskAttrLine = regexp.MustCompile(`^[\s]*\d`)
)

// diskParseSmart reads smartctl --attributes: the rows after the ID#
// header, by attribute id, numbers as ints.
func diskParseSmart(out string, attributes, values any) *value.Map {
	lines := strings.Split(out, "\n")
	var fields []string
	i := 0
	for ; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "ID#") {
			f := diskSpace.Split(strings.TrimSpace(lines[i]), -1)
			for _, x := range f[1:] {
				fields = append(fields, strings.ToLower(x))
			}
			i++
			break
		}
	}
	if vl, ok := values.(*value.List); ok {
		for j, f := range fields {
			if !hostsContains(vl, f) {
				fields[j] = "_"
			}
		}
	}
	attrs := value.NewMap(0)
	for ; i < len(lines); i++ {
		if !diskAttrLine.MatchString(lines[i]) {
			break
		}
		parts := diskSplitN(strings.TrimSpace(lines[i]), len(fields)+1)
		id, _ := strconv.ParseInt(parts[0], 10, 64)
		if al, ok := attributes.(*value.List); ok && !hostsContains(al, id) {
			continue
		}
		data := value.NewMap(0)
		for j, f := range fields {
			if j+1 >= len(parts) {
				break
			}
			val := parts[j+1]
			if n, err := strconv.ParseInt(val, 10, 64); err == nil {
				data.Set(f, n)
				continue
			}
			nums := value.NewList()
			for _, p := range strings.Split(val, " ") {
				n, err := strconv.ParseInt(p, 10, 64)
				if err != nil {
					nums = nil
					break
				}
				nums.Append(n)
			}
			if nums != nil {
				data.Set(f, nums)
			} else {
				data.Set(f, val)
			}
		}
		data.Delete("_")
		attrs.Set(id, data)
	}
	return attrs
}

// diskSplitN is re.split(r"\s+", s, maxsplit=n-1).
func diskSplitN(s string, n int) []string {
	var out []string
	for len(out) < n-1 {
		loc := diskSpace.FindStringIndex(s)
		if loc == nil {
			break
		}
		out = append(out, s[:loc[0]])
		s = s[loc[1]:]
	}
	return append(out, s)
}

func diskSmartAttributes(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("smart_attributes", args, kwargs, execmod.Req("dev"), execmod.Opt("attributes", nil), execmod.Opt("values", nil))
	if err != nil {
		return nil, err
	}
	dev := value.Str(v[0])
	if !strings.HasPrefix(dev, "/dev/") {
		dev = "/dev/" + dev
	}
	res, err := ctx.Call("cmd.run_all", []any{"smartctl --attributes " + dev}, value.MapOf("output_loglevel", "quiet"))
	if err != nil {
		return nil, err
	}
	m := res.(*value.Map)
	if rc, _ := m.Get("retcode"); !value.Equal(rc, int64(0)) {
		stderr, _ := m.Get("stderr")
		return nil, execmod.Errorf("%s", value.Str(stderr))
	}
	out, _ := m.Get("stdout")
	return diskParseSmart(value.Str(out), v[1], v[2]), nil
}

// diskAverages is _iostats_dict: each column's mean, rounded to 0.01
// (half even) as Decimal.quantize does.
func diskAverages(header []string, rows [][]*big.Rat) *value.Map {
	out := value.NewMap(len(header))
	for j, h := range header {
		sum := new(big.Rat)
		n := 0
		for _, r := range rows {
			if j < len(r) {
				sum.Add(sum, r[j])
				n++
			}
		}
		if n == 0 {
			continue
		}
		mean := sum.Quo(sum, big.NewRat(int64(n), 1))
		hundredths := new(big.Rat).Mul(mean, big.NewRat(100, 1))
		q, rem := new(big.Int).QuoRem(hundredths.Num(), hundredths.Denom(), new(big.Int))
		twice := new(big.Int).Mul(new(big.Int).Abs(rem), big.NewInt(2))
		if c := twice.Cmp(hundredths.Denom()); c > 0 || (c == 0 && q.Bit(0) == 1) {
			if hundredths.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
		f, _ := new(big.Rat).SetFrac(q, big.NewInt(100)).Float64()
		out.Set(h, f)
	}
	return out
}

// diskParseIostat reads iostat -x output as Salt's Linux parser: the
// avg-cpu rows as "sys", the "Device:" rows by device, averaged.
func diskParseIostat(out string) (*value.Map, error) {
	lines := strings.Split(out, "\n")
	var sysHeader, devHeader []string
	var sysRows [][]*big.Rat
	devRows := map[string][][]*big.Rat{}
	var devOrder []string
	nums := func(fields []string) ([]*big.Rat, error) {
		var r []*big.Rat
		for _, f := range fields {
			x, ok := new(big.Rat).SetString(f)
			if !ok {
				return nil, netPyErrorf("decimal.InvalidOperation", "[<class 'decimal.ConversionSyntax'>]")
			}
			r = append(r, x)
		}
		return r, nil
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, "avg-cpu:"):
			if sysHeader == nil {
				sysHeader = strings.Fields(line)[1:]
			}
			if i+1 >= len(lines) {
				return nil, netPyErrorf("StopIteration", "")
			}
			i++
			r, err := nums(strings.Fields(lines[i]))
			if err != nil {
				return nil, err
			}
			sysRows = append(sysRows, r)
		case strings.HasPrefix(line, "Device:"):
			if devHeader == nil {
				devHeader = strings.Fields(line)[1:]
			}
			for i+1 < len(lines) {
				next := lines[i+1]
				if next == "" || !(next[0] >= 'a' && next[0] <= 'z' || next[0] >= 'A' && next[0] <= 'Z' || next[0] >= '0' && next[0] <= '9') {
					i++
					break
				}
				i++
				f := strings.Fields(next)
				r, err := nums(f[1:])
				if err != nil {
					return nil, err
				}
				if _, seen := devRows[f[0]]; !seen {
					devOrder = append(devOrder, f[0])
				}
				devRows[f[0]] = append(devRows[f[0]], r)
			}
		}
	}
	ret := value.NewMap(0)
	if sysHeader != nil {
		ret.Set("sys", diskAverages(sysHeader, sysRows))
	}
	for _, d := range devOrder {
		ret.Set(d, diskAverages(devHeader, devRows[d]))
	}
	return ret, nil
}

func diskIostat(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("iostat", args, kwargs, execmod.Opt("interval", int64(1)), execmod.Opt("count", int64(5)), execmod.Opt("disks", nil))
	if err != nil {
		return nil, err
	}
	if err := netNeedBinary("iostat"); err != nil {
		return nil, err
	}
	cmd := fmt.Sprintf("iostat -x %s %s ", value.Str(v[0]), value.Str(v[1]))
	switch d := v[2].(type) {
	case nil:
	case string:
		cmd = fmt.Sprintf("iostat -xd %s %s %s", value.Str(v[0]), value.Str(v[1]), d)
	default:
		var names []string
		for _, x := range splitInput(d) {
			names = append(names, value.Str(x))
		}
		cmd = fmt.Sprintf("iostat -xd %s %s %s", value.Str(v[0]), value.Str(v[1]), strings.Join(names, " "))
	}
	out, err := ctx.Call("cmd.run_stdout", []any{cmd}, value.MapOf("output_loglevel", "quiet"))
	if err != nil {
		return nil, err
	}
	return diskParseIostat(value.Str(out))
}
