package pyops

import (
	"math/big"

	"brine/internal/value"
)

// MaxStrDigits is CPython's sys.int_info.default_max_str_digits: int()
// of a string of more decimal digits, and str() of an int of more, raise
// ValueError (CVE-2020-10735: the conversions are quadratic). Bases that
// are powers of two are exempt, as in CPython. The rule lives in value,
// whose Repr and Str follow it too.
const MaxStrDigits = value.MaxStrDigits

// errToInt is the ValueError of int() of a string of n digits.
func errToInt(n int) *Error {
	return valueErr("Exceeds the limit (%d digits) for integer string conversion: value has %d digits; use sys.set_int_max_str_digits() to increase the limit", MaxStrDigits, n)
}

// ErrIntToStr is the ValueError of str() of an int of more than
// MaxStrDigits digits.
var ErrIntToStr = valueErr("%s", (&value.IntStrError{}).Error())

// CheckIntStr refuses the decimal conversion of an int of more than
// MaxStrDigits digits without converting it. Only a *big.Int can be that
// large.
func CheckIntStr(v any) error {
	if b, ok := v.(*big.Int); ok && value.IntStrTooLong(b) {
		return ErrIntToStr
	}
	return nil
}

// StrChecked is Python's str(v), failing with ErrIntToStr where str()
// meets an int of more than MaxStrDigits digits (in a container too).
func StrChecked(v any) (string, error) {
	s, err := value.StrErr(v)
	if err != nil {
		return "", ErrIntToStr
	}
	return s, nil
}

// ReprChecked is Python's repr(v), failing as StrChecked does.
func ReprChecked(v any) (string, error) {
	s, err := value.ReprErr(v)
	if err != nil {
		return "", ErrIntToStr
	}
	return s, nil
}
