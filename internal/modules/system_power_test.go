package modules

import (
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

// TestSystemPowerCommands checks the commands the power functions hand
// to cmd.run; a recording cmd.run stands in, so nothing is rebooted.
func TestSystemPowerCommands(t *testing.T) {
	ctx := testContext()
	ctx.Registry = execmod.Default.Clone()
	var got []string
	ctx.Registry.Replace("cmd.run", func(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		ps, _ := kwargs.GetString("python_shell")
		got = append(got, value.Repr(args[0])+" python_shell="+value.Repr(ps))
		return "", nil
	}, "records the command")
	for _, tc := range []struct {
		fun  string
		args []any
		kw   []any
		want string
	}{
		{"system.halt", nil, nil, "['halt'] python_shell=False"},
		{"system.poweroff", nil, nil, "['poweroff'] python_shell=False"},
		{"system.reboot", nil, nil, "['shutdown', '-r', 'now'] python_shell=False"},
		{"system.reboot", nil, []any{"at_time", int64(5)}, "['shutdown', '-r', '5'] python_shell=False"},
		{"system.shutdown", nil, nil, "['shutdown', '-h', 'now'] python_shell=False"},
		{"system.shutdown", []any{"+10"}, nil, "['shutdown', '-h', '+10'] python_shell=False"},
		{"system.init", []any{int64(3)}, nil, "['init', '3'] python_shell=False"},
	} {
		got = nil
		if _, err := ctx.Call(tc.fun, tc.args, value.MapOf(tc.kw...)); err != nil {
			t.Errorf("%s: %v", tc.fun, err)
			continue
		}
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("%s%v%v ran %q, want %q", tc.fun, tc.args, tc.kw, got, tc.want)
		}
	}
}
