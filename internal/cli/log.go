package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// Salt's log levels as slog levels (Salt's numbers divided around slog's).
var logLevels = map[string]slog.Level{
	"all":      slog.LevelDebug - 8,
	"garbage":  slog.LevelDebug - 6,
	"trace":    slog.LevelDebug - 4,
	"debug":    slog.LevelDebug,
	"profile":  slog.LevelDebug + 2,
	"info":     slog.LevelInfo,
	"warning":  slog.LevelWarn,
	"error":    slog.LevelError,
	"critical": slog.LevelError + 4,
	"quiet":    slog.LevelError + 100,
}

// setupLogging routes slog's default logger to w in Salt's console format,
// "[LEVEL   ] message", at the given Salt level name (warning when unknown).
func setupLogging(level string, w io.Writer) {
	lv, ok := logLevels[strings.ToLower(level)]
	if !ok {
		lv = slog.LevelWarn
	}
	slog.SetDefault(slog.New(&consoleHandler{w: w, level: lv}))
}

type consoleHandler struct {
	mu    sync.Mutex
	w     io.Writer
	level slog.Level
	attrs []slog.Attr
}

func (h *consoleHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *consoleHandler) Handle(_ context.Context, r slog.Record) error {
	name := "ERROR"
	switch {
	case r.Level < slog.LevelDebug:
		name = "TRACE"
	case r.Level < slog.LevelInfo:
		name = "DEBUG"
	case r.Level < slog.LevelWarn:
		name = "INFO"
	case r.Level < slog.LevelError:
		name = "WARNING"
	case r.Level > slog.LevelError:
		name = "CRITICAL"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[%-8s] %s", name, r.Message)
	for _, a := range h.attrs {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
	}
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *consoleHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &consoleHandler{w: h.w, level: h.level, attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

func (h *consoleHandler) WithGroup(string) slog.Handler { return h }
