package modules

// mount_maps.go is the part of salt/modules/mount.py that edits the mount
// tables of other systems, as Salt runs it on Linux: the automounter map
// (auto_salt, listed in /etc/auto_master), Solaris' vfstab and AIX's
// filesystems. Salt keys the vfstab parsers on the kernel grain, so on
// Linux mount.vfstab and mount.rm_vfstab read the file as an fstab while
// mount.set_vfstab writes vfstab lines; the filesystems functions do
// nothing unless the kernel is AIX.

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/system/atomicfile"
	"brine/internal/value"
)

func init() {
	execmod.Register("mount.automaster", mountAutomaster, "Return the entries of the automounter map (config=/etc/auto_salt) by mount point.")
	execmod.Register("mount.set_automaster", mountSetAutomaster, "Make an automounter map entry as given: 'present', 'new' or 'change'.")
	execmod.Register("mount.rm_automaster", mountRmAutomaster, "Remove the automounter map entry of name (and device), then run automount -cv; True.")
	execmod.Register("mount.vfstab", mountVfstab, "Return the entries of config (/etc/vfstab) read as fstab lines, as Salt does on Linux.")
	execmod.Register("mount.set_vfstab", mountSetVfstab, "Make a vfstab entry as given: 'present', 'new' or 'change'.")
	execmod.Register("mount.rm_vfstab", mountRmVfstab, "Remove the entries of name and device from config (/etc/vfstab, read as an fstab); True.")
	execmod.Register("mount.filesystems", mountFilesystems, "Return the AIX filesystems entries: {} on Linux.")
	execmod.Register("mount.set_filesystems", mountSetFilesystems, "Make an AIX filesystems entry: None on Linux.")
	execmod.Register("mount.rm_filesystems", mountRmFilesystems, "Remove an AIX filesystems entry: False on Linux.")
}

// saltIsTrue is salt.utils.data.is_true: numbers (and numeric text)
// above zero, the text "true" in any case, else Python truthiness.
func saltIsTrue(v any) bool { return shadowIsTrue(v) }

// saltTestMode is salt.utils.args.test_mode(test=test, **kwargs): a
// keyword spelled "test" in any case whose value is true.
func saltTestMode(test any, kwargs *value.Map) bool {
	if saltIsTrue(test) {
		return true
	}
	found := false
	kwargs.Range(func(k, v any) bool {
		if ks, ok := k.(string); ok && strings.ToLower(ks) == "test" && saltIsTrue(v) {
			found = true
			return false
		}
		return true
	})
	return found
}

// isRegularFile is os.path.isfile.
func isRegularFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// pyFileLines reads path as Python iterates a text file: lines with
// their newline, "\r\n" and "\r" read as "\n".
func pyFileLines(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fileops.PyOSError(err)
	}
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines, nil
}

// optsString joins a list of options with commas, as Salt does with
// ",".join; anything else is str().
func optsString(v any) string {
	if l, ok := v.(*value.List); ok {
		parts := make([]string, 0, l.Len())
		for _, x := range l.Items {
			parts = append(parts, execmod.String(x))
		}
		return strings.Join(parts, ",")
	}
	return execmod.String(v)
}

// automasterEntry splits an automounter map line into its three fields;
// false for comments, blank lines and lines of another shape.
func automasterEntry(line string) ([]string, bool) {
	if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
		return nil, false
	}
	f := strings.Fields(line)
	return f, len(f) == 3
}

// automasterMap is mount.automaster: mount point -> device, fstype, opts.
func automasterMap(config string) (*value.Map, error) {
	ret := value.NewMap(0)
	if !isRegularFile(config) {
		return ret, nil
	}
	lines, err := pyFileLines(config)
	if err != nil {
		return nil, err
	}
	for _, line := range lines {
		f, ok := automasterEntry(line)
		if !ok {
			continue
		}
		dev := strings.Split(f[2], ":")
		if len(dev) < 2 {
			return nil, netPyErrorf("IndexError", "list index out of range")
		}
		opts := strings.Split(f[1], ",")
		ret.Set(strings.ReplaceAll(f[0], "/..", ""), value.MapOf("device", dev[1], "fstype", opts[0], "opts", strList(opts[1:])))
	}
	return ret, nil
}

func mountAutomaster(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("automaster", args, kwargs, execmod.Opt("config", "/etc/auto_salt"))
	if err != nil {
		return nil, err
	}
	return automasterMap(execmod.String(v[0]))
}

// writeMapFile replaces config with lines; the error text is Salt's
// prefix followed by the OSError.
func writeMapFile(config string, lines []string) error {
	return atomicfile.Write(config, []byte(strings.Join(lines, "")))
}

