package cli

import (
	"testing"

	"brine/internal/value"
)

// TestRunnerDisplay: what salt-run prints of a runner's return, with
// which outputter, and its exit code.
func TestRunnerDisplay(t *testing.T) {
	orch := value.MapOf("data", value.MapOf("m_master", value.NewMap(0)), "outputter", "highstate", "retcode", int64(1))
	cases := []struct {
		ret      any
		data     any
		out      string
		code     int
		dataSame bool // data is ret itself
	}{
		{ret: value.NewList("a"), out: "", code: 0, dataSame: true},
		{ret: "text", out: "", code: 0, dataSame: true},
		// {data, outputter}: the data, with that outputter.
		{ret: value.MapOf("outputter", "highstate", "data", value.MapOf("m1", true)), data: value.MapOf("m1", true), out: "highstate"},
		// More keys: the whole return, with the outputter named.
		{ret: orch, out: "highstate", code: 1, dataSame: true},
		{ret: value.MapOf("retcode", int64(3)), code: 3, dataSame: true},
		{ret: value.MapOf("data", value.MapOf("retcode", int64(2)), "x", 1), code: 2, dataSame: true},
	}
	for _, tc := range cases {
		data, out, code := runnerDisplay(tc.ret)
		want := tc.data
		if tc.dataSame {
			want = tc.ret
		}
		if !value.Equal(data, want) || out != tc.out || code != tc.code {
			t.Errorf("%s: (%s, %q, %d), want (%s, %q, %d)", value.Str(tc.ret), value.Str(data), out, code, value.Str(want), tc.out, tc.code)
		}
	}
}
