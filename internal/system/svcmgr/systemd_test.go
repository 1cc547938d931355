package svcmgr

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/system"
)

// fakeSystemctl answers systemctl as systemd 252 does; status and
// is-active answers come from the maps (by unit), anything else succeeds.
type fakeSystemctl struct {
	status map[string]system.Result // systemctl status <unit>
	fail   map[string]system.Result // by action word: start, stop, ...
}

func (f fakeSystemctl) recorder() *system.Recorder {
	return &system.Recorder{Reply: func(c system.Cmd) (system.Result, bool) {
		args := c.Args
		if c.Name == "systemd-run" {
			args = args[2:]
		}
		if len(args) > 0 && args[0] == "--version" {
			return system.Result{Stdout: "systemd 252 (252.33-1~deb12u1)\n+PAM +AUDIT\n"}, true
		}
		for i, a := range args {
			if a == "status" && i+1 < len(args) {
				if r, ok := f.status[args[i+1]]; ok {
					return r, true
				}
				return system.Result{Stdout: "Unit " + args[i+1] + " could not be found.\n", Code: 4}, true
			}
			if r, ok := f.fail[a]; ok {
				return r, true
			}
		}
		return system.Result{}, true
	}}
}

func withUnitDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	old := localUnitDir
	localUnitDir = dir
	t.Cleanup(func() { localUnitDir = old })
	return dir
}

