package beacons_test

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"brine/internal/beacons"
	"brine/internal/execmod"
	"brine/internal/grains"
	_ "brine/internal/modules" // service.status for the service beacon
	"brine/internal/value"
	"brine/internal/yamlload"
)

// conf parses a beacons mapping written in YAML.
func conf(t *testing.T, text string) *value.Map {
	t.Helper()
	v, err := yamlload.SafeLoad([]byte(text), "beacons.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return v.(*value.Map)
}

func call(fun string, args []any, kwargs *value.Map) (any, error) {
	ctx := execmod.NewContext()
	ctx.Grains = testGrains()
	fn, ok := ctx.Lookup(fun)
	if !ok {
		return nil, fmt.Errorf("'%s'", fun) // Salt's KeyError
	}
	return fn(ctx, args, kwargs)
}

// testGrains are this machine's core grains (os_family picks pkg's
// backend), read once.
var testGrains = sync.OnceValue(func() *value.Map { return grains.Core("m1") })

func newEngine(running ...string) *beacons.Engine {
	return &beacons.Engine{ID: "m1", LoopInterval: 1, Opts: value.NewMap(0), Call: call,
		Running: func() []string { return running }, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func js(v any) string {
	return value.ToJSON(v, value.JSONOptions{Indent: -1, ItemSep: ",", KeySep: ":"})
}

// events renders Process's events as "tag data" lines.
func events(evs []beacons.Event) []string {
	var out []string
	for _, e := range evs {
		line := e.Tag + " " + js(e.Data)
		if e.Error != "" {
			line += " error: " + e.Error
		}
		out = append(out, line)
	}
	return out
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		valid      bool
		comment    string
	}{
		{"diskusage", `{"/": 80}`, false, "Configuration for diskusage beacon must be a list."},
		{"diskusage", `[{"/": 80%}]`, true, "Valid beacon configuration"},
		{"load", `[{"averages": {"1m": [0, 1]}}]`, false, "Averages configuration for load beacon: 1m, 5m and 15m items must be a list of two items."},
		{"load", `[{"averages": {"1m": [0, 1], "5m": [0, 1], "15m": [0]}}]`, false, "Configuration for load beacon: 1m, 5m and 15m items must be a list of two items."},
		{"load", `[{"averages": {"2m": [0, 1]}}]`, false, "Averages configuration for load beacon must contain 1m, 5m or 15m items."},
		{"load", `[{"emitatstartup": "yes"}]`, false, "Configuration for load beacon option emitatstartup must be a boolean."},
		{"load", `[{"onchangeonly": 1}]`, false, "Configuration for load beacon option onchangeonly must be a boolean."},
		{"load", `[{"interval": 5}]`, false, "Averages configuration is required for load beacon."},
		{"memusage", `[{"interval": 5}]`, false, "Configuration for memusage beacon requires percent."},
		{"ps", `[{"processes": ["cron"]}]`, false, "Processes for ps beacon must be a dictionary."},
		{"ps", `[{"interval": 5}]`, false, "Configuration for ps beacon requires processes."},
		{"ps", `[{"processes": {"cron": "running"}}]`, true, "Valid beacon configuration"},
		{"service", `[{"services": {"cron": "x"}}]`, false, "Configuration for service beacon must be a list of dictionaries."},
		{"service", `[{"services": ["cron"]}]`, false, "Services configuration item for service beacon must be a dictionary."},
		{"service", `[{"interval": 1}]`, false, "Configuration for service beacon requires services."},
		{"pkg", `{"pkgs": ["zsh"]}`, false, "Configuration for pkg beacon must be a list."},
		{"pkg", `[{"pkgs": "zsh"}]`, false, "Configuration for pkg beacon requires list of pkgs."},
		{"pkg", `[{"refresh": true}]`, false, "Configuration for pkg beacon requires list of pkgs."},
		{"pkg", `[{"pkgs": ["zsh"]}]`, true, "Valid beacon configuration"},
		{"inotify", `[{"interval": 1}]`, false, "Configuration for inotify beacon must include files."},
		{"inotify", `[{"files": ["/etc"]}]`, false, "Configuration for inotify beacon invalid, files must be a dict."},
		{"inotify", `[{"files": {"/etc": "x"}}]`, false, "Configuration for inotify beacon must be a list of dictionaries."},
		{"inotify", `[{"files": {"/etc": {"exclude": []}}}]`, false, "Configuration for inotify beacon must contain mask, recurse or auto_add items."},
		{"inotify", `[{"files": {"/etc": {"recurse": "yes"}}}]`, false, "Configuration for inotify beacon recurse must be boolean."},
		{"inotify", `[{"files": {"/etc": {"auto_add": 1}}}]`, false, "Configuration for inotify beacon auto_add must be boolean."},
		{"inotify", `[{"files": {"/etc": {"mask": "create"}}}]`, false, "Configuration for inotify beacon mask must be list."},
		{"inotify", `[{"files": {"/etc": {"mask": ["create", "bogus"]}}}]`, false, "Configuration for inotify beacon invalid mask option bogus."},
		{"inotify", `[{"files": {"/etc": {"mask": ["create"]}}}]`, true, "Valid beacon configuration"},
		{"nosuch", `[{"a": 1}]`, true, "Beacon nosuch does not have a validate function, skipping validation."},
	} {
		t.Run(tc.name+" "+tc.data, func(t *testing.T) {
			v, err := yamlload.SafeLoad([]byte(tc.data), "x")
			if err != nil {
				t.Fatal(err)
			}
			valid, comment := beacons.Validate(tc.name, v)
			if valid != tc.valid || comment != tc.comment {
				t.Errorf("Validate = %v %q, want %v %q", valid, comment, tc.valid, tc.comment)
			}
		})
	}
}

// TestDiskusage reads the root file system's usage and compares it
// with df's (which rounds up to a whole percent).
func TestDiskusage(t *testing.T) {
	out, err := exec.Command("df", "--output=pcent", "/").Output()
	if err != nil {
		t.Skip("df:", err)
	}
	lines := strings.Fields(string(out))
	dfPct, err := strconv.ParseFloat(strings.TrimSuffix(lines[len(lines)-1], "%"), 64)
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine()
	evs, _ := e.Process(conf(t, `{diskusage: [{"/": "0%"}]}`), nil)
	if len(evs) != 1 || evs[0].Tag != "salt/beacon/m1/diskusage/" {
		t.Fatalf("events %q", events(evs))
	}
	got := evs[0].Data
	if m, _ := got.Get("mount"); m != "/" {
		t.Errorf("mount %v", m)
	}
	pct, _ := got.Get("diskusage")
	if p, ok := pct.(float64); !ok || math.Abs(p-dfPct) > 1 {
		t.Errorf("diskusage %v, df says %v%%", pct, dfPct)
	}
	if keys := js(value.NewList(got.Keys()...)); keys != `["diskusage","mount","id"]` {
		t.Errorf("keys %s", keys)
	}
	evs, _ = e.Process(conf(t, `{diskusage: [{"^/$": 100.1}]}`), nil)
	if len(evs) != 0 {
		t.Errorf("over the threshold: %q", events(evs))
	}
}

func TestLoadAndMemusage(t *testing.T) {
	for _, tc := range []struct {
		conf  string
		want  int
		check string
	}{
		{`{load: [{averages: {"1m": [-2, -1], "5m": [-2, -1], "15m": [-2, -1]}}]}`, 1, "1m"},
		{`{load: [{averages: {"1m": [0, 1000000], "5m": [0, 1000000], "15m": [0, 1000000]}}]}`, 0, ""},
		{`{memusage: [{percent: 0%}]}`, 1, "memusage"},
		{`{memusage: [{percent: 100.1}]}`, 0, ""},
	} {
		evs, _ := newEngine().Process(conf(t, tc.conf), nil)
		if len(evs) != tc.want {
			t.Errorf("%s: events %q", tc.conf, events(evs))
			continue
		}
		if tc.want == 1 && !evs[0].Data.Has(tc.check) {
			t.Errorf("%s: event %s lacks %s", tc.conf, js(evs[0].Data), tc.check)
		}
	}
}

// TestLoadOnChangeOnly: with onchangeonly and emitatstartup False, the
// first reading only records the averages.
func TestLoadOnChangeOnly(t *testing.T) {
	e := newEngine()
	c := conf(t, `{load: [{onchangeonly: true}, {emitatstartup: false}, {averages: {"1m": [-2, -1], "5m": [-2, -1], "15m": [-2, -1]}}]}`)
	for i := 0; i < 2; i++ {
		if evs, _ := e.Process(c, nil); len(evs) != 0 {
			t.Errorf("loop %d: %q", i, events(evs))
		}
	}
}

// TestPs starts a process under a name of its own and watches it start
// and stop.
func TestPs(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	name := "bcnps" + strconv.Itoa(os.Getpid()%100000)
	bin := filepath.Join(t.TempDir(), name)
	data, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	c := conf(t, `{ps: [{processes: {`+name+`: running, bcn-never-runs: stopped, bcn-other: x}}]}`)
	e := newEngine()
	before := events(mustProcess(e, c))
	want := []string{
		`salt/beacon/m1/ps/ {"bcn-never-runs":"Stopped","id":"m1"}`,
		`salt/beacon/m1/ps/ {"bcn-other":false,"id":"m1"}`,
	}
	if strings.Join(before, "\n") != strings.Join(want, "\n") {
		t.Errorf("before the start:\n%s\nwant\n%s", strings.Join(before, "\n"), strings.Join(want, "\n"))
	}
	cmd := exec.Command(bin, "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	after := events(mustProcess(e, c))
	want = append([]string{`salt/beacon/m1/ps/ {"` + name + `":"Running","id":"m1"}`}, want...)
	if strings.Join(after, "\n") != strings.Join(want, "\n") {
		t.Errorf("running:\n%s\nwant\n%s", strings.Join(after, "\n"), strings.Join(want, "\n"))
	}
}

func mustProcess(e *beacons.Engine, c *value.Map) []beacons.Event {
	evs, _ := e.Process(c, nil)
	return evs
}

// TestService reads the cron service through service.status, as it is
// on this machine.
func TestService(t *testing.T) {
	if _, err := os.Stat("/etc/init.d/cron"); err != nil {
		if _, err := exec.LookPath("cron"); err != nil {
			t.Skip("no cron service here")
		}
	}
	running, err := call("service.status", []any{"cron"}, value.NewMap(0))
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "unclean")
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	e := newEngine()
	c := conf(t, `{service: [{services: {cron: {onchangeonly: true, uncleanshutdown: "`+marker+`"}}}]}`)
	st := value.MapOf("running", running)
	if !value.Truthy(running) {
		st.Set("uncleanshutdown", true)
	}
	want := "salt/beacon/m1/service/cron " + js(value.MapOf("cron", st, "service_name", "cron", "id", "m1"))
	if got := strings.Join(events(mustProcess(e, c)), "\n"); got != want {
		t.Errorf("first loop:\n%s\nwant\n%s", got, want)
	}
	if got := events(mustProcess(e, c)); len(got) != 0 {
		t.Errorf("onchangeonly, unchanged: %q", got)
	}
	plain := conf(t, `{service: [{services: {cron: {}}}]}`)
	for i := 0; i < 2; i++ {
		if got := events(mustProcess(e, plain)); len(got) != 1 {
			t.Errorf("every loop, loop %d: %q", i, got)
		}
	}
}

// TestInotify watches a temporary directory: the first loop sets the
// watches up, the next reports what changed (excluded paths aside), and
// a recursive watch reports in subdirectories under their own tag.
func TestInotify(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	e := newEngine()
	defer e.Close()
	c := conf(t, `{inotify: [{files: {"`+dir+`": {mask: [create, delete], recurse: true, exclude: ["`+dir+`/skip", "*.tmp", {"\\.swp$": {regex: true}}]}}}]}`)
	if evs := mustProcess(e, c); len(evs) != 0 {
		t.Fatalf("first loop: %q", events(evs))
	}
	for _, f := range []string{"a.txt", "skipme", "b.tmp", "c.swp", "sub/d.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "newdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "a.txt")); err != nil {
		t.Fatal(err)
	}
	got := events(mustProcess(e, c))
	want := []string{
		"salt/beacon/m1/inotify/" + dir + ` {"path":"` + dir + `/a.txt","change":"IN_CREATE","id":"m1"}`,
		"salt/beacon/m1/inotify/" + sub + ` {"path":"` + sub + `/d.txt","change":"IN_CREATE","id":"m1"}`,
		"salt/beacon/m1/inotify/" + dir + ` {"path":"` + dir + `/newdir","change":"IN_CREATE|IN_ISDIR","id":"m1"}`,
		"salt/beacon/m1/inotify/" + dir + ` {"path":"` + dir + `/a.txt","change":"IN_DELETE","id":"m1"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// a state run closes the beacon when disable_during_state_run is set
	closing := newEngine("state.apply")
	cc := conf(t, `{inotify: [{files: {"`+dir+`": {mask: [create]}}}, {disable_during_state_run: true}]}`)
	for i := 0; i < 2; i++ {
		if evs := mustProcess(closing, cc); len(evs) != 0 {
			t.Errorf("during a state run: %q", events(evs))
		}
		_ = os.WriteFile(filepath.Join(dir, "during"+strconv.Itoa(i)), nil, 0o644)
	}
}

// testBeacon is a beacon whose readings the test sets.
type testBeacon struct{ calls *int }

func (testBeacon) Validate(config any) (bool, string) {
	if _, ok := config.(*value.List); !ok {
		return false, "Configuration for testbeacon beacon must be a list."
	}
	return true, "Valid beacon configuration"
}

func (b testBeacon) Beacon(_ *beacons.Context, config any) ([]*value.Map, error) {
	*b.calls++
	cfg := beacons.ListToDict(config)
	if cfg.Has("interval") {
		return nil, execmod.Errorf("interval was not trimmed")
	}
	if f, ok := cfg.Get("fail"); ok {
		return nil, execmod.Errorf("%s", value.Str(f))
	}
	return []*value.Map{value.MapOf("tag", "x/y", "n", int64(*b.calls)), value.MapOf("id", "other")}, nil
}

var testCalls int

func init() {
	beacons.Register("testbeacon", func() beacons.Module { return testBeacon{calls: &testCalls} })
}

// TestEngine: Salt's process rules (enabled, beacon_module, interval,
// run_once, invalid configurations, failures, disable_during_state_run).
func TestEngine(t *testing.T) {
	for _, tc := range []struct {
		name    string
		conf    string
		running []string
		loops   int
		want    []string
		once    []string
	}{
		{"tags and id", `{t1: [{beacon_module: testbeacon}]}`, nil, 1,
			[]string{`salt/beacon/m1/t1/x/y {"n":1,"id":"m1"}`, `salt/beacon/m1/t1/ {"id":"other"}`}, nil},
		{"all disabled", `{enabled: false, testbeacon: [{a: 1}]}`, nil, 1, nil, nil},
		{"one disabled", `{testbeacon: [{enabled: false}], t2: {beacon_module: testbeacon, enabled: true}}`, nil, 1, nil, nil},
		{"interval", `{testbeacon: [{interval: 3}]}`, nil, 7,
			[]string{`salt/beacon/m1/testbeacon/x/y {"n":1,"id":"m1"}`, `salt/beacon/m1/testbeacon/ {"id":"other"}`,
				`salt/beacon/m1/testbeacon/x/y {"n":2,"id":"m1"}`, `salt/beacon/m1/testbeacon/ {"id":"other"}`}, nil},
		{"run_once", `{testbeacon: [{run_once: true}]}`, nil, 1,
			[]string{`salt/beacon/m1/testbeacon/x/y {"n":1,"id":"m1"}`, `salt/beacon/m1/testbeacon/ {"id":"other"}`}, []string{"testbeacon"}},
		{"failure", `{testbeacon: [{fail: boom}]}`, nil, 1, []string{`salt/beacon/m1/testbeacon/ {} error: boom`}, nil},
		{"state run", `{testbeacon: [{disable_during_state_run: true}]}`, []string{"state.sls"}, 2, nil, nil},
		{"other job", `{testbeacon: [{disable_during_state_run: true}]}`, []string{"test.sleep"}, 1,
			[]string{`salt/beacon/m1/testbeacon/x/y {"n":1,"id":"m1"}`, `salt/beacon/m1/testbeacon/ {"id":"other"}`}, nil},
		{"invalid", `{testbeacon: {a: 1}}`, nil, 1, nil, nil},
		{"unknown module", `{nosuch: [{a: 1}]}`, nil, 1, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testCalls = 0
			e := newEngine(tc.running...)
			var got, once []string
			for i := 0; i < tc.loops; i++ {
				evs, o := e.Process(conf(t, tc.conf), nil)
				got = append(got, events(evs)...)
				once = append(once, o...)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("events:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if strings.Join(once, ",") != strings.Join(tc.once, ",") {
				t.Errorf("run_once %q, want %q", once, tc.once)
			}
		})
	}
}

func TestMergedAndSetEnabled(t *testing.T) {
	opts := conf(t, `{a: [{x: opts}], b: [{x: opts}]}`)
	pillar := conf(t, `{beacons: {b: [{x: pillar}], c: [{x: pillar}]}, master: {beacons: {a: [{x: master}], d: [{x: master}]}}}`)
	if got, want := js(beacons.Merged(opts, pillar)), `{"b":[{"x":"opts"}],"c":[{"x":"pillar"}],"a":[{"x":"opts"}],"d":[{"x":"master"}]}`; got != want {
		t.Errorf("Merged = %s, want %s", got, want)
	}
	b := conf(t, `{l: [{x: 1}], le: [{enabled: true}, {x: 1}], m: {x: 1}}`)
	for _, n := range []string{"l", "le", "m"} {
		beacons.SetEnabled(b, n, false)
	}
	if got, want := js(b), `{"l":[{"x":1},{"enabled":false}],"le":[{"enabled":false},{"x":1}],"m":{"x":1,"enabled":false}}`; got != want {
		t.Errorf("SetEnabled: %s, want %s", got, want)
	}
}

func TestStore(t *testing.T) {
	dir := t.TempDir()
	st := beacons.Store{Opts: value.MapOf("cachedir", dir, "conf_file", filepath.Join(dir, "conf", "minion"))}
	if st.DaemonRunning() {
		t.Fatal("a daemon runs before Init")
	}
	if err := st.Init(conf(t, `{ps: [{processes: {cron: running}}]}`)); err != nil {
		t.Fatal(err)
	}
	if !st.DaemonRunning() {
		t.Error("no daemon after Init")
	}
	after, err := st.Update(func(b *value.Map) { b.Set("enabled", false) })
	if err != nil {
		t.Fatal(err)
	}
	cur, _ := st.Current()
	if js(cur) != js(after) || js(cur) != `{"ps":[{"processes":{"cron":"running"}}],"enabled":false}` {
		t.Errorf("Current %s, Update %s", js(cur), js(after))
	}
	if got := st.ConfFile(); got != filepath.Join(dir, "conf", "minion.d", "beacons.conf") {
		t.Errorf("ConfFile %s", got)
	}
	st.Stop()
	if st.DaemonRunning() {
		t.Error("a daemon runs after Stop")
	}
}

// TestStatus: one event tagged with the UTC time, carrying the status.*
// readings asked for (all of them by default).
func TestStatus(t *testing.T) {
	e := newEngine()
	evs := mustProcess(e, conf(t, `{status: []}`))
	if len(evs) != 1 || !strings.HasPrefix(evs[0].Tag, "salt/beacon/m1/status/2") {
		t.Fatalf("events %q", events(evs))
	}
	data, _ := evs[0].Data.Get("data")
	if keys := js(value.NewList(data.(*value.Map).Keys()...)); keys != `["loadavg","cpustats","meminfo","vmstats","time"]` {
		t.Errorf("default readings %s", keys)
	}
	evs = mustProcess(e, conf(t, `{status: [{loadavg: ["1-min", "nosuch"]}, {meminfo: MemTotal}]}`))
	if len(evs) != 1 {
		t.Fatalf("events %q", events(evs))
	}
	data, _ = evs[0].Data.Get("data")
	dm := data.(*value.Map)
	if la, _ := dm.Get("loadavg"); la != "Status beacon is incorrectly configured: 'nosuch'" {
		t.Errorf("loadavg %v", js(la))
	}
	evs = mustProcess(e, conf(t, `{status: [{nosuch: all}]}`))
	if got := strings.Join(events(evs), "\n"); got != "salt/beacon/m1/status/ {} error: 'status.nosuch'" {
		t.Errorf("unknown function: %s", got)
	}
	mem, _ := dm.Get("meminfo")
	if mm, ok := mem.(*value.Map); !ok || mm.Len() != 1 || !mm.Has("MemTotal") {
		t.Errorf("meminfo %s", js(mem))
	}
}

// TestNetworkInfo compares the loopback's counters with the kernel's.
func TestNetworkInfo(t *testing.T) {
	e := newEngine()
	if evs := mustProcess(e, conf(t, `{network_info: [{interfaces: {lo: {type: equal, bytes_recv: -1}, nosuch0: {type: greater, bytes_recv: -1}}}]}`)); len(evs) != 0 {
		t.Errorf("equal to -1: %q", events(evs))
	}
	evs := mustProcess(e, conf(t, `{network_info: [{interfaces: {lo: {type: greater, bytes_sent: -1}}}]}`))
	if len(evs) != 1 {
		t.Fatalf("events %q", events(evs))
	}
	if i, _ := evs[0].Data.Get("interface"); i != "lo" {
		t.Errorf("interface %v", i)
	}
	ni, _ := evs[0].Data.Get("network_info")
	if keys := js(value.NewList(ni.(*value.Map).Keys()...)); keys != `["bytes_sent","bytes_recv","packets_sent","packets_recv","errin","errout","dropin","dropout"]` {
		t.Errorf("counters %s", keys)
	}
	b, err := os.ReadFile("/sys/class/net/lo/statistics/rx_errors")
	if err == nil {
		if errin, _ := ni.(*value.Map).Get("errin"); strconv.FormatInt(errin.(int64), 10) != strings.TrimSpace(string(b)) {
			t.Errorf("errin %v, the kernel says %s", errin, b)
		}
	}
	if ok, msg := beacons.Validate("network_info", value.NewList(value.MapOf("interfaces", value.MapOf("lo", value.MapOf("bogus", 1))))); ok || msg != "Invalid configuration item in Beacon configuration." {
		t.Errorf("Validate %v %q", ok, msg)
	}
}

// TestAvailable lists the beacons this machine has (wtmp and btmp where
// their logs are).
func TestAvailable(t *testing.T) {
	got := strings.Join(beacons.Available(), ",")
	for _, n := range []string{"diskusage", "inotify", "load", "memusage", "network_info", "pkg", "ps", "service", "status"} {
		if !strings.Contains(","+got+",", ","+n+",") {
			t.Errorf("Available() = %s: no %s", got, n)
		}
	}
	for _, n := range []string{"wtmp", "btmp"} {
		_, err := os.Stat("/var/log/" + n)
		if has := strings.Contains(got, n); has != (err == nil) {
			t.Errorf("Available() = %s: %s listed %v, log present %v", got, n, has, err == nil)
		}
	}
}

// TestPkg follows packages' status through pkg.version and
// pkg.latest_version: the real ones first (bash installed, a made-up
// package not), then a scripted sequence of statuses, since a package's
// upgrade cannot be made to appear here.
func TestPkg(t *testing.T) {
	if _, err := exec.LookPath("dpkg-query"); err != nil {
		t.Skip("no dpkg here")
	}
	c := conf(t, `{pkg: [{pkgs: [bash, brine-no-such-package]}]}`)
	e := newEngine()
	for i := 0; i < 2; i++ {
		if got := events(mustProcess(e, c)); len(got) != 0 {
			t.Errorf("loop %d, statuses unchanged: %q", i, got)
		}
	}

	// installed, then an upgrade, then removed, then unchanged
	seq := []struct{ installed, latest string }{{"1.0", ""}, {"1.0", "1.1"}, {"", ""}, {"", ""}}
	step := 0
	e = newEngine()
	e.Call = func(fun string, args []any, kwargs *value.Map) (any, error) {
		switch fun {
		case "pkg.version":
			if kwargs.Len() != 1 || value.Truthy(mustMap(t, kwargs)["use_context"]) {
				t.Errorf("pkg.version kwargs %s", js(kwargs))
			}
			return seq[step].installed, nil
		case "pkg.latest_version":
			return seq[step].latest, nil
		}
		return call(fun, args, kwargs)
	}
	c = conf(t, `{pkg: [{pkgs: [zsh]}, {refresh: true}]}`)
	want := []string{
		"",
		`salt/beacon/m1/pkg/ {"pkg":"zsh","version":"1.1","status":"upgrade","id":"m1"}`,
		`salt/beacon/m1/pkg/ {"pkg":"zsh","version":null,"status":"not-installed","id":"m1"}`,
		"",
	}
	for step = range seq {
		if got := strings.Join(events(mustProcess(e, c)), "\n"); got != want[step] {
			t.Errorf("loop %d:\n%s\nwant\n%s", step, got, want[step])
		}
	}
}

func mustMap(t *testing.T, m *value.Map) map[string]any {
	t.Helper()
	out := map[string]any{}
	m.Range(func(k, v any) bool { out[value.Str(k)] = v; return true })
	return out
}
