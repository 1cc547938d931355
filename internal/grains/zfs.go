package grains

import (
	"os"
	"os/exec"
	"path/filepath"

	"brine/internal/value"
)

// psGrain is Salt's ps grain: the ps command line that lists every
// process on this kind of system.
func psGrain(g *value.Map) {
	str := func(k string) string {
		v, _ := g.Get(k)
		s, _ := v.(string)
		return s
	}
	ps := "ps -efHww"
	switch {
	case str("os") == "FreeBSD" || str("os") == "NetBSD" || str("os") == "OpenBSD" || str("os") == "MacOS":
		ps = "ps auxwww"
	case str("os_family") == "Solaris":
		ps = "/usr/ucb/ps auxwww"
	case str("virtual") == "openvzhn":
		ps = `ps -fH -p $(grep -l "^envID:[[:space:]]*0\$" /proc/[0-9]*/status | sed -e "s=/proc/\([0-9]*\)/.*=\1=")  | awk '{ $7=""; print }'`
	case str("os_family") == "AIX":
		ps = "/usr/bin/ps auxww"
	case str("os_family") == "NILinuxRT":
		ps = "ps -o user,pid,ppid,tty,time,comm"
	}
	g.Set("ps", ps)
}

// zfsGrains sets Salt's zfs_support and zfs_feature_flags grains. ZFS is
// supported on Linux when the zfs kernel module is loaded (or zfs-fuse is
// installed) and zpool is on the PATH. Salt decides the feature flags by
// running `man zpool-features`; brine looks for that manual page in the
// usual manual directories instead, so that no process is started.
//
// Salt also lists the pools (the zpool grain) when ZFS is supported; brine
// leaves that grain out.
func zfsGrains(g *value.Map) {
	_, errZpool := exec.LookPath("zpool")
	_, errMod := os.Stat("/sys/module/zfs")
	_, errFuse := exec.LookPath("zfs-fuse")
	g.Set("zfs_support", errZpool == nil && (errMod == nil || errFuse == nil))
	g.Set("zfs_feature_flags", hasManPage("zpool-features"))
}

// hasManPage reports whether man is installed and has a page called name
// in one of the standard manual trees.
func hasManPage(name string) bool {
	if _, err := exec.LookPath("man"); err != nil {
		return false
	}
	for _, root := range []string{"/usr/share/man", "/usr/local/share/man", "/usr/man"} {
		if m, _ := filepath.Glob(filepath.Join(root, "man*", name+".*")); len(m) > 0 {
			return true
		}
	}
	return false
}
