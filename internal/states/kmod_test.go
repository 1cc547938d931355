package states_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/states"
	"brine/internal/value"
)

// TestKmodStatesWithoutLsmod: without the lsmod command (a container),
// the kmod states end in the CommandExecutionError of kmod.mod_list, as
// in Salt (testdata/kmod_nolsmod_salt.json: the result, changes, the
// comment's first line and the traceback's last line Salt gave).
func TestKmodStatesWithoutLsmod(t *testing.T) {
	if _, err := exec.LookPath("lsmod"); err == nil {
		t.Skip("lsmod is installed")
	}
	data, err := os.ReadFile("testdata/kmod_nolsmod_salt.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Fun          string         `json:"fun"`
		Args         map[string]any `json:"args"`
		Test         bool           `json:"test"`
		Result       any            `json:"result"`
		CommentStart string         `json:"comment_start"`
		Exception    string         `json:"exception"`
		Changes      map[string]any `json:"changes"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		args := value.NewMap(len(c.Args))
		for _, k := range []string{"name", "mods", "persist"} {
			switch v := c.Args[k].(type) {
			case nil:
			case []any:
				args.Set(k, value.NewList(v...))
			default:
				args.Set(k, v)
			}
		}
		ret := sysRun(t, execmod.NewContext(), c.Fun, args, c.Test)
		comment := str(ret, "comment")
		lines := strings.Split(strings.TrimRight(comment, "\n"), "\n")
		fn := strings.TrimPrefix(c.Fun, "kmod.")
		frames := "  File \"salt/states/kmod.py\", in " + fn + "\n  File \"salt/modules/kmod.py\", in mod_list\n"
		if ret.Has("result") && getv(ret, "result") != c.Result || lines[0] != c.CommentStart ||
			lines[len(lines)-1] != c.Exception || !strings.Contains(comment, frames) || getMap(ret, "changes").Len() != 0 {
			t.Errorf("%s %v test=%v: %s", c.Fun, c.Args, c.Test, value.Repr(ret))
		}
	}
}

// fakeKernel is a kernel whose modules load with dependencies.
type fakeKernel struct {
	loaded, avail map[string]bool
	deps          map[string][]string
	fail          map[string]bool
}

func (k *fakeKernel) Loaded() []string    { return keys(k.loaded) }
func (k *fakeKernel) Available() []string { return keys(k.avail) }
func (k *fakeKernel) Load(n string) error {
	if k.fail[n] {
		return errors.New("modprobe: FATAL: Module " + n + " not found")
	}
	k.loaded[n] = true
	for _, d := range k.deps[n] {
		k.loaded[d] = true
	}
	return nil
}
func (k *fakeKernel) Unload(n string) error {
	if k.fail[n] {
		return errors.New("rmmod: ERROR: Module " + n + " is in use")
	}
	delete(k.loaded, n)
	return nil
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestKmodStateComments follows Salt's kmod.present/absent through
// several modules: already loaded, unavailable, loaded with a dependency
// (which then counts as loaded), failing.
func TestKmodStateComments(t *testing.T) {
	for _, tc := range []struct {
		fun     string
		mods    []any
		test    bool
		result  any
		comment string
		changes string
	}{
		{"kmod.present", []any{"a", "b", "c"}, false, false,
			"Kernel module a is already present\nKernel module c is unavailable\nLoaded kernel module b", "{'b': 'loaded', 'd': 'loaded'}"},
		{"kmod.present", []any{"a", "b"}, true, nil, "Kernel module a is already present\nKernel module b is set to be loaded", "{}"},
		{"kmod.present", []any{"b", "d"}, false, true, "Loaded kernel modules b, d", "{'b': 'loaded', 'd': 'loaded'}"},
		{"kmod.present", []any{"x"}, false, false, "Failed to load kernel module x: Error loading module x: modprobe: FATAL: Module x not found", "{}"},
		{"kmod.absent", []any{"a", "z"}, false, true, "Removed kernel module a", "{'a': 'removed'}"},
		{"kmod.absent", []any{"a", "y"}, true, nil, "Kernel modules a, y are set to be removed", "{}"},
		{"kmod.absent", []any{"y"}, false, false, "Failed to remove kernel module y: Error removing module y: rmmod: ERROR: Module y is in use", "{}"},
		{"kmod.absent", []any{"q", "r"}, false, true, "Kernel modules q, r are already removed", "{}"},
	} {
		_, ctx := fakeRoot(t)
		ctx.SetService(states.KmodService, &fakeKernel{
			loaded: map[string]bool{"a": true, "y": true},
			avail:  map[string]bool{"a": true, "b": true, "d": true, "x": true, "y": true},
			deps:   map[string][]string{"b": {"d"}},
			fail:   map[string]bool{"x": true, "y": true},
		})
		ret := sysRun(t, ctx, tc.fun, value.MapOf("name", "mods", "mods", value.NewList(tc.mods...)), tc.test)
		if getv(ret, "result") != tc.result || str(ret, "comment") != tc.comment || value.Repr(getMap(ret, "changes")) != tc.changes {
			t.Errorf("%s %v test=%v: %s", tc.fun, tc.mods, tc.test, value.Repr(ret))
		}
	}
}

// TestTimezoneSystemWithoutSystemd: where timedatectl cannot reach
// systemd (a container), timezone.system ends, in test mode and not, in
// get_hwclock's CommandExecutionError, as in Salt.
func TestTimezoneSystemWithoutSystemd(t *testing.T) {
	if _, err := exec.LookPath("timedatectl"); err != nil {
		t.Skip("timedatectl is not installed")
	}
	var stderr strings.Builder
	cmd := exec.Command("timedatectl")
	cmd.Stderr = &stderr
	if cmd.Run() == nil {
		t.Skip("timedatectl works here")
	}
	want := "  File \"salt/states/timezone.py\", in system\n  File \"salt/modules/timezone.py\", in get_hwclock\n" +
		"salt.exceptions.CommandExecutionError: timedatectl failed: " + strings.TrimRight(stderr.String(), " \t\n") + "\n"
	for _, test := range []bool{true, false} {
		ret := sysRun(t, execmod.NewContext(), "timezone.system", value.MapOf("name", "Europe/Berlin"), test)
		if getv(ret, "result") != false || !strings.HasPrefix(str(ret, "comment"), "An exception occurred in this state: Traceback (most recent call last):\n") ||
			!strings.HasSuffix(str(ret, "comment"), want) {
			t.Errorf("test=%v: %s", test, value.Repr(ret))
		}
	}
}
