package engine

// log.go is the state run's logging, in Salt's words and at its levels
// (salt/state.py State.call and format_log): "Running state [name] at
// time ...", "Executing state mod.fun for [name]", the result (what
// changed, or the comment; at error level when the state failed) and
// "Completed state [name] at time ... (duration_in_ms=...)". Each message
// is built only when its level is enabled.

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"brine/internal/value"
)

func logEnabled(l slog.Level) bool { return slog.Default().Enabled(context.Background(), l) }

// logName is the state name as Salt logs it (stripped when a string).
func logName(low *value.Map) string {
	n := get(low, "name")
	if s, ok := n.(string); ok {
		return strings.TrimSpace(s)
	}
	return pyStr(n)
}

func logRunning(low *value.Map, start time.Time) {
	if logEnabled(slog.LevelInfo) {
		slog.Info(fmt.Sprintf("Running state [%s] at time %s", logName(low), isoTime(start)))
	}
}

func logExecuting(low *value.Map) {
	if logEnabled(slog.LevelInfo) && !truthy(low, "__prereq__") {
		slog.Info(fmt.Sprintf("Executing state %s.%s for [%s]", getStr(low, "state"), getStr(low, "fun"), logName(low)))
	}
}

func logCompleted(low *value.Map, end time.Time, d time.Duration) {
	if logEnabled(slog.LevelInfo) {
		slog.Info(fmt.Sprintf("Completed state [%s] at time %s (duration_in_ms=%s)", logName(low), isoTime(end), value.Str(durationMS(d))))
	}
}

// formatLog is Salt's format_log: what a state did, at info, or at error
// when it failed.
func formatLog(ret *value.Map) {
	failed := get(ret, "result") != true && get(ret, "result") != nil
	level := slog.LevelInfo
	if failed {
		level = slog.LevelError
	}
	if !logEnabled(level) {
		return
	}
	chg, ok := ret.Get("changes")
	if !ok {
		slog.Info(value.Str(ret))
		return
	}
	msg := ""
	switch c := chg.(type) {
	case *value.Map:
		if c.Len() == 0 {
			if cm := get(ret, "comment"); value.Truthy(cm) {
				msg = pyStr(cm)
			}
			break
		}
		if d, ok := c.Get("diff"); ok {
			if s, isStr := d.(string); isStr {
				msg = "File changed:\n" + s
			}
		}
		allOldNew := true
		c.Range(func(_, v any) bool {
			m, isMap := v.(*value.Map)
			if !isMap || !m.Has("old") || !m.Has("new") {
				allOldNew = false
			}
			return allOldNew
		})
		if allOldNew {
			var b strings.Builder
			b.WriteString("Made the following changes:\n")
			c.Range(func(k, v any) bool {
				m := v.(*value.Map)
				old, nw := get(m, "old"), get(m, "new")
				if !value.Truthy(old) && old != false && old != nil {
					old = "absent"
				}
				if !value.Truthy(nw) && nw != false && nw != nil {
					nw = "absent"
				}
				fmt.Fprintf(&b, "'%s' changed from '%s' to '%s'\n", pyStr(k), pyStr(old), pyStr(nw))
				return true
			})
			msg = b.String()
		}
	case nil:
		if cm := get(ret, "comment"); value.Truthy(cm) {
			msg = pyStr(cm)
		}
	}
	if msg == "" {
		msg = value.Str(chg)
	}
	slog.Log(context.Background(), level, msg)
}
