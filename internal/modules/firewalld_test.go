package modules

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/system/fwtest"
	"brine/internal/system/iptables"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// fwdGoldenFile holds a sequence of firewalld calls, one a line: the
// salt-call arguments, the exit code and the JSON return, or ERROR and
// the message salt-call printed ("Error running 'fun': <message>").
var fwdGoldenFile = filepath.Join("testdata", "firewalld", "calls.golden")

// TestFirewalldCalls runs the calls of calls.golden in order against an
// isolated firewalld (see fwtest) and compares each return, error text and
// exit code with Salt 3006's, recorded against the same daemon setup.
// With BRINE_FIREWALLD_RECORD=/path/to/salt-call:CONFDIR the golden is
// recorded again from Salt instead.
func TestFirewalldCalls(t *testing.T) {
	d := fwtest.Start(t)
	if rec := os.Getenv("BRINE_FIREWALLD_RECORD"); rec != "" {
		fwdRecord(t, d, rec)
		return
	}
	data, err := os.ReadFile(fwdGoldenFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		f := strings.Split(l, "\t")
		if len(f) != 3 {
			t.Fatalf("malformed golden line %q", l)
		}
		words, err := iptables.Split(f[0])
		if err != nil {
			t.Fatal(err)
		}
		args, kwargs := yamlload.ParseInput(words[1:], nil)
		ctx := testContext()
		ctx.SetService(FirewalldPrefixService, d.Prefix)
		got, err := ctx.Call(words[0], args, kwargs)
		rc := "0"
		if err != nil {
			rc = "1"
			if msg, ok := strings.CutPrefix(f[2], "ERROR "); !ok || err.Error() != msg {
				t.Errorf("%s: error %q, want %s", f[0], err, f[2])
			}
		} else if g, ok := iptJSONEqual(t, got, f[2]); !ok {
			t.Errorf("%s\n got %s\nwant %s", f[0], g, f[2])
		}
		if rc != f[1] {
			t.Errorf("%s: exit code %s, want %s", f[0], rc, f[1])
		}
	}
}

// fwdRecord runs each call of the golden through salt-call inside the
// daemon's namespaces and rewrites the golden with what Salt returned.
func fwdRecord(t *testing.T, d *fwtest.Daemon, rec string) {
	saltCall, conf, _ := strings.Cut(rec, ":")
	data, err := os.ReadFile(fwdGoldenFile)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		line, _, _ := strings.Cut(l, "\t")
		words, err := iptables.Split(line)
		if err != nil {
			t.Fatal(err)
		}
		cmd := d.Command(append([]string{saltCall, "-c", conf, "--local", "--out", "json"}, words...)...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		rc := 0
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatal(err)
			}
			rc = ee.ExitCode()
		}
		result := ""
		if out := strings.TrimSpace(stdout.String()); out != "" {
			v, err := value.FromJSON([]byte(out))
			if err != nil {
				t.Fatalf("%s: %v: %s", line, err, out)
			}
			r, _ := v.(*value.Map).Get("local")
			result = value.ToJSON(r, value.JSONOptions{Indent: -1})
		} else {
			prefix := "Error running '" + words[0] + "': "
			for _, el := range strings.Split(stderr.String(), "\n") {
				if msg, ok := strings.CutPrefix(el, prefix); ok {
					result = "ERROR " + msg
				}
			}
			if result == "" {
				t.Fatalf("%s: no return: %s", line, stderr.String())
			}
		}
		fmt.Fprintf(&b, "%s\t%d\t%s\n", line, rc, result)
	}
	if err := os.WriteFile(fwdGoldenFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFirewalldUnavailable checks the module's __virtual__: without
// firewall-cmd on the PATH every function fails with Salt's reason.
func TestFirewalldUnavailable(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	ctx := testContext()
	for _, fun := range []string{"firewalld.version", "firewalld.list_all", "firewalld.add_port"} {
		_, err := ctx.Call(fun, []any{"public", "80/tcp"}, nil)
		var un *execmod.UnavailableError
		want := "'firewalld' __virtual__ returned False: The firewalld execution module cannot be loaded: the firewall-cmd binary is not in the path."
		if !errors.As(err, &un) || err.Error() != want {
			t.Errorf("%s without firewall-cmd: %v, want %q", fun, err, want)
		}
	}
}

// TestFirewalldParseZones covers the list_all parser on firewall-cmd's
// layouts: active zones, tab-indented continuation lines, several zones.
func TestFirewalldParseZones(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `{}`},
		{"public (active)\n  target: default\n  interfaces: eth0 eth1\n  forward-ports: \n\tport=22:proto=tcp:toport=2222:toaddr=\n\tport=80:proto=tcp:toport=8080:toaddr=\n  rich rules: \n",
			`{"public (active)": {"target": ["default"], "interfaces": ["eth0 eth1"], "forward-ports": ["", "port=22:proto=tcp:toport=2222:toaddr=", "port=80:proto=tcp:toport=8080:toaddr="], "rich rules": [""]}}`},
		{"block\n  target: %%REJECT%%\n\ndmz\n  target: default\n  services: ssh\n", `{"block": {"target": ["%%REJECT%%"]}, "dmz": {"target": ["default"], "services": ["ssh"]}}`},
		{"empty\nz\n  a: 1\n", `{"z": {"a": ["1"]}}`},
		{"  a: 1\n", `ERROR UnboundLocalError: local variable 'zone_name' referenced before assignment`},
		{"z\n  no colon\n", `ERROR ValueError: not enough values to unpack (expected 2, got 1)`},
	} {
		got, err := fwdParseZones(tc.in)
		if msg, isErr := strings.CutPrefix(tc.want, "ERROR "); isErr {
			if err == nil || err.Error() != msg {
				t.Errorf("%q: %v, want %s", tc.in, err, msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if g, ok := iptJSONEqual(t, got, tc.want); !ok {
			t.Errorf("%q\n got %s\nwant %s", tc.in, g, tc.want)
		}
	}
}
