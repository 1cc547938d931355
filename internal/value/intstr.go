package value

import (
	"math/big"
	"sync"
)

// MaxStrDigits is CPython's default sys.int_info.default_max_str_digits:
// Python 3.11 refuses to convert an int of more decimal digits to a string
// or a string of more digits to an int (CVE-2020-10735: the conversion is
// quadratic). Repr and Str follow the rule; pyops applies it to int().
const MaxStrDigits = 4300

// IntStrError is the error of converting an int of more than MaxStrDigits
// decimal digits to a string; callers that speak Python report it as a
// ValueError with this message.
type IntStrError struct{}

func (*IntStrError) Error() string {
	return "Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit"
}

// intTooLong is what Repr and Str print for such an int: Python would
// raise instead, and ReprErr and StrErr do.
const intTooLong = "<int of more than 4300 digits>"

// tenToMax is 10**MaxStrDigits, which has maxStrBits bits.
var tenToMax = sync.OnceValue(func() *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(MaxStrDigits), nil)
})

const maxStrBits = 14285 // 2**14284 < 10**4300 < 2**14285

// IntStrTooLong reports whether b has more than MaxStrDigits decimal
// digits, in time linear in its size and without converting it.
func IntStrTooLong(b *big.Int) bool {
	switch n := b.BitLen(); {
	case n < maxStrBits:
		return false
	case n > maxStrBits:
		return true
	}
	return b.CmpAbs(tenToMax()) >= 0
}

// ReprErr is Repr that fails, as Python's repr does, with an *IntStrError
// when v is or holds an int of more than MaxStrDigits digits.
func ReprErr(v any) (string, error) {
	var err error
	s := repr(v, &err)
	if err != nil {
		return "", err
	}
	return s, nil
}

// StrErr is Str that fails as ReprErr does.
func StrErr(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case Stringer:
		return x.PyStr(), nil
	}
	return ReprErr(v)
}
