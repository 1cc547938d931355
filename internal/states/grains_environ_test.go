package states_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

func TestGrainsStates(t *testing.T) {
	d := t.TempDir()
	ctx := execmod.NewContext()
	ctx.Opts = value.MapOf("conf_file", filepath.Join(d, "minion"), "cachedir", filepath.Join(d, "cache"))
	ctx.Grains = value.MapOf("os", "Debian", "roles", value.NewList("web"), "none", nil)
	grainsFile := func(want ...string) func(t *testing.T, d string) {
		return func(t *testing.T, d string) {
			t.Helper()
			data, _ := os.ReadFile(filepath.Join(d, "grains"))
			for _, w := range want {
				if !strings.Contains(string(data), w) {
					t.Errorf("grains file %q lacks %q", data, w)
				}
			}
		}
	}
	runStateSteps(t, ctx, d, []stateStep{
		{"grains.exists", []any{"name", "os"}, false, "{'name': 'os', 'changes': {}, 'result': True, 'comment': 'Grain exists'}", nil},
		{"grains.exists", []any{"name", "nope"}, false, "{'name': 'nope', 'changes': {}, 'result': False, 'comment': 'Grain does not exist'}", nil},
		{"grains.present", []any{"name", "os", "value", "Debian"}, false, "{'name': 'os', 'changes': {}, 'result': True, 'comment': 'Grain is already set'}", nil},
		{"grains.present", []any{"name", "color", "value", "blue"}, true, "{'name': 'color', 'changes': {'new': 'color'}, 'result': None, 'comment': 'Grain color is set to be added'}", nil},
		{"grains.present", []any{"name", "os", "value", "Arch"}, true, "{'name': 'os', 'changes': {'changed': {'os': 'Arch'}}, 'result': None, 'comment': 'Grain os is set to be changed'}", nil},
		{"grains.present", []any{"name", "color", "value", "blue"}, false, "{'name': 'color', 'changes': {'color': 'blue'}, 'result': True, 'comment': 'Set grain color to blue'}", grainsFile("color: blue")},
		{"grains.present", []any{"name", "site.dc", "value", "east", "delimiter", `\.`}, false, "{'name': 'site:dc', 'changes': {'site': {'dc': 'east'}}, 'result': True, 'comment': 'Set grain site:dc to east'}", grainsFile("dc: east")},
		{"grains.present", []any{"name", "roles", "value", "db"}, false, "{'name': 'roles', 'changes': {}, 'result': False, 'comment': \"The key 'roles' exists but is a dict or a list. Use 'force=True' to overwrite.\"}", nil},
		{"grains.list_present", []any{"name", "roles", "value", "web"}, false, "{'name': 'roles', 'changes': {}, 'result': True, 'comment': 'Value web is already in grain roles'}", nil},
		{"grains.list_present", []any{"name", "roles", "value", "db"}, true, "{'name': 'roles', 'changes': {'new': ['web']}, 'result': None, 'comment': 'Value db is set to be appended to grain roles'}", nil},
		{"grains.list_present", []any{"name", "roles", "value", "db"}, false, "{'name': 'roles', 'changes': {'new': {'roles': ['web', 'db']}}, 'result': True, 'comment': 'Append value db to grain roles'}", grainsFile("- db")},
		{"grains.list_present", []any{"name", "roles", "value", value.NewList("web", "db")}, false, "{'name': 'roles', 'changes': {}, 'result': True, 'comment': \"Value ['web', 'db'] is already in grain roles\"}", nil},
		{"grains.list_present", []any{"name", "color", "value", "x"}, false, "{'name': 'color', 'changes': {}, 'result': False, 'comment': 'Grain color is not a valid list'}", nil},
		{"grains.list_present", []any{"name", "tags", "value", "a"}, true, "{'name': 'tags', 'changes': {'new': ''}, 'result': None, 'comment': 'Grain tags is set to be added'}", nil},
		{"grains.list_absent", []any{"name", "roles", "value", value.NewList("db", "mail")}, true, "{'name': 'roles', 'changes': {'deleted': ['db']}, 'result': None, 'comment': 'Value db in grain roles is set to be deleted\\nValue mail is absent from grain roles'}", nil},
		{"grains.list_absent", []any{"name", "roles", "value", "db"}, false, "{'name': 'roles', 'changes': {'deleted': ['db']}, 'result': True, 'comment': 'Value db was deleted from grain roles'}", nil},
		{"grains.list_absent", []any{"name", "nope", "value", "db"}, false, "{'name': 'nope', 'changes': {}, 'result': True, 'comment': 'Grain nope does not exist'}", nil},
		{"grains.append", []any{"name", "roles", "value", "db"}, true, "{'name': 'roles', 'changes': {'added': 'db'}, 'result': None, 'comment': 'Value db in grain roles is set to be added'}", nil},
		{"grains.append", []any{"name", "roles", "value", "db"}, false, "{'name': 'roles', 'changes': {'added': 'db'}, 'result': True, 'comment': 'Value db was added to grain roles'}", nil},
		{"grains.append", []any{"name", "roles", "value", "db"}, false, "{'name': 'roles', 'changes': {}, 'result': True, 'comment': 'Value db is already in the list for grain roles'}", nil},
		{"grains.append", []any{"name", "color", "value", "red"}, false, "{'name': 'color', 'changes': {}, 'result': False, 'comment': 'Grain color is not a valid list'}", nil},
		{"grains.append", []any{"name", "color", "value", "red", "convert", true}, false, "{'name': 'color', 'changes': {'added': 'red'}, 'result': True, 'comment': 'Value red was added to grain color'}", grainsFile("- blue", "- red")},
		{"grains.append", []any{"name", "nope", "value", "x"}, false, "{'name': 'nope', 'changes': {}, 'result': False, 'comment': 'Grain nope does not exist'}", nil},
		{"grains.absent", []any{"name", "color"}, true, "{'name': 'color', 'changes': {'grain': 'color', 'value': None}, 'result': None, 'comment': 'Value for grain color is set to be deleted (None)'}", nil},
		{"grains.absent", []any{"name", "site:dc"}, false, "{'name': 'site:dc', 'changes': {'grain': 'site:dc', 'value': None}, 'result': True, 'comment': 'Value for grain site:dc was set to None'}", nil},
		{"grains.absent", []any{"name", "color", "destructive", true}, true, "{'name': 'color', 'changes': {'deleted': 'color'}, 'result': None, 'comment': 'Grain color is set to be deleted'}", nil},
		{"grains.absent", []any{"name", "color", "destructive", true, "force", true}, false, "{'name': 'color', 'changes': {'deleted': 'color'}, 'result': True, 'comment': 'Grain color was deleted'}", nil},
		{"grains.absent", []any{"name", "color"}, false, "{'name': 'color', 'changes': {}, 'result': True, 'comment': 'Grain color does not exist'}", nil},
		{"grains.absent", []any{"name", "none"}, true, "{'name': 'none', 'changes': {}, 'result': None, 'comment': ''}", nil},
		{"grains.absent", []any{"name", "none"}, false, "{'name': 'none', 'changes': {}, 'result': True, 'comment': 'Grain is already set'}", nil},
	})
	if data, _ := os.ReadFile(filepath.Join(d, "grains")); strings.Contains(string(data), "color") {
		t.Errorf("grains file still has color: %s", data)
	}
}

