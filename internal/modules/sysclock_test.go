package modules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"brine/internal/value"
)

// TestSystemRead checks the clock readers against the machine's clock
// (to the minute and date, not to the second).
func TestSystemRead(t *testing.T) {
	ctx := testContext()
	dt := call(t, ctx, "system.get_system_date_time", nil).(string)
	if _, err := time.ParseInLocation("2006-01-02 15:04:05", dt, time.Local); err != nil {
		t.Errorf("get_system_date_time = %q: %v", dt, err)
	}
	utc := call(t, ctx, "system.get_system_date_time", []any{"+0000"}).(string)
	u, err := time.Parse("2006-01-02 15:04:05", utc)
	if err != nil || time.Since(u).Abs() > time.Hour {
		t.Errorf("get_system_date_time +0000 = %q, %v", utc, err)
	}
	ahead := call(t, ctx, "system.get_system_date_time", []any{"0130"}).(string)
	if a, err := time.Parse("2006-01-02 15:04:05", ahead); err != nil || a.Sub(u) < 89*time.Minute || a.Sub(u) > 91*time.Minute {
		t.Errorf("get_system_date_time 0130 = %q (UTC %q)", ahead, utc)
	}
	if d := call(t, ctx, "system.get_system_date", nil).(string); len(d) != 14 || !strings.Contains(d, "/") {
		t.Errorf("get_system_date = %q", d)
	}
	if tm := call(t, ctx, "system.get_system_time", []any{"-0500"}).(string); !strings.HasSuffix(tm, "AM") && !strings.HasSuffix(tm, "PM") {
		t.Errorf("get_system_time = %q", tm)
	}
	if _, err := ctx.Call("system.get_system_time", []any{int64(128)}, value.NewMap(0)); err == nil || err.Error() != "expected string or bytes-like object" {
		t.Errorf("numeric offset: %v", err)
	}
	if _, err := ctx.Call("system.get_system_time", []any{"+5"}, value.NewMap(0)); err == nil || err.Error() != "Invalid UTC offset" {
		t.Errorf("bad offset: %v", err)
	}
	host, _ := os.Hostname()
	if got := call(t, ctx, "system.get_computer_name", nil); got != host {
		t.Errorf("get_computer_name = %v", got)
	}
}

func TestSystemStrptime(t *testing.T) {
	for _, tc := range []struct {
		text, format string
		ok           bool
		want         systemParsed
	}{
		{"2024-02-29", "%Y-%m-%d", true, systemParsed{2024, 2, 29, 0, 0, 0}},
		{"2023-02-29", "%Y-%m-%d", false, systemParsed{}},
		{"3/7/24", "%m/%d/%y", true, systemParsed{2024, 3, 7, 0, 0, 0}},
		{"3/7/69", "%m/%d/%y", true, systemParsed{1969, 3, 7, 0, 0, 0}},
		{"11:05 pm", "%I:%M %p", true, systemParsed{1900, 1, 1, 23, 5, 0}},
		{"12:00:01 AM", "%I:%M:%S %p", true, systemParsed{1900, 1, 1, 0, 0, 1}},
		{"13:00 PM", "%I:%M %p", false, systemParsed{}},
		{"23:59", "%H:%M", true, systemParsed{1900, 1, 1, 23, 59, 0}},
		{"23:59:00x", "%H:%M:%S", false, systemParsed{}},
	} {
		got, ok := systemStrptime(tc.text, tc.format)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("strptime(%q, %q) = %+v %v, want %+v %v", tc.text, tc.format, got, ok, tc.want, tc.ok)
		}
	}
}

