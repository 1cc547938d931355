// Package pkgmgr drives the machine's package manager: apt/dpkg, dnf/yum
// and apk behind one Manager interface, chosen from the os_family grain
// (Salt's pkg virtual module). Reads use the package database directly
// where that is cheap; changes run the manager's commands through a
// system.Runner, many packages in one call.
package pkgmgr

import (
	"context"
	"fmt"
	"sort"

	"brine/internal/system"
)

// Installed maps package names to their installed versions (usually one;
// several for multi-version packages such as kernels).
type Installed map[string][]string

// Names returns the package names, sorted.
func (in Installed) Names() []string {
	out := make([]string, 0, len(in))
	for n := range in {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (in Installed) add(name, version string) {
	for _, v := range in[name] {
		if v == version {
			return
		}
	}
	in[name] = append(in[name], version)
}

// Target is one package to install, with an optional exact version.
type Target struct {
	Name    string
	Version string
}

// InstallRequest is one batched install.
type InstallRequest struct {
	Targets  []Target
	FromRepo string // apt -t, dnf --enablerepo, apk --repository
	// Reinstall reinstalls packages that are already at the version.
	Reinstall bool
	// NoRecommends skips recommended packages (apt), weak deps (dnf).
	NoRecommends bool
	// DowngradeOK allows installing an older version than installed.
	DowngradeOK bool
	// ExtraArgs are passed to the manager's command line before the
	// targets.
	ExtraArgs []string
}

// Manager is one package manager.
type Manager interface {
	// Name is "apt", "dnf", "yum" or "apk".
	Name() string
	// ListInstalled returns every installed package.
	ListInstalled(ctx context.Context) (Installed, error)
	// Candidates returns the version the manager would install for each
	// name ("" when there is none).
	Candidates(ctx context.Context, names []string, fromRepo string) (map[string]string, error)
	// Refresh updates the package metadata (apt-get update) and returns
	// the command's output.
	Refresh(ctx context.Context) (system.Result, error)
	// Install installs the targets in one call.
	Install(ctx context.Context, req InstallRequest) (system.Result, error)
	// Remove removes names in one call, purging configuration with purge.
	Remove(ctx context.Context, names []string, purge bool) (system.Result, error)
	// Hold pins names at their installed version (unhold with hold false).
	Hold(ctx context.Context, names []string, hold bool) (system.Result, error)
	// Held returns the names currently held.
	Held(ctx context.Context) (map[string]bool, error)
	// Upgrade upgrades every package (dist_upgrade where the manager
	// distinguishes it).
	Upgrade(ctx context.Context, dist bool) (system.Result, error)
	// Compare compares two versions in the manager's ordering: -1, 0, 1.
	Compare(a, b string) int
}

// RemovedLister is implemented by managers that know removed packages
// whose configuration remains (dpkg's config-files state).
type RemovedLister interface {
	ListRemoved(ctx context.Context) (Installed, error)
}

// factories builds a Manager per os_family.
var factories = map[string]func(system.Runner) Manager{}

// Register makes f the manager for os family; it panics on a duplicate.
func Register(family string, f func(system.Runner) Manager) {
	if _, dup := factories[family]; dup {
		panic(fmt.Sprintf("pkgmgr: duplicate family %q", family))
	}
	factories[family] = f
}

func init() {
	Register("Debian", func(r system.Runner) Manager { return NewApt(lockRetry{Runner: r}) })
	Register("RedHat", func(r system.Runner) Manager { return NewDnf(r) })
	Register("Alpine", func(r system.Runner) Manager { return NewApk(r) })
}

// ErrUnsupported reports an os family without a package manager.
type ErrUnsupported struct{ Family string }

// Error names the os family that has no package manager.
func (e *ErrUnsupported) Error() string {
	return fmt.Sprintf("no package manager for os_family %q", e.Family)
}

// For returns the manager of os family (the os_family grain), running its
// commands with r.
func For(family string, r system.Runner) (Manager, error) {
	f, ok := factories[family]
	if !ok {
		return nil, &ErrUnsupported{Family: family}
	}
	return f(r), nil
}

// Compare compares two versions with the ordering of os family's package
// manager (dpkg's for Debian, rpm's for RedHat/Suse, apk's for Alpine),
// returning -1, 0 or 1.
func Compare(family, a, b string) int {
	switch family {
	case "RedHat", "Suse":
		return sign(CompareRPM(a, b))
	case "Alpine":
		return sign(CompareAPK(a, b))
	}
	return sign(CompareDebian(a, b))
}

// InstalledVersion returns the installed version of name ("" when it is
// not installed; versions joined with "," when several are).
func InstalledVersion(ctx context.Context, m Manager, name string) (string, error) {
	in, err := m.ListInstalled(ctx)
	if err != nil {
		return "", err
	}
	vs := append([]string(nil), in[name]...)
	sort.Strings(vs)
	out := ""
	for i, v := range vs {
		if i > 0 {
			out += ","
		}
		out += v
	}
	return out, nil
}
