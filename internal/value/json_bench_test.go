package value

import (
	"strconv"
	"testing"
)

// BenchmarkToJSON encodes 10,000 low-chunk-like maps as `--out json` does.
//
//	go test ./internal/value -run XXX -bench ToJSON
func BenchmarkToJSON(b *testing.B) {
	l := NewList()
	for i := 0; i < 10000; i++ {
		id := "app_" + strconv.Itoa(i) + "_worker"
		l.Append(MapOf("state", "test", "name", id, "__sls__", "apps.app0001", "__env__", "base",
			"__id__", id, "threads", int64(i%16), "require", NewList(MapOf("test", "app_pkgs")),
			"order", int64(10000+i), "fun", "nop"))
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = ToJSON(MapOf("local", l), JSONOptions{Indent: 4})
	}
}
