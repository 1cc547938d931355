package modules

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"brine/internal/value"
)

func statusGet(t *testing.T, m any, keys ...string) any {
	t.Helper()
	cur := m
	for _, k := range keys {
		mm, ok := cur.(*value.Map)
		if !ok {
			t.Fatalf("%v: not a dict at %s: %s", keys, k, value.Repr(cur))
		}
		if cur, ok = mm.Get(k); !ok {
			t.Fatalf("%v: no key %s", keys, k)
		}
	}
	return cur
}

func TestStatusProc(t *testing.T) {
	ctx := testContext()
	up := call(t, ctx, "status.uptime", nil)
	secs := statusGet(t, up, "seconds").(int64)
	days := statusGet(t, up, "days").(int64)
	if days != secs/86400 || statusGet(t, up, "time") != strconv.FormatInt(secs%86400/3600, 10)+":"+strconv.FormatInt(secs%3600/60, 10) {
		t.Errorf("uptime = %s", value.Repr(up))
	}
	if _, err := time.Parse("2006-01-02T15:04:05", strings.Split(statusGet(t, up, "since_iso").(string), ".")[0]); err != nil {
		t.Errorf("since_iso: %v", err)
	}
	if got := statusUptimeFrom(time.Unix(1000000, 500000000), 90061); value.Repr(got) !=
		"{'seconds': 90061, 'since_iso': '1970-01-11T12:45:39.500000', 'since_t': 909939, 'days': 1, 'time': '1:1'}" {
		t.Errorf("uptime from a fixed time = %s", value.Repr(got))
	}

	la := call(t, ctx, "status.loadavg", nil)
	raw, _ := os.ReadFile("/proc/loadavg")
	if _, ok := statusGet(t, la, "15-min").(float64); !ok || len(strings.Fields(string(raw))) < 3 {
		t.Errorf("loadavg = %s", value.Repr(la))
	}
	mi := call(t, ctx, "status.meminfo", nil)
	if statusGet(t, mi, "MemTotal", "unit") != "kB" {
		t.Errorf("meminfo MemTotal = %s", value.Repr(statusGet(t, mi, "MemTotal")))
	}
	ci := call(t, ctx, "status.cpuinfo", nil)
	if _, ok := statusGet(t, ci, "processor").(string); !ok {
		t.Errorf("cpuinfo = %s", value.Repr(ci))
	}
	cs := call(t, ctx, "status.cpustats", nil)
	if _, ok := statusGet(t, cs, "cpu", "user").(int64); !ok {
		t.Errorf("cpustats cpu = %s", value.Repr(statusGet(t, cs, "cpu")))
	}
	if _, ok := statusGet(t, cs, "intr", "irqs").(*value.List); !ok {
		t.Errorf("cpustats intr")
	}
	if _, ok := statusGet(t, cs, "btime").(int64); !ok {
		t.Errorf("cpustats btime = %s", value.Repr(statusGet(t, cs, "btime")))
	}
	vm := call(t, ctx, "status.vmstats", nil)
	if _, ok := statusGet(t, vm, "nr_free_pages").(int64); !ok {
		t.Errorf("vmstats nr_free_pages")
	}
	nd := call(t, ctx, "status.netdev", nil)
	if statusGet(t, nd, "lo", "iface") != "lo" {
		t.Errorf("netdev lo = %s", value.Repr(statusGet(t, nd, "lo")))
	}
	nstat := call(t, ctx, "status.netstats", nil)
	if _, ok := statusGet(t, nstat, "TcpExt", "SyncookiesSent").(int64); !ok {
		t.Errorf("netstats TcpExt = %s", value.Repr(statusGet(t, nstat, "TcpExt")))
	}
	call(t, ctx, "status.diskstats", nil)
	du := call(t, ctx, "status.diskusage", []any{"/"})
	var st syscall.Statfs_t
	if err := syscall.Statfs("/", &st); err != nil {
		t.Fatal(err)
	}
	if statusGet(t, du, "/", "total") != int64(st.Blocks)*int64(st.Bsize) {
		t.Errorf("diskusage / = %s", value.Repr(du))
	}
	if all := call(t, ctx, "status.diskusage", nil).(*value.Map); all.Len() == 0 {
		t.Error("diskusage of every mount is empty")
	}
	if got := call(t, ctx, "status.diskusage", []any{"nosuchfs*"}); value.Repr(got) != "{}" {
		t.Errorf("diskusage of an unknown type = %s", value.Repr(got))
	}
	if got := call(t, ctx, "status.nproc", nil); got != int64(runtime.NumCPU()) {
		t.Errorf("nproc = %v, want %d", got, runtime.NumCPU())
	}
	ver, _ := os.ReadFile("/proc/version")
	if got := call(t, ctx, "status.version", nil); got != strings.TrimSpace(string(ver)) {
		t.Errorf("version = %v", got)
	}
	if got := call(t, ctx, "status.time", nil, "format", "%Y"); got != time.Now().Format("2006") {
		t.Errorf("time %%Y = %v", got)
	}
	all := call(t, ctx, "status.all_status", nil).(*value.Map)
	if value.Repr(value.NewList(all.Keys()...)) != "['cpuinfo', 'cpustats', 'diskstats', 'diskusage', 'loadavg', 'meminfo', 'netdev', 'netstats', 'uptime', 'vmstats', 'w']" {
		t.Errorf("all_status keys = %s", value.Repr(value.NewList(all.Keys()...)))
	}
}

