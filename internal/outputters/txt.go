package outputters

import (
	"strings"

	"brine/internal/output"
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
				for _, line := range pySplitLines(s) {
					b.WriteString(key + ": " + line + "\n")
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
	return value.Repr(data) + "\n", nil
}

// pySplitLines is Python's str.splitlines.
func pySplitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n\v\f\x1c\x1d\x1e\u0085\u2028\u2029")
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i])
		rest := s[i:]
		switch {
		case strings.HasPrefix(rest, "\r\n"):
			s = rest[2:]
		case rest[0] < 0x80:
			s = rest[1:]
		default:
			for j := range rest {
				if j > 0 {
					s = rest[j:]
					break
				}
			}
			if s == rest || len(s) == len(rest) {
				s = ""
			}
		}
	}
	return out
}
