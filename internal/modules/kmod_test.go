package modules

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"brine/internal/system/kmod"
	"brine/internal/value"
)

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, data := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestKmod points the kmod functions at a machine root in a temp dir.
func TestKmod(t *testing.T) {
	root := t.TempDir()
	rel := "lib/modules/" + kmod.Release()
	writeTree(t, root, map[string]string{
		"proc/modules":                              "nf_nat 49152 2 xt_nat,nft_chain_nat, Live 0x0\nloop 32768 0 - Live 0x0\n",
		rel + "/modules.builtin":                    "kernel/fs/ext4/ext4.ko\n",
		rel + "/kernel/drivers/block/loop.ko":       "",
		rel + "/kernel/net/netfilter/nf-nat.ko.xz":  "",
		rel + "/kernel/drivers/net/bonding/bond.ko": "",
		"etc/modules":                               "# boot\nloop\n#bond\n",
	})
	ctx := testContext()
	ctx.SetService(SysRootService, root)
	for _, tc := range []struct {
		fun  string
		args []any
		want string
	}{
		{"kmod.available", nil, "['bond', 'ext4', 'loop', 'nf_nat']"},
		{"kmod.check_available", []any{"bond"}, "True"},
		{"kmod.check_available", []any{"nope"}, "False"},
		{"kmod.lsmod", nil, "[{'size': '49152', 'module': 'nf_nat', 'depcount': '2', 'deps': ['xt_nat', 'nft_chain_nat']}, " +
			"{'size': '32768', 'module': 'loop', 'depcount': '0', 'deps': []}]"},
		{"kmod.mod_list", nil, "['loop', 'nf_nat']"},
		{"kmod.mod_list", []any{true}, "['loop']"},
		{"kmod.is_loaded", []any{"loop"}, "True"},
		{"kmod.is_loaded", []any{"bond"}, "False"},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, tc.args)); got != tc.want {
			t.Errorf("%s%v = %s, want %s", tc.fun, tc.args, got, tc.want)
		}
	}
	if _, err := exec.LookPath("modprobe"); err != nil {
		if _, err := ctx.Call("kmod.load", []any{"bond"}, nil); err == nil || err.Error() != "Command 'modprobe' cannot be found" {
			t.Errorf("kmod.load without modprobe: %v", err)
		}
	}
	conf := filepath.Join(root, "etc/modules")
	for _, tc := range []struct {
		name string
		do   func() ([]string, error)
		want []string
		file string
	}{
		{"uncomment", func() ([]string, error) { return kmod.AddPersist(conf, "bond", []string{"bond"}) }, []string{"bond"}, "# boot\nloop\nbond\n"},
		{"already there", func() ([]string, error) { return kmod.AddPersist(conf, "loop", nil) }, nil, "# boot\nloop\nbond\n"},
		{"unavailable", func() ([]string, error) { return kmod.AddPersist(conf, "zzz", []string{"bond"}) }, nil, "# boot\nloop\nbond\n"},
		{"append with options", func() ([]string, error) { return kmod.AddPersist(conf, "dummy numdummies=2", nil) }, []string{"dummy"}, "# boot\nloop\nbond\ndummy numdummies=2\n"},
		{"comment out", func() ([]string, error) { return kmod.RemovePersist(conf, "loop", true) }, []string{"loop"}, "# boot\n#loop\nbond\ndummy numdummies=2\n"},
		{"remove", func() ([]string, error) { return kmod.RemovePersist(conf, "dummy", false) }, []string{"dummy"}, "# boot\n#loop\nbond\n"},
		{"remove absent", func() ([]string, error) { return kmod.RemovePersist(conf, "loop", false) }, nil, "# boot\n#loop\nbond\n"},
	} {
		got, err := tc.do()
		if err != nil || value.Repr(strList(got)) != value.Repr(strList(tc.want)) {
			t.Errorf("%s: %v %v, want %v", tc.name, got, err, tc.want)
		}
		if data, _ := os.ReadFile(conf); string(data) != tc.file {
			t.Errorf("%s: file %q, want %q", tc.name, data, tc.file)
		}
	}
}

// TestKmodWithoutLsmod: on a machine without the lsmod command (kmod not
// installed, as in a container), the functions that list the loaded
// modules fail as Salt's do, load and remove before looking for modprobe
// and rmmod (testdata/kmod_nolsmod_salt.json, salt-call's errors).
func TestKmodWithoutLsmod(t *testing.T) {
	if _, err := exec.LookPath("lsmod"); err == nil {
		t.Skip("lsmod is installed")
	}
	data, err := os.ReadFile("testdata/kmod_nolsmod_salt.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Argv  []string `json:"argv"`
		Error string   `json:"error"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	ctx := testContext()
	for _, c := range cases {
		args := make([]any, 0, len(c.Argv)-1)
		for _, a := range c.Argv[1:] {
			args = append(args, a)
		}
		_, err := ctx.Call(c.Argv[0], args, nil)
		if got := fmt.Sprintf("Error running '%s': %v", c.Argv[0], err); err == nil || got != c.Error {
			t.Errorf("%v: %s, want %s", c.Argv, got, c.Error)
		}
	}
}
