package pyops

import (
	"testing"

	"brine/internal/value"
)

func BenchmarkBinaryOpInt(b *testing.B) {
	b.ReportAllocs()
	x, y := any(int64(1000)), any(int64(2345))
	for b.Loop() {
		_, _ = BinaryOp("+", x, y)
	}
}

func BenchmarkBinaryOpStrConcat(b *testing.B) {
	b.ReportAllocs()
	x, y := any("hello "), any("world")
	for b.Loop() {
		_, _ = BinaryOp("+", x, y)
	}
}

func BenchmarkCompareStr(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, _ = Compare("<", "apache2", "nginx")
	}
}

func BenchmarkDictGet(b *testing.B) {
	b.ReportAllocs()
	d := value.MapOf("pkg", "nginx", "service", "nginx", "port", int64(80))
	args := []any{"port", int64(0)}
	for b.Loop() {
		_, _, _ = CallMethod(d, "get", args, nil)
	}
}

func BenchmarkStrSplit(b *testing.B) {
	b.ReportAllocs()
	args := []any{"/"}
	for b.Loop() {
		_, _, _ = CallMethod("/etc/nginx/sites-enabled/default", "split", args, nil)
	}
}

func BenchmarkPercentFormat(b *testing.B) {
	b.ReportAllocs()
	args := value.Tuple{"web01", int64(8080), 0.25}
	for b.Loop() {
		_, _ = PercentFormat("%s:%d (%.1f%%)", args)
	}
}

func BenchmarkStrFormat(b *testing.B) {
	b.ReportAllocs()
	args := []any{"web01", int64(8080)}
	kw := value.MapOf("user", "root")
	for b.Loop() {
		_, _ = FormatString("{user}@{}:{:>6}", args, kw, nil)
	}
}
