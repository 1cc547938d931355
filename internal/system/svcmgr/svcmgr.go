// Package svcmgr drives the init system: systemd through systemctl where
// systemd is PID 1 (as Salt's systemd_service module does), else SysV
// init scripts (service, update-rc.d or chkconfig), behind one Manager
// interface.
package svcmgr

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"brine/internal/system"
)

// Manager controls services.
type Manager interface {
	// Name is "systemd" or "sysvinit".
	Name() string
	// Available reports whether the service exists.
	Available(ctx context.Context, name string) (bool, error)
	// Status reports whether the service is running.
	Status(ctx context.Context, name string) (bool, error)
	// Enabled reports whether the service starts at boot.
	Enabled(ctx context.Context, name string) (bool, error)
	// Masked reports whether the service is masked, until reboot only
	// with runtime true (always false for SysV).
	Masked(ctx context.Context, name string, runtime bool) (bool, error)
	// Start, Stop, Restart and Reload change the running state.
	Start(ctx context.Context, name string) error
	Stop(ctx context.Context, name string) error
	Restart(ctx context.Context, name string) error
	Reload(ctx context.Context, name string) error
	// Enable and Disable change the boot state.
	Enable(ctx context.Context, name string) error
	Disable(ctx context.Context, name string) error
	// Mask and Unmask (runtime only with runtime true); SysV cannot.
	Mask(ctx context.Context, name string, runtime bool) error
	Unmask(ctx context.Context, name string, runtime bool) error
	// List returns the names of the services known.
	List(ctx context.Context) ([]string, error)
}

// SystemdBooted reports whether systemd is the running init system (the
// test sd_booted uses).
func SystemdBooted() bool {
	_, err := os.Stat("/run/systemd/system")
	return err == nil
}

// New returns the manager for this machine: systemd when it is booted,
// else SysV init.
func New(r system.Runner) Manager {
	if SystemdBooted() {
		return NewSystemd(r)
	}
	return &SysV{Runner: r}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// SysV drives init scripts under InitDir, with update-rc.d (Debian) or
// chkconfig (RedHat) for boot links.
type SysV struct {
	Runner system.Runner
	// Root prefixes the paths looked at ("" for /).
	Root string
}

// Name returns "sysvinit".
func (s *SysV) Name() string { return "sysvinit" }

func (s *SysV) path(p string) string { return filepath.Join("/", s.Root, p) }

func (s *SysV) script(name string) string { return s.path("/etc/init.d/" + name) }

// Available reports whether an executable init script exists.
func (s *SysV) Available(_ context.Context, name string) (bool, error) {
	st, err := os.Stat(s.script(name))
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0, nil
}

// cmd is the command running action on name: `service name action` as
// Salt's debian_service and rh_service do, or the script itself under a
// Root or without the service wrapper.
func (s *SysV) cmd(name, action string) system.Cmd {
	if s.Root == "" {
		if p, err := exec.LookPath("service"); err == nil {
			return system.Cmd{Name: p, Args: []string{name, action}}
		}
	}
	return system.Cmd{Name: s.script(name), Args: []string{action}}
}

func (s *SysV) run(ctx context.Context, name, action string) (system.Result, error) {
	if ok, _ := s.Available(ctx, name); !ok {
		return system.Result{}, fmt.Errorf("service %s is not available: no init script %s", name, s.script(name))
	}
	return s.Runner.Run(ctx, s.cmd(name, action))
}

func (s *SysV) must(ctx context.Context, name, action string) error {
	res, err := s.run(ctx, name, action)
	if err != nil {
		return err
	}
	if res.Code != 0 {
		return &system.CommandError{Cmd: s.cmd(name, action), Result: res}
	}
	return nil
}

// Status runs the script's status action (exit 0 means running); a
// service without a script is not running.
func (s *SysV) Status(ctx context.Context, name string) (bool, error) {
	if ok, _ := s.Available(ctx, name); !ok {
		return false, nil
	}
	res, err := s.run(ctx, name, "status")
	if err != nil {
		return false, err
	}
	return res.Code == 0, nil
}

// Enabled looks for a start link of the service in a multi-user runlevel.
func (s *SysV) Enabled(_ context.Context, name string) (bool, error) {
	for _, rl := range []string{"2", "3", "4", "5", "S"} {
		links, _ := filepath.Glob(s.path("/etc/rc" + rl + ".d/S[0-9][0-9]" + name))
		if len(links) > 0 {
			return true, nil
		}
		links, _ = filepath.Glob(s.path("/etc/rc.d/rc" + rl + ".d/S[0-9][0-9]" + name))
		if len(links) > 0 {
			return true, nil
		}
	}
	return false, nil
}

// Masked is always false: SysV init has no masking.
func (s *SysV) Masked(context.Context, string, bool) (bool, error) { return false, nil }

// Start runs the script's start action.
func (s *SysV) Start(ctx context.Context, name string) error { return s.must(ctx, name, "start") }

// Stop runs the script's stop action.
func (s *SysV) Stop(ctx context.Context, name string) error { return s.must(ctx, name, "stop") }

// Restart runs the script's restart action.
func (s *SysV) Restart(ctx context.Context, name string) error { return s.must(ctx, name, "restart") }

// Reload runs the script's reload action.
func (s *SysV) Reload(ctx context.Context, name string) error { return s.must(ctx, name, "reload") }

func (s *SysV) bootTool(ctx context.Context, name string, enable bool) error {
	var c system.Cmd
	if _, err := exec.LookPath("update-rc.d"); err == nil {
		if enable {
			// defaults creates the links if missing; enable turns them on.
			if _, err := system.Must(ctx, s.Runner, system.Cmd{Name: "update-rc.d", Args: []string{name, "defaults"}}); err != nil {
				return err
			}
			c = system.Cmd{Name: "update-rc.d", Args: []string{name, "enable"}}
		} else {
			c = system.Cmd{Name: "update-rc.d", Args: []string{name, "disable"}}
		}
	} else if _, err := exec.LookPath("chkconfig"); err == nil {
		state := "off"
		if enable {
			state = "on"
		}
		c = system.Cmd{Name: "chkconfig", Args: []string{name, state}}
	} else {
		return fmt.Errorf("neither update-rc.d nor chkconfig is installed: cannot change the boot state of %s", name)
	}
	_, err := system.Must(ctx, s.Runner, c)
	return err
}

// Enable creates and enables the boot links.
func (s *SysV) Enable(ctx context.Context, name string) error { return s.bootTool(ctx, name, true) }

// Disable disables the boot links.
func (s *SysV) Disable(ctx context.Context, name string) error { return s.bootTool(ctx, name, false) }

// Mask is not possible without systemd.
func (s *SysV) Mask(context.Context, string, bool) error {
	return fmt.Errorf("masking services needs systemd")
}

// Unmask is not possible without systemd.
func (s *SysV) Unmask(context.Context, string, bool) error {
	return fmt.Errorf("unmasking services needs systemd")
}

// List returns the init scripts.
func (s *SysV) List(context.Context) ([]string, error) {
	ents, err := os.ReadDir(s.path("/etc/init.d"))
	if err != nil {
		return nil, nil
	}
	seen := map[string]bool{}
	for _, e := range ents {
		n := e.Name()
		if n == "README" || n == "skeleton" || n == "rc" || n == "rcS" || n == "functions" || strings.HasPrefix(n, ".") {
			continue
		}
		if info, err := e.Info(); err == nil && info.Mode()&0o111 != 0 {
			seen[n] = true
		}
	}
	return sortedKeys(seen), nil
}
