// Package fwtest runs a throwaway firewalld for tests: the daemon, its own
// D-Bus system bus and its configuration live in network, mount and PID
// namespaces of their own, so the host's firewall, network, /run and
// /etc/firewalld are never touched. Commands reach the daemon through the
// prefix Prefix (nsenter into the namespaces).
package fwtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Interfaces are the two ends of a veth pair created in the namespace for
// tests that bind interfaces to zones.
var Interfaces = [2]string{"brfw0", "brfw1"}

// busConf is a system bus that lets every local client own names and call
// methods: nothing but the test's processes can reach it.
const busConf = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=/run/dbus/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
  </policy>
</busconfig>
`

// firewalldConf pins the daemon's settings, whatever the host's are.
const firewalldConf = `DefaultZone=public
CleanupOnExit=yes
CleanupModulesOnExit=no
Lockdown=no
IPv6_rpfilter=yes
IndividualCalls=no
LogDenied=off
FirewallBackend=nftables
FlushAllOnReload=yes
RFC3964_IPv4=yes
`

// nsScript runs as PID 1 of the new namespaces ($1 is the test's
// directory): a private /run, the test's configuration over
// /etc/firewalld, loopback and a veth pair, the bus, then firewalld.
const nsScript = `set -e
mount --make-rprivate /
mount -t tmpfs brine-fwtest /run
mkdir -p /run/dbus /run/firewalld
mount --bind "$1/etc" /etc/firewalld
ip link set lo up
ip link add brfw0 type veth peer name brfw1 || true
dbus-daemon --config-file="$1/bus.conf" --nofork --nopidfile &
n=0
while [ ! -S /run/dbus/system_bus_socket ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n+1)); done
firewalld --nofork --nopid --log-target file --log-file "$1/firewalld.log" &
wait
`

// Daemon is a running isolated firewalld.
type Daemon struct {
	// Prefix runs a command inside the daemon's namespaces.
	Prefix []string
	// Dir holds the bus configuration, /etc/firewalld and the log.
	Dir string
	cmd *exec.Cmd
}

// Start starts an isolated firewalld, waits until it answers and stops it
// when the test ends. The test is skipped with -short, when not run as
// root, when firewalld, firewall-cmd, dbus-daemon, unshare, nsenter or ip
// are missing, or when the namespaces cannot be created.
func Start(t testing.TB) *Daemon {
	t.Helper()
	if testing.Short() {
		t.Skip("an isolated firewalld takes a while to start and drive (-short)")
	}
	if os.Geteuid() != 0 {
		t.Skip("an isolated firewalld needs root (namespaces)")
	}
	for _, tool := range []string{"firewalld", "firewall-cmd", "dbus-daemon", "unshare", "nsenter", "ip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (apt-get install firewalld)", tool)
		}
	}
	if _, err := os.Stat("/etc/firewalld"); err != nil {
		t.Skipf("firewalld is not installed: %v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bus.conf"), []byte(busConf), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"zones", "services", "icmptypes", "ipsets", "helpers", "policies"} {
		if err := os.MkdirAll(filepath.Join(dir, "etc", sub), 0o750); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "etc", "firewalld.conf"), []byte(firewalldConf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("unshare", "--net", "--mount", "--pid", "--fork", "--kill-child", "--",
		"/bin/sh", "-c", nsScript, "sh", dir)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	// Should the test binary die without cleaning up (a timeout), unshare
	// dies with it, and so does everything in the namespaces.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot create namespaces: %v", err)
	}
	d := &Daemon{Prefix: []string{"nsenter", "-t", strconv.Itoa(cmd.Process.Pid), "-m", "-n"}, Dir: dir, cmd: cmd}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// unshare ignores SIGTERM while it waits for its child; killing it
	// kills the namespace's init (--kill-child), and with it the PID
	// namespace, the daemons and the network namespace.
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			exited <- err
			t.Skipf("the isolated firewalld did not start: %v: %s", err, out.String())
		default:
		}
		state, err := d.Output("firewall-cmd", "--state")
		if err == nil && strings.TrimSpace(state) == "running" {
			return d
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "firewalld.log"))
			t.Fatalf("the isolated firewalld did not answer: %s %v\n%s\n%s", state, err, out.String(), log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Command returns a command that runs argv inside the daemon's namespaces.
func (d *Daemon) Command(argv ...string) *exec.Cmd {
	all := append(append([]string{}, d.Prefix...), argv...)
	return exec.Command(all[0], all[1:]...)
}

// Output runs argv inside the namespaces and returns its standard output.
func (d *Daemon) Output(argv ...string) (string, error) {
	c := d.Command(argv...)
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return string(out), fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, stderr.String())
	}
	return string(out), nil
}

// Must runs argv inside the namespaces and fails the test when it fails.
func (d *Daemon) Must(t testing.TB, argv ...string) string {
	t.Helper()
	out, err := d.Output(argv...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
