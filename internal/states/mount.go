package states

// mount.go is the common path of salt/states/mount.py: mount.mounted
// (mount when not mounted, persist the fstab entry as mount.set_fstab
// does) and mount.unmounted (unmount, purge the fstab entry with
// persist). Active mounts come from /proc/self/mounts.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"brine/internal/statemod"
	"brine/internal/system/mounts"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "mount.mounted",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("device"), statemod.Req("fstype"),
			statemod.Opt("mkmnt", false), statemod.Opt("opts", "defaults"), statemod.Opt("dump", int64(0)),
			statemod.Opt("pass_num", int64(0)), statemod.Opt("config", "/etc/fstab"), statemod.Opt("persist", true),
			statemod.Opt("mount", true), statemod.Opt("user", nil), statemod.Opt("match_on", "auto"),
			statemod.Opt("device_name_regex", nil), statemod.Opt("extra_mount_invisible_options", nil),
			statemod.Opt("extra_mount_invisible_keys", nil), statemod.Opt("extra_mount_ignore_fs_keys", nil),
			statemod.Opt("extra_mount_translate_options", nil), statemod.Opt("hidden_opts", nil)},
		Kwargs: true, Doc: "Ensure that a device is mounted (and in the fstab with persist).", Run: mountMounted})
	statemod.Register(&statemod.Function{Name: "mount.unmounted",
		Params: []statemod.Param{statemod.Req("name"), statemod.Opt("device", nil), statemod.Opt("config", "/etc/fstab"),
			statemod.Opt("persist", false), statemod.Opt("user", nil)},
		Kwargs: true, Doc: "Ensure that a mount point is not mounted (and out of the fstab with persist).", Run: mountUnmounted})
}

// activeMounts maps mount points to their device.
func activeMounts() map[string]string { return mounts.Points("") }

// setFstab is mount.set_fstab: present, new, change or bad config.
func setFstab(path string, e mounts.Entry, matchOn []string, test bool) (string, error) {
	out, err := mounts.SetFstab(path, e, matchOn, false, test)
	if errors.Is(err, mounts.ErrBadConfig) {
		return "bad config", nil
	}
	return out, err
}

func mountOpts(v any) string {
	if l, ok := v.(*value.List); ok {
		return strings.Join(listStrings(l), ",")
	}
	return value.Str(v)
}

func mountMounted(c *statemod.Call) (*value.Map, error) {
	name := strings.TrimRight(c.Name(), "/")
	if name == "" {
		name = "/"
	}
	device, fstype := c.Str("device"), c.Str("fstype")
	opts := mountOpts(c.Get("opts"))
	ret := statemod.Ret(c.Get("name"), true, "")
	changes := getv(ret, "changes").(*value.Map)
	if device == "" {
		return statemod.Ret(c.Get("name"), false, "Must provide device to mount.mounted"), nil
	}
	if fstype == "" {
		return statemod.Ret(c.Get("name"), false, "Must provide fstype to mount.mounted"), nil
	}
	active := activeMounts()
	_, mounted := active[name]
	if mounted {
		ret.Set("comment", "Target was already mounted")
	} else if c.Bool("mount") {
		if c.Test {
			ret.Set("result", nil)
			switch {
			case exists(name):
				ret.Set("comment", name+" would be mounted")
			case c.Bool("mkmnt"):
				ret.Set("comment", name+" would be created and mounted")
			default:
				ret.Set("comment", name+" does not exist and would not be created")
			}
			return ret, nil
		}
		if !exists(name) {
			if !c.Bool("mkmnt") {
				return statemod.Ret(c.Get("name"), false, "Mount directory is not present"), nil
			}
			if err := os.MkdirAll(name, 0o755); err != nil {
				return statemod.Ret(c.Get("name"), false, err.Error()), nil
			}
		}
		args := []string{"-t", fstype}
		if opts != "" {
			args = append(args, "-o", opts)
		}
		out, err := exec.Command("mount", append(args, device, name)...).CombinedOutput()
		if err != nil {
			return statemod.Ret(c.Get("name"), false, strings.TrimSpace(string(out))), nil
		}
		if _, ok := activeMounts()[name]; ok {
			ret.Set("comment", "Target was successfully mounted")
			changes.Set("mount", true)
		}
	} else if !exists(name) {
		switch {
		case c.Test && c.Bool("mkmnt"):
			ret.Set("result", nil)
			ret.Set("comment", name+" would be created, but not mounted")
		case c.Test:
			ret.Set("result", nil)
			ret.Set("comment", name+" does not exist and would neither be created nor mounted")
		case c.Bool("mkmnt"):
			os.MkdirAll(name, 0o755)
			ret.Set("comment", name+" was created, not mounted")
		default:
			ret.Set("comment", name+" not present and not mounted")
		}
	} else if c.Test {
		ret.Set("comment", name+" would not be mounted")
	} else {
		ret.Set("comment", name+" not mounted")
	}
	if !c.Bool("persist") {
		return ret, nil
	}
	e := mounts.Entry{Device: strings.ReplaceAll(device, `\ `, `\040`), Name: name, Fstype: fstype, Opts: strings.ReplaceAll(opts, `\ `, `\040`),
		Dump: value.Str(c.Get("dump")), Pass: value.Str(c.Get("pass_num"))}
	var matchOn []string
	switch m := c.Get("match_on").(type) {
	case *value.List:
		matchOn = listStrings(m)
	default:
		matchOn = []string{value.Str(m)}
	}
	config := c.Str("config")
	out, err := setFstab(config, e, matchOn, c.Test)
	if err != nil {
		return statemod.Ret(c.Get("name"), false, fmt.Sprintf("Couldn't write to %s: %s", config, err)), nil
	}
	if c.Test && out != "present" {
		ret.Set("result", nil)
		var cm string
		switch {
		case out == "new" && c.Bool("mount"):
			cm = name + " is mounted, but needs to be written to the fstab in order to be made persistent."
		case out == "new":
			cm = name + " needs to be written to the fstab in order to be made persistent."
		case out == "change" && c.Bool("mount"):
			cm = name + " is mounted, but its fstab entry must be updated."
		case out == "change":
			cm = "The " + name + " fstab entry must be updated."
		default:
			ret.Set("result", false)
			cm = "However, the fstab was not found."
		}
		ret.Set("comment", value.Str(getv(ret, "comment"))+". "+cm)
		return ret, nil
	}
	if out == "present" {
		ret.Set("comment", value.Str(getv(ret, "comment"))+". Entry already exists in the fstab.")
	}
	notePersist(ret, out)
	return ret, nil
}