func mountSetAutomaster(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, kw, err := execmod.Bind("set_automaster", args, kwargs, execmod.Req("name"), execmod.Req("device"), execmod.Req("fstype"),
		execmod.Opt("opts", ""), execmod.Opt("config", "/etc/auto_salt"), execmod.Opt("test", false), execmod.Opt("not_change", false))
	if err != nil {
		return nil, err
	}
	config := execmod.String(v[4])
	test := saltTestMode(v[5], kw)
	notChange := value.Truthy(v[6])
	if !isRegularFile(config) {
		// Salt creates the map and lists it in the master map.
		if _, err := ctx.Call("file.touch", []any{config}, nil); err != nil {
			return nil, err
		}
		if _, err := ctx.Call("file.append", []any{"/etc/auto_master", "/-\t\t\t" + config}, nil); err != nil {
			return nil, err
		}
	}
	fstype := execmod.String(v[2])
	name := "/.." + execmod.String(v[0])
	deviceFmt := fstype + ":" + execmod.String(v[1])
	typeOpts := "-fstype=" + fstype + "," + optsString(v[3])
	if fstype == "smbfs" {
		deviceFmt = strings.ReplaceAll(deviceFmt, fstype, "")
	}
	newline := name + "\t" + typeOpts + "\t" + deviceFmt + "\n"
	lines, err := pyFileLines(config)
	if err != nil {
		return nil, execmod.Errorf("Couldn't read from %s: %v", config, err)
	}
	var out []string
	change, present := false, false
	for _, line := range lines {
		f, ok := automasterEntry(line)
		if !ok || (f[0] != name && f[2] != deviceFmt) {
			out = append(out, line)
			continue
		}
		// As Salt: a matching line is kept only when it is rewritten,
		// and once one line changed every later match is rewritten.
		present = true
		if notChange {
			continue
		}
		if f[0] != name || f[1] != typeOpts || f[2] != deviceFmt {
			change = true
		}
		if change {
			out = append(out, newline)
		}
	}
	switch {
	case change:
		if !test {
			if err := writeMapFile(config, out); err != nil {
				return nil, execmod.Errorf("File not writable %s", config)
			}
		}
		return "change", nil
	case present:
		return "present", nil
	}
	if !test {
		if err := writeMapFile(config, append(out, newline)); err != nil {
			return nil, execmod.Errorf("File not writable %s", config)
		}
	}
	return "new", nil
}

func mountRmAutomaster(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("rm_automaster", args, kwargs, execmod.Req("name"), execmod.Req("device"), execmod.Opt("config", "/etc/auto_salt"))
	if err != nil {
		return nil, err
	}
	config := execmod.String(v[2])
	contents, err := automasterMap(config)
	if err != nil {
		return nil, err
	}
	name, ok := v[0].(string)
	if !ok || !contents.Has(name) {
		return true, nil
	}
	lines, err := pyFileLines(config)
	if err != nil {
		return nil, execmod.Errorf("Couldn't read from %s: %v", config, err)
	}
	var out []string
	for _, line := range lines {
		f, ok := automasterEntry(line)
		if ok && strings.ReplaceAll(f[0], "/..", "") == name {
			dev := strings.Split(f[2], ":")
			if len(dev) < 2 {
				return nil, netPyErrorf("IndexError", "list index out of range")
			}
			if !value.Truthy(v[1]) || value.Equal(dev[1], v[1]) {
				continue
			}
		}
		out = append(out, line)
	}
	if err := writeMapFile(config, out); err != nil {
		return nil, execmod.Errorf("Couldn't write to %s: %v", config, fileops.PyOSError(err))
	}
	// Salt asks the automounter to reload its maps.
	if _, err := ctx.Call("cmd.run", []any{"automount -cv"}, nil); err != nil {
		return nil, err
	}
	return true, nil
}

func mountVfstab(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("vfstab", args, kwargs, execmod.Opt("config", "/etc/vfstab"))
	if err != nil {
		return nil, err
	}
	return mountFstab(ctx, []any{v[0]}, nil)
}

func mountRmVfstab(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("rm_vfstab", args, kwargs, execmod.Req("name"), execmod.Req("device"), execmod.Opt("config", "/etc/vfstab"))
	if err != nil {
		return nil, err
	}
	return mountRmFstab(ctx, v, nil)
}

// vfstabKeys are the fields of a vfstab line, in order.
var vfstabKeys = []string{"device", "device_fsck", "name", "fstype", "pass_fsck", "mount_at_boot", "opts"}

// vfstabFields parses a vfstab line; false for comments and lines that
// do not have seven fields.
func vfstabFields(line string) (map[string]string, bool) {
	if strings.HasPrefix(line, "#") {
		return nil, false
	}
	f := strings.Fields(line)
	if len(f) != len(vfstabKeys) {
		return nil, false
	}
	m := make(map[string]string, len(f))
	for i, k := range vfstabKeys {
		m[k] = f[i]
	}
	return m, true
}

// vfstabMatch compares the given fields with a line's; options compare as
// sorted lists.
func vfstabMatch(crit map[string]string, line map[string]string) bool {
	for k, want := range crit {
		if k == "opts" {
			a, b := strings.Split(line[k], ","), strings.Split(want, ",")
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				return false
			}
		} else if line[k] != want {
			return false
		}
	}
	return true
}

