package modules

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"brine/internal/execmod"
	"brine/internal/value"
)

func TestCmdShellInfo(t *testing.T) {
	ctx := testContext()
	for _, tc := range []struct {
		shell string
		want  string // repr, or "!error"
		skip  func() bool
	}{
		{"foo", "{'error': 'Salt does not know how to get the version number for foo', 'installed': None}", nil},
		{"tcsh", "{'error': \"Unable to run command 'tcsh --version' Reason: [Errno 2] No such file or directory: 'tcsh'\", 'installed': False}",
			func() bool { return hasCmd("tcsh") }},
		// Salt 3006 matches a str pattern against bytes for every shell
		// that runs: salt-call reports invalid arguments.
		{"bash", "!cannot use a string pattern on a bytes-like object", nil},
	} {
		if tc.skip != nil && tc.skip() {
			continue
		}
		got, err := ctx.Call("cmd.shell_info", []any{tc.shell}, nil)
		if want, isErr := strings.CutPrefix(tc.want, "!"); isErr {
			var inv *execmod.InvocationError
			if !errors.As(err, &inv) || inv.Msg != want {
				t.Errorf("shell_info %s: %v, want invocation error %q", tc.shell, err, want)
			}
			continue
		}
		if err != nil || value.Repr(got) != tc.want {
			t.Errorf("shell_info %s = %s, %v; want %s", tc.shell, value.Repr(got), err, tc.want)
		}
	}
}

func TestCmdRunBg(t *testing.T) {
	ctx := testContext()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	ret := call(t, ctx, "cmd.run_bg", []any{"echo $$ > " + out + ".tmp; mv " + out + ".tmp " + out}, "python_shell", true, "timeout", int64(1))
	m := ret.(*value.Map)
	if m.Len() != 1 {
		t.Fatalf("run_bg = %s, want only the pid", value.Repr(ret))
	}
	pid, _ := m.GetString("pid")
	var data []byte
	for i := 0; i < 500; i++ {
		var err error
		if data, err = os.ReadFile(out); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if strings.TrimSpace(string(data)) != value.Str(pid) {
		t.Errorf("the background shell wrote %q, run_bg returned pid %s", data, value.Repr(pid))
	}
}

// TestCmdRunChroot runs a shell in a throwaway chroot holding dash and
// its libraries, and checks that /dev, /proc and /sys were mounted for
// the command and unmounted after, and that processes left in the chroot
// were stopped.
func TestCmdRunChroot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chroot and mount need root")
	}
	root := t.TempDir()
	copyFile := func(src, dst string) {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Skipf("cannot build the chroot: %v", err)
		}
		os.MkdirAll(filepath.Dir(filepath.Join(root, dst)), 0o755)
		if err := os.WriteFile(filepath.Join(root, dst), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dash, err := exec.LookPath("dash")
	if err != nil {
		t.Skip("dash is not installed")
	}
	copyFile(dash, "bin/sh")
	ldd, err := exec.Command("ldd", dash).Output()
	if err != nil {
		t.Skip("ldd failed")
	}
	for _, line := range strings.Split(string(ldd), "\n") {
		for _, f := range strings.Fields(line) {
			if strings.HasPrefix(f, "/") {
				copyFile(f, f)
			}
		}
	}
	for _, d := range []string{"dev", "proc", "sys", "data"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	bind := t.TempDir()
	os.WriteFile(filepath.Join(bind, "marker"), []byte("bound\n"), 0o644)
	os.MkdirAll(filepath.Join(root, strings.TrimPrefix(bind, "/")), 0o755)
	t.Cleanup(func() {
		for _, d := range []string{strings.TrimPrefix(bind, "/"), "sys", "proc", "dev"} {
			exec.Command("umount", filepath.Join(root, d)).Run()
		}
	})
	ctx := testContext()
	script := "test -e /proc/self/stat && echo proc; test -e /dev/null && echo dev; test -d /sys/kernel && echo sys; " +
		"while read l; do echo $l; done < " + bind + "/marker; exec 1>&- 2>&-; sleep 300 &"
	ret := call(t, ctx, "cmd.run_chroot", []any{root, script}, "binds", value.NewList(bind)).(*value.Map)
	if out, _ := ret.GetString("stdout"); out != "proc\ndev\nsys\nbound" {
		t.Errorf("run_chroot = %s", value.Repr(ret))
	}
	mounts, _ := os.ReadFile("/proc/self/mountinfo")
	if strings.Contains(string(mounts), root) {
		t.Errorf("mounts left under %s", root)
	}
	if pids := chrootPids(root); len(pids) > 0 {
		t.Errorf("processes left in the chroot: %v", pids)
	}
	ret = call(t, ctx, "cmd.run_chroot", []any{root, "echo secret; exit 3"}, "hide_output", true).(*value.Map)
	if out, _ := ret.GetString("stdout"); out != "" || value.Repr(mustGet(ret, "retcode")) != "3" {
		t.Errorf("hide_output run_chroot = %s", value.Repr(ret))
	}
}

func mustGet(m *value.Map, k string) any {
	v, _ := m.GetString(k)
	return v
}

func TestRebootWitness(t *testing.T) {
	old := rebootWitnessPath
	rebootWitnessPath = filepath.Join(t.TempDir(), "volatile/salt/reboot_witnessed")
	t.Cleanup(func() { rebootWitnessPath = old })
	ctx := testContext()
	for i, tc := range []struct{ fun, want string }{
		{"system.get_reboot_required_witnessed", "False"},
		{"system.set_reboot_required_witnessed", "True"},
		{"system.get_reboot_required_witnessed", "True"},
		// As in Salt, the flag is written only when its directory had to
		// be made: with the directory there the answer is False.
		{"system.set_reboot_required_witnessed", "False"},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, nil)); got != tc.want {
			t.Errorf("%d %s = %s, want %s", i, tc.fun, got, tc.want)
		}
	}
}

func TestStatusMaster(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	port := int64(ln.Addr().(*net.TCPAddr).Port)
	other, _ := net.Listen("tcp", "127.0.0.1:0")
	otherPort := int64(other.Addr().(*net.TCPAddr).Port)
	other.Close()
	ctx := testContext()
	for _, tc := range []struct {
		port   int64
		args   []any
		want   string
		reason string
	}{
		{port, nil, "None", "no master given"},
		{port, []any{"brine-no-such-host.invalid"}, "None", "the master does not resolve"},
		{port, []any{"127.0.0.1"}, "True", "connected to the publish port"},
		{port, []any{"127.0.0.1", false}, "True", "connected, though not expected"},
		{otherPort, []any{"127.0.0.1"}, "False", "nothing connected to that port"},
	} {
		ctx.Opts.Set("publish_port", tc.port)
		if got := value.Repr(call(t, ctx, "status.master", tc.args)); got != tc.want {
			t.Errorf("%s: status.master%v (port %s) = %s, want %s", tc.reason, tc.args, strconv.FormatInt(tc.port, 10), got, tc.want)
		}
	}
}

func TestStatusProxyReconnect(t *testing.T) {
	ctx := testContext()
	if got := call(t, ctx, "status.proxy_reconnect", []any{"rest_sample"}); got != false {
		t.Errorf("proxy_reconnect outside a proxy minion = %v, want False", got)
	}
	if _, err := ctx.Call("status.proxy_reconnect", nil, nil); err == nil {
		t.Error("proxy_reconnect without proxy_name did not fail")
	}
}
