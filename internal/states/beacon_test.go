package states_test

import (
	"path/filepath"
	"testing"

	"brine/internal/beacons"
	"brine/internal/execmod"
	"brine/internal/statemod"
	"brine/internal/value"
)

// beaconCallState runs the state function full directly (no engine) and returns
// its return as JSON, or its error.
func beaconCallState(t *testing.T, ctx *execmod.Context, full string, args *value.Map, test bool) string {
	t.Helper()
	f, ok := statemod.Default.Lookup(full)
	if !ok {
		t.Fatalf("no %s", full)
	}
	bound, extra := f.BindArgs(args)
	if len(extra) > 0 {
		t.Fatalf("%s: extra arguments %q", full, extra)
	}
	ret, err := f.Run(&statemod.Call{Fun: f, Args: bound, Low: args, Test: test, Env: &statemod.Env{Exec: ctx, Shared: statemod.NewShared()}})
	if err != nil {
		return "error: " + err.Error()
	}
	return value.ToJSON(ret, value.JSONOptions{Indent: -1})
}

// TestModBeacon checks the beacon each mod_beacon sets, with the
// defaults and the settings Salt 3006 stored on this machine for the same
// states (beacons.list after state.apply), and the results of the calls
// that set none.
func TestModBeacon(t *testing.T) {
	ctx := execmod.NewContext()
	ctx.Opts.Set("cachedir", t.TempDir())
	ctx.Opts.Set("conf_file", filepath.Join(t.TempDir(), "minion"))
	st := beacons.Store{Opts: ctx.Opts}
	if err := st.Init(value.NewMap(0)); err != nil {
		t.Fatal(err)
	}
	defer st.Stop()
	for _, tc := range []struct {
		fun    string
		args   *value.Map
		want   string
		beacon string // the beacon set, as beacons.list shows it
	}{
		{"service.mod_beacon", value.MapOf("name", "svc-a", "sfun", "dead", "beacon", true),
			`{"name": "beacon_service_svc-a", "result": true, "changes": {}, "comment": "Adding beacon_service_svc-a to beacons"}`,
			`[{"services": {"svc-a": {"onchangeonly": true, "delay": 0, "emitatstartup": false, "uncleanshutdown": null}}}, {"interval": 60}, {"beacon_module": "service"}]`},
		{"service.mod_beacon", value.MapOf("name", "svc-b", "sfun", "enabled", "beacon", true),
			`{"name": "svc-b", "changes": {}, "comment": "service.enabled does not work with the beacon state function", "result": false}`, ""},
		{"file.mod_beacon", value.MapOf("name", "/srv/dd", "sfun", "directory", "beacon", true),
			`{"name": "beacon_inotify_/srv/dd", "result": true, "changes": {}, "comment": "Adding beacon_inotify_/srv/dd to beacons"}`,
			`[{"files": {"/srv/dd": {"mask": ["create", "delete", "modify"], "auto_add": true, "recurse": true, "exclude": []}}}, {"interval": 60}, {"coalesce": false}, {"beacon_module": "inotify"}]`},
		{"file.mod_beacon", value.MapOf("name", "/srv/ff", "sfun", "managed", "beacon", true, "beacon_data", value.MapOf("coalesce", true, "mask", value.NewList("create"))),
			`{"name": "beacon_inotify_/srv/ff", "result": true, "changes": {}, "comment": "Adding beacon_inotify_/srv/ff to beacons"}`,
			`[{"files": {"/srv/ff": {"mask": ["create"]}}}, {"interval": 60}, {"coalesce": true}, {"beacon_module": "inotify"}]`},
		{"file.mod_beacon", value.MapOf("name", "/srv/ff", "sfun", "managed", "beacon", true, "beacon_data", nil),
			`error: AttributeError: 'NoneType' object has no attribute 'get'`, ""},
		{"file.mod_beacon", value.MapOf("name", "/srv/gg", "sfun", "managed", "beacon", 0),
			`{"name": "/srv/gg", "changes": {}, "comment": "Not adding beacon.", "result": true}`, ""},
		{"file.mod_beacon", value.MapOf("name", "/srv/zz"),
			`{"name": "/srv/zz", "changes": {}, "comment": "file.None does not work with the beacon state function", "result": false}`, ""},
		{"pkg.mod_beacon", value.MapOf("name", "p", "sfun", "latest", "beacon", true),
			`{"name": "p", "changes": {}, "comment": "pkg.latest does not work with the mod_beacon state function", "result": false}`, ""},
		{"pkg.mod_beacon", value.MapOf("name", "p", "sfun", "installed", "beacon", false, "beacon_data", "ignored"),
			`{"name": "p", "changes": {}, "comment": "Not adding beacon.", "result": true}`, ""},
	} {
		if got := beaconCallState(t, ctx, tc.fun, tc.args, false); got != tc.want {
			t.Errorf("%s %s\n got %s\nwant %s", tc.fun, value.ToJSON(tc.args, value.JSONOptions{Indent: -1}), got, tc.want)
		}
		if tc.beacon == "" {
			continue
		}
		cur, err := st.Current()
		if err != nil {
			t.Fatal(err)
		}
		n, _ := tc.args.Get("name")
		name := "beacon_" + map[string]string{"service.mod_beacon": "service_", "file.mod_beacon": "inotify_"}[tc.fun] + value.Str(n)
		b, _ := cur.Get(name)
		if got := value.ToJSON(b, value.JSONOptions{Indent: -1}); got != tc.beacon {
			t.Errorf("%s: beacon %s\n got %s\nwant %s", tc.fun, name, got, tc.beacon)
		}
	}
}