func TestStatusProcesses(t *testing.T) {
	ctx := testContext()
	// A grandchild: status.pid skips the lines holding brine's own pid,
	// which a child's line does (as its parent pid).
	out, err := exec.Command("sh", "-c", "sleep 4242 >/dev/null 2>&1 & echo $!").Output()
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(out))
	n, _ := strconv.Atoi(pid)
	defer func() { _ = syscall.Kill(n, syscall.SIGKILL) }()
	if got := call(t, ctx, "status.pid", []any{"sleep 424[2]"}); got != pid {
		t.Errorf("pid = %q, want %q", got, pid)
	}
	procs := call(t, ctx, "status.procs", nil)
	if statusGet(t, procs, pid, "cmd") != "sleep 4242" || statusGet(t, procs, pid, "user") != "root" && os.Getuid() == 0 {
		t.Errorf("procs[%s] = %s", pid, value.Repr(statusGet(t, procs, pid)))
	}
	if _, ok := call(t, ctx, "status.w", nil).(*value.List); !ok {
		t.Error("w is not a list")
	}
}

func TestStatusParsers(t *testing.T) {
	netstat := "TcpExt: SyncookiesSent SyncookiesRecv Last\nTcpExt: 1 2 3\nIpExt: InNoRoutes InOctets\nIpExt: 0 123\n"
	if got := value.Repr(statusParseNetstat(netstat)); got != "{'TcpExt': {'SyncookiesSent': 1, 'SyncookiesRecv': 2}, 'IpExt': {'InNoRoutes': 0}}" {
		t.Errorf("netstats = %s", got)
	}
	dev := "Inter-|   Receive\n face |bytes packets\n    lo: 100 2 0 0 0 0 0 0 100 2 0 0 0 0 0 0\neth0:5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20\n"
	if got := value.Repr(statusParseNetdev(dev)); got != "{'lo': {'iface': 'lo', 'rx_bytes': 100, 'rx_compressed': 0, 'rx_drop': 0, 'rx_errs': 0, "+
		"'rx_fifo': 0, 'rx_frame': 0, 'rx_multicast': 0, 'rx_packets': 2, 'tx_bytes': 100, 'tx_carrier': 0, 'tx_colls': 0, "+
		"'tx_compressed': 0, 'tx_drop': 0, 'tx_errs': 0, 'tx_fifo': 0, 'tx_packets': 2}}" {
		t.Errorf("netdev = %s", got)
	}
	w := "root     pts/0    10:01    1:02   0.10s  0.01s -bash\nbob      tty1     Mon09    3days  1.00s  0.50s vim notes.txt\n"
	if got := value.Repr(statusParseW(w)); got != "[{'idle': '1:02', 'jcpu': '0.10s', 'login': '10:01', 'pcpu': '0.01s', 'tty': 'pts/0', 'user': 'root', 'what': '-bash'}, "+
		"{'idle': '3days', 'jcpu': '1.00s', 'login': 'Mon09', 'pcpu': '0.50s', 'tty': 'tty1', 'user': 'bob', 'what': 'vim notes.txt'}]" {
		t.Errorf("w = %s", got)
	}
	for _, tc := range []struct {
		in   string
		want string
	}{{"42", "42"}, {"4.5", "4.5"}, {"eth0", "'eth0'"}, {"123456789012345678901234", "123456789012345678901234"}} {
		if got := value.Repr(statusNumber(tc.in)); got != tc.want {
			t.Errorf("_number(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
