package modules

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"brine/internal/execmod"
	"brine/internal/system/iptables"
	"brine/internal/value"
	"brine/internal/yamlload"
)

// iptGolden reads a golden file of "salt-call arguments<TAB>...fields"
// lines and returns the typed arguments with the other fields.
func iptGolden(t *testing.T, name string) (cases []struct {
	line   string
	args   []any
	kwargs *value.Map
	fields []string
}) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "iptables", name))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		f := strings.Split(l, "\t")
		words, err := iptables.Split(f[0])
		if err != nil {
			t.Fatalf("%s: %v", f[0], err)
		}
		args, kwargs := yamlload.ParseInput(words, nil)
		cases = append(cases, struct {
			line   string
			args   []any
			kwargs *value.Map
			fields []string
		}{f[0], args, kwargs, f[1:]})
	}
	return cases
}

// iptJSONEqual compares a result with the JSON Salt returned, key order
// included.
func iptJSONEqual(t *testing.T, got any, want string) (string, bool) {
	t.Helper()
	wv, err := value.FromJSON([]byte(want))
	if err != nil {
		t.Fatalf("golden %s: %v", want, err)
	}
	o := value.JSONOptions{Indent: -1}
	g := value.ToJSON(got, o)
	return g, g == value.ToJSON(wv, o)
}

func iptNeedTool(t *testing.T, tool string) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		t.Skipf("%s is not installed", tool)
	}
}

// TestIptablesBuildRule checks build_rule against what Salt 3006 returned
// for the same salt-call arguments (the full commands name
// /usr/sbin/iptables with --wait, as Debian's iptables 1.8 has).
func TestIptablesBuildRule(t *testing.T) {
	iptNeedTool(t, "iptables")
	ctx := testContext()
	for _, tc := range iptGolden(t, "build_rule.golden") {
		got, err := ctx.Call("iptables.build_rule", tc.args, tc.kwargs)
		if err != nil {
			t.Errorf("build_rule %s: %v", tc.line, err)
			continue
		}
		if g, ok := iptJSONEqual(t, got, tc.fields[0]); !ok {
			t.Errorf("build_rule %s\n got %s\nwant %s", tc.line, g, tc.fields[0])
		}
	}
}

var iptNetnsSeq atomic.Int32

// iptNetns creates a network namespace for the test (removed at its end)
// and returns the command prefix that runs commands inside it. The test
// is skipped when namespaces, netfilter or tool are not available.
func iptNetns(t *testing.T, tool string) []string {
	t.Helper()
	iptNeedTool(t, tool)
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("ip (iproute2) is not installed")
	}
	name := fmt.Sprintf("brine-ipt-%d-%d", os.Getpid(), iptNetnsSeq.Add(1))
	if out, err := exec.Command("ip", "netns", "add", name).CombinedOutput(); err != nil {
		t.Skipf("cannot create a network namespace: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", name).Run() })
	prefix := []string{"ip", "netns", "exec", name}
	probe := map[string][]string{"iptables": {"iptables-save"}, "nft": {"nft", "list", "ruleset"}}[tool]
	if out, err := exec.Command("ip", append([]string{"netns", "exec", name}, probe...)...).CombinedOutput(); err != nil {
		t.Skipf("netfilter refused in a network namespace: %v: %s", err, out)
	}
	return prefix
}

func iptContext(prefix []string) *execmod.Context {
	ctx := testContext()
	ctx.SetService(IptablesPrefixService, prefix)
	return ctx
}

