package states

// mount_fstab.go is the rest of salt/states/mount.py on Linux:
// mount.fstab_present and mount.fstab_absent (fstab entries by fs_spec,
// optionally converted to a UUID or LABEL with blkid), mount.swap and the
// mount.mod_watch remount. Like Salt, they work through the mount and disk
// execution functions.

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "mount.fstab_present",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("fs_file"), statemod.Req("fs_vfstype"),
			statemod.Opt("fs_mntops", "defaults"), statemod.Opt("fs_freq", int64(0)), statemod.Opt("fs_passno", int64(0)),
			statemod.Opt("mount_by", nil), statemod.Opt("config", "/etc/fstab"), statemod.Opt("mount", true),
			statemod.Opt("match_on", "auto"), statemod.Opt("not_change", false), statemod.Opt("fs_mount", true)},
		Doc: "Ensure that an fstab entry is present (and mount it when it is new).", Run: mountFstabPresent})
	statemod.Register(&statemod.Function{Name: "mount.fstab_absent",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("fs_file"), statemod.Opt("mount_by", nil), statemod.Opt("config", "/etc/fstab")},
		Doc:    "Ensure that an fstab entry is absent.", Run: mountFstabAbsent})
	statemod.Register(&statemod.Function{Name: "mount.swap",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("persist", true), statemod.Opt("config", "/etc/fstab")},
		Doc:    "Ensure that a swap device or file is active (and in the fstab with persist).", Run: mountSwap})
	statemod.Register(&statemod.Function{Name: "mount.mod_watch",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("user", nil)}, Kwargs: true,
		Doc: "Remount a mount.mounted mount point when a watched state changes.", Run: mountModWatch})
}

// fstabFile is Salt's fs_file handling: trailing slashes go, except for /.
func fstabFile(p string) string {
	if p == "/" {
		return p
	}
	return strings.TrimRight(p, "/")
}

// convertFsSpec is Salt's _convert_to: the fs_spec of device for
// mount_by (device, uuid, label, partuuid, partlabel), "" when blkid does
// not name exactly one device.
func convertFsSpec(c *statemod.Call, device, to string) (string, error) {
	if to == "" || (to == "device" && strings.HasPrefix(device, "/")) || strings.HasPrefix(device, strings.ToUpper(to)+"=") {
		return device, nil
	}
	var out any
	var err error
	if strings.HasPrefix(device, "/") {
		out, err = c.Salt("disk.blkid", []any{device}, nil)
	} else {
		out, err = c.Salt("disk.blkid", nil, value.MapOf("token", device))
	}
	if err != nil {
		return "", err
	}
	m, _ := out.(*value.Map)
	if m == nil || m.Len() != 1 {
		return "", nil
	}
	dev, info := m.At(0)
	if to == "device" {
		return value.Str(dev), nil
	}
	key := strings.ToUpper(to)
	im, _ := info.(*value.Map)
	v, ok := im.GetString(key)
	if im == nil || !ok {
		return "", fmt.Errorf("KeyError: '%s'", key)
	}
	return key + "=" + value.Str(v), nil
}

func mountFstabPresent(c *statemod.Call) (*value.Map, error) {
	ret := value.MapOf("name", c.Get("name"), "result", false, "changes", value.NewMap(0), "comment", value.NewList())
	comment := func(s string) { getv(ret, "comment").(*value.List).Append(s) }
	name, config := c.Name(), c.Str("config")
	fsFile := fstabFile(c.Str("fs_file"))
	spec, err := convertFsSpec(c, name, c.Str("mount_by"))
	if err != nil {
		return nil, err
	}
	if spec == "" {
		comment(fmt.Sprintf("Device %s cannot be converted to %s", name, value.Str(c.Get("mount_by"))))
		return ret, nil
	}
	kw := value.MapOf("name", fsFile, "device", spec, "fstype", c.Get("fs_vfstype"), "opts", c.Get("fs_mntops"),
		"dump", c.Get("fs_freq"), "pass_num", c.Get("fs_passno"), "config", config)
	if c.Test {
		kw.Set("test", true)
	}
	kw.Set("match_on", c.Get("match_on"))
	kw.Set("not_change", c.Get("not_change"))
	res, err := c.Salt("mount.set_fstab", nil, kw)
	if err != nil {
		return nil, err
	}
	out := value.Str(res)
	changes := getv(ret, "changes").(*value.Map)
	if c.Test {
		ret.Set("result", nil)
		switch out {
		case "present":
			comment(fmt.Sprintf("%s entry is already in %s.", fsFile, config))
			ret.Set("result", true)
		case "new":
			comment(fmt.Sprintf("%s entry will be written in %s.", fsFile, config))
			if c.Bool("mount") {
				comment(fmt.Sprintf("Will mount %s on %s", name, fsFile))
			}
		case "change":
			comment(fmt.Sprintf("%s entry will be updated in %s.", fsFile, config))
		default:
			ret.Set("result", false)
			comment(fmt.Sprintf("%s entry cannot be created in %s: %s.", fsFile, config, out))
		}
		return ret, nil
	}
	ret.Set("result", true)
	switch out {
	case "present":
		comment(fmt.Sprintf("%s entry was already in %s.", fsFile, config))
	case "new":
		changes.Set("persist", out)
		comment(fmt.Sprintf("%s entry added in %s.", fsFile, config))
		if c.Bool("mount") {
			m, err := c.Salt("mount.mount", []any{fsFile}, nil)
			if err != nil {
				return nil, err
			}
			if s, isStr := m.(string); isStr {
				_, rest, ok := strings.Cut(s, ":")
				if !ok {
					return nil, errors.New("IndexError: list index out of range")
				}
				ret.Set("result", false)
				comment("Error while mounting " + rest)
			} else {
				comment(fmt.Sprintf("Mounted %s on %s", name, fsFile))
			}
		}
	case "change":
		changes.Set("persist", out)
		comment(fmt.Sprintf("%s entry updated in %s.", fsFile, config))
	default:
		ret.Set("result", false)
		comment(fmt.Sprintf("%s entry cannot be changed in %s: %s.", fsFile, config, out))
	}
	return ret, nil
}

