package pyops

import (
	"errors"
	"math/big"
	"testing"

	"brine/internal/value"
)

// TestIntStrInContainers: str()/repr() through %s, %r, %a, !s, !r and
// format() of a value holding an int of more than 4300 digits raise the
// ValueError Python 3.11 raises (the digits of a nested int are converted
// by repr too); 4300 digits still print.
func TestIntStrInContainers(t *testing.T) {
	huge := new(big.Int).Lsh(big.NewInt(1), 1_000_000) // 301,030 digits
	limit := new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(4300), nil), big.NewInt(1))
	in := value.NewList("a", value.MapOf("n", huge))
	for _, tt := range []struct {
		name string
		run  func(v any) (string, error)
	}{
		{"%s", func(v any) (string, error) { return PercentFormat("%s", value.Tuple{v}) }},
		{"%r", func(v any) (string, error) { return PercentFormat("%r", value.Tuple{v}) }},
		{"%a", func(v any) (string, error) { return PercentFormat("%a", value.Tuple{v}) }},
		{"{!s}", func(v any) (string, error) { return FormatString("{!s}", []any{v}, nil, nil) }},
		{"{!r}", func(v any) (string, error) { return FormatString("{!r}", []any{v}, nil, nil) }},
		{"{}", func(v any) (string, error) { return FormatString("{}", []any{v}, nil, nil) }},
		{"format()", func(v any) (string, error) { return FormatValue(v, "") }},
		{"str()", StrChecked},
		{"repr()", ReprChecked},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range []any{huge, in} {
				var err error
				n := allocated(func() { _, err = tt.run(v) })
				var pe *Error
				if !errors.As(err, &pe) || pe.Type != "ValueError" || pe.Msg != (&value.IntStrError{}).Error() {
					t.Errorf("%T: err = %v, want the digit-limit ValueError", v, err)
				}
				if n > 1<<20 {
					t.Errorf("%T: allocated %d KiB, want < 1 MiB", v, n>>10)
				}
			}
			s, err := tt.run(value.NewList(limit))
			if err != nil || len(s) < 4300 {
				t.Errorf("4300 digits: %q, %v", s, err)
			}
		})
	}
}