// TestIptablesCalls runs a sequence of calls in a fresh network namespace
// and compares each return and salt-call exit code with Salt's, recorded
// the same way (calls.golden: arguments, retcode, JSON).
func TestIptablesCalls(t *testing.T) {
	prefix := iptNetns(t, "iptables")
	for _, tc := range iptGolden(t, "calls.golden") {
		ctx := iptContext(prefix)
		fun, _ := tc.args[0].(string)
		got, err := ctx.Call(fun, tc.args[1:], tc.kwargs)
		if err != nil {
			t.Errorf("%s: %v", tc.line, err)
			continue
		}
		if g, ok := iptJSONEqual(t, got, tc.fields[1]); !ok {
			t.Errorf("%s\n got %s\nwant %s", tc.line, g, tc.fields[1])
		}
		if rc := fmt.Sprint(ctx.Retcode()); rc != tc.fields[0] {
			t.Errorf("%s: retcode %s, want %s", tc.line, rc, tc.fields[0])
		}
	}
	if v := call(t, iptContext(prefix), "iptables.version", nil); !strings.HasPrefix(execmod.String(v), "v1.") {
		t.Errorf("iptables.version = %v", v)
	}
}

// TestIptablesSave saves to the Debian rules file under a test root, with
// save filters, and reads the saved rules and policies back.
func TestIptablesSave(t *testing.T) {
	prefix := iptNetns(t, "iptables")
	root := t.TempDir()
	ctx := iptContext(prefix)
	ctx.SetService(SysRootService, root)
	for _, rule := range []string{"-p tcp --dport 22 -j ACCEPT", "-p tcp --dport 2375 -j DOCKER-USER"} {
		if rule == "-p tcp --dport 2375 -j DOCKER-USER" {
			call(t, ctx, "iptables.new_chain", []any{"filter", "DOCKER-USER"})
		}
		if got := call(t, ctx, "iptables.append", []any{"filter", "INPUT", rule}); got != true {
			t.Fatalf("append %s = %v", rule, got)
		}
	}
	call(t, ctx, "iptables.set_policy", []any{"filter", "FORWARD", "DROP"})
	ctx.Opts.Set("iptables.save_filters", value.NewList("-j DOCKER"))
	file := filepath.Join(root, "etc/iptables/rules.v4")
	if got, want := call(t, ctx, "iptables.save", nil), fmt.Sprintf("Wrote 1 lines to \"%s\"", file); got != want {
		t.Errorf("save = %v, want %s", got, want)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(data); !strings.Contains(s, "-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT\n") || strings.Contains(s, "-j DOCKER") {
		t.Errorf("saved rules:\n%s", s)
	}
	saved := call(t, ctx, "iptables.get_saved_rules", nil)
	rules := value.Repr(iptPolicy(saved.(*value.Map), "filter", "FORWARD"))
	if rules != "'DROP'" {
		t.Errorf("saved FORWARD policy = %s", rules)
	}
	if got := call(t, ctx, "iptables.get_saved_policy", []any{"filter", "FORWARD"}); got != "DROP" {
		t.Errorf("get_saved_policy = %v", got)
	}
	if got := call(t, ctx, "iptables.get_saved_policy", []any{"filter", "NOPE"}); got != nil {
		t.Errorf("get_saved_policy of a missing chain = %v", got)
	}
	// ipv6 goes to rules.v6; an explicit filename is used as given.
	v6 := filepath.Join(root, "etc/iptables/rules.v6")
	if got := call(t, ctx, "iptables.save", nil, "family", "ipv6"); got != fmt.Sprintf("Wrote 1 lines to \"%s\"", v6) {
		t.Errorf("save ipv6 = %v", got)
	}
	other := filepath.Join(root, "x/y/saved")
	if got := call(t, ctx, "iptables.save", []any{other}); got != fmt.Sprintf("Wrote 1 lines to \"%s\"", other) {
		t.Errorf("save filename = %v", got)
	}
	if _, err := ctx.Call("iptables.get_saved_rules", []any{filepath.Join(root, "missing")}, nil); err == nil ||
		err.Error() != fmt.Sprintf("[Errno 2] No such file or directory: '%s'", filepath.Join(root, "missing")) {
		t.Errorf("get_saved_rules of a missing file: %v", err)
	}
	ctx.Grains.Set("os", "Windows")
	ctx.Grains.Set("os_family", "Windows")
	if _, err := ctx.Call("iptables.save", nil, nil); err == nil || err.Error() != "Saving iptables to file is not supported on Windows. Please file an issue with SaltStack" {
		t.Errorf("save on an unsupported OS: %v", err)
	}
}
