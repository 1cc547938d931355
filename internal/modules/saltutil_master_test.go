package modules

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// masterBeside makes a config directory holding a minion file and a
// master file whose root_dir is a fresh directory, with the master's key
// store holding the pending key m1. It returns a minion run reading it.
func masterBeside(t *testing.T) (*execmod.Context, string) {
	t.Helper()
	dir := t.TempDir()
	conf, root := filepath.Join(dir, "conf"), filepath.Join(dir, "root")
	pki := filepath.Join(root, "etc/salt/pki/master")
	for _, d := range []string{conf, pki + "/minions", pki + "/minions_pre", pki + "/minions_rejected", pki + "/minions_denied"} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for p, text := range map[string]string{
		conf + "/minion":        "file_client: local\n",
		conf + "/master":        "root_dir: " + root + "\n",
		pki + "/minions_pre/m1": "x\n",
	} {
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx := testContext()
	ctx.Opts.Set("conf_file", conf+"/minion")
	ctx.Opts.Set("__role", "minion")
	return ctx, pki
}

// TestSaltutilMasterGolden runs saltutil.runner and saltutil.wheel with
// the arguments of testdata/saltutil_master/salt.json and compares the
// returns with Salt 3006's, recorded on this machine with salt-call
// --local and the same master key store (the job ids left out).
func TestSaltutilMasterGolden(t *testing.T) {
	raw, err := os.ReadFile("testdata/saltutil_master/salt.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases map[string]struct {
		Args   []string `json:"args"`
		Return any      `json:"return"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(cases))
	for n := range cases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		tc := cases[name]
		t.Run(name, func(t *testing.T) {
			ctx, _ := masterBeside(t)
			args, kwargs := yamlload.ParseInput(tc.Args[1:], nil)
			got, err := ctx.Call(tc.Args[0], args, kwargs)
			if err != nil {
				t.Fatal(err)
			}
			if m, ok := got.(*value.Map); ok && m.Has("fun") {
				if jid, _ := m.Delete("jid"); len(execmod.String(jid)) != 20 {
					t.Errorf("jid %v", jid)
				}
			}
			var gotJSON any
			if err := json.Unmarshal([]byte(value.ToJSON(got, value.JSONOptions{Indent: -1})), &gotJSON); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(gotJSON, tc.Return) {
				want, _ := json.Marshal(tc.Return)
				t.Errorf("got  %s\nwant %s", value.ToJSON(got, value.JSONOptions{Indent: -1}), want)
			}
		})
	}
}

// TestSaltutilMasterErrors checks the failures Salt reports (its texts
// from salt-call on this machine) and that key.accept changes the store.
func TestSaltutilMasterErrors(t *testing.T) {
	tests := []struct {
		name, fun string
		args      []string
		want      string
		usage     bool // a TypeError: salt-call prints the usage
	}{
		{"arg not a list", "saltutil.runner", []string{"test.arg", "arg=foo"}, "arg must be formatted as a list/tuple", true},
		{"kwarg not a dict", "saltutil.runner", []string{"test.arg", "kwarg=[1]"}, "kwarg must be formatted as a dictionary", true},
		{"kwarg not a dict with keywords", "saltutil.runner", []string{"test.arg", "kwarg=foo", "b=1"}, "'str' object has no attribute 'update'", false},
		{"unknown runner", "saltutil.runner", []string{"nope.x"}, "'nope.x' is not available.", false},
		{"no name", "saltutil.runner", nil, "runner() missing 1 required positional argument: 'name'", true},
		{"unknown wheel", "saltutil.wheel", []string{"nope.x"}, "'nope.x' is not available.", false},
		{"wheel no name", "saltutil.wheel", nil, "wheel() missing 1 required positional argument: 'name'", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, _ := masterBeside(t)
			args, kwargs := yamlload.ParseInput(tt.args, nil)
			_, err := ctx.Call(tt.fun, args, kwargs)
			var inv *execmod.InvocationError
			if err == nil || err.Error() != tt.want || errors.As(err, &inv) != tt.usage {
				t.Errorf("err = %v (invocation %v), want %q (invocation %v)", err, errors.As(err, &inv), tt.want, tt.usage)
			}
		})
	}
	t.Run("wheel accept", func(t *testing.T) {
		ctx, pki := masterBeside(t)
		got, err := ctx.Call("saltutil.wheel", []any{"key.accept", "m1"}, value.NewMap(0))
		if err != nil {
			t.Fatal(err)
		}
		ret, _ := got.(*value.Map).Get("return")
		if r := value.Repr(ret); r != "{'minions': ['m1']}" {
			t.Errorf("return %s", r)
		}
		if _, err := os.Stat(filepath.Join(pki, "minions/m1")); err != nil {
			t.Errorf("key not accepted: %v", err)
		}
	})
	t.Run("wheel TypeError is a return", func(t *testing.T) {
		ctx, _ := masterBeside(t)
		got, err := ctx.Call("saltutil.wheel", []any{"key.list"}, value.NewMap(0))
		if err != nil {
			t.Fatal(err)
		}
		m := got.(*value.Map)
		ret, _ := m.Get("return")
		ok, _ := m.Get("success")
		want := "\nPassed invalid arguments: list_() missing 1 required positional argument: 'match'\n\nUsage:\n"
		if s, _ := ret.(string); len(s) < len(want) || s[:len(want)] != want || ok != true {
			t.Errorf("return %q, success %v", ret, ok)
		}
	})
}
