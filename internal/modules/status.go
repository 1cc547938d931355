package modules

// status.go is salt/modules/status.py on Linux: load, memory, CPU, disk
// and network counters read from /proc, and the processes and users.

import (
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"brine/internal/execmod"
	"brine/internal/match"
	"brine/internal/pyops"
	"brine/internal/value"
)

func init() {
	execmod.Register("status.procs", statusProcs, "Return the processes as {pid: {'user': ..., 'cmd': ...}} (the ps grain's command).")
	execmod.Register("status.custom", statusCustom, "Return the values named by the status.<module>.<function>.custom options from those functions.")
	execmod.Register("status.uptime", statusUptime, "Return the uptime: seconds, since_iso, since_t, days, time (H:M) and the number of users.")
	execmod.Register("status.loadavg", statusLoadavg, "Return the load averages: 1-min, 5-min, 15-min.")
	execmod.Register("status.cpustats", statusCPUStats, "Return the counters of /proc/stat.")
	execmod.Register("status.meminfo", statusMeminfo, "Return /proc/meminfo as {name: {'value': ..., 'unit': ...}}.")
	execmod.Register("status.cpuinfo", statusCPUInfo, "Return /proc/cpuinfo as a dict (the last processor's values; flags as a list).")
	execmod.Register("status.diskstats", statusDiskstats, "Return the counters of /proc/diskstats by device.")
	execmod.Register("status.diskusage", statusDiskusage, "Return the available and total bytes of mount points (paths, or filesystem type globs; all when none).")
	execmod.Register("status.vmstats", statusVMStats, "Return the counters of /proc/vmstat.")
	execmod.Register("status.nproc", statusNproc, "Return the number of processing units available (nproc).")
	execmod.Register("status.netstats", statusNetstats, "Return the counters of /proc/net/netstat by section.")
	execmod.Register("status.netdev", statusNetdev, "Return the counters of /proc/net/dev by interface.")
	execmod.Register("status.w", statusW, "Return the logged-in users and what they run (w -fh).")
	execmod.Register("status.all_status", statusAll, "Return cpuinfo, cpustats, diskstats, diskusage, loadavg, meminfo, netdev, netstats, uptime, vmstats and w.")
	execmod.Register("status.pid", statusPid, "Return the pids (newline-separated) of the processes whose ps line matches the regular expression sig.")
	execmod.Register("status.version", statusVersion, "Return the kernel version line (/proc/version).")
	execmod.Register("status.time", statusTime, "Return the current local time formatted with format (strftime, default '%A, %d. %B %Y %I:%M%p').")
}

// statusNumber is status._number: an int for digits, else a float, else
// the text.
func statusNumber(s string) any {
	if s != "" && strings.Trim(s, "0123456789") == "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
		b, _ := new(big.Int).SetString(s, 10)
		return value.NormInt(b)
	}
	if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && !strings.ContainsAny(s, "xXpP") {
		return f
	}
	return s
}

func statusRead(path string) (string, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	return string(b), true
}

func statusLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

func statusPS(ctx *execmod.Context) string {
	if v, ok := ctx.Grains.Get("ps"); ok && value.Truthy(v) {
		return execmod.String(v)
	}
	return "ps -efHww"
}

func statusProcs(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	out, err := netRun(ctx, statusPS(ctx), "python_shell", true)
	if err != nil {
		return nil, err
	}
	return statusParseProcs(out), nil
}

// statusParseProcs reads ps output: the header names the USER/UID, PID
// and COMMAND/CMD columns.
func statusParseProcs(out string) *value.Map {
	ret := value.NewMap(0)
	lines := strings.Split(out, "\n")
	guide := strings.Fields(lines[0])
	idx := func(names ...string) int {
		for _, n := range names {
			for i, g := range guide {
				if g == n {
					return i
				}
			}
		}
		return 0
	}
	uind, pind, cind := idx("USER", "UID"), idx("PID"), idx("COMMAND", "CMD")
	for _, line := range lines[1:] {
		c := strings.Fields(line)
		if len(c) == 0 || len(c) <= max(uind, pind) {
			continue
		}
		cmd := ""
		if cind < len(c) {
			cmd = strings.Join(c[cind:], " ")
		}
		ret.Set(c[pind], value.MapOf("user", c[uind], "cmd", cmd))
	}
	return ret
}

