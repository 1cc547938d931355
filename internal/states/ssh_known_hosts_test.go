package states_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

func TestSSHKnownHostsStates(t *testing.T) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("no ssh-keygen")
	}
	d := t.TempDir()
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(d, "k")).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	pub, _ := os.ReadFile(filepath.Join(d, "k.pub"))
	key := strings.Fields(string(pub))[1]
	entry := "{'hostname': 'h.example', 'enc': 'ssh-ed25519', 'key': '" + key + "'}"
	ctx := execmod.NewContext()
	runStateSteps(t, ctx, d, []stateStep{
		{"ssh_known_hosts.present", []any{"name", "h.example", "config", "rel"}, false,
			"{'name': 'h.example', 'changes': {}, 'result': False, 'comment': 'If not specifying a \"user\", specify an absolute \"config\".'}", nil},
		{"ssh_known_hosts.present", []any{"name", "h.example", "config", "{d}/kh", "key", key}, true,
			"{'name': 'h.example', 'changes': {}, 'result': False, 'comment': 'Required argument \"enc\" if using \"key\" argument.'}", nil},
		{"ssh_known_hosts.present", []any{"name", "h.example", "config", "{d}/kh", "key", key, "fingerprint", "x"}, true,
			"{'name': 'h.example', 'changes': {}, 'result': False, 'comment': 'Specify either \"key\" or \"fingerprint\", not both.'}", nil},
		{"ssh_known_hosts.present", []any{"name", "h.example", "config", "{d}/kh", "key", key, "enc", "ssh-ed25519"}, true,
			"{'name': 'h.example', 'changes': {}, 'result': None, 'comment': 'Key for h.example is set to be added to {d}/kh'}", nil},
		{"ssh_known_hosts.present", []any{"name", "h.example", "config", "{d}/kh", "key", key, "enc", "ssh-ed25519", "hash_known_hosts", false}, false,
			"{'name': 'h.example', 'changes': {'old': None, 'new': [" + entry + "]}, 'result': True, 'comment': \"h.example's key saved to {d}/kh (key: " + key + ")\"}", nil},
		{"ssh_known_hosts.present", []any{"name", "h.example", "config", "{d}/kh", "key", key, "enc", "ssh-ed25519"}, true,
			"{'name': 'h.example', 'changes': {}, 'result': True, 'comment': 'Host h.example is already in {d}/kh'}", nil},
		{"ssh_known_hosts.present", []any{"name", "h.example", "config", "{d}/kh", "key", key, "enc", "ssh-ed25519"}, false,
			"{'name': 'h.example', 'changes': {}, 'result': True, 'comment': 'h.example already exists in {d}/kh'}", nil},
		{"ssh_known_hosts.absent", []any{"name", "h.example", "config", "{d}/kh"}, true,
			"{'name': 'h.example', 'changes': {}, 'result': None, 'comment': 'Key for h.example is set to be removed from {d}/kh'}", nil},
		{"ssh_known_hosts.absent", []any{"name", "other.example", "config", "{d}/kh"}, false,
			"{'name': 'other.example', 'changes': {}, 'result': True, 'comment': 'Host is already absent'}", nil},
		{"ssh_known_hosts.absent", []any{"name", "h.example", "config", "rel"}, false,
			"{'name': 'h.example', 'changes': {}, 'result': False, 'comment': 'If not specifying a \"user\", specify an absolute \"config\".'}", nil},
	})
	ret := runIn(t, ctx, "ssh_known_hosts.absent", mapOf("name", "h.example", "config", d+"/kh"), false)
	if r, _ := ret.Get("result"); r != true {
		t.Fatalf("absent: %v", ret)
	}
	ch, _ := ret.Get("changes")
	if s := reprOf(ch); !strings.HasPrefix(s, "{'old': [{'hostname': 'h.example', 'key': '"+key+"', 'enc': 'ssh-ed25519', 'fingerprint': '") || !strings.HasSuffix(s, "'}], 'new': None}") {
		t.Errorf("absent changes %s", s)
	}
	if c, _ := ret.Get("comment"); !strings.Contains(reprOf(c), "updated") {
		t.Errorf("absent comment %s (ssh-keygen -R's output)", reprOf(c))
	}
	if data, _ := os.ReadFile(d + "/kh"); strings.Contains(string(data), key) {
		t.Errorf("key still in known_hosts: %s", data)
	}
}

func mapOf(kv ...any) *value.Map { return value.MapOf(kv...) }

func reprOf(v any) string { return value.Repr(v) }
