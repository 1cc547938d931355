package engine

import (
	"strings"
	"time"

	"brine/internal/statemod"
	"brine/internal/value"
)

// Tag returns the running-dictionary key of a low chunk (statemod.Tag).
func Tag(low *value.Map) string { return statemod.Tag(low) }

// SplitTag splits a running-dictionary key back into state, id, name, fun
// (Salt's split_low_tag). ok is false when tag has not four fields.
func SplitTag(tag string) (state, id, name, fun string, ok bool) {
	parts := strings.Split(tag, "_|-")
	if len(parts) != 4 {
		return "", "", "", "", false
	}
	return parts[0], parts[1], parts[2], parts[3], true
}

func pyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return value.Str(v)
}

func get(m *value.Map, k any) any {
	v, _ := m.Get(k)
	return v
}

func getStr(m *value.Map, k any) string {
	v, ok := m.Get(k)
	if !ok || v == nil {
		return ""
	}
	return pyStr(v)
}

func truthy(m *value.Map, k any) bool { return value.Truthy(get(m, k)) }

// isoTime formats t as Python's datetime.time.isoformat(): HH:MM:SS.ffffff,
// without the fraction when the microseconds are zero.
func isoTime(t time.Time) string {
	us := t.Nanosecond() / 1000
	if us == 0 {
		return t.Format("15:04:05")
	}
	b := make([]byte, 0, 15)
	b = t.AppendFormat(b, "15:04:05")
	b = append(b, '.')
	for d := 100000; d > 0; d /= 10 {
		b = append(b, byte('0'+us/d%10))
	}
	return string(b)
}

// durationMS is Salt's duration: milliseconds with microsecond precision.
func durationMS(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000.0
}

// asList returns the items of a requisite or keyword value: a *value.List's
// items, a tuple, or nil.
func asList(v any) []any {
	switch x := v.(type) {
	case *value.List:
		if x == nil {
			return nil
		}
		return x.Items
	case value.Tuple:
		return x
	case []any:
		return x
	}
	return nil
}