// statusCustom is status.custom: for each option status.<mod>.<fun>.<x>
// (in the options or the pillar's master data, config.dot_vals), the
// values listed are picked from mod.fun's return.
func statusCustom(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	conf := value.NewMap(0)
	collect := func(m *value.Map) {
		m.Range(func(k, v any) bool {
			if s, ok := k.(string); ok && strings.HasPrefix(s, "status.") {
				conf.Set(s, v)
			}
			return true
		})
	}
	collect(ctx.Opts)
	if m, ok := ctx.Pillar.Get("master"); ok {
		if mm, ok := m.(*value.Map); ok {
			collect(mm)
		}
	}
	ret := value.NewMap(0)
	var err error
	conf.Range(func(k, val any) bool {
		parts := strings.Split(k.(string), ".")
		fun := strings.Join(parts[:len(parts)-1], ".")
		if fun == "status.custom" {
			return true
		}
		if _, ok := ctx.Lookup(fun); !ok {
			return true
		}
		var vals any
		vals, err = ctx.Call(fun, nil, nil)
		if err != nil {
			return false
		}
		vm, _ := vals.(*value.Map)
		for _, item := range splitInput(val) {
			var got any
			ok := false
			if vm != nil {
				got, ok = vm.Get(item)
			}
			if !ok {
				got = "UNKNOWN"
			}
			ret.Set(item, got)
		}
		return true
	})
	return ret, err
}

// pyIsoformat is datetime.isoformat: microseconds only when not zero.
func pyIsoformat(t time.Time) string {
	if t.Nanosecond()/1000 == 0 {
		return t.Format("2006-01-02T15:04:05")
	}
	return t.Format("2006-01-02T15:04:05.000000")
}

func statusUptime(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	now := time.Now()
	data, ok := statusRead("/proc/uptime")
	if !ok {
		return nil, execmod.Errorf("File /proc/uptime was not found.")
	}
	f, err := strconv.ParseFloat(strings.Fields(data + " 0")[0], 64)
	if err != nil {
		return nil, execmod.Errorf("cannot read /proc/uptime: %q", data)
	}
	ret := statusUptimeFrom(now, int64(f))
	if _, err := exec.LookPath("who"); err == nil {
		out, err := netRun(ctx, "who -s")
		if err != nil {
			return nil, err
		}
		ret.Set("users", int64(len(strings.Split(out, "\n"))))
	}
	return ret, nil
}

func statusUptimeFrom(now time.Time, seconds int64) *value.Map {
	nowSecs := float64(now.UnixNano()) / 1e9
	boot := time.Unix(0, int64((nowSecs-float64(seconds))*1e6)*1000).UTC()
	rem := seconds % 86400
	return value.MapOf("seconds", seconds, "since_iso", pyIsoformat(boot), "since_t", int64(nowSecs-float64(seconds)),
		"days", seconds/86400, "time", fmt.Sprintf("%d:%d", rem/3600, rem%3600/60))
}

// statusLoadavg is os.getloadavg as glibc computes it: the kernel's
// fixed-point load averages (sysinfo) divided by 65536, so 1-min is
// e.g. 21.48291015625 where /proc/loadavg shows 21.48.
func statusLoadavg(*execmod.Context, []any, *value.Map) (any, error) {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return nil, execmod.Errorf("status.loadavag is not available on your platform")
	}
	l := make([]float64, 3)
	for i := range l {
		l[i] = float64(si.Loads[i]) / 65536
	}
	return value.MapOf("1-min", l[0], "5-min", l[1], "15-min", l[2]), nil
}

func statusCPUStats(*execmod.Context, []any, *value.Map) (any, error) {
	data, _ := statusRead("/proc/stat")
	return statusParseStat(data), nil
}

func statusNumbers(xs []string) *value.List {
	l := value.NewList()
	for _, x := range xs {
		l.Append(statusNumber(x))
	}
	return l
}

func statusParseStat(data string) *value.Map {
	ret := value.NewMap(0)
	for _, line := range statusLines(data) {
		c := strings.Fields(line)
		if len(c) < 2 {
			continue
		}
		switch c[0] {
		case "cpu":
			if len(c) < 9 {
				continue
			}
			ret.Set("cpu", value.MapOf("idle", statusNumber(c[4]), "iowait", statusNumber(c[5]), "irq", statusNumber(c[6]),
				"nice", statusNumber(c[2]), "softirq", statusNumber(c[7]), "steal", statusNumber(c[8]),
				"system", statusNumber(c[3]), "user", statusNumber(c[1])))
		case "intr":
			ret.Set("intr", value.MapOf("total", statusNumber(c[1]), "irqs", statusNumbers(c[2:])))
		case "softirq":
			ret.Set("softirq", value.MapOf("total", statusNumber(c[1]), "softirqs", statusNumbers(c[2:])))
		default:
			ret.Set(c[0], statusNumber(c[1]))
		}
	}
	return ret
}

