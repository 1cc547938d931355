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

func TestSystemdReal(t *testing.T) {
	if !SystemdBooted() {
		t.Skip("systemd is not PID 1 on this machine (no /run/systemd/system): real systemctl runs cannot be tested here")
	}
	s := &Systemd{Runner: system.Exec{}}
	if ok, err := s.Available(context.Background(), "brine-no-such-unit"); err != nil || ok {
		t.Errorf("Available(missing) = %v, %v", ok, err)
	}
}

const initScript = `#!/bin/sh
PIDFILE="$(dirname "$0")/../../run/brinetest.pid"
case "$1" in
start) sleep 300 >/dev/null 2>&1 & echo $! > "$PIDFILE" ;;
stop) [ -f "$PIDFILE" ] && kill "$(cat "$PIDFILE")" 2>/dev/null; rm -f "$PIDFILE" ;;
status) [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null ;;
restart|reload) "$0" stop; "$0" start ;;
*) exit 3 ;;
esac
`

// TestSysVReal runs a real init script in a throwaway root.
func TestSysVReal(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"etc/init.d", "run", "etc/rc2.d"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "etc/init.d/brinetest"), []byte(initScript), 0o755); err != nil {
		t.Fatal(err)
	}
	s := &SysV{Runner: system.Exec{}, Root: root}
	ctx := context.Background()
	if ok, _ := s.Available(ctx, "brinetest"); !ok {
		t.Fatal("script not available")
	}
	if ok, _ := s.Available(ctx, "other"); ok {
		t.Error("missing script available")
	}
	if ok, _ := s.Status(ctx, "brinetest"); ok {
		t.Error("running before start")
	}
	if err := s.Start(ctx, "brinetest"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(ctx, "brinetest") })
	if ok, _ := s.Status(ctx, "brinetest"); !ok {
		t.Error("not running after start")
	}
	if err := s.Restart(ctx, "brinetest"); err != nil {
		t.Error(err)
	}
	if err := s.Stop(ctx, "brinetest"); err != nil {
		t.Error(err)
	}
	if ok, _ := s.Status(ctx, "brinetest"); ok {
		t.Error("running after stop")
	}
	if ok, _ := s.Enabled(ctx, "brinetest"); ok {
		t.Error("enabled without links")
	}
	if err := os.Symlink("../init.d/brinetest", filepath.Join(root, "etc/rc2.d/S01brinetest")); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Enabled(ctx, "brinetest"); !ok {
		t.Error("not enabled with an S link")
	}
	if l, _ := s.List(ctx); strings.Join(l, ",") != "brinetest" {
		t.Errorf("List = %v", l)
	}
	if err := s.Mask(ctx, "brinetest", false); err == nil {
		t.Error("SysV mask did not fail")
	}
}

const lsbScript = `#!/bin/sh
### BEGIN INIT INFO
# Provides:          brinetestsvc
# Required-Start:
# Required-Stop:
# Default-Start:     2 3 4 5
# Default-Stop:      0 1 6
# Short-Description: brine svcmgr test service
### END INIT INFO
PIDFILE=/run/brinetestsvc.pid
case "$1" in
start) sleep 300 >/dev/null 2>&1 & echo $! > "$PIDFILE" ;;
stop) [ -f "$PIDFILE" ] && kill "$(cat "$PIDFILE")" 2>/dev/null; rm -f "$PIDFILE" ;;
status) [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null ;;
restart|reload) "$0" stop; "$0" start ;;
*) exit 3 ;;
esac
`

// TestSysVSystemReal installs a throwaway init script in /etc/init.d and
// drives it through service and update-rc.d, then removes every trace.
func TestSysVSystemReal(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to install a throwaway init script")
	}
	if SystemdBooted() {
		t.Skip("systemd is PID 1: service would hand the script to systemctl; the SysV path is tested where systemd is not running")
	}
	for _, tool := range []string{"service", "update-rc.d"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed here", tool)
		}
	}
	const name = "brinetestsvc"
	script := "/etc/init.d/" + name
	s := &SysV{Runner: system.Exec{}}
	ctx := context.Background()
	cleanup := func() {
		_ = exec.Command(script, "stop").Run()
		_ = exec.Command("update-rc.d", "-f", name, "remove").Run()
		_ = os.Remove(script)
	}
	cleanup()
	t.Cleanup(cleanup)
	if err := os.WriteFile(script, []byte(lsbScript), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx, name); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Status(ctx, name); !ok {
		t.Error("not running after service start")
	}
	if err := s.Stop(ctx, name); err != nil {
		t.Error(err)
	}
	if ok, _ := s.Status(ctx, name); ok {
		t.Error("running after service stop")
	}
	if err := s.Enable(ctx, name); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Enabled(ctx, name); !ok {
		t.Error("not enabled after update-rc.d enable")
	}
	if err := s.Disable(ctx, name); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Enabled(ctx, name); ok {
		t.Error("enabled after update-rc.d disable")
	}
	cleanup()
	if links, _ := filepath.Glob("/etc/rc?.d/[SK]??" + name); len(links) > 0 {
		t.Errorf("links left behind: %v", links)
	}
}
