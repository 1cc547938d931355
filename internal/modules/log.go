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
	execmod.Register("log.exception", func(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind("exception", args, kwargs, execmod.Req("message"))
		if err != nil {
			return nil, err
		}
		// Python's logging.exception outside an except block adds the
		// missing traceback as "NoneType: None".
		slog.Log(context.Background(), slog.LevelError, execmod.String(v[0])+"\nNoneType: None")
		return nil, nil
	}, "Log message at level error with the current exception's traceback (none here).")
}
