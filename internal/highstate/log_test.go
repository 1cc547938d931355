package highstate

import (
	"io"
	"log/slog"
)

// The tests and benchmarks run with brine's default logging: warnings and
// worse, here discarded. The state run's info and debug messages are then
// never built (see log.go), which the benchmarks measure.
func init() {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn})))
}
