package pyops

import (
	"math"
	"math/big"
	"strconv"

	"brine/internal/value"
)

// Abs is Python's abs(v).
func Abs(v any) (any, error) {
	n := toNum(v)
	switch n.kind {
	case floatNum:
		return math.Abs(n.f), nil
	case smallInt:
		if n.i >= 0 {
			return n.i, nil
		}
		return UnaryOp("-", n.i)
	case bigInt:
		return value.NormInt(new(big.Int).Abs(n.b)), nil
	}
	return nil, typeErr("bad operand type for abs(): '%s'", TypeName(v))
}

// Round is Python's round(v, ndigits); ndigits nil means omitted (the
// result is then an int). Ties go to the even neighbour, and floats round
// by their exact binary value, as CPython does.
func Round(v any, ndigits any) (any, error) {
	n := toNum(v)
	if n.kind == notNum {
		return nil, typeErr("type %s doesn't define __round__ method", TypeName(v))
	}
	if ndigits == nil {
		if n.kind != floatNum {
			return UnaryOp("+", v)
		}
		if math.IsInf(n.f, 0) {
			return nil, newErr("OverflowError", "cannot convert float infinity to integer")
		}
		if math.IsNaN(n.f) {
			return nil, valueErr("cannot convert float NaN to integer")
		}
		return floatToInt(math.RoundToEven(n.f))
	}
	d := toNum(ndigits)
	if !d.isInt() {
		return nil, typeErr("'%s' object cannot be interpreted as an integer", TypeName(ndigits))
	}
	if n.isInt() {
		if d.sign() >= 0 {
			return UnaryOp("+", v)
		}
		if d.kind == bigInt || d.i < -4000 {
			return int64(0), nil
		}
		return roundInt(n.big(), int(-d.i)), nil
	}
	f := n.f
	if math.IsInf(f, 0) || math.IsNaN(f) || f == 0 {
		return f, nil
	}
	if d.kind == bigInt {
		if d.b.Sign() > 0 {
			return f, nil
		}
		return math.Copysign(0, f), nil
	}
	nd := d.i
	switch {
	case nd > 400:
		return f, nil
	case nd < -400:
		return math.Copysign(0, f), nil
	case nd >= 0:
		r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', int(nd), 64), 64)
		return r, nil
	}
	// Negative ndigits: round the exact decimal expansion.
	z, _ := new(big.Float).SetFloat64(f).Int(nil) // truncated integer part
	frac := f - math.Trunc(f)
	r := roundIntFrac(z, frac, int(-nd))
	out, _ := new(big.Float).SetInt(r).Float64()
	if out == 0 {
		out = math.Copysign(0, f)
	}
	if math.IsInf(out, 0) {
		return nil, newErr("OverflowError", "rounded value too large to represent")
	}
	return out, nil
}

// roundInt rounds x to a multiple of 10**k, ties to even.
func roundInt(x *big.Int, k int) any {
	return value.NormInt(roundIntFrac(x, 0, k))
}

// roundIntFrac rounds x + frac (|frac| < 1, same sign as x) to a multiple
// of 10**k, ties to even.
func roundIntFrac(x *big.Int, frac float64, k int) *big.Int {
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil)
	neg := x.Sign() < 0 || (x.Sign() == 0 && frac < 0)
	ax := new(big.Int).Abs(x)
	q, r := new(big.Int).QuoRem(ax, pow, new(big.Int))
	// Compare the remainder (plus the fraction) with half of pow.
	twice := new(big.Int).Lsh(r, 1)
	c := twice.Cmp(pow)
	if c == 0 && frac != 0 {
		c = 1
	}
	if c > 0 || (c == 0 && q.Bit(0) == 1) {
		q.Add(q, big.NewInt(1))
	}
	q.Mul(q, pow)
	if neg {
		q.Neg(q)
	}
	return q
}
