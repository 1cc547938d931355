package pyops

import (
	"math"
	"math/big"
	"math/bits"

	"brine/internal/value"
)

// numKind classifies a numeric operand.
type numKind int

const (
	notNum numKind = iota
	smallInt
	bigInt
	floatNum
)

// num is a numeric operand normalized for arithmetic: bools and ints become
// int64 (or *big.Int), floats stay float64.
type num struct {
	kind numKind
	i    int64
	b    *big.Int
	f    float64
}

func toNum(v any) num {
	switch x := v.(type) {
	case int64:
		return num{kind: smallInt, i: x}
	case int:
		return num{kind: smallInt, i: int64(x)}
	case bool:
		if x {
			return num{kind: smallInt, i: 1}
		}
		return num{kind: smallInt}
	case float64:
		return num{kind: floatNum, f: x}
	case *big.Int:
		if x.IsInt64() {
			return num{kind: smallInt, i: x.Int64()}
		}
		return num{kind: bigInt, b: x}
	}
	return num{}
}

func (n num) isInt() bool { return n.kind == smallInt || n.kind == bigInt }

func (n num) big() *big.Int {
	if n.kind == bigInt {
		return n.b
	}
	return big.NewInt(n.i)
}

// float converts n to float64; ok is false when an int is too large.
func (n num) float() (float64, bool) {
	switch n.kind {
	case smallInt:
		return float64(n.i), true
	case bigInt:
		f, _ := new(big.Float).SetInt(n.b).Float64()
		if math.IsInf(f, 0) {
			return f, false
		}
		return f, true
	}
	return n.f, true
}

func (n num) sign() int {
	switch n.kind {
	case smallInt:
		switch {
		case n.i > 0:
			return 1
		case n.i < 0:
			return -1
		}
		return 0
	case bigInt:
		return n.b.Sign()
	}
	switch {
	case n.f > 0:
		return 1
	case n.f < 0:
		return -1
	}
	return 0
}

var errIntTooLarge = newErr("OverflowError", "int too large to convert to float")

func intAdd(a, b num) any {
	if a.kind == smallInt && b.kind == smallInt {
		s := a.i + b.i
		if (s > a.i) == (b.i > 0) {
			return s
		}
	}
	return value.NormInt(new(big.Int).Add(a.big(), b.big()))
}

func intSub(a, b num) any {
	if a.kind == smallInt && b.kind == smallInt {
		s := a.i - b.i
		if (s < a.i) == (b.i > 0) {
			return s
		}
	}
	return value.NormInt(new(big.Int).Sub(a.big(), b.big()))
}

func intMul(a, b num) any {
	if a.kind == smallInt && b.kind == smallInt {
		x, y := a.i, b.i
		neg := (x < 0) != (y < 0)
		ux, uy := absU(x), absU(y)
		hi, lo := bits.Mul64(ux, uy)
		if hi == 0 && (lo <= math.MaxInt64 || (neg && lo == 1<<63)) {
			if neg {
				return -int64(lo)
			}
			return int64(lo)
		}
	}
	return value.NormInt(new(big.Int).Mul(a.big(), b.big()))
}

func absU(x int64) uint64 {
	if x < 0 {
		return uint64(-x)
	}
	return uint64(x)
}

// intFloorDivMod computes Python's a // b and a % b for ints (b != 0).
func intFloorDivMod(a, b num) (q, r any) {
	if a.kind == smallInt && b.kind == smallInt && !(a.i == math.MinInt64 && b.i == -1) {
		qq, rr := a.i/b.i, a.i%b.i
		if rr != 0 && (rr < 0) != (b.i < 0) {
			qq--
			rr += b.i
		}
		return qq, rr
	}
	qb, rb := new(big.Int), new(big.Int)
	// Go's DivMod is Euclidean (r >= 0); adjust to floor semantics.
	bb := b.big()
	qb.DivMod(a.big(), bb, rb)
	if rb.Sign() != 0 && bb.Sign() < 0 {
		qb.Sub(qb, big.NewInt(1))
		rb.Add(rb, bb)
	}
	return value.NormInt(qb), value.NormInt(rb)
}

// trueDiv is Python's int / int, correctly rounded.
func intTrueDiv(a, b num) (any, error) {
	if b.sign() == 0 {
		return nil, newErr("ZeroDivisionError", "division by zero")
	}
	if a.kind == smallInt && b.kind == smallInt && absU(a.i) <= 1<<53 && absU(b.i) <= 1<<53 {
		return float64(a.i) / float64(b.i), nil
	}
	r := new(big.Rat).SetFrac(a.big(), b.big())
	f, _ := r.Float64()
	if f == 0 && (a.sign() < 0) != (b.sign() < 0) {
		f = math.Copysign(0, -1)
	}
	if math.IsInf(f, 0) {
		return nil, newErr("OverflowError", "integer division result too large for a float")
	}
	return f, nil
}