// vfstabLine formats an entry; a field left out (None) is Python's
// KeyError.
func vfstabLine(e map[string]string) (string, error) {
	for _, k := range []string{"device", "device_fsck", "name", "fstype", "pass_fsck", "mount_at_boot", "opts"} {
		if _, ok := e[k]; !ok {
			return "", netPyErrorf("KeyError", "'%s'", k)
		}
	}
	return fmt.Sprintf("%-11s %-3s %-19s %-8s %-3s %-6s %s\n", e["device"], e["device_fsck"], e["name"], e["fstype"], e["pass_fsck"], e["mount_at_boot"], e["opts"]), nil
}

// vfstabSpecial are the file systems matched by mount point (match_on
// auto); others are matched by device.
var vfstabSpecial = []string{"devfs", "proc", "ctfs", "objfs", "sharefs", "fs", "tmpfs"}

func mountSetVfstab(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, kw, err := execmod.Bind("set_vfstab", args, kwargs, execmod.Req("name"), execmod.Req("device"), execmod.Req("fstype"),
		execmod.Opt("opts", "-"), execmod.Opt("device_fsck", "-"), execmod.Opt("pass_fsck", "-"), execmod.Opt("mount_at_boot", "yes"),
		execmod.Opt("config", "/etc/vfstab"), execmod.Opt("test", false), execmod.Opt("match_on", "auto"), execmod.Opt("not_change", false))
	if err != nil {
		return nil, err
	}
	mountAtBoot := "yes"
	if v[6] != "yes" {
		mountAtBoot = "no"
	}
	entry := map[string]string{"name": execmod.String(v[0]), "device": execmod.String(v[1]), "fstype": execmod.String(v[2]),
		"opts": optsString(v[3]), "device_fsck": execmod.String(v[4]), "pass_fsck": execmod.String(v[5]), "mount_at_boot": mountAtBoot}
	// Salt leaves a None argument out of the entry.
	for i, k := range []string{"name", "device", "fstype", "opts", "device_fsck", "pass_fsck"} {
		if v[i] == nil {
			delete(entry, k)
		}
	}
	var matchOn []any
	switch m := v[9].(type) {
	case *value.List:
		matchOn = m.Items
	case string:
		switch {
		case m != "auto":
			matchOn = []any{m}
		case slices.Contains(vfstabSpecial, entry["fstype"]):
			matchOn = []any{"name"}
		default:
			matchOn = []any{"device"}
		}
	default:
		return nil, execmod.Errorf("match_on must be a string or list of strings")
	}
	crit := map[string]string{}
	for _, k := range matchOn {
		ks, ok := k.(string)
		val, has := entry[ks]
		if !ok || !has {
			// Salt formats the lazy filter of the bad keys, not the keys.
			return nil, execmod.Errorf(`Unrecognized keys in match_on: "<filter object at %p>"`, &matchOn)
		}
		crit[ks] = val
	}
	config := execmod.String(v[7])
	if !isRegularFile(config) {
		return nil, execmod.Errorf(`Bad config file "%s"`, config)
	}
	lines, err := pyFileLines(config)
	if err != nil {
		return nil, execmod.Errorf("Couldn't read from %s: %v", config, err)
	}
	ret := ""
	out := make([]string, 0, len(lines)+1)
	for _, line := range lines {
		fields, ok := vfstabFields(line)
		if !ok || !vfstabMatch(crit, fields) {
			out = append(out, line)
			continue
		}
		ret = "present"
		if vfstabMatch(entry, fields) || value.Truthy(v[10]) {
			out = append(out, line)
			continue
		}
		ret = "change"
		l, err := vfstabLine(entry)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	if ret == "" {
		l, err := vfstabLine(entry)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
		ret = "new"
	}
	if ret != "present" && !saltTestMode(v[8], kw) {
		if err := writeMapFile(config, out); err != nil {
			return nil, execmod.Errorf("File not writable %s", config)
		}
	}
	return ret, nil
}

func mountFilesystems(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("filesystems", args, kwargs, execmod.Opt("config", "/etc/filesystems")); err != nil {
		return nil, err
	}
	return value.NewMap(0), nil
}

func mountSetFilesystems(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_filesystems", args, kwargs, execmod.Req("name"), execmod.Req("device"), execmod.Req("vfstype"),
		execmod.Opt("opts", "-"), execmod.Opt("mount", "true"), execmod.Opt("config", "/etc/filesystems"), execmod.Opt("test", false),
		execmod.Opt("match_on", "auto"), execmod.Opt("not_change", false))
	if err != nil {
		return nil, err
	}
	// Salt escapes the device's spaces before it checks the kernel.
	if _, ok := v[1].(string); !ok {
		return nil, netPyErrorf("AttributeError", "'%s' object has no attribute 'replace'", value.TypeName(v[1]))
	}
	return nil, nil
}

func mountRmFilesystems(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	if _, _, err := execmod.Bind("rm_filesystems", args, kwargs, execmod.Req("name"), execmod.Req("device"), execmod.Opt("config", "/etc/filesystems")); err != nil {
		return nil, err
	}
	return false, nil
}
