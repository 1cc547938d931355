package pkgmgr

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"brine/internal/system"
)

// Apt is the Debian family's manager: dpkg's status database for reads,
// apt-get and dpkg for changes, apt-cache for candidates.
type Apt struct {
	Runner system.Runner
	// Root is the root of the dpkg database ("/" when empty).
	Root string
	// Arch is dpkg's native architecture (from the Go build when empty);
	// packages of other architectures are listed as name:arch.
	Arch string
}

// NewApt returns the apt manager running commands with r.
func NewApt(r system.Runner) *Apt { return &Apt{Runner: r} }

// Name returns "apt".
func (a *Apt) Name() string { return "apt" }

// Compare uses dpkg's version ordering.
func (a *Apt) Compare(x, y string) int { return sign(CompareDebian(x, y)) }

// aptEnv is the environment Salt runs apt-get with.
var aptEnv = []string{"APT_LISTBUGS_FRONTEND=none", "APT_LISTCHANGES_FRONTEND=none", "DEBIAN_FRONTEND=noninteractive", "UCF_FORCE_CONFFOLD=1"}

func (a *Apt) nativeArch() string {
	if a.Arch != "" {
		return a.Arch
	}
	switch runtime.GOARCH {
	case "386":
		return "i386"
	case "arm":
		return "armhf"
	}
	return runtime.GOARCH
}

// dpkgEntry is one stanza of dpkg's status file.
type dpkgEntry struct {
	Package, Status, Version, Arch string
}

func (a *Apt) statusEntries() ([]dpkgEntry, error) {
	root := a.Root
	if root == "" {
		root = "/"
	}
	f, err := os.Open(filepath.Join(root, "var/lib/dpkg/status"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []dpkgEntry
	var cur dpkgEntry
	flush := func() {
		if cur.Package != "" {
			out = append(out, cur)
		}
		cur = dpkgEntry{}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 256*1024), 4*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			flush()
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "Package":
			cur.Package = v
		case "Status":
			cur.Status = v
		case "Version":
			cur.Version = v
		case "Architecture":
			cur.Arch = v
		}
	}
	flush()
	return out, sc.Err()
}

func (a *Apt) displayName(e dpkgEntry) string {
	if e.Arch != "all" && e.Arch != "" && e.Arch != a.nativeArch() && a.nativeArch() == "amd64" {
		return e.Package + ":" + e.Arch
	}
	return e.Package
}

// ListInstalled reads dpkg's status database with the rules of Salt's
// aptpkg.list_pkgs: packages wanted installed (or deinstalled) or held
// whose state mentions installed, and packages wanted purged that are
// still installed.
func (a *Apt) ListInstalled(context.Context) (Installed, error) {
	return a.list(false)
}

// ListRemoved lists the packages removed but not purged (their
// configuration files remain), as list_pkgs(removed=True).
func (a *Apt) ListRemoved(context.Context) (Installed, error) {
	return a.list(true)
}

func (a *Apt) list(removed bool) (Installed, error) {
	entries, err := a.statusEntries()
	if err != nil {
		return nil, err
	}
	out := Installed{}
	for _, e := range entries {
		f := strings.Fields(e.Status)
		if len(f) != 3 {
			continue
		}
		want, state := f[0], f[2]
		var inst, rem bool
		switch {
		case (strings.Contains(want, "install") || strings.Contains(want, "hold")) && strings.Contains(state, "installed"):
			inst = true
		case strings.Contains(want, "deinstall"):
			rem = true
		case strings.Contains(want, "purge") && state == "installed":
			inst = true
		}
		if (inst && !removed) || (rem && removed) {
			out.add(a.displayName(e), e.Version)
		}
	}
	return out, nil
}

// Held returns the packages marked hold in dpkg's selections.
func (a *Apt) Held(context.Context) (map[string]bool, error) {
	entries, err := a.statusEntries()
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, e := range entries {
		if strings.HasPrefix(e.Status, "hold ") {
			out[a.displayName(e)] = true
		}
	}
	return out, nil
}