// floatDivMod is CPython's float_divmod.
func floatDivMod(vx, wx float64) (floordiv, mod float64) {
	mod = math.Mod(vx, wx)
	div := (vx - mod) / wx
	if mod != 0 {
		if (wx < 0) != (mod < 0) {
			mod += wx
			div -= 1.0
		}
	} else {
		mod = math.Copysign(0, wx)
	}
	if div != 0 {
		floordiv = math.Floor(div)
		if div-floordiv > 0.5 {
			floordiv += 1.0
		}
	} else {
		floordiv = math.Copysign(0, vx/wx)
	}
	return floordiv, mod
}

// maxPowBits bounds the size of an int ** int result so that a template
// cannot make brine compute a number of gigabytes.
const maxPowBits = 1 << 20

func intPow(a, b num) (any, error) {
	if b.sign() < 0 {
		x, ok1 := a.float()
		y, ok2 := b.float()
		if !ok1 || !ok2 {
			return nil, errIntTooLarge
		}
		if x == 0 {
			return nil, newErr("ZeroDivisionError", "0.0 cannot be raised to a negative power")
		}
		return floatPow(x, y)
	}
	base := a.big()
	if b.kind == bigInt {
		switch {
		case base.Sign() == 0:
			return int64(0), nil
		case base.IsInt64() && base.Int64() == 1:
			return int64(1), nil
		case base.IsInt64() && base.Int64() == -1:
			if b.b.Bit(0) == 0 {
				return int64(1), nil
			}
			return int64(-1), nil
		}
		return nil, newErr("MemoryError", "")
	}
	if base.BitLen() > 1 && int64(base.BitLen())*b.i > maxPowBits {
		return nil, newErr("MemoryError", "")
	}
	return value.NormInt(new(big.Int).Exp(base, big.NewInt(b.i), nil)), nil
}

func floatPow(x, y float64) (any, error) {
	if x == 0 && y < 0 {
		return nil, newErr("ZeroDivisionError", "0.0 cannot be raised to a negative power")
	}
	if x < 0 && y != math.Trunc(y) && !math.IsInf(y, 0) {
		return nil, valueErr("negative number cannot be raised to a fractional power")
	}
	r := accuratePow(x, y)
	if math.IsInf(r, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return nil, newErr("OverflowError", "(34, 'Numerical result out of range')")
	}
	return r, nil
}

// numCmp compares two numbers; ok is false when either is NaN.
func numCmp(a, b num) (c int, ok bool) {
	if a.kind == smallInt && b.kind == smallInt {
		switch {
		case a.i < b.i:
			return -1, true
		case a.i > b.i:
			return 1, true
		}
		return 0, true
	}
	if a.isInt() && b.isInt() {
		return a.big().Cmp(b.big()), true
	}
	if a.kind == floatNum && b.kind == floatNum {
		switch {
		case math.IsNaN(a.f) || math.IsNaN(b.f):
			return 0, false
		case a.f < b.f:
			return -1, true
		case a.f > b.f:
			return 1, true
		}
		return 0, true
	}
	// One int and one float: compare exactly.
	if a.kind == floatNum {
		c, ok := numCmp(b, a)
		return -c, ok
	}
	f := b.f
	switch {
	case math.IsNaN(f):
		return 0, false
	case math.IsInf(f, 1):
		return -1, true
	case math.IsInf(f, -1):
		return 1, true
	}
	bf := new(big.Float).SetInt(a.big())
	return bf.Cmp(big.NewFloat(f)), true
}

// accuratePow is math.Pow, correctly rounded in the common cases where Go's
// algorithm can be one unit in the last place off from C's pow: integral
// exponents and square roots.
func accuratePow(x, y float64) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) || math.IsInf(y, 0) || math.IsNaN(y) || x == 1 {
		return math.Pow(x, y)
	}
	const prec = 256
	switch {
	case y == math.Trunc(y) && math.Abs(y) <= 4096:
		n := int64(math.Abs(y))
		base := new(big.Float).SetPrec(prec).SetFloat64(x)
		acc := new(big.Float).SetPrec(prec).SetInt64(1)
		for n > 0 {
			if n&1 == 1 {
				acc.Mul(acc, base)
			}
			base.Mul(base, base)
			n >>= 1
		}
		if y < 0 {
			acc.Quo(new(big.Float).SetPrec(prec).SetInt64(1), acc)
		}
		r, _ := acc.Float64()
		return r
	case (y == 0.5 || y == -0.5) && x > 0:
		s := new(big.Float).SetPrec(prec).SetFloat64(x)
		s.Sqrt(s)
		if y < 0 {
			s.Quo(new(big.Float).SetPrec(prec).SetInt64(1), s)
		}
		r, _ := s.Float64()
		return r
	}
	return math.Pow(x, y)
}
