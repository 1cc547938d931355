package modules

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/system"
	"brine/internal/system/pkgmgr"
	"brine/internal/value"
)

func sysEq(t *testing.T, what string, got, want any) {
	t.Helper()
	if !value.Equal(got, want) {
		t.Errorf("%s = %s, want %s", what, value.Repr(got), value.Repr(want))
	}
}

func TestLogDefaultsEnvironMine(t *testing.T) {
	ctx := testContext()
	for _, l := range []string{"debug", "info", "warning", "error", "critical"} {
		sysEq(t, "log."+l, call(t, ctx, "log."+l, []any{"hello"}), nil)
	}
	dest := value.MapOf("a", value.MapOf("x", int64(1)), "l", value.NewList(int64(1)))
	src := value.MapOf("a", value.MapOf("y", int64(2)), "l", value.NewList(int64(2)))
	got := call(t, ctx, "defaults.merge", []any{dest, src})
	sysEq(t, "defaults.merge", got, value.MapOf("a", value.MapOf("x", int64(1), "y", int64(2)), "l", value.NewList(int64(2))))
	if got != any(dest) {
		t.Error("defaults.merge in_place did not return dest")
	}
	got = call(t, ctx, "defaults.merge", []any{value.MapOf("l", value.NewList(int64(1))), value.MapOf("l", value.NewList(int64(2)))}, "merge_lists", true, "in_place", false)
	sysEq(t, "defaults.merge merge_lists", got, value.MapOf("l", value.NewList(int64(1), int64(2))))
	nodes := value.MapOf("h1", value.MapOf("index", "foo"), "h2", value.MapOf("enabled", false))
	call(t, ctx, "defaults.update", []any{nodes, value.MapOf("enabled", true, "extra", value.NewList("test"))})
	sysEq(t, "defaults.update", nodes, value.MapOf(
		"h1", value.MapOf("enabled", true, "extra", value.NewList("test"), "index", "foo"),
		"h2", value.MapOf("enabled", false, "extra", value.NewList("test"))))
	orig := value.MapOf("a", value.NewList(int64(1)))
	cp := call(t, ctx, "defaults.deepcopy", []any{orig})
	cp.(*value.Map).Set("a", "changed")
	sysEq(t, "deepcopy leaves the source", orig, value.MapOf("a", value.NewList(int64(1))))

	t.Setenv("BRINE_TEST_ENV", "v1")
	sysEq(t, "environ.get", call(t, ctx, "environ.get", []any{"BRINE_TEST_ENV"}), "v1")
	sysEq(t, "environ.get default", call(t, ctx, "environ.get", []any{"BRINE_NOPE"}, "default", "d"), "d")
	sysEq(t, "environ.has_value", call(t, ctx, "environ.has_value", []any{"BRINE_TEST_ENV", "v2"}), false)
	sysEq(t, "environ.has_value", call(t, ctx, "environ.has_value", []any{"BRINE_TEST_ENV"}), true)
	sysEq(t, "environ.item", call(t, ctx, "environ.item", []any{value.NewList("BRINE_TEST_ENV", "BRINE_NOPE")}),
		value.MapOf("BRINE_TEST_ENV", "v1", "BRINE_NOPE", ""))
	if _, err := ctx.Call("mine.get", []any{"*", "network.ip_addrs"}, value.NewMap(0)); err == nil {
		t.Error("mine.get without a master nor file_client local succeeded") // mine_test.go tests the mine
	}
}

// TestRandIntMatchesPython pins seeded values computed by CPython's random
// module (random.seed(s); random.randint(a, b)).
func TestRandIntMatchesPython(t *testing.T) {
	ctx := testContext()
	sysEq(t, "seed myhost", call(t, ctx, "random.rand_int", []any{int64(0), int64(59)}, "seed", "myhost"), int64(53))
	sysEq(t, "seed 42", call(t, ctx, "random.rand_int", []any{int64(1), int64(10)}, "seed", int64(42)), int64(2))
	for i := 0; i < 20; i++ {
		n := call(t, ctx, "random.rand_int", []any{int64(5), int64(7)}).(int64)
		if n < 5 || n > 7 {
			t.Fatalf("rand_int out of range: %d", n)
		}
	}
	if s := call(t, ctx, "random.get_str", []any{int64(12)}).(string); len(s) != 12 {
		t.Errorf("get_str length %d", len(s))
	}
	sysEq(t, "shadow_hash", call(t, ctx, "random.shadow_hash", nil, "crypt_salt", "saltsalt", "password", "secret"),
		"$6$saltsalt$TVLlQcbpFVof5W3Yz4DTP6gRstiNuHwwTt6GLc1E5n0U0aDehy0S5knV8wiOQSpT0Y77vwPZN.Pq.H91p5hVO1")
	a := call(t, ctx, "random.seed", []any{int64(60)}, "hash", "web01")
	b := call(t, ctx, "random.seed", []any{int64(60)}, "hash", "web01")
	sysEq(t, "random.seed is stable", a, b)
	if py, err := exec.Command("python3", "-c", "import random; random.seed('a'*100); print(random.randint(0, 10**20))").Output(); err == nil {
		got := call(t, ctx, "random.rand_int", []any{int64(0), "100000000000000000000"}, "seed", strings.Repeat("a", 100))
		sysEq(t, "big seeded rand_int", value.Str(got), strings.TrimSpace(string(py)))
	}
}

