package modules

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

// ipTestContext is a context whose paths live under a temporary root
// holding testdata/debian_ip/interfaces. Package installs and kernel
// module loads (which the tests must not do) are recorded instead.
func ipTestContext(t *testing.T) (*execmod.Context, string, *[]string) {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"etc/network/interfaces.d", "etc/modprobe.d"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile("testdata/debian_ip/interfaces")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc/network/interfaces"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := testContext()
	ctx.Grains = value.MapOf("os", "Debian", "os_family", "Debian", "osrelease", "12", "osrelease_info", value.NewList(int64(12)))
	ctx.SetService(SysRootService, root)
	var calls []string
	reg := execmod.Default.Clone()
	for _, fun := range []string{"pkg.install", "kmod.load"} {
		fun := fun
		reg.Replace(fun, func(_ *execmod.Context, args []any, _ *value.Map) (any, error) {
			calls = append(calls, fun+" "+value.Str(args[0]))
			return value.NewMap(0), nil
		}, "recorded")
	}
	ctx.Registry = reg
	return ctx, root, &calls
}

// TestDebianIPSaltGolden runs testdata/debian_ip/cases.json in order and
// compares the returns, errors and written files with what Salt 3006's
// debian_ip gave for them (golden.json, written by record.py).
func TestDebianIPSaltGolden(t *testing.T) {
	var cases []struct {
		Fun    string          `json:"fun"`
		Args   json.RawMessage `json:"args"`
		Kwargs json.RawMessage `json:"kwargs"`
		File   string          `json:"file"`
	}
	var golden []struct {
		Ret   json.RawMessage `json:"ret"`
		Error *string         `json:"error"`
		File  *string         `json:"file"`
	}
	for name, dst := range map[string]any{"cases.json": &cases, "golden.json": &golden} {
		data, err := os.ReadFile(filepath.Join("testdata/debian_ip", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, dst); err != nil {
			t.Fatal(name, err)
		}
	}
	if len(cases) != len(golden) {
		t.Fatalf("%d cases, %d golden records: run record.py", len(cases), len(golden))
	}
	ctx, root, calls := ipTestContext(t)
	load := func(raw json.RawMessage, def any) any {
		if raw == nil {
			return def
		}
		v, err := value.FromJSON([]byte(strings.ReplaceAll(string(raw), "@ROOT@", root)))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	opts := value.JSONOptions{Indent: -1}
	for i, c := range cases {
		g := golden[i]
		args, _ := load(c.Args, value.NewList()).(*value.List)
		kw, _ := load(c.Kwargs, value.NewMap(0)).(*value.Map)
		got, err := ctx.Call("ip."+c.Fun, args.Items, kw)
		switch {
		case g.Error != nil:
			want := strings.TrimPrefix(*g.Error, "AttributeError: ")
			if err == nil || err.Error() != want {
				t.Errorf("case %d %s%s: err %v, want %q", i, c.Fun, c.Args, err, want)
			}
		case err != nil:
			t.Errorf("case %d %s%s: %v", i, c.Fun, c.Args, err)
		default:
			if gs, ws := value.ToJSON(got, opts), value.ToJSON(load(g.Ret, nil), opts); gs != ws {
				t.Errorf("case %d %s%s %s:\n got %s\nwant %s", i, c.Fun, c.Args, c.Kwargs, gs, ws)
			}
		}
		if c.File != "" && g.File != nil {
			if b, _ := os.ReadFile(filepath.Join(root, c.File)); string(b) != *g.File {
				t.Errorf("case %d %s: %s\n got %q\nwant %q", i, c.Fun, c.File, b, *g.File)
			}
		}
	}
	want := "pkg.install vlan|pkg.install bridge-utils|pkg.install bridge-utils|kmod.load bonding|pkg.install ifenslave"
	if got := strings.Join(*calls, "|"); got != want {
		t.Errorf("installs and loads: %s\nwant %s", got, want)
	}
}
