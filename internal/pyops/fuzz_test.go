package pyops

import (
	"testing"

	"brine/internal/value"
)

// fuzzArgs builds a few argument values from fuzz inputs.
func fuzzArgs(s string, n int64, f float64) []any {
	return []any{s, n, f, value.NewList(s, n), value.MapOf("k", s, "n", n), value.Tuple{n, s}, nil, true}
}

func FuzzFormat(f *testing.F) {
	for _, seed := range []string{"%s-%d", "%(k)5.2f", "{0:>8}", "{k[0]!r:^{n}}", "%*.*f", "{:,.2%}", "{0[k]}{1.x}", "%c%r%a"} {
		f.Add(seed, "x", int64(3), 1.5)
	}
	f.Fuzz(func(t *testing.T, format, s string, n int64, fl float64) {
		args := fuzzArgs(s, n%1000, fl)
		for _, a := range args {
			_, _ = PercentFormat(format, a)
			_, _ = FormatValue(a, format)
		}
		_, _ = PercentFormat(format, value.Tuple(args))
		_, _ = FormatString(format, args, value.MapOf("k", s, "n", n), nil)
	})
}

func FuzzStrMethods(f *testing.F) {
	f.Add("  a,b\r\nc  ", ",", int64(1))
	f.Add("héllo wörld", "", int64(-1))
	names := MethodNames("")
	f.Fuzz(func(t *testing.T, recv, arg string, n int64) {
		n %= 100
		for _, name := range names {
			for _, args := range [][]any{nil, {arg}, {arg, n}, {n}, {arg, arg, n}, {value.Tuple{arg}, n, n}} {
				_, _, _ = CallMethod(recv, name, args, nil)
			}
		}
		for _, op := range []string{"+", "-", "*", "/", "//", "%", "**"} {
			_, _ = BinaryOp(op, recv, n)
			_, _ = BinaryOp(op, n, n+1)
		}
		_, _ = Slice(recv, n, nil, n%5)
		_, _ = GetItem(recv, n)
		_, _ = Int(recv, int(n%40))
		_, _ = Float(recv)
	})
}