// TestSystemdCommands checks the command lines the Salt-compatible
// systemd manager runs, in order, for each operation.
func TestSystemdCommands(t *testing.T) {
	unitDir := withUnitDir(t)
	if err := os.WriteFile(filepath.Join(unitDir, "fresh.service"), []byte("[Service]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	running := system.Result{Stdout: "● cron.service - cron\n     Loaded: loaded (/lib/systemd/system/cron.service; enabled)\n"}
	changed := system.Result{Stdout: "Warning: The unit file changed on disk. Run 'systemctl daemon-reload' to reload units.\n"}
	f := fakeSystemctl{
		status: map[string]system.Result{"cron.service": running, "ssh.service": changed, "x.service": running},
		fail: map[string]system.Result{
			"stop":       {Stderr: "Failed to stop\n", Code: 5},
			"reload":     {Stderr: "Running as unit: run-u1.scope\nJob for x.service failed.\n", Code: 1},
			"is-enabled": {Stdout: "disabled\n", Code: 1},
		},
	}
	bg := context.Background()
	for _, tc := range []struct {
		name  string
		mgr   func(r system.Runner) *Systemd
		run   func(s *Systemd) (any, error)
		want  any
		err   string
		lines []string
	}{
		{"status", NewSystemd, func(s *Systemd) (any, error) { return s.Status(bg, "cron") }, true, "",
			[]string{"systemctl status cron.service -n 0", "systemctl is-active cron.service"}},
		{"start with a scope", NewSystemd, func(s *Systemd) (any, error) { return nil, s.Start(bg, "cron") }, nil, "",
			[]string{"systemctl status cron.service -n 0", "systemctl --version", "systemd-run --scope systemctl start cron.service"}},
		{"start without a scope", func(r system.Runner) *Systemd { return &Systemd{Runner: r, NoScope: true} },
			func(s *Systemd) (any, error) { return nil, s.Act(bg, "start", "cron", true) }, nil, "",
			[]string{"systemctl status cron.service -n 0", "systemctl --no-block start cron.service"}},
		{"a changed unit file is reloaded first", NewSystemd, func(s *Systemd) (any, error) { return nil, s.Restart(bg, "ssh") }, nil, "",
			[]string{"systemctl status ssh.service -n 0", "systemctl --system daemon-reload", "systemctl --version",
				"systemd-run --scope systemctl restart ssh.service"}},
		{"an untracked unit file is reloaded first", NewSystemd, func(s *Systemd) (any, error) { return s.Available(bg, "fresh") }, false, "",
			[]string{"systemctl status fresh.service -n 0", "systemctl --version", "systemctl --system daemon-reload",
				"systemctl status fresh.service -n 0"}},
		{"stop failure is Falsy", NewSystemd, func(s *Systemd) (any, error) { return IsFalsy(s.Stop(bg, "cron")), nil }, true, "",
			[]string{"systemctl status cron.service -n 0", "systemctl --version", "systemd-run --scope systemctl stop cron.service"}},
		{"reload failure keeps stderr minus the scope line", NewSystemd, func(s *Systemd) (any, error) { return nil, s.Reload(bg, "x") }, nil,
			"Job for x.service failed.", nil},
		{"runtime mask", NewSystemd, func(s *Systemd) (any, error) { return nil, s.Mask(bg, "x", true) }, nil, "",
			[]string{"systemctl status x.service -n 0", "systemctl --version", "systemd-run --scope systemctl mask --runtime x.service"}},
		{"unmask of an unmasked unit does nothing", NewSystemd, func(s *Systemd) (any, error) { return nil, s.Unmask(bg, "x", false) }, nil, "",
			[]string{"systemctl status x.service -n 0"}},
		{"enabled template instance", NewSystemd, func(s *Systemd) (any, error) { return s.Enabled(bg, "getty@tty1") }, false, "",
			[]string{"systemctl is-enabled getty@tty1.service", "find " + unitDir + " -name getty@tty1 -type l -print -quit"}},
		{"offline availability", func(r system.Runner) *Systemd { return &Systemd{Runner: r, Offline: true} },
			func(s *Systemd) (any, error) { return s.Available(bg, "fresh") }, false,
			"Cannot run in offline mode. Failed to get information on unit 'fresh'", nil},
		{"daemon-reload failure", func(r system.Runner) *Systemd {
			return &Systemd{Runner: &system.Recorder{Reply: func(system.Cmd) (system.Result, bool) {
				return system.Result{Stderr: "Failed to connect to bus: Host is down\n", Code: 1}, true
			}}}
		}, func(s *Systemd) (any, error) { return nil, s.DaemonReload(bg) }, nil,
			"Problem performing systemctl daemon-reload: Failed to connect to bus: Host is down", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := f.recorder()
			s := tc.mgr(rec)
			if _, ok := s.Runner.(*system.Recorder); !ok || s.Runner == nil {
				s.Runner = rec
			}
			got, err := tc.run(s)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if tc.want != nil && got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if tc.lines != nil {
				if r, ok := s.Runner.(*system.Recorder); ok && strings.Join(r.Lines(), "\n") != strings.Join(tc.lines, "\n") {
					t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(r.Lines(), "\n"), strings.Join(tc.lines, "\n"))
				}
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{"ssh": "ssh.service", "ssh.service": "ssh.service", "dbus.socket": "dbus.socket",
		"apt-daily.timer": "apt-daily.timer", "foomount": "foomount", "getty@tty1": "getty@tty1.service"} {
		if got := Canonical(in); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSystemdRootAndSysV checks the file-based answers under a root: the
// unit listing, masks, and an init script without a unit enabled through
// update-rc.d.
func TestSystemdRootAndSysV(t *testing.T) {
	root := t.TempDir()
	for p, data := range map[string]string{
		"usr/lib/systemd/system/ssh.service":                     "",
		"usr/lib/systemd/system/dbus.socket":                     "",
		"usr/lib/systemd/system/README":                          "",
		"etc/systemd/system/local.service":                       "",
		"etc/init.d/legacy":                                      "#!/bin/sh\n",
		"etc/init.d/ssh":                                         "#!/bin/sh\n",
		"etc/init.d/README":                                      "",
		"etc/rc5.d/.keep":                                        "",
		"etc/systemd/system/multi-user.target.wants/ssh.service": "",
	} {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(data, "#!") {
			mode = 0o755
		}
		if err := os.WriteFile(full, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/dev/null", filepath.Join(root, "etc/systemd/system/masked.service")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../init.d/legacy", filepath.Join(root, "etc/rc5.d/S01legacy")); err != nil {
		t.Fatal(err)
	}
	want := "dbus.socket,legacy,local,masked,ssh"
	if got := strings.Join(GetAll(root), ","); got != want {
		t.Errorf("GetAll = %s, want %s", got, want)
	}
	withUnitDir(t)
	rec := fakeSystemctl{status: map[string]system.Result{"masked.service": {}}}.recorder()
	rec.Reply = func(next func(system.Cmd) (system.Result, bool)) func(system.Cmd) (system.Result, bool) {
		return func(c system.Cmd) (system.Result, bool) {
			if c.Name == "runlevel" {
				return system.Result{Stdout: "N 5\n"}, true
			}
			if len(c.Args) > 0 && c.Args[len(c.Args)-1] == "legacy.service" && c.Args[len(c.Args)-2] == "is-enabled" {
				return system.Result{Code: 1}, true
			}
			return next(c)
		}
	}(rec.Reply)
	s := NewSystemd(rec)
	bg := context.Background()
	if ok, _ := s.MaskedRoot(bg, "masked", false, root); !ok {
		t.Error("masked unit not masked")
	}
	if ok, _ := s.MaskedRoot(bg, "masked", true, root); ok {
		t.Error("masked unit runtime-masked")
	}
	if ok, _ := s.EnabledRoot(bg, "legacy", root); !ok {
		t.Error("legacy script with an S link in rc5.d not enabled")
	}
	updateRC, err := exec.LookPath("update-rc.d")
	if err != nil {
		t.Skip("update-rc.d is not installed")
	}
	if err := s.EnableRoot(bg, "legacy", false, root); err != nil {
		t.Fatal(err)
	}
	lines := rec.Lines()
	if last := lines[len(lines)-1]; last != "systemd-run --scope "+updateRC+" -f legacy defaults 99" {
		t.Errorf("enable of an init script ran %q", last)
	}
}
