package pkgmgr

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"brine/internal/system"
)

// Apk is Alpine's manager: the installed database read directly, apk for
// the rest.
type Apk struct {
	Runner system.Runner
	// Root is the root of apk's database ("/" when empty).
	Root string
}

// NewApk returns the apk manager.
func NewApk(r system.Runner) *Apk { return &Apk{Runner: r} }

// Name returns "apk".
func (a *Apk) Name() string { return "apk" }

// Compare uses apk's version ordering.
func (a *Apk) Compare(x, y string) int { return sign(CompareAPK(x, y)) }

// ListInstalled reads /lib/apk/db/installed.
func (a *Apk) ListInstalled(context.Context) (Installed, error) {
	root := a.Root
	if root == "" {
		root = "/"
	}
	f, err := os.Open(filepath.Join(root, "lib/apk/db/installed"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := Installed{}
	name := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			name = ""
		case strings.HasPrefix(line, "P:"):
			name = line[2:]
		case strings.HasPrefix(line, "V:") && name != "":
			out.add(name, line[2:])
		}
	}
	return out, sc.Err()
}

// Held returns the packages pinned in /etc/apk/world (name=version).
func (a *Apk) Held(context.Context) (map[string]bool, error) {
	root := a.Root
	if root == "" {
		root = "/"
	}
	data, err := os.ReadFile(filepath.Join(root, "etc/apk/world"))
	out := map[string]bool{}
	if err != nil {
		return out, nil
	}
	for _, w := range strings.Fields(string(data)) {
		if n, _, ok := strings.Cut(w, "="); ok {
			out[n] = true
		}
	}
	return out, nil
}

// Candidates runs `apk policy` for each name and takes the newest version
// it lists.
func (a *Apk) Candidates(ctx context.Context, names []string, _ string) (map[string]string, error) {
	out := make(map[string]string, len(names))
	for _, n := range names {
		out[n] = ""
		res, err := a.Runner.Run(ctx, system.Cmd{Name: "apk", Args: []string{"policy", n}})
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(res.Stdout, "\n") {
			if strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "    ") && strings.HasSuffix(line, ":") {
				v := strings.TrimSuffix(strings.TrimSpace(line), ":")
				if out[n] == "" || CompareAPK(v, out[n]) > 0 {
					out[n] = v
				}
			}
		}
	}
	return out, nil
}

// Refresh runs apk update.
func (a *Apk) Refresh(ctx context.Context) (system.Result, error) {
	return system.Must(ctx, a.Runner, system.Cmd{Name: "apk", Args: []string{"update"}})
}

// Install runs one apk add (name=version pins a version).
func (a *Apk) Install(ctx context.Context, req InstallRequest) (system.Result, error) {
	args := []string{"add"}
	if req.FromRepo != "" {
		args = append(args, "--repository", req.FromRepo)
	}
	args = append(args, req.ExtraArgs...)
	for _, t := range req.Targets {
		if t.Version != "" {
			args = append(args, t.Name+"="+t.Version)
		} else {
			args = append(args, t.Name)
		}
	}
	return system.Must(ctx, a.Runner, system.Cmd{Name: "apk", Args: args})
}

// Remove runs one apk del (apk has no purge: same command).
func (a *Apk) Remove(ctx context.Context, names []string, _ bool) (system.Result, error) {
	return system.Must(ctx, a.Runner, system.Cmd{Name: "apk", Args: append([]string{"del"}, names...)})
}

// Hold is not supported by apk (pin with name=version in Install).
func (a *Apk) Hold(context.Context, []string, bool) (system.Result, error) {
	return system.Result{}, errors.New("apk cannot hold packages: pin a version instead")
}

// Upgrade runs apk upgrade.
func (a *Apk) Upgrade(ctx context.Context, _ bool) (system.Result, error) {
	return system.Must(ctx, a.Runner, system.Cmd{Name: "apk", Args: []string{"upgrade"}})
}
