package modules

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"brine/internal/beacons"
	"brine/internal/execmod"
	"brine/internal/value"
	"brine/internal/yamlload"
)

func beaconsCtx(t *testing.T) *execmod.Context {
	t.Helper()
	ctx := mineCtx(t, `{default_include: minion.d/*.conf}`, `{beacons: {pb: [{x: 1}]}}`)
	conf := filepath.Join(t.TempDir(), "conf")
	if err := os.MkdirAll(filepath.Join(conf, "minion.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx.Opts.Set("conf_file", filepath.Join(conf, "minion"))
	return ctx
}

// TestBeaconsMasterless compares the functions without a minion daemon
// with what Salt 3006's salt-call --local returned on this machine
// (testdata/beacons/masterless_salt.json): the events go unanswered.
func TestBeaconsMasterless(t *testing.T) {
	b, err := os.ReadFile("testdata/beacons/masterless_salt.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Call      []string `json:"call"`
		Salt      any      `json:"salt"`
		SaltError string   `json:"salt_error"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	ctx := beaconsCtx(t)
	for _, tc := range cases {
		args, kwargs := yamlload.ParseInput(tc.Call[1:], nil)
		v, err := ctx.Call(tc.Call[0], args, kwargs)
		if tc.SaltError != "" {
			var inv *execmod.InvocationError
			if !errors.As(err, &inv) || "Passed invalid arguments: "+inv.Msg+"." != tc.SaltError {
				t.Errorf("%v: error %v, want %q", tc.Call, err, tc.SaltError)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.Call, err)
			continue
		}
		var got any
		if err := json.Unmarshal([]byte(value.ToJSON(v, value.JSONOptions{})), &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.Salt) {
			t.Errorf("%v = %#v, Salt returned %#v", tc.Call, got, tc.Salt)
		}
	}
}

// TestBeaconsDaemon runs the functions against the beacons a minion
// daemon runs (the store, initialised by this test's process): the
// answers are those Salt's minion gives in its manage_beacons events.
func TestBeaconsDaemon(t *testing.T) {
	ctx := beaconsCtx(t)
	st := beacons.Store{Opts: ctx.Opts}
	if err := st.Init(value.NewMap(0)); err != nil {
		t.Fatal(err)
	}
	defer st.Stop()
	for _, step := range []struct {
		call string
		want string
	}{
		{`beacons.list`, `"beacons:\n  pb:\n  - x: 1\n"`},
		{`beacons.list include_pillar=False`, `"beacons: {}\n"`},
		{`beacons.add ps [{"processes": {"cron": "running"}}] test=True`, `{"comment": "Beacon: ps would be added.", "result": true}`},
		{`beacons.add ps [{"processes": {"cron": "running"}}]`, `{"comment": "Added beacon: ps.", "result": true}`},
		{`beacons.add ps [{"processes": {"cron": "running"}}]`, `{"comment": "Beacon ps is already configured.", "result": true}`},
		{`beacons.add pb [{"x": 2}]`, `{"comment": "Beacon pb is already configured.", "result": true}`},
		{`beacons.add nosuch [{"a": 1}]`, `{"comment": "Beacon \"nosuch\" is not available.", "result": false}`},
		{`beacons.add load [{"averages": {"2m": [1, 2]}}]`, `{"comment": "Beacon load configuration invalid, not adding.\nAverages configuration for load beacon must contain 1m, 5m or 15m items.", "result": false}`},
		{`beacons.add root [{"beacon_module": "diskusage"}, {"/": "90%"}]`, `{"comment": "Added beacon: root.", "result": true}`},
		{`beacons.modify ps [{"processes": {"cron": "running"}}]`, `{"comment": "Job ps in correct state", "result": true}`},
		{`beacons.modify nope [{"processes": {}}]`, `{"comment": "Beacon nope is not configured.", "result": true}`},
		{`beacons.modify ps [{"processes": {"cron": "stopped"}}]`, `{"comment": "Modified beacon: ps.", "result": true, "changes": {"diff": "--- \n+++ \n@@ -1 +1 @@\n-processes:{'cron': 'running'}\n+processes:{'cron': 'stopped'}\n"}}`},
		{`beacons.modify pb [{"x": 2}]`, `{"comment": "Cannot modify beacon item pb, it is configured in pillar.", "result": false, "changes": {"diff": "--- \n+++ \n@@ -1 +1 @@\n-x:1\n+x:2\n"}}`},
		{`beacons.disable_beacon ps`, `{"comment": "Disabled beacon ps on minion.", "result": true}`},
		{`beacons.list return_yaml=False include_pillar=False`, `{"ps": [{"processes": {"cron": "stopped"}}, {"enabled": false}], "root": [{"beacon_module": "diskusage"}, {"/": "90%"}]}`},
		{`beacons.enable_beacon ps`, `{"comment": "Enabled beacon ps on minion.", "result": true}`},
		{`beacons.enable_beacon nope`, `{"comment": "Beacon nope is not currently configured.", "result": false}`},
		{`beacons.disable_beacon pb`, `{"comment": "Cannot disable beacon item pb, it is configured in pillar.", "result": false}`},
		{`beacons.disable`, `{"comment": "Disabled beacons on minion.", "result": true}`},
		{`beacons.enable`, `{"comment": "Enabled beacons on minion.", "result": true}`},
		{`beacons.delete root`, `{"comment": "Deleted beacon: root.", "result": true}`},
		{`beacons.delete pb`, `{"comment": "Cannot delete beacon item pb, it is configured in pillar.", "result": false}`},
		{`beacons.save`, `{"comment": "Beacons saved to CONF/minion.d/beacons.conf.", "result": true}`},
		{`beacons.reset`, `{"comment": "Beacon configuration reset.", "result": true}`},
		{`beacons.list return_yaml=False`, `{"pb": [{"x": 1}]}`},
	} {
		f := splitCall(step.call)
		args, kwargs := yamlload.ParseInput(f[1:], nil)
		v, err := ctx.Call(f[0], args, kwargs)
		if err != nil {
			t.Fatalf("%s: %v", step.call, err)
		}
		got := strings.ReplaceAll(value.ToJSON(v, value.JSONOptions{Indent: -1}), filepath.Dir(value.Str(mustOpt(ctx, "conf_file"))), "CONF")
		if got != step.want {
			t.Errorf("%s =\n%s\nwant\n%s", step.call, got, step.want)
		}
	}
	saved, err := os.ReadFile(st.ConfFile())
	if err != nil {
		t.Fatal(err)
	}
	want := "beacons:\n  enabled: true\n  ps:\n  - processes:\n      cron: stopped\n  - enabled: true\n"
	if string(saved) != want {
		t.Errorf("beacons.conf:\n%s\nwant\n%s", saved, want)
	}
	list, err := ctx.Call("beacons.list_available", nil, value.MapOf("return_yaml", false))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"diskusage", "inotify", "load", "memusage", "ps", "service"} {
		if !strings.Contains(value.ToJSON(list, value.JSONOptions{}), `"`+n+`"`) {
			t.Errorf("list_available lacks %s: %v", n, list)
		}
	}
}

// splitCall splits a command line on the spaces outside brackets.
func splitCall(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case ' ':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}
