package pkgmgr

import (
	"context"
	"os/exec"
	"strings"

	"brine/internal/system"
)

// Dnf is the RedHat family's manager: rpm for reads, dnf (or yum where dnf
// is missing) for changes.
type Dnf struct {
	Runner system.Runner
	// Bin is "dnf" or "yum".
	Bin string
	// Arch is the native architecture; packages of other architectures
	// are listed as name.arch, as Salt does.
	Arch string
}

// NewDnf returns the dnf manager (yum when dnf is not installed).
func NewDnf(r system.Runner) *Dnf {
	bin := "dnf"
	if _, err := exec.LookPath("dnf"); err != nil {
		if _, err := exec.LookPath("yum"); err == nil {
			bin = "yum"
		}
	}
	return &Dnf{Runner: r, Bin: bin}
}

// Name returns "dnf" or "yum".
func (d *Dnf) Name() string { return d.Bin }

// Compare uses rpm's version ordering.
func (d *Dnf) Compare(x, y string) int { return sign(CompareRPM(x, y)) }

const rpmQF = "%{NAME}_|-%{EPOCH}_|-%{VERSION}_|-%{RELEASE}_|-%{ARCH}\n"

func rpmVersion(epoch, ver, rel string) string {
	v := ver
	if rel != "" {
		v += "-" + rel
	}
	if epoch != "" && epoch != "(none)" && epoch != "0" {
		v = epoch + ":" + v
	}
	return v
}

func (d *Dnf) nativeArch() string {
	if d.Arch != "" {
		return d.Arch
	}
	return "x86_64"
}

// ListInstalled runs rpm -qa.
func (d *Dnf) ListInstalled(ctx context.Context) (Installed, error) {
	res, err := system.Must(ctx, d.Runner, system.Cmd{Name: "rpm", Args: []string{"-qa", "--queryformat", rpmQF}})
	if err != nil {
		return nil, err
	}
	out := Installed{}
	for _, line := range strings.Split(res.Stdout, "\n") {
		f := strings.Split(line, "_|-")
		if len(f) != 5 {
			continue
		}
		name := f[0]
		if f[0] == "gpg-pubkey" {
			continue
		}
		if f[4] != "noarch" && f[4] != d.nativeArch() && f[4] != "(none)" {
			name += "." + f[4]
		}
		out.add(name, rpmVersion(f[1], f[2], f[3]))
	}
	return out, nil
}

// Held lists versionlocked packages.
func (d *Dnf) Held(ctx context.Context) (map[string]bool, error) {
	res, err := d.Runner.Run(ctx, system.Cmd{Name: d.Bin, Args: []string{"-q", "versionlock", "list"}})
	out := map[string]bool{}
	if err != nil || res.Code != 0 {
		return out, err
	}
	for _, line := range strings.Split(res.Stdout, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "Last metadata") {
			continue
		}
		// name-[epoch:]version-release.arch or name-0:ver-rel.*
		s := strings.TrimSuffix(line, ".*")
		if i := strings.LastIndex(s, "-"); i > 0 {
			s = s[:i]
			if j := strings.LastIndex(s, "-"); j > 0 {
				out[s[:j]] = true
			}
		}
	}
	return out, nil
}

// Candidates asks repoquery for the newest available version of each name.
func (d *Dnf) Candidates(ctx context.Context, names []string, fromRepo string) (map[string]string, error) {
	out := make(map[string]string, len(names))
	for _, n := range names {
		out[n] = ""
	}
	if len(names) == 0 {
		return out, nil
	}
	args := []string{"-q", "repoquery", "--latest-limit", "1", "--queryformat", "%{name}_|-%{epoch}_|-%{version}_|-%{release}\n"}
	if fromRepo != "" {
		args = append(args, "--disablerepo=*", "--enablerepo="+fromRepo)
	}
	args = append(args, names...)
	res, err := d.Runner.Run(ctx, system.Cmd{Name: d.Bin, Args: args})
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(res.Stdout, "\n") {
		f := strings.Split(strings.TrimSpace(line), "_|-")
		if len(f) != 4 {
			continue
		}
		if _, asked := out[f[0]]; asked {
			v := rpmVersion(f[1], f[2], f[3])
			if cur := out[f[0]]; cur == "" || CompareRPM(v, cur) > 0 {
				out[f[0]] = v
			}
		}
	}
	return out, nil
}

// Refresh expires the metadata cache and checks for updates (exit code 100
// means updates are available, not failure).
func (d *Dnf) Refresh(ctx context.Context) (system.Result, error) {
	if _, err := d.Runner.Run(ctx, system.Cmd{Name: d.Bin, Args: []string{"-q", "clean", "expire-cache"}}); err != nil {
		return system.Result{}, err
	}
	c := system.Cmd{Name: d.Bin, Args: []string{"-q", "check-update"}}
	res, err := d.Runner.Run(ctx, c)
	if err != nil {
		return res, err
	}
	if res.Code != 0 && res.Code != 100 {
		return res, &system.CommandError{Cmd: c, Result: res}
	}
	return res, nil
}

// Install runs one dnf install (name-version pins a version).
func (d *Dnf) Install(ctx context.Context, req InstallRequest) (system.Result, error) {
	args := []string{"-y"}
	if req.NoRecommends {
		args = append(args, "--setopt=install_weak_deps=False")
	}
	if req.FromRepo != "" {
		args = append(args, "--disablerepo=*", "--enablerepo="+req.FromRepo)
	}
	args = append(args, req.ExtraArgs...)
	action := "install"
	if req.Reinstall {
		action = "reinstall"
	} else if req.DowngradeOK {
		action = "downgrade"
	}
	args = append(args, action)
	for _, t := range req.Targets {
		if t.Version != "" {
			v := t.Version
			if i := strings.IndexByte(v, ':'); i >= 0 {
				v = v[i+1:]
			}
			args = append(args, t.Name+"-"+v)
		} else {
			args = append(args, t.Name)
		}
	}
	return system.Must(ctx, d.Runner, system.Cmd{Name: d.Bin, Args: args})
}

// Remove runs one dnf remove (rpm has no purge: same command).
func (d *Dnf) Remove(ctx context.Context, names []string, _ bool) (system.Result, error) {
	return system.Must(ctx, d.Runner, system.Cmd{Name: d.Bin, Args: append([]string{"-y", "remove"}, names...)})
}

// Hold adds or deletes versionlock entries.
func (d *Dnf) Hold(ctx context.Context, names []string, hold bool) (system.Result, error) {
	action := "delete"
	if hold {
		action = "add"
	}
	return system.Must(ctx, d.Runner, system.Cmd{Name: d.Bin, Args: append([]string{"versionlock", action}, names...)})
}

// Upgrade runs dnf upgrade (distro-sync with dist).
func (d *Dnf) Upgrade(ctx context.Context, dist bool) (system.Result, error) {
	action := "upgrade"
	if dist {
		action = "distro-sync"
	}
	return system.Must(ctx, d.Runner, system.Cmd{Name: d.Bin, Args: []string{"-y", action}})
}
