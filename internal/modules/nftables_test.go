package modules

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
)

// TestNftablesBuildRule checks nftables.build_rule against what Salt 3006
// returned for the same salt-call arguments ("ERROR": Salt raised).
func TestNftablesBuildRule(t *testing.T) {
	iptNeedTool(t, "nft")
	ctx := testContext()
	for _, tc := range iptGolden(t, "nft_build_rule.golden") {
		got, err := ctx.Call("nftables.build_rule", tc.args, tc.kwargs)
		if tc.fields[0] == "ERROR" {
			if err == nil {
				t.Errorf("build_rule %s = %s, want an error", tc.line, value.Repr(got))
			}
			continue
		}
		if err != nil {
			t.Errorf("build_rule %s: %v", tc.line, err)
			continue
		}
		if g, ok := iptJSONEqual(t, got, tc.fields[0]); !ok {
			t.Errorf("build_rule %s\n got %s\nwant %s", tc.line, g, tc.fields[0])
		}
	}
}

// TestNftablesCalls runs a sequence of nftables calls in a fresh network
// namespace and compares each return and exit code with Salt's
// (nft_calls.golden: arguments, retcode, JSON or ERROR).
func TestNftablesCalls(t *testing.T) {
	prefix := iptNetns(t, "nft")
	for _, tc := range iptGolden(t, "nft_calls.golden") {
		ctx := testContext()
		ctx.SetService(NftablesPrefixService, prefix)
		fun, _ := tc.args[0].(string)
		got, err := ctx.Call(fun, tc.args[1:], tc.kwargs)
		if tc.fields[1] == "ERROR" {
			if err == nil {
				t.Errorf("%s = %s, want an error", tc.line, value.Repr(got))
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.line, err)
			continue
		}
		if g, ok := iptJSONEqual(t, got, tc.fields[1]); !ok {
			t.Errorf("%s\n got %s\nwant %s", tc.line, g, tc.fields[1])
		}
		// salt-call exits 1 for a mapping whose result is false.
		rc := fmt.Sprint(ctx.Retcode())
		if m, ok := got.(*value.Map); ok && rc == "0" {
			if r, has := m.Get("result"); has && !value.Truthy(r) {
				rc = "1"
			}
		}
		if rc != tc.fields[0] {
			t.Errorf("%s: retcode %s, want %s", tc.line, rc, tc.fields[0])
		}
	}
}

// TestNftablesSave saves the ruleset into the /etc/nftables directory of
// a test root (salt-all-in-one.nft) and reads the rules back.
func TestNftablesSave(t *testing.T) {
	prefix := iptNetns(t, "nft")
	root := t.TempDir()
	ctx := testContext()
	ctx.SetService(NftablesPrefixService, prefix)
	ctx.SetService(SysRootService, root)
	call(t, ctx, "nftables.new_table", []any{"filter"})
	call(t, ctx, "nftables.new_chain", []any{"filter", "input"}, "table_type", "filter", "hook", "input", "priority", int64(0))
	call(t, ctx, "nftables.append", []any{"filter", "input", "tcp dport 22 accept"})
	call(t, ctx, "nftables.new_table", []any{"t6"}, "family", "ipv6")
	want := "#! nft -f\n\ntable ip filter {\n\tchain input {\n\t\ttype filter hook input priority 0; policy accept;\n\t\ttcp dport 22 accept\n\t}\n}\ntable ip6 t6 {\n}\n"
	dir := filepath.Join(root, "etc/nftables")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := call(t, ctx, "nftables.save", nil); got != want {
		t.Errorf("save = %q, want %q", got, want)
	}
	file := filepath.Join(dir, "salt-all-in-one.nft")
	if data, err := os.ReadFile(file); err != nil || string(data) != want {
		t.Errorf("%s: %q, %v", file, data, err)
	}
	got := call(t, ctx, "nftables.get_saved_rules", []any{file})
	if r := value.Repr(got); !strings.HasPrefix(r, "['table ip filter {\\n', '\\tchain input {\\n'") || strings.Contains(r, "nft -f") {
		t.Errorf("get_saved_rules = %s", r)
	}
	if _, err := ctx.Call("nftables.get_saved_rules", nil, nil); err == nil || err.Error() != fmt.Sprintf("[Errno 21] Is a directory: '%s'", dir) {
		t.Errorf("get_saved_rules of the directory: %v", err)
	}
	if _, err := ctx.Call("nftables.save", []any{filepath.Join(root, "no/such/file")}, nil); err == nil ||
		!strings.HasPrefix(err.Error(), "Problem writing to configuration file: [Errno 2] No such file or directory") {
		t.Errorf("save to a missing directory: %v", err)
	}
}
