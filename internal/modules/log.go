package modules

// log.go is salt/modules/logmod.py: writing to the minion's log from
// templates.

import (
	"context"
	"log/slog"

	"brine/internal/execmod"
	"brine/internal/value"
)

// levelWarning and levelCritical place Salt's extra levels among slog's.
const (
	logLevelCritical = slog.LevelError + 4
)

func init() {
	for _, l := range []struct {
		name  string
		level slog.Level
	}{
		{"debug", slog.LevelDebug}, {"info", slog.LevelInfo}, {"warning", slog.LevelWarn},
		{"error", slog.LevelError}, {"critical", logLevelCritical},
	} {
		level := l.level
		fun := l.name
		execmod.Register("log."+fun, func(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
			v, _, err := execmod.Bind(fun, args, kwargs, execmod.Req("message"))
			if err != nil {
				return nil, err
			}
			slog.Log(context.Background(), level, execmod.String(v[0]))
			return nil, nil
		}, "Log message at level "+fun+" in the minion log (log."+fun+" message).")
	}
}