func TestEnvironSetenvState(t *testing.T) {
	t.Setenv("BRINE_T_A", "1")
	t.Setenv("BRINE_T_EMPTY", "")
	os.Unsetenv("BRINE_T_B")
	defer os.Unsetenv("BRINE_T_B")
	ctx := execmod.NewContext()
	runStateSteps(t, ctx, "", []stateStep{
		{"environ.setenv", []any{"name", "BRINE_T_A", "value", "1"}, false, "{'name': 'BRINE_T_A', 'changes': {}, 'result': True, 'comment': 'Environ values were already set with the correct values'}", nil},
		// Salt leaves result True in test mode here.
		{"environ.setenv", []any{"name", "BRINE_T_A", "value", "2"}, true, "{'name': 'BRINE_T_A', 'changes': {'BRINE_T_A': '2'}, 'result': True, 'comment': 'Environ values will be changed'}", nil},
		{"environ.setenv", []any{"name", "x", "value", value.MapOf("BRINE_T_A", "2", "BRINE_T_B", "b")}, false,
			"{'name': 'x', 'changes': {'BRINE_T_A': '2', 'BRINE_T_B': 'b'}, 'result': True, 'comment': 'Environ values were set'}", func(t *testing.T, _ string) {
				if os.Getenv("BRINE_T_A") != "2" || os.Getenv("BRINE_T_B") != "b" {
					t.Errorf("environment not set")
				}
			}},
		{"environ.setenv", []any{"name", "BRINE_T_B", "value", false}, false, "{'name': 'BRINE_T_B', 'changes': {'BRINE_T_B': ''}, 'result': True, 'comment': 'Environ values were set'}", nil},
		{"environ.setenv", []any{"name", "BRINE_T_EMPTY", "value", false}, false, "{'name': 'BRINE_T_EMPTY', 'changes': {}, 'result': True, 'comment': 'Environ values were already set with the correct values'}", nil},
		{"environ.setenv", []any{"name", "BRINE_T_B", "value", false, "false_unsets", true}, false, "{'name': 'BRINE_T_B', 'changes': {'BRINE_T_B': None}, 'result': True, 'comment': 'Environ values were set'}", func(t *testing.T, _ string) {
			if _, ok := os.LookupEnv("BRINE_T_B"); ok {
				t.Errorf("BRINE_T_B still set")
			}
		}},
		{"environ.setenv", []any{"name", "BRINE_T_B", "value", int64(3)}, false, "{'name': 'BRINE_T_B', 'changes': {}, 'result': False, 'comment': 'Environ value must be string, dict or False'}", nil},
	})
}
