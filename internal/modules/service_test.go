package modules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/system"
	"brine/internal/system/svcmgr"
	"brine/internal/value"
)

// TestServiceSysV reads boot links of a SysV machine root in a temp dir
// (runlevel is asked of the real machine; "unknown" means 2).
func TestServiceSysV(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"etc/init.d/README": "", "etc/rc2.d/README": ""})
	for _, s := range []string{"ssh", "cron", "nginx"} {
		os.WriteFile(filepath.Join(root, "etc/init.d", s), []byte("#!/bin/sh\n"), 0o755)
	}
	os.MkdirAll(filepath.Join(root, "etc/rcS.d"), 0o755)
	os.Symlink("../init.d/ssh", filepath.Join(root, "etc/rc2.d/S01ssh"))
	os.Symlink("../init.d/cron", filepath.Join(root, "etc/rcS.d/S02cron"))
	os.Symlink("../init.d/nginx", filepath.Join(root, "etc/rc2.d/K01nginx"))
	ctx := testContext()
	ctx.SetService(SvcManagerService, &svcmgr.SysV{Runner: system.Exec{}, Root: root})
	if rl := value.Str(call(t, ctx, "cmd.run", []any{"runlevel"})); !strings.Contains(rl, "unknown") && !strings.HasSuffix(strings.TrimSpace(rl), " 2") {
		t.Skipf("runlevel is %q here, not 2", rl)
	}
	for _, tc := range []struct {
		fun  string
		want string
	}{
		{"service.get_enabled", "['cron', 'ssh']"},
		{"service.get_disabled", "['nginx']"},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, nil)); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.fun, got, tc.want)
		}
	}
	if _, err := ctx.Call("service.show", []any{"ssh"}, nil); err == nil || err.Error() != "'service.show' is not available." {
		t.Errorf("service.show under SysV: %v", err)
	}
}

// TestServiceSystemdCommands checks the systemctl commands the systemd
// functions run and how they read the answers (systemd is not booted on
// every test machine).
func TestServiceSystemdCommands(t *testing.T) {
	rec := &system.Recorder{Reply: func(c system.Cmd) (system.Result, bool) {
		args := strings.Join(c.Args, " ")
		switch {
		case strings.HasSuffix(args, "list-unit-files"):
			return system.Result{Stdout: "ssh.service enabled enabled\ncron.service enabled enabled\ngetty@.service static -\n" +
				"apt-daily.timer enabled enabled\nnginx.service disabled enabled\nsys-kernel.mount static -\n"}, true
		case args == "--full --no-legend --no-pager":
			return system.Result{Stdout: "ssh.service loaded active running OpenSSH\ncron.service loaded active exited Cron\n"}, true
		case args == "show ssh.service":
			return system.Result{Stdout: "Id=ssh.service\nAfter=network.target auditd.service\n" +
				"ExecStart={ path=/usr/sbin/sshd ; argv[]=/usr/sbin/sshd -D $SSHD_OPTS ; ignore_errors=no }\n"}, true
		case strings.HasPrefix(args, "list-units"):
			return system.Result{Stdout: "ssh.service loaded active running OpenSSH\n"}, true
		}
		return system.Result{}, true
	}}
	ctx := testContext()
	ctx.SetService(SvcManagerService, &svcmgr.Systemd{Runner: rec})
	for _, tc := range []struct {
		fun  string
		args []any
		want string
	}{
		{"service.get_running", nil, "['ssh']"},
		{"service.get_static", nil, "['getty@', 'sys-kernel.mount']"},
		{"service.get_disabled", nil, "['nginx']"},
		{"service.show", []any{"ssh"}, "{'Id': 'ssh.service', 'After': ['network.target', 'auditd.service'], " +
			"'ExecStart': {'path': '/usr/sbin/sshd', 'argv[]': '/usr/sbin/sshd -D $SSHD_OPTS', 'ignore_errors': 'no'}}"},
		{"service.force_reload", []any{"ssh"}, "True"},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, tc.args)); got != tc.want {
			t.Errorf("%s%v = %s, want %s", tc.fun, tc.args, got, tc.want)
		}
	}
	root := t.TempDir()
	writeTree(t, root, map[string]string{"etc/rc2.d/S01legacy": "", "etc/rc2.d/S01ssh": ""})
	os.MkdirAll(filepath.Join(root, "etc/init.d"), 0o755)
	for _, s := range []string{"legacy", "ssh"} {
		os.WriteFile(filepath.Join(root, "etc/init.d", s), []byte("#!/bin/sh\n"), 0o755)
	}
	if rl := value.Str(call(t, ctx, "cmd.run", []any{"runlevel"})); strings.Contains(rl, "unknown") || strings.HasSuffix(strings.TrimSpace(rl), " 2") {
		if got := value.Repr(call(t, ctx, "service.get_enabled", nil, "root", root)); got != "['apt-daily.timer', 'cron', 'legacy', 'ssh']" {
			t.Errorf("get_enabled = %s", got)
		}
	}
	lines := strings.Join(rec.Lines(), "\n")
	if !strings.Contains(lines, "systemctl --no-block force-reload ssh.service") || !strings.Contains(lines, "systemctl --root "+root+" --full --no-legend --no-pager list-unit-files") {
		t.Errorf("commands run:\n%s", lines)
	}
}