func statusMeminfo(*execmod.Context, []any, *value.Map) (any, error) {
	data, _ := statusRead("/proc/meminfo")
	ret := value.NewMap(0)
	for _, line := range statusLines(data) {
		c := strings.Fields(line)
		if len(c) < 2 {
			continue
		}
		m := value.MapOf("value", c[1])
		if len(c) > 2 {
			m.Set("unit", c[2])
		}
		ret.Set(strings.ReplaceAll(c[0], ":", ""), m)
	}
	return ret, nil
}

func statusCPUInfo(*execmod.Context, []any, *value.Map) (any, error) {
	data, _ := statusRead("/proc/cpuinfo")
	return statusParseCPUInfo(data), nil
}

func statusParseCPUInfo(data string) *value.Map {
	ret := value.NewMap(0)
	for _, line := range statusLines(data) {
		c := strings.Split(line, ":")
		if len(c) < 2 {
			continue
		}
		k := strings.TrimSpace(c[0])
		if k == "flags" {
			ret.Set(k, strList(strings.Fields(c[1])))
		} else {
			ret.Set(k, strings.TrimSpace(c[1]))
		}
	}
	return ret
}

var statusDiskFields = []string{"major", "minor", "device", "reads_issued", "reads_merged", "sectors_read", "ms_spent_reading",
	"writes_completed", "writes_merged", "sectors_written", "ms_spent_writing", "io_in_progress", "ms_spent_in_io",
	"weighted_ms_spent_in_io"}

func statusDiskstats(*execmod.Context, []any, *value.Map) (any, error) {
	data, _ := statusRead("/proc/diskstats")
	ret := value.NewMap(0)
	for _, line := range statusLines(data) {
		c := strings.Fields(line)
		if len(c) < len(statusDiskFields) {
			continue
		}
		m := value.NewMap(len(statusDiskFields))
		for i, f := range statusDiskFields {
			m.Set(f, statusNumber(c[i]))
		}
		ret.Set(c[2], m)
	}
	return ret, nil
}

func statusDiskusage(_ *execmod.Context, args []any, _ *value.Map) (any, error) {
	var selected []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			selected = append(selected, p)
		}
	}
	var fstypes []string
	if len(args) == 0 {
		fstypes = []string{"*"}
	}
	for _, a := range args {
		s := value.Str(a)
		if strings.HasPrefix(s, "/") {
			add(s)
		} else {
			fstypes = append(fstypes, s)
		}
	}
	if len(fstypes) > 0 {
		data, ok := statusRead("/proc/mounts")
		if !ok {
			return value.NewMap(0), nil
		}
		for _, line := range statusLines(data) {
			c := strings.Fields(line)
			if len(c) < 3 {
				continue
			}
			for _, ft := range fstypes {
				if match.Fnmatch(c[2], ft) {
					add(c[1])
					break
				}
			}
		}
	}
	ret := value.NewMap(0)
	for _, p := range selected {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		var st syscall.Statfs_t
		if err := syscall.Statfs(p, &st); err != nil {
			ret.Set(p, value.MapOf("available", nil, "total", nil))
			continue
		}
		bs := int64(st.Bsize)
		ret.Set(p, value.MapOf("available", int64(st.Bavail)*bs, "total", int64(st.Blocks)*bs))
	}
	return ret, nil
}

func statusVMStats(*execmod.Context, []any, *value.Map) (any, error) {
	data, _ := statusRead("/proc/vmstat")
	ret := value.NewMap(0)
	for _, line := range statusLines(data) {
		c := strings.Fields(line)
		if len(c) >= 2 {
			ret.Set(c[0], statusNumber(c[1]))
		}
	}
	return ret, nil
}

func statusNproc(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	out, err := netRun(ctx, "nproc")
	if err != nil {
		return nil, err
	}
	n := statusNumber(strings.TrimSpace(out))
	if _, isStr := n.(string); isStr {
		return int64(0), nil
	}
	return n, nil
}

