package states_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/states"
	"brine/internal/value"
)

// networkRoot builds a Debian system root like the machine Salt's answers
// in testdata/network/golden.json were recorded on (see record.sh).
func networkRoot(t *testing.T, golden map[string]json.RawMessage) (string, *execmod.Context) {
	t.Helper()
	root := t.TempDir()
	var hostname, resolv string
	json.Unmarshal(golden["hostname"], &hostname)
	json.Unmarshal(golden["resolv"], &resolv)
	ifaces, err := os.ReadFile("testdata/network/interfaces")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"etc/hostname":                     hostname,
		"etc/resolv.conf":                  resolv,
		"etc/default/networking":           "# x\nCONFIGURE_INTERFACES=yes\n",
		"etc/network/interfaces":           string(ifaces),
		"etc/network/if-up.d/route-brt0":   "#!/bin/sh\n# add\ntest \"${IFACE}\" = \"brt0\" || exit 0\nip route add 10.1.0.0/16 via 10.0.0.9 dev brt0\n",
		"etc/network/if-down.d/route-brt0": "#!/bin/sh\n# del\ntest \"${IFACE}\" = \"brt0\" || exit 0\nip route del 10.1.0.0/16 via 10.0.0.9 dev brt0\n",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := execmod.NewContext()
	ctx.Grains = value.MapOf("os_family", "Debian", "osfullname", "Debian GNU/Linux", "osrelease", "12")
	ctx.SetService(states.SysRootService, root)
	return root, ctx
}