func TestUserGroupReal(t *testing.T) {
	ctx := testContext()
	info := call(t, ctx, "user.info", []any{"root"}).(*value.Map)
	for k, want := range map[string]any{"uid": int64(0), "gid": int64(0), "name": "root"} {
		v, _ := info.Get(k)
		sysEq(t, "user.info root "+k, v, want)
	}
	if g, _ := info.Get("groups"); !grainsListHas(g.(*value.List), "root") {
		t.Errorf("root groups = %s", value.Repr(g))
	}
	sysEq(t, "user.info missing", call(t, ctx, "user.info", []any{"brine-no-such-user"}), value.NewMap(0))
	users := call(t, ctx, "user.list_users", nil).(*value.List)
	if !grainsListHas(users, "root") {
		t.Error("list_users lacks root")
	}
	g := call(t, ctx, "group.info", []any{"root"}).(*value.Map)
	gid, _ := g.Get("gid")
	sysEq(t, "group.info root gid", gid, int64(0))
	sysEq(t, "group.info missing", call(t, ctx, "group.info", []any{"brine-no-such-group"}), value.NewMap(0))
	if l := call(t, ctx, "group.getent", nil).(*value.List); l.Len() == 0 {
		t.Error("group.getent empty")
	}
}

func TestNetworkReal(t *testing.T) {
	ctx := testContext()
	all := call(t, ctx, "network.ip_addrs", nil, "include_loopback", true).(*value.List)
	if !grainsListHas(all, "127.0.0.1") {
		t.Errorf("ip_addrs include_loopback = %s", value.Repr(all))
	}
	if l := call(t, ctx, "network.ip_addrs", nil).(*value.List); grainsListHas(l, "127.0.0.1") {
		t.Errorf("ip_addrs lists loopback: %s", value.Repr(l))
	}
	sysEq(t, "ip_addrs cidr", call(t, ctx, "network.ip_addrs", nil, "include_loopback", true, "cidr", "127.0.0.0/8"), value.NewList("127.0.0.1"))
	ifs := call(t, ctx, "network.interfaces", nil).(*value.Map)
	lo, ok := ifs.Get("lo")
	if !ok {
		t.Fatalf("no lo in %s", value.Repr(ifs))
	}
	inet, _ := lo.(*value.Map).Get("inet")
	first := inet.(*value.List).Items[0].(*value.Map)
	for k, want := range map[string]any{"address": "127.0.0.1", "netmask": "255.0.0.0", "label": "lo"} {
		v, _ := first.Get(k)
		sysEq(t, "lo inet "+k, v, want)
	}
	sysEq(t, "hw_addr lo", call(t, ctx, "network.hw_addr", []any{"lo"}), "00:00:00:00:00:00")
	if s := call(t, ctx, "network.hw_addr", []any{"nope0"}).(string); !strings.HasPrefix(s, `Interface "nope0" not in available interfaces`) {
		t.Errorf("hw_addr missing = %q", s)
	}
	if out, err := exec.Command("ip", "-4", "route", "show", "default").Output(); err == nil && len(out) > 0 {
		routes := call(t, ctx, "network.default_route", nil, "family", "inet").(*value.List)
		f := strings.Fields(string(out))
		if routes.Len() == 0 {
			t.Fatal("no default route found")
		}
		gw, _ := routes.Items[0].(*value.Map).Get("gateway")
		if len(f) > 2 && f[1] == "via" {
			sysEq(t, "default gateway", gw, f[2])
		}
	}
	// As Salt's ip_addrs, in_subnet leaves the loopback addresses out.
	sysEq(t, "in_subnet", call(t, ctx, "network.in_subnet", []any{"127.0.0.0/8"}), false)
}