func mountFstabAbsent(c *statemod.Call) (*value.Map, error) {
	ret := value.MapOf("name", c.Get("name"), "result", false, "changes", value.NewMap(0), "comment", value.NewList())
	comment := func(s string) { getv(ret, "comment").(*value.List).Append(s) }
	config := c.Str("config")
	fsFile := fstabFile(c.Str("fs_file"))
	spec, err := convertFsSpec(c, c.Name(), c.Str("mount_by"))
	if err != nil {
		return nil, err
	}
	data, err := saltMap(c, "mount.fstab", config)
	if err != nil {
		return nil, err
	}
	present := data.Has(fsFile)
	if c.Test {
		ret.Set("result", nil)
		if present {
			comment(fmt.Sprintf("%s entry will be removed from %s.", fsFile, config))
		} else {
			comment(fmt.Sprintf("%s entry is already missing in %s.", fsFile, config))
		}
		return ret, nil
	}
	if !present {
		ret.Set("result", true)
		comment(fmt.Sprintf("%s entry is already missing in %s.", fsFile, config))
		return ret, nil
	}
	var device any
	if spec != "" {
		device = spec
	}
	out, err := c.Salt("mount.rm_fstab", nil, value.MapOf("name", fsFile, "device", device, "config", config))
	if err != nil {
		return nil, err
	}
	if out != true {
		comment(fmt.Sprintf("%s entry failed when removing from %s.", fsFile, config))
		return ret, nil
	}
	ret.Set("result", true)
	getv(ret, "changes").(*value.Map).Set("persist", "removed")
	comment(fmt.Sprintf("%s entry removed from %s.", fsFile, config))
	return ret, nil
}

func mountSwap(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "")
	on, err := saltMap(c, "mount.swaps")
	if err != nil {
		return nil, err
	}
	real := name
	if link, err := c.Salt("file.is_link", []any{name}, nil); err != nil {
		return nil, err
	} else if value.Truthy(link) {
		target, err := c.Salt("file.readlink", []any{name}, nil)
		if err != nil {
			return nil, err
		}
		real = value.Str(target)
		if !strings.HasPrefix(real, "/") {
			real = "/dev/" + filepath.Base(real)
		}
	}
	switch {
	case on.Has(real):
		ret.Set("comment", "Swap "+name+" already active")
	case c.Test:
		ret.Set("result", nil)
		ret.Set("comment", "Swap "+name+" is set to be activated")
	default:
		if _, err := c.Salt("mount.swapon", []any{real}, nil); err != nil {
			return nil, err
		}
		if on, err = saltMap(c, "mount.swaps"); err != nil {
			return nil, err
		}
		if st, ok := on.GetString(real); ok {
			ret.Set("comment", "Swap "+name+" activated")
			ret.Set("changes", st)
		} else {
			ret.Set("comment", "Swap "+name+" failed to activate")
			ret.Set("result", false)
		}
	}
	if !c.Bool("persist") {
		return ret, nil
	}
	config := c.Str("config")
	data, err := saltMap(c, "mount.fstab", config)
	if err != nil {
		return nil, err
	}
	if c.Test {
		listed := data.Has(name)
		data.Range(func(_, e any) bool {
			if em, ok := e.(*value.Map); ok && value.Str(getv(em, "device")) == name {
				listed = true
			}
			return !listed
		})
		if !listed {
			ret.Set("result", nil)
			if on.Has(name) {
				ret.Set("comment", "Swap "+name+" is set to be added to the fstab and to be activated")
			}
		}
		return ret, nil
	}
	if none, ok := data.GetString("none"); ok {
		if nm, ok := none.(*value.Map); ok && value.Str(getv(nm, "device")) == name && value.Str(getv(nm, "fstype")) != "swap" {
			return ret, nil
		}
	}
	out, err := c.Salt("mount.set_fstab", []any{"none", name, "swap", value.NewList("defaults"), int64(0), int64(0), config}, nil)
	if err != nil {
		return nil, err
	}
	notePersist(ret, value.Str(out))
	return ret, nil
}

func mountModWatch(c *statemod.Call) (*value.Map, error) {
	ret := statemod.Ret(c.Get("name"), true, "")
	kw := c.ExtraKwargs()
	sfun := value.Str(getv(kw, "sfun"))
	if sfun != "mounted" {
		ret.Set("comment", "Watch not supported in "+sfun+" at this time")
		return ret, nil
	}
	for _, k := range []string{"device", "fstype", "opts"} {
		if !kw.Has(k) {
			return nil, fmt.Errorf("KeyError: '%s'", k)
		}
	}
	out, err := c.Salt("mount.remount", []any{c.Get("name"), getv(kw, "device"), false, getv(kw, "fstype"), getv(kw, "opts")},
		value.MapOf("user", c.Get("user")))
	if err != nil {
		return nil, err
	}
	if value.Truthy(out) {
		ret.Set("comment", c.Name()+" remounted")
	} else {
		ret.Set("result", false)
		ret.Set("comment", fmt.Sprintf("%s failed to remount: %s", c.Name(), value.Str(out)))
	}
	return ret, nil
}
