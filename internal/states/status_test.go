package states_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

// TestStatusStates runs the monitoring states against this machine's
// load averages and process list; the bounds are chosen so the answer
// does not depend on the moment.
func TestStatusStates(t *testing.T) {
	ctx := execmod.NewContext()
	self := "brine-status-test-" + strconv.Itoa(os.Getpid())
	for _, tc := range []struct {
		fun     string
		args    *value.Map
		result  bool
		comment string // prefix
		data    bool   // data is set
	}{
		{"status.loadavg", value.MapOf("name", "5-min", "minimum", "0", "maximum", "1000000"), true, "Load avg in acceptable range", true},
		{"status.loadavg", value.MapOf("name", "1-min", "maximum", int64(-1)), false, "Load avg above maximum of -1 at ", true},
		{"status.loadavg", value.MapOf("name", "15-min", "minimum", "1000000"), false, "Load avg is below minimum of 1000000 at ", true},
		{"status.loadavg", value.MapOf("name", "2-min"), false, "Requested load average 2-min not available ", false},
		{"status.loadavg", value.MapOf("name", "1-min", "minimum", "5", "maximum", "1"), false, "Min must be less than max", false},
		{"status.process", value.MapOf("name", self), false, `Process signature "` + self + `" not found `, false},
		{"status.process", value.MapOf("name", "^root +1 "), true, `Process signature "^root +1 " was found `, true},
	} {
		ret := sysRun(t, ctx, tc.fun, tc.args, false)
		if r, _ := ret.Get("result"); r != tc.result || !strings.HasPrefix(str(ret, "comment"), tc.comment) {
			t.Errorf("%s %s = %s", tc.fun, value.Repr(tc.args), value.Repr(ret))
		}
		data, _ := ret.Get("data")
		if m, isMap := data.(*value.Map); (isMap && m.Len() == 0) == tc.data {
			t.Errorf("%s %s: data %s", tc.fun, value.Repr(tc.args), value.Repr(data))
		}
		// Monitoring states change nothing, in test mode neither.
		if ch, _ := ret.Get("changes"); ch.(*value.Map).Len() != 0 {
			t.Errorf("%s changed %s", tc.fun, value.Repr(ch))
		}
	}
}

func TestCmdWaitCall(t *testing.T) {
	ctx := execmod.NewContext()
	ret := sysRun(t, ctx, "cmd.wait_call", value.MapOf("name", "x", "func", "test.ping"), false)
	if r, _ := ret.Get("result"); r != true || str(ret, "comment") != "" {
		t.Errorf("cmd.wait_call = %s", value.Repr(ret))
	}
}