func TestPkgReal(t *testing.T) {
	if _, err := exec.LookPath("dpkg-query"); err != nil {
		t.Skip("dpkg-query is not installed here")
	}
	ctx := testContext()
	out, err := exec.Command("dpkg-query", "-W", "-f=${Version}", "dpkg").Output()
	if err != nil {
		t.Fatal(err)
	}
	sysEq(t, "pkg.version dpkg", call(t, ctx, "pkg.version", []any{"dpkg"}), string(out))
	sysEq(t, "pkg.version missing", call(t, ctx, "pkg.version", []any{"brine-no-such-package"}), "")
	two := call(t, ctx, "pkg.version", []any{"dpkg", "brine-no-such-package"})
	sysEq(t, "pkg.version two", two, value.MapOf("dpkg", string(out), "brine-no-such-package", ""))
	if m := call(t, ctx, "pkg.version", []any{"dpk*"}).(*value.Map); !m.Has("dpkg") {
		t.Errorf("glob version = %s", value.Repr(m))
	}
	pkgs := call(t, ctx, "pkg.list_pkgs", nil).(*value.Map)
	v, _ := pkgs.Get("dpkg")
	sysEq(t, "list_pkgs dpkg", v, string(out))
	sysEq(t, "version_cmp", call(t, ctx, "pkg.version_cmp", []any{"1.0~rc1", "1.0"}), int64(-1))
	sysEq(t, "version_cmp epoch", call(t, ctx, "pkg.version_cmp", []any{"1:1.0", "2.0"}), int64(1))
	sysEq(t, "version_cmp ignore_epoch", call(t, ctx, "pkg.version_cmp", []any{"1:1.0", "2.0"}, "ignore_epoch", true), int64(-1))
	// refresh=False keeps it read-only: no apt-get update.
	pol, err := exec.Command("apt-cache", "policy", "dpkg").Output()
	if err != nil {
		t.Skip("apt-cache policy failed: cannot check pkg.latest_version")
	}
	want := ""
	for _, line := range strings.Split(string(pol), "\n") {
		if c, ok := strings.CutPrefix(strings.TrimSpace(line), "Candidate:"); ok {
			if c = strings.TrimSpace(c); pkgmgr.CompareDebian(c, string(out)) > 0 {
				want = c
			}
		}
	}
	sysEq(t, "latest_version of installed dpkg", call(t, ctx, "pkg.latest_version", []any{"dpkg"}, "refresh", false), want)
}

func TestPkgLatestVersionLogic(t *testing.T) {
	rec := &system.Recorder{Reply: func(c system.Cmd) (system.Result, bool) {
		if c.Name == "apt-cache" {
			return system.Result{Stdout: "nginx:\n  Installed: (none)\n  Candidate: 1.22.1-9\ndpkg:\n  Installed: 1.0\n  Candidate: 1.1\n"}, true
		}
		return system.Result{}, true
	}}
	ctx := testContext()
	ctx.SetService(PkgManagerService, pkgmgr.NewApt(rec))
	ctx.Cache().Store(PkgListCacheKey, pkgmgr.Installed{"dpkg": {"1.0"}})
	got := call(t, ctx, "pkg.latest_version", []any{"nginx", "dpkg"})
	sysEq(t, "latest_version", got, value.MapOf("nginx", "1.22.1-9", "dpkg", "1.1"))
	if lines := rec.Lines(); len(lines) != 2 || lines[0] != "apt-get -q update" {
		t.Errorf("commands = %q", lines)
	}
	sysEq(t, "upgrade_available", call(t, ctx, "pkg.upgrade_available", []any{"dpkg"}, "refresh", false), true)
}

func TestGrainsPersistence(t *testing.T) {
	dir := t.TempDir()
	ctx := testContext()
	ctx.Opts.Set("conf_file", filepath.Join(dir, "minion"))
	ctx.Opts.Set("cachedir", filepath.Join(dir, "cache"))
	readFile := func() string {
		data, _ := os.ReadFile(filepath.Join(dir, "grains"))
		return string(data)
	}
	sysEq(t, "setval", call(t, ctx, "grains.setval", []any{"role", "web"}), value.MapOf("role", "web"))
	sysEq(t, "file after setval", readFile(), "role: web\n")
	if v, _ := ctx.Grains.Get("role"); v != "web" {
		t.Errorf("live grain role = %v", v)
	}
	sysEq(t, "append", call(t, ctx, "grains.append", []any{"roles", "cache"}), value.MapOf("roles", value.NewList("web", "db", "cache")))
	sysEq(t, "append again", call(t, ctx, "grains.append", []any{"roles", "cache"}), "The val cache was already in the list roles")
	sysEq(t, "append not list", call(t, ctx, "grains.append", []any{"role", "x"}), "The key role is not a valid list")
	sysEq(t, "append nested", call(t, ctx, "grains.append", []any{"site:racks", "r1"}),
		value.MapOf("site", value.MapOf("dc", "east", "racks", value.NewList("r1"))))
	sysEq(t, "remove", call(t, ctx, "grains.remove", []any{"roles", "db"}), value.MapOf("roles", value.NewList("web", "cache")))
	ret := call(t, ctx, "grains.set", []any{"site:dc", "west"}).(*value.Map)
	if r, _ := ret.Get("result"); r != true {
		t.Errorf("grains.set = %s", value.Repr(ret))
	}
	ret = call(t, ctx, "grains.set", []any{"roles", "x"}).(*value.Map)
	sysEq(t, "set over a list", ret, value.MapOf("comment", "The key 'roles' exists but is a dict or a list. Use 'force=True' to overwrite.", "changes", value.NewMap(0), "result", false))
	call(t, ctx, "grains.delkey", []any{"role"})
	if ctx.Grains.Has("role") {
		t.Error("delkey left the live grain")
	}
	sysEq(t, "file at the end", readFile(), "roles:\n- web\n- cache\nsite:\n  dc: west\n  racks:\n  - r1\n")
	sysEq(t, "has_value", call(t, ctx, "grains.has_value", []any{"site:dc"}), true)
	sysEq(t, "equals", call(t, ctx, "grains.equals", []any{"site:dc", "west"}), true)
	sysEq(t, "fetch", call(t, ctx, "grains.fetch", []any{"site:dc"}), "west")
}

var _ = execmod.Default
