package pyops

import (
	"errors"
	"math/big"
	"runtime"
	"strings"
	"testing"

	"brine/internal/value"
)

// allocated is the number of bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestBoundedStringBuilding: every string-building operation refuses a
// result beyond MaxSize before building it, with the same MemoryError, and
// costs about its inputs (not its would-be output).
func TestBoundedStringBuilding(t *testing.T) {
	big := strings.Repeat("a", 100_000)
	items := make([]any, 100_000)
	for i := range items {
		items[i] = big
	}
	list := value.NewList(items...)
	tests := []struct {
		name string
		run  func() (any, error)
	}{
		{"str.replace", func() (any, error) {
			r, _, err := CallMethod(big, "replace", []any{"a", big}, nil)
			return r, err
		}},
		{"str.replace empty old", func() (any, error) {
			r, _, err := CallMethod(big, "replace", []any{"", big}, nil)
			return r, err
		}},
		{"str.join", func() (any, error) {
			r, _, err := CallMethod("", "join", []any{list}, nil)
			return r, err
		}},
		{"str.join separator", func() (any, error) {
			r, _, err := CallMethod(big, "join", []any{value.NewList(items[:20_000]...)}, nil)
			return r, err
		}},
		{"str * int", func() (any, error) { return BinaryOp("*", big, int64(100_000)) }},
		{"list * int", func() (any, error) { return BinaryOp("*", list, int64(1000)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			n := allocated(func() { _, err = tt.run() })
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("err = %v, want %v", err, ErrTooLarge)
			}
			if n > 64<<20 {
				t.Errorf("allocated %d bytes before refusing, want < 64 MiB", n)
			}
		})
	}
	// Results within the limit are still built.
	r, _, err := CallMethod("abc", "replace", []any{"b", "xyz"}, nil)
	if err != nil || r != "axyzc" {
		t.Errorf("replace = %v, %v", r, err)
	}
	r, _, err = CallMethod("-", "join", []any{value.NewList("a", "b", "c")}, nil)
	if err != nil || r != "a-b-c" {
		t.Errorf("join = %v, %v", r, err)
	}
}

func TestCheckSize(t *testing.T) {
	for _, tt := range []struct {
		n     int64
		limit int
		ok    bool
	}{
		{MaxSize, 0, true}, {MaxSize + 1, 0, false}, {-1, 0, false},
		{100, 50, false}, {50, 50, true}, {MaxSize + 1, MaxSize * 2, false},
	} {
		if err := CheckSize(tt.n, tt.limit); (err == nil) != tt.ok {
			t.Errorf("CheckSize(%d, %d) = %v", tt.n, tt.limit, err)
		}
	}
	if got := replacedSize("aXbX", "X", "yy", -1); got != 6 {
		t.Errorf("replacedSize = %d, want 6", got)
	}
	if got := replacedSize("ab", "", "-", 1); got != 3 {
		t.Errorf("replacedSize count 1 = %d, want 3", got)
	}
}

// TestIntStrDigits: int() of a string of more than 4300 decimal digits,
// and str()/%d/format of such an int, raise CPython's ValueError without
// converting (CPython 3.11's sys.int_info.default_max_str_digits).
func TestIntStrDigits(t *testing.T) {
	huge := strings.Repeat("9", 10_000_000)
	toInt := "Exceeds the limit (4300 digits) for integer string conversion: value has 10000000 digits; use sys.set_int_max_str_digits() to increase the limit"
	toStr := "Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit"
	bigInt := new(big.Int).Exp(big.NewInt(10), big.NewInt(4300), nil) // 4301 digits
	tests := []struct {
		name, want string
		run        func() (any, error)
	}{
		{"int(str)", toInt, func() (any, error) { return Int(huge, 10) }},
		{"int(str, 0)", toInt, func() (any, error) { return Int(huge, 0) }},
		{"int(str, 36)", "Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; use sys.set_int_max_str_digits() to increase the limit",
			func() (any, error) { return Int(strings.Repeat("z", 4301), 36) }},
		{"%d", toStr, func() (any, error) { return PercentFormat("%d", bigInt) }},
		{"format d", toStr, func() (any, error) { return FormatString("{:d}", []any{bigInt}, nil, nil) }},
		{"format", toStr, func() (any, error) { return FormatString("{}", []any{bigInt}, nil, nil) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			n := allocated(func() { _, err = tt.run() })
			var pe *Error
			if !errors.As(err, &pe) || pe.Type != "ValueError" || pe.Msg != tt.want {
				t.Fatalf("err = %v, want ValueError: %s", err, tt.want)
			}
			if n > 64<<20 {
				t.Errorf("allocated %d bytes, want < 64 MiB", n)
			}
		})
	}
	// At the limit, and in power-of-two bases, conversions work.
	for _, tt := range []struct {
		s    string
		base int
	}{
		{strings.Repeat("9", 4300), 10}, {strings.Repeat("f", 5000), 16}, {strings.Repeat("1", 5000), 2},
		{"0x" + strings.Repeat("f", 5000), 0},
	} {
		if _, err := Int(tt.s, tt.base); err != nil {
			t.Errorf("int(%d digits, %d): %v", len(tt.s), tt.base, err)
		}
	}
	lim := new(big.Int).Sub(bigInt, big.NewInt(1)) // 4300 nines
	if err := CheckIntStr(lim); err != nil {
		t.Errorf("4300 digits: %v", err)
	}
	if err := CheckIntStr(new(big.Int).Neg(bigInt)); err == nil {
		t.Error("-10**4300: want an error")
	}
	if s, err := PercentFormat("%x", bigInt); err != nil || len(s) == 0 {
		t.Errorf("%%x of a big int: %v", err)
	}
}

func TestIntStrDigitsHexFormat(t *testing.T) {
	b := new(big.Int).Exp(big.NewInt(10), big.NewInt(5000), nil)
	if _, err := FormatString("{:x}", []any{b}, nil, nil); err != nil {
		t.Errorf("{:x}: %v", err)
	}
	if _, err := FormatString("{:>10}", []any{b}, nil, nil); err == nil {
		t.Error("{:>10}: want the digit limit error")
	}
}
