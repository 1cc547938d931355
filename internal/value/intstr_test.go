package value

import (
	"errors"
	"math/big"
	"runtime"
	"strings"
	"testing"
)

// TestIntStrLimit: Repr and Str of an int of more than MaxStrDigits
// digits (alone or inside containers) never convert it: Repr/Str print a
// marker, ReprErr/StrErr return *IntStrError; up to the limit every digit
// prints.
func TestIntStrLimit(t *testing.T) {
	ten := func(n int64) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(n), nil) }
	minus1 := func(b *big.Int) *big.Int { return new(big.Int).Sub(b, big.NewInt(1)) }
	huge := new(big.Int).Lsh(big.NewInt(1), 4_000_000) // 1.2 million digits
	for _, tt := range []struct {
		name string
		v    any
		want string // "" for the error
	}{
		{"4300 nines", minus1(ten(4300)), strings.Repeat("9", 4300)},
		{"-4300 nines", new(big.Int).Neg(minus1(ten(4300))), "-" + strings.Repeat("9", 4300)},
		{"10**4300", ten(4300), ""},
		{"-10**4300", new(big.Int).Neg(ten(4300)), ""},
		{"2**14284 (4300 digits)", new(big.Int).Lsh(big.NewInt(1), 14284), new(big.Int).Lsh(big.NewInt(1), 14284).String()},
		{"2**14285", new(big.Int).Lsh(big.NewInt(1), 14285), ""},
		{"huge", huge, ""},
		{"huge in a list", NewList(int64(1), huge), ""},
		{"huge as a map value", MapOf("k", Tuple{huge}), ""},
		{"small", big.NewInt(12), "12"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			r := Repr(tt.v)
			s, serr := StrErr(tt.v)
			_, rerr := ReprErr(tt.v)
			runtime.ReadMemStats(&after)
			if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
				t.Errorf("allocated %d KiB, want < 1 MiB", n>>10)
			}
			if tt.want != "" {
				if r != tt.want || s != tt.want || serr != nil || rerr != nil {
					t.Errorf("Repr = %.20q..., StrErr = %.20q..., %v, %v", r, s, serr, rerr)
				}
				return
			}
			var ie *IntStrError
			if !errors.As(serr, &ie) || !errors.As(rerr, &ie) {
				t.Errorf("errors = %v, %v, want *IntStrError", serr, rerr)
			}
			if !strings.Contains(r, intTooLong) || len(r) > 100 {
				t.Errorf("Repr = %.100q", r)
			}
			if Str(tt.v) != r {
				t.Errorf("Str = %q, want %q", Str(tt.v), r)
			}
		})
	}
	if got := (&IntStrError{}).Error(); got != "Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit" {
		t.Errorf("message = %q", got)
	}
}
