package jinjasalt

import (
	"runtime"
	"strings"
	"testing"

	"brine/internal/value"
)

// TestBoundedCost renders hostile templates through Salt's filters: each
// ends with its result or a clear error having allocated a bounded amount
// of memory.
func TestBoundedCost(t *testing.T) {
	const deep = "{% set ns = namespace(x=[]) %}{% for i in range(30000) %}{% set ns.x = [ns.x] %}{% endfor %}"
	const depthErr = "maximum recursion depth exceeded while "
	tests := []struct {
		name, src string
		out       string // wanted output, or the wanted error's text
		fails     bool
		maxAlloc  uint64
	}{
		{"yaml depth", deep + "{{ ns.x|yaml }}", "RecursionError: " + depthErr + "representing a YAML object", true, 64 << 20},
		{"yaml flow depth", deep + "{{ ns.x|yaml(False) }}", "RecursionError: " + depthErr + "representing a YAML object", true, 64 << 20},
		{"tojson depth", deep + "{{ ns.x|tojson }}", "RecursionError: " + depthErr + "encoding a JSON object", true, 64 << 20},
		{"json depth", deep + "{{ ns.x|json }}", "RecursionError: " + depthErr + "encoding a JSON object", true, 64 << 20},
		{"yaml at the limit", "{% set ns = namespace(x=1) %}{% for i in range(499) %}{% set ns.x = [ns.x] %}{% endfor %}{{ 'ok' if ns.x|yaml else '' }}", "ok", false, 64 << 20},
		{"unique 100k", "{{ range(100000)|list|unique|length }}", "100000", false, 64 << 20},
		{"unique equality", "{{ [1, 1.0, True, 'a', 'a', [1], [1], {'a': 1}, {'a': 1}, (1, 2), (1, 2)]|unique }}", "[1, 'a', [1], {'a': 1}, (1, 2)]", false, 1 << 20},
		{"unique order", "{{ [3, 1, 3, 2, 1]|unique }}", "[3, 1, 2]", false, 1 << 20},
		{"unique string", "{{ 'abca'|unique|sort }}", "['a', 'b', 'c']", false, 1 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := &Context{NoSLS: true, Opts: value.NewMap(0), Grains: value.NewMap(0), Pillar: value.NewMap(0)}
			var out string
			var err error
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			out, err = Render([]byte(tt.src), ctx)
			runtime.ReadMemStats(&after)
			if tt.fails {
				if err == nil || !strings.Contains(err.Error(), tt.out) {
					t.Fatalf("err = %v, want %q", err, tt.out)
				}
			} else if err != nil || out != tt.out {
				t.Fatalf("got %.200q, %v; want %q", out, err, tt.out)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > tt.maxAlloc {
				t.Errorf("allocated %d MiB, want < %d MiB", n>>20, tt.maxAlloc>>20)
			}
		})
	}
}