// notePersist adds what mount.set_fstab did (new, change or bad config) to
// the changes and comment of mount.mounted or mount.swap.
func notePersist(ret *value.Map, out string) {
	changes, _ := getv(ret, "changes").(*value.Map)
	cur := value.Str(getv(ret, "comment"))
	switch out {
	case "new":
		changes.Set("persist", "new")
		ret.Set("comment", cur+". Added new entry to the fstab.")
	case "change":
		changes.Set("persist", "update")
		ret.Set("comment", cur+". Updated the entry in the fstab.")
	case "bad config":
		ret.Set("result", false)
		ret.Set("comment", cur+". However, the fstab was not found.")
	}
}

func mountUnmounted(c *statemod.Call) (*value.Map, error) {
	name := strings.TrimRight(c.Name(), "/")
	ret := statemod.Ret(c.Get("name"), true, "")
	changes := getv(ret, "changes").(*value.Map)
	if _, ok := activeMounts()[name]; !ok {
		ret.Set("comment", "Target was already unmounted")
	} else if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "Mount point "+name+" is mounted but should not be")
		return ret, nil
	} else {
		out, err := exec.Command("umount", name).CombinedOutput()
		if err != nil {
			return statemod.Ret(c.Get("name"), false, strings.TrimSpace(string(out))), nil
		}
		ret.Set("comment", "Target was successfully unmounted")
		changes.Set("umount", true)
	}
	if !c.Bool("persist") {
		return ret, nil
	}
	config := c.Str("config")
	data, err := os.ReadFile(config)
	if err != nil {
		ret.Set("comment", value.Str(getv(ret, "comment"))+". fstab entry not found")
		return ret, nil
	}
	var keep []string
	found := false
	device := c.Str("device")
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if e, ok := mounts.ParseLine(l); ok && filepath.Clean(e.Name) == name && (device == "" || e.Device == device) {
			found = true
			continue
		}
		keep = append(keep, l)
	}
	if !found {
		ret.Set("comment", value.Str(getv(ret, "comment"))+". fstab entry not found")
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "Mount point "+name+" is unmounted but needs to be purged from "+config+" to be made persistent")
		return ret, nil
	}
	if err := writeFileAtomic(config, []byte(strings.Join(keep, ""))); err != nil {
		ret.Set("result", false)
		ret.Set("comment", value.Str(getv(ret, "comment"))+". Failed to persist purge")
		return ret, nil
	}
	ret.Set("comment", value.Str(getv(ret, "comment"))+". Removed target from fstab")
	changes.Set("persist", "purged")
	return ret, nil
}