// statusParseNetstat reads /proc/net/netstat's header and value line
// pairs. As Salt's parser, it leaves out each section's last column.
func statusParseNetstat(data string) *value.Map {
	ret := value.NewMap(0)
	headers := []string{""}
	for _, line := range statusLines(data) {
		c := strings.Fields(line)
		if len(c) == 0 {
			continue
		}
		if c[0] != headers[0] {
			headers = c
			continue
		}
		row := value.NewMap(0)
		for f := 1; f < len(headers)-1 && f < len(c); f++ {
			row.Set(headers[f], statusNumber(c[f]))
		}
		ret.Set(strings.ReplaceAll(headers[0], ":", ""), row)
	}
	return ret
}

func statusNetstats(*execmod.Context, []any, *value.Map) (any, error) {
	data, _ := statusRead("/proc/net/netstat")
	return statusParseNetstat(data), nil
}

var statusNetdevFields = []struct {
	name string
	i    int
}{{"rx_bytes", 2}, {"rx_compressed", 8}, {"rx_drop", 5}, {"rx_errs", 4}, {"rx_fifo", 6}, {"rx_frame", 7},
	{"rx_multicast", 9}, {"rx_packets", 3}, {"tx_bytes", 10}, {"tx_carrier", 16}, {"tx_colls", 15},
	{"tx_compressed", 17}, {"tx_drop", 13}, {"tx_errs", 12}, {"tx_fifo", 14}, {"tx_packets", 11}}

func statusParseNetdev(data string) *value.Map {
	ret := value.NewMap(0)
	for _, line := range statusLines(data) {
		name, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		c := strings.Fields(line)
		c[0] = strings.TrimSpace(name)
		first := strings.Fields(rest + " ")
		if len(first) == 0 {
			continue
		}
		c = append(c[:1], append([]string{first[0]}, c[1:]...)...)
		if len(c) < 18 {
			continue
		}
		m := value.MapOf("iface", c[0])
		for _, f := range statusNetdevFields {
			m.Set(f.name, statusNumber(c[f.i]))
		}
		ret.Set(c[0], m)
	}
	return ret
}

func statusNetdev(*execmod.Context, []any, *value.Map) (any, error) {
	data, _ := statusRead("/proc/net/dev")
	return statusParseNetdev(data), nil
}

func statusW(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	out, err := netRun(ctx, "w -fh")
	if err != nil {
		return nil, err
	}
	return statusParseW(out), nil
}

func statusParseW(out string) *value.List {
	l := value.NewList()
	for _, row := range statusLines(out) {
		c := strings.Fields(row)
		if len(c) < 6 {
			continue
		}
		l.Append(value.MapOf("idle", c[3], "jcpu", c[4], "login", c[2], "pcpu", c[5], "tty", c[1], "user", c[0],
			"what", strings.Join(c[6:], " ")))
	}
	return l
}

func statusAll(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	ret := value.NewMap(11)
	for _, f := range []struct {
		name string
		fn   execmod.Func
	}{{"cpuinfo", statusCPUInfo}, {"cpustats", statusCPUStats}, {"diskstats", statusDiskstats}, {"diskusage", statusDiskusage},
		{"loadavg", statusLoadavg}, {"meminfo", statusMeminfo}, {"netdev", statusNetdev}, {"netstats", statusNetstats},
		{"uptime", statusUptime}, {"vmstats", statusVMStats}, {"w", statusW}} {
		v, err := f.fn(ctx, nil, value.NewMap(0))
		if err != nil {
			return nil, err
		}
		ret.Set(f.name, v)
	}
	return ret, nil
}

func statusPid(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("pid", args, kwargs, execmod.Req("sig"))
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(execmod.String(v[0]))
	if err != nil {
		return nil, netPyErrorf("re.error", "%s", err)
	}
	out, err := ctx.Call("cmd.run_stdout", []any{statusPS(ctx)}, value.MapOf("python_shell", true))
	if err != nil {
		return nil, err
	}
	my := strconv.Itoa(os.Getpid())
	var pids []string
	for _, line := range strings.Split(execmod.String(out), "\n") {
		if strings.Contains(line, my) || !re.MatchString(line) {
			continue
		}
		if f := strings.Fields(line); len(f) > 1 {
			pids = append(pids, f[1])
		}
	}
	return strings.Join(pids, "\n"), nil
}

func statusVersion(*execmod.Context, []any, *value.Map) (any, error) {
	data, ok := statusRead("/proc/version")
	if !ok {
		return value.NewMap(0), nil
	}
	return strings.TrimSpace(data), nil
}

func statusTime(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("time_", args, kwargs, execmod.Opt("format", "%A, %d. %B %Y %I:%M%p"))
	if err != nil {
		return nil, err
	}
	return pyops.Strftime(time.Now(), execmod.String(v[0])), nil
}