// TestSystemCommands checks the commands of the functions that change the
// machine (power and clock), without running them.
func TestSystemCommands(t *testing.T) {
	for _, tc := range []struct {
		fun  string
		args []any
		kw   []any
		rc   int64
		want string
		cmds string
	}{
		{"system.halt", nil, nil, 0, "'out'", "halt"},
		{"system.poweroff", nil, nil, 0, "'out'", "poweroff"},
		{"system.reboot", nil, nil, 0, "'out'", "shutdown -r now"},
		{"system.reboot", []any{int64(5)}, nil, 0, "'out'", "shutdown -r 5"},
		{"system.shutdown", nil, []any{"at_time", "22:00"}, 0, "'out'", "shutdown -h 22:00"},
		{"system.init", []any{int64(3)}, nil, 0, "'out'", "init 3"},
		{"system.set_system_date_time", []any{int64(2030), int64(1), int64(2), int64(3), int64(4), int64(5)}, []any{"utc_offset", "+0100"}, 0, "True",
			"date -u 010202042030.05|hwclock --test --systohc|hwclock --systohc"},
		{"system.set_system_date", []any{"2031-12-24"}, []any{"utc_offset", "-0000"}, 0, "True", ""},
		{"system.set_system_time", []any{"1:02:03 PM"}, []any{"utc_offset", "0000"}, 0, "True", ""},
		{"system.set_system_time", []any{"not a time"}, nil, 0, "False", ""},
		{"system.has_settable_hwclock", nil, nil, 1, "False", "hwclock --test --systohc"},
	} {
		r := &cmdRecorder{out: "out", rc: tc.rc}
		got := call(t, r.context(), tc.fun, tc.args, tc.kw...)
		cmds := strings.Join(r.cmds, "|")
		if tc.cmds == "" && tc.want == "True" {
			// date's argument depends on today: check its shape.
			if len(r.cmds) != 3 || !strings.HasPrefix(r.cmds[0], "date -u ") {
				t.Errorf("%s%v: commands %q", tc.fun, tc.args, r.cmds)
			}
			if tc.fun == "system.set_system_date" && !strings.HasPrefix(r.cmds[0], "date -u 1224") {
				t.Errorf("set_system_date: %q", r.cmds[0])
			}
			if tc.fun == "system.set_system_time" && !strings.Contains(r.cmds[0], "1302") {
				t.Errorf("set_system_time: %q", r.cmds[0])
			}
			cmds = ""
		}
		if value.Repr(got) != tc.want || cmds != tc.cmds {
			t.Errorf("%s%v%v = %s with %q, want %s with %q", tc.fun, tc.args, tc.kw, value.Repr(got), r.cmds, tc.want, tc.cmds)
		}
	}
	// date failing both ways is an error with date's stderr.
	r := &cmdRecorder{rc: 1}
	_, err := r.context().Call("system.set_system_date_time", []any{int64(2030)}, value.NewMap(0))
	if err == nil || err.Error() != "date failed: boom" || len(r.cmds) != 2 || !strings.HasPrefix(r.cmds[1], "date  ") {
		t.Errorf("failing date: %v after %q", err, r.cmds)
	}
	for _, tc := range []struct {
		args []any
		err  string
	}{
		{[]any{int64(2030), int64(2), int64(30)}, "day is out of range for month"},
		{[]any{int64(2030), int64(13)}, "month must be in 1..12"},
		{[]any{nil, nil, nil, int64(24)}, "hour must be in 0..23"},
		{[]any{"2030"}, "'str' object cannot be interpreted as an integer"},
	} {
		r := &cmdRecorder{}
		if _, err := r.context().Call("system.set_system_date_time", tc.args, value.NewMap(0)); err == nil || err.Error() != tc.err || len(r.cmds) != 0 {
			t.Errorf("set_system_date_time%v: %v after %q, want %q", tc.args, err, r.cmds, tc.err)
		}
	}
	r = &cmdRecorder{}
	if _, err := r.context().Call("system.set_system_date", []any{"31/31/2030"}, value.NewMap(0)); err == nil || err.Error() != "Invalid date format" {
		t.Errorf("set_system_date of a bad date: %v", err)
	}
}

func TestSystemComputerDesc(t *testing.T) {
	if _, err := os.Stat("/usr/bin/hostnamectl"); err == nil {
		// With hostnamectl the description is systemd's; check the command.
		r := &cmdRecorder{}
		if got := call(t, r.context(), "system.set_computer_desc", []any{"Web \"one\"\nrack 2"}); got != true ||
			len(r.cmds) != 1 || r.cmds[0] != `/usr/bin/hostnamectl set-hostname --pretty Web \"one\"\nrack 2` {
			t.Errorf("set_computer_desc = %v with %q", got, r.cmds)
		}
		return
	}
	saved := systemMachineInfo
	defer func() { systemMachineInfo = saved }()
	systemMachineInfo = filepath.Join(t.TempDir(), "machine-info")
	ctx := testContext()
	if got := call(t, ctx, "system.get_computer_desc", nil); got != false {
		t.Errorf("get_computer_desc without a file = %v", got)
	}
	call(t, ctx, "system.set_computer_desc", []any{"Web \"one\""})
	if got := call(t, ctx, "system.get_computer_desc", nil); got != `Web "one"` {
		t.Errorf("get_computer_desc = %q", got)
	}
}

// TestModHostname checks network.mod_hostname (and system.set_computer_name)
// on copies of /etc/hosts and /etc/hostname, the commands recorded.
func TestModHostname(t *testing.T) {
	dir := t.TempDir()
	saved := [2]string{netHostsFile, netHostnameFile}
	defer func() { netHostsFile, netHostnameFile = saved[0], saved[1] }()
	netHostsFile, netHostnameFile = filepath.Join(dir, "hosts"), filepath.Join(dir, "hostname")
	if err := os.WriteFile(netHostsFile, []byte("127.0.0.1 localhost\n127.0.1.1   oldbox.example.com oldbox\n\n# a  comment\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &cmdRecorder{out: " Static hostname: oldbox\n       Icon name: computer-vm\n"}
	ctx := r.context()
	if _, err := os.Stat("/usr/bin/hostnamectl"); err != nil {
		t.Skip("the machine has no hostnamectl: mod_hostname would take the hostname command path")
	}
	if got := call(t, ctx, "system.set_computer_name", []any{"newbox"}); got != true {
		t.Fatalf("set_computer_name = %v", got)
	}
	if strings.Join(r.cmds, "|") != "/usr/bin/hostnamectl status|/usr/bin/hostnamectl set-hostname newbox" {
		t.Errorf("commands %q", r.cmds)
	}
	hosts, _ := os.ReadFile(netHostsFile)
	if string(hosts) != "127.0.0.1\tlocalhost\n127.0.1.1\toldbox.example.com\tnewbox\n\n#\ta\tcomment\n" {
		t.Errorf("hosts = %q", hosts)
	}
	if name, _ := os.ReadFile(netHostnameFile); string(name) != "newbox\n" {
		t.Errorf("hostname = %q", name)
	}
	r2 := &cmdRecorder{rc: 1}
	if got := call(t, r2.context(), "network.mod_hostname", []any{"x"}); got != false {
		t.Errorf("mod_hostname with hostnamectl failing = %v", got)
	}
	if got := call(t, r2.context(), "network.mod_hostname", []any{nil}); got != false || len(r2.cmds) != 2 {
		t.Errorf("mod_hostname None = %v after %q", got, r2.cmds)
	}
}