// Candidates asks `apt-cache policy` about all names at once.
func (a *Apt) Candidates(ctx context.Context, names []string, fromRepo string) (map[string]string, error) {
	out := make(map[string]string, len(names))
	for _, n := range names {
		out[n] = ""
	}
	if len(names) == 0 {
		return out, nil
	}
	args := []string{"-q", "policy"}
	args = append(args, names...)
	if fromRepo != "" {
		args = append(args, "-o", "APT::Default-Release="+fromRepo)
	}
	res, err := a.Runner.Run(ctx, system.Cmd{Name: "apt-cache", Args: args, Env: aptEnv})
	if err != nil {
		return nil, err
	}
	cur := ""
	for _, line := range strings.Split(res.Stdout, "\n") {
		if line == "" {
			continue
		}
		if line[0] != ' ' && strings.HasSuffix(line, ":") {
			cur = strings.TrimSuffix(line, ":")
			continue
		}
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "Candidate:") && cur != "" {
			c := strings.TrimSpace(strings.TrimPrefix(t, "Candidate:"))
			if strings.EqualFold(c, "(none)") {
				c = ""
			}
			if _, asked := out[cur]; asked {
				out[cur] = c
			}
		}
	}
	return out, nil
}

// Refresh runs apt-get update.
func (a *Apt) Refresh(ctx context.Context) (system.Result, error) {
	return system.Must(ctx, a.Runner, system.Cmd{Name: "apt-get", Args: []string{"-q", "update"}, Env: aptEnv})
}

func aptPrefix() []string {
	return []string{"-q", "-y", "-o", "DPkg::Options::=--force-confold", "-o", "DPkg::Options::=--force-confdef"}
}

// Install runs one apt-get install for every target (name=version pins the
// version).
func (a *Apt) Install(ctx context.Context, req InstallRequest) (system.Result, error) {
	args := aptPrefix()
	if req.NoRecommends {
		args = append(args, "--no-install-recommends")
	}
	if req.DowngradeOK {
		args = append(args, "--allow-downgrades")
	}
	if req.Reinstall {
		args = append(args, "--reinstall")
	}
	if req.FromRepo != "" {
		args = append(args, "-t", req.FromRepo)
	}
	args = append(args, req.ExtraArgs...)
	args = append(args, "install")
	for _, t := range req.Targets {
		if t.Version != "" {
			args = append(args, t.Name+"="+t.Version)
		} else {
			args = append(args, t.Name)
		}
	}
	return system.Must(ctx, a.Runner, system.Cmd{Name: "apt-get", Args: args, Env: aptEnv})
}

// Remove runs one apt-get remove (or purge).
func (a *Apt) Remove(ctx context.Context, names []string, purge bool) (system.Result, error) {
	action := "remove"
	if purge {
		action = "purge"
	}
	args := append([]string{"-q", "-y", action}, names...)
	return system.Must(ctx, a.Runner, system.Cmd{Name: "apt-get", Args: args, Env: aptEnv})
}

// Hold sets dpkg selections to hold (or back to install).
func (a *Apt) Hold(ctx context.Context, names []string, hold bool) (system.Result, error) {
	state := "install"
	if hold {
		state = "hold"
	}
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n + " " + state + "\n")
	}
	return system.Must(ctx, a.Runner, system.Cmd{Name: "dpkg", Args: []string{"--set-selections"}, Stdin: b.String()})
}

// Upgrade runs apt-get upgrade or dist-upgrade.
func (a *Apt) Upgrade(ctx context.Context, dist bool) (system.Result, error) {
	action := "upgrade"
	if dist {
		action = "dist-upgrade"
	}
	return system.Must(ctx, a.Runner, system.Cmd{Name: "apt-get", Args: append(aptPrefix(), action), Env: aptEnv})
}
