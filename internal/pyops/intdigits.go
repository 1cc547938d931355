package pyops

import (
	"math/big"
)

// MaxStrDigits is CPython's sys.int_info.default_max_str_digits: int()
// of a string of more decimal digits, and str() of an int of more, raise
// ValueError (CVE-2020-10735: the conversions are quadratic). Bases that
// are powers of two are exempt, as in CPython.
const MaxStrDigits = 4300

// tenToMax is 10**MaxStrDigits: an int has more than MaxStrDigits digits
// when its magnitude is at least this.
var tenToMax = new(big.Int).Exp(big.NewInt(10), big.NewInt(MaxStrDigits), nil)

// errToInt is the ValueError of int() of a string of n digits.
func errToInt(n int) *Error {
	return valueErr("Exceeds the limit (%d digits) for integer string conversion: value has %d digits; use sys.set_int_max_str_digits() to increase the limit", MaxStrDigits, n)
}

// ErrIntToStr is the ValueError of str() of an int of more than
// MaxStrDigits digits.
var ErrIntToStr = valueErr("Exceeds the limit (%d digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit", MaxStrDigits)

// CheckIntStr refuses the decimal conversion of an int of more than
// MaxStrDigits digits without converting it. Only a *big.Int can be that
// large.
func CheckIntStr(v any) error {
	b, ok := v.(*big.Int)
	if !ok || b.BitLen() < 14285 { // 2**14284 < 10**4300
		return nil
	}
	if b.BitLen() > 14285 || new(big.Int).Abs(b).Cmp(tenToMax) >= 0 {
		return ErrIntToStr
	}
	return nil
}
