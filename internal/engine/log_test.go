package engine

import (
	"bytes"
	"io"
	"log/slog"
	"strings"
	"testing"

	"brine/internal/value"
)

// The tests and benchmarks run with brine's default logging: warnings and
// worse, here discarded. The state run's info and debug messages are then
// never built (see log.go), which the benchmarks measure.
func init() {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn})))
}

// formatLog words a state's result as Salt's format_log does.
func TestFormatLog(t *testing.T) {
	old := slog.Default()
	defer slog.SetDefault(old)
	var buf bytes.Buffer
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
		Level: slog.LevelInfo,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})))
	for _, tc := range []struct {
		ret  *value.Map
		want string
	}{
		{value.MapOf("result", true, "comment", "Success!", "changes", value.NewMap(0)), `level=INFO msg=Success!`},
		{value.MapOf("result", false, "comment", "It broke", "changes", value.NewMap(0)), `level=ERROR msg="It broke"`},
		{value.MapOf("result", nil, "comment", "", "changes", value.MapOf("diff", "New file")), `level=INFO msg="File changed:\nNew file"`},
		{value.MapOf("result", true, "comment", "", "changes", value.MapOf("vim", value.MapOf("old", "", "new", "9.0"))),
			`level=INFO msg="Made the following changes:\n'vim' changed from 'absent' to '9.0'\n"`},
		{value.MapOf("result", true, "comment", "", "changes", value.MapOf("pid", int64(3))), `level=INFO msg="{'pid': 3}"`},
	} {
		buf.Reset()
		formatLog(tc.ret)
		if got := strings.TrimSpace(buf.String()); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