func loadNetworkGolden(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	data, err := os.ReadFile("testdata/network/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g map[string]json.RawMessage
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestNetworkSaltGolden compares the ip functions and the network states
// in test mode with what Salt 3006 returned on the same files.
func TestNetworkSaltGolden(t *testing.T) {
	g := loadNetworkGolden(t)
	_, ctx := networkRoot(t, g)
	opts := value.JSONOptions{Indent: -1}
	for _, fun := range []string{"ip.get_routes", "ip.get_network_settings"} {
		var args []any
		if fun == "ip.get_routes" {
			args = []any{"brt0"}
		}
		got, err := ctx.Call(fun, args, nil)
		if err != nil {
			t.Fatalf("%s: %v", fun, err)
		}
		want, _ := value.FromJSON(g[fun[3:]])
		if gs, ws := value.ToJSON(got, opts), value.ToJSON(want, opts); gs != ws {
			t.Errorf("%s:\n got %s\nwant %s", fun, gs, ws)
		}
	}
	route := func(kv ...any) *value.Map { return value.MapOf(kv...) }
	for _, tc := range []struct {
		key  string
		fun  string
		args *value.Map
	}{
		{"routes_test", "network.routes", value.MapOf("name", "brt0", "routes", value.NewList(
			route("name", "net1", "ipaddr", "10.1.0.0", "netmask", int64(16), "gateway", "10.0.0.1"),
			route("ipaddr", "10.2.0.0", "netmask", int64(16), "gateway", "10.0.0.1", "metric", int64(7))))},
		{"routes_same", "network.routes", value.MapOf("name", "brt0", "routes", value.NewList(
			route("ipaddr", "10.1.0.0", "netmask", int64(16), "gateway", "10.0.0.9")))},
		{"system_test", "network.system", value.MapOf("name", "sys")},
		{"system_test_args", "network.system", value.MapOf("name", "sys", "enabled", false, "hostname", "web1.example.org", "search", "example.org")},
		{"managed_lo", "network.managed", value.MapOf("name", "lo", "proto", "loopback")},
		{"managed_eth0", "network.managed", value.MapOf("name", "eth0", "proto", "dhcp", "hotplug", true)},
		{"managed_bond0", "network.managed", value.MapOf("name", "bond0", "type", "bond", "proto", "manual", "slaves", "eth3 eth4", "mode", int64(4))},
	} {
		var rec map[string]map[string]json.RawMessage
		if err := json.Unmarshal(g[tc.key], &rec); err != nil {
			t.Fatal(err)
		}
		for _, want := range rec {
			ret := sysRun(t, ctx, tc.fun, tc.args, true)
			for _, k := range []string{"result", "comment", "changes"} {
				w, _ := value.FromJSON(want[k])
				if gs, ws := value.ToJSON(getv(ret, k), opts), value.ToJSON(w, opts); gs != ws {
					t.Errorf("%s %s:\n got %s\nwant %s", tc.key, k, gs, ws)
				}
			}
		}
	}
}

// TestNetworkApply runs the states for real under a temporary root, with
// require_reboot so that the networking service is left alone.
func TestNetworkApply(t *testing.T) {
	root, ctx := networkRoot(t, loadNetworkGolden(t))
	routes := value.NewList(value.MapOf("ipaddr", "10.5.0.0", "netmask", int64(16), "gateway", "10.0.0.1"))
	args := value.MapOf("name", "eth0.5", "routes", routes, "require_reboot", true)
	ret := sysRun(t, ctx, "network.routes", args, false)
	if getv(ret, "result") != true || getv(ret, "comment") != "Interface eth0.5 routes added." ||
		value.Repr(getv(ret, "changes")) != "{'network_routes': 'Added interface eth0.5 routes.'}" {
		t.Errorf("routes: %s", value.Repr(ret))
	}
	up := filepath.Join(root, "etc/network/if-up.d/route-eth0_5")
	b, err := os.ReadFile(up)
	if want := "#!/bin/sh\n# add\ntest \"${IFACE}\" = \"eth0.5\" || exit 0\nip route add 10.5.0.0/16 via 10.0.0.1 dev eth0.5\n"; err != nil || string(b) != want {
		t.Errorf("%s: %q %v", up, b, err)
	}
	if st, err := os.Stat(up); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("%s mode: %v %v", up, st, err)
	}
	// Salt reads route-eth0.5 back, which it never writes: always "added".
	ret = sysRun(t, ctx, "network.routes", args, false)
	if getv(ret, "comment") != "Interface eth0.5 routes added." {
		t.Errorf("routes again: %s", value.Repr(ret))
	}
	os.RemoveAll(filepath.Join(root, "etc/network/if-down.d"))
	ret = sysRun(t, ctx, "network.routes", value.MapOf("name", "eth1", "routes", routes, "require_reboot", true), false)
	if want := "/" + filepath.Join(root, "etc/network/if-down.d") + "/route-eth1 cannot be written. " + filepath.Join(root, "etc/network/if-down.d") + "/ does not exist"; getv(ret, "result") != false || getv(ret, "comment") != want[1:] {
		t.Errorf("routes without if-down.d: %s\nwant %s", value.Repr(ret), want[1:])
	}

	sys := value.MapOf("name", "sys", "enabled", false, "hostname", "web1.example.org", "require_reboot", true)
	ret = sysRun(t, ctx, "network.system", sys, false)
	if getv(ret, "result") != true || value.Repr(getv(ret, "changes")) != "{'network_settings': '--- \\n+++ \\n@@ -1,2 +1,3 @@\\n-NETWORKING=yes\\n\\n-HOSTNAME=vm\\n\\n+NETWORKING=no\\n\\n+HOSTNAME=web1\\n\\n+DOMAIN=example.org\\n'}" {
		t.Errorf("system: %s", value.Repr(ret))
	}
	if b, _ := os.ReadFile(filepath.Join(root, "etc/default/networking")); !strings.Contains(string(b), "CONFIGURE_INTERFACES=no\n") {
		t.Errorf("networking file: %q", b)
	}
	ret = sysRun(t, ctx, "network.system", value.MapOf("name", "sys", "enabled", "sometimes"), false)
	if getv(ret, "result") != false || getv(ret, "comment") != "Invalid network setting -- Setting: networking, Expected: [yes|on|true|1|True|no|off|false|0|False]" {
		t.Errorf("system bad enabled: %s", value.Repr(ret))
	}
}

// TestNetworkManagedApply writes interfaces under a temporary root with
// noifupdown, so that no interface is touched.
func TestNetworkManagedApply(t *testing.T) {
	root, ctx := networkRoot(t, loadNetworkGolden(t))
	path := filepath.Join(root, "etc/network/interfaces")
	args := value.MapOf("name", "eth9", "proto", "static", "ipaddr", "10.9.0.5", "netmask", "255.255.255.0", "noifupdown", true)
	ret := sysRun(t, ctx, "network.managed", args, false)
	if getv(ret, "result") != true || getv(ret, "comment") != "Interface eth9 added." ||
		value.Repr(getv(ret, "changes")) != "{'interface': 'Added network interface.'}" {
		t.Errorf("added: %s", value.Repr(ret))
	}
	b, _ := os.ReadFile(path)
	if !strings.HasSuffix(string(b), "    bond-slaves eth3 eth4\nauto eth9\niface eth9 inet static\n    address 10.9.0.5\n    netmask 255.255.255.0\n") ||
		strings.Contains(string(b), "source ") {
		t.Errorf("interfaces file:\n%s", b)
	}
	ret = sysRun(t, ctx, "network.managed", args, false)
	if getv(ret, "result") != true || getv(ret, "comment") != "Interface eth9 is up to date." || value.Repr(getv(ret, "changes")) != "{}" {
		t.Errorf("again: %s", value.Repr(ret))
	}
	args.Set("netmask", int64(16))
	ret = sysRun(t, ctx, "network.managed", args, false)
	if getv(ret, "comment") != "Interface eth9 updated." ||
		value.Repr(getv(ret, "changes")) != "{'interface': '--- \\n+++ \\n@@ -1,5 +1,5 @@\\n auto eth9\\n\\n iface eth9 inet static\\n\\n     address 10.9.0.5\\n\\n-    netmask 255.255.255.0\\n\\n+    netmask 16\\n\\n \\n'}" {
		t.Errorf("updated: %s", value.Repr(ret))
	}
}
