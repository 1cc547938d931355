package yamlload

import (
	"errors"
	"runtime"
	"testing"

	"brine/internal/value"
)

// TestDumpDepth: the dumper refuses data nested deeper than
// value.MaxDepth (block YAML of deep data is quadratic in its depth) with
// the error every serialiser gives, before representing it all.
func TestDumpDepth(t *testing.T) {
	nest := func(n int, wrap func(any) any) any {
		var v any = int64(1)
		for range n {
			v = wrap(v)
		}
		return v
	}
	list := func(v any) any { return value.NewList(v) }
	mapping := func(v any) any { return value.MapOf("k", v) }
	tuple := func(v any) any { return value.Tuple{v} }
	for _, tt := range []struct {
		name string
		v    any
		ok   bool
	}{
		{"list 30000", nest(30000, list), false},
		{"map 30000", nest(30000, mapping), false},
		{"tuple 30000", nest(30000, tuple), false},
		{"list at the limit", nest(value.MaxDepth, list), true},
		{"list past the limit", nest(value.MaxDepth+1, list), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err = Dump(tt.v, DumpOptions{})
			runtime.ReadMemStats(&after)
			var de *value.DepthError
			if tt.ok != (err == nil) || !tt.ok && !errors.As(err, &de) {
				t.Fatalf("err = %v", err)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
				t.Errorf("allocated %d MiB, want < 64 MiB", n>>20)
			}
		})
	}
}
