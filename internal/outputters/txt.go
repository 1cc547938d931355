package outputters

import (
	"strings"

	"brine/internal/output"
	"brine/internal/pyops"
	"brine/internal/value"
)

func init() {
	output.Register("txt", txtOut, "One 'key: line' per line of each value (salt/output/txt.py).")
}

func txtOut(data any, _ *output.Options) (string, error) {
	var b strings.Builder
	if m, ok := data.(*value.Map); ok {
		m.Range(func(k, v any) bool {
			key := value.Str(k)
			if s, isStr := v.(string); isStr {
				for _, line := range pyops.SplitLines(s, false) {
					b.WriteString(key + ": " + line + "\n")
				}
				return true
			}
			if bs, isBytes := v.([]byte); isBytes {
				for _, line := range pyops.SplitLines(string(bs), false) {
					b.WriteString(key + ": " + value.Repr([]byte(line)) + "\n")
				}
				return true
			}
			b.WriteString(key + ": " + value.Str(v) + "\n")
			return true
		})
		return b.String(), nil
	}
	if s, ok := data.(string); ok {
		return s + "\n", nil
	}
	return pyops.PFormat(data) + "\n", nil
}
