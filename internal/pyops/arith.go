package pyops

import (
	"math"
	"math/big"
	"strings"

	"brine/internal/value"
)

// MaxSize bounds the size in bytes of every string (and every sequence,
// counting 16 bytes an item) that an operation builds: repetition,
// concatenation, str.replace, str.join, formatting, the Jinja filters that
// build strings. Python has no such limit; brine answers MemoryError before
// building a result beyond it rather than exhaust the machine's memory.
const MaxSize = 1 << 30

// ItemSize is what one item of a list or tuple counts towards MaxSize.
const ItemSize = 16

// ErrTooLarge is the error of a result beyond the size limit.
var ErrTooLarge = &Error{Type: "MemoryError", Msg: "result too large"}

// CheckSize says whether a result of n bytes may be built: it is the one
// place the size limit is enforced. limit is a caller's smaller bound (a
// Jinja environment's MaxOutput); 0 or more than MaxSize means MaxSize.
// Callers compute n before building the result.
func CheckSize(n int64, limit int) error {
	max := int64(MaxSize)
	if limit > 0 && int64(limit) < max {
		max = int64(limit)
	}
	if n < 0 || n > max {
		return ErrTooLarge
	}
	return nil
}

// sizeOf is the product of a count and an item size, saturating instead of
// overflowing so that CheckSize refuses it.
func sizeOf(count, each int64) int64 {
	if count <= 0 || each <= 0 {
		return 0
	}
	if count > math.MaxInt64/each {
		return math.MaxInt64
	}
	return count * each
}

// maxWidth bounds the width and precision of one formatted field (Python
// has no such limit; brine answers MemoryError beyond it rather than build
// a field of gigabytes).
const maxWidth = 1 << 20

var errTooWide = &Error{Type: "MemoryError", Msg: "format field width or precision too large"}

// BinaryOp applies a Python binary operator: + - * / // % **.
func BinaryOp(op string, a, b any) (any, error) {
	na, nb := toNum(a), toNum(b)
	if na.kind != notNum && nb.kind != notNum {
		return numOp(op, na, nb)
	}
	switch op {
	case "+":
		return add(a, b)
	case "*":
		if nb.kind != notNum {
			if r, ok, err := repeat(a, nb); ok {
				return r, err
			}
		}
		if na.kind != notNum {
			if r, ok, err := repeat(b, na); ok {
				return r, err
			}
		}
		if isSequence(a) || isSequence(b) {
			other := b
			if !isSequence(a) {
				other = a
			}
			return nil, typeErr("can't multiply sequence by non-int of type '%s'", TypeName(other))
		}
	case "%":
		switch x := a.(type) {
		case string:
			return PercentFormat(x, b)
		case []byte:
			s, err := PercentFormat(string(x), b)
			if err != nil {
				return nil, err
			}
			return []byte(s), nil
		}
	case "-", "/", "//", "**":
	default:
		return nil, valueErr("unknown operator %s", op)
	}
	return nil, unsupported(op, a, b)
}

func unsupported(op string, a, b any) *Error {
	if op == "**" {
		return typeErr("unsupported operand type(s) for ** or pow(): '%s' and '%s'", TypeName(a), TypeName(b))
	}
	return typeErr("unsupported operand type(s) for %s: '%s' and '%s'", op, TypeName(a), TypeName(b))
}

func isSequence(v any) bool {
	switch v.(type) {
	case string, []byte, *value.List, value.Tuple:
		return true
	}
	return false
}

func add(a, b any) (any, error) {
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return x + y, nil
		}
		return nil, typeErr("can only concatenate str (not \"%s\") to str", TypeName(b))
	case []byte:
		if y, ok := b.([]byte); ok {
			r := make([]byte, 0, len(x)+len(y))
			return append(append(r, x...), y...), nil
		}
		return nil, typeErr("can't concat %s to bytes", TypeName(b))
	case *value.List:
		if y, ok := b.(*value.List); ok {
			items := make([]any, 0, x.Len()+y.Len())
			items = append(append(items, x.Items...), y.Items...)
			return value.NewList(items...), nil
		}
		return nil, typeErr("can only concatenate list (not \"%s\") to list", TypeName(b))
	case value.Tuple:
		if y, ok := b.(value.Tuple); ok {
			items := make(value.Tuple, 0, len(x)+len(y))
			return append(append(items, x...), y...), nil
		}
		return nil, typeErr("can only concatenate tuple (not \"%s\") to tuple", TypeName(b))
	}
	return nil, unsupported("+", a, b)
}

// repeat is seq * n; ok is false when seq is not a sequence or n not an int.
func repeat(seq any, n num) (any, bool, error) {
	if !isSequence(seq) {
		return nil, false, nil
	}
	if !n.isInt() {
		return nil, true, typeErr("can't multiply sequence by non-int of type 'float'")
	}
	if n.kind == bigInt {
		if n.b.Sign() > 0 {
			return nil, true, newErr("OverflowError", "cannot fit 'int' into an index-sized integer")
		}
		n = num{kind: smallInt}
	}
	count := int(max(n.i, 0))
	l, _ := Len(seq)
	each := int64(l) * ItemSize
	switch x := seq.(type) {
	case string:
		each = int64(len(x))
	case []byte:
		each = int64(len(x))
	}
	if err := CheckSize(sizeOf(int64(count), each), 0); err != nil {
		return nil, true, err
	}
	switch x := seq.(type) {
	case string:
		return strings.Repeat(x, count), true, nil
	case []byte:
		return []byte(strings.Repeat(string(x), count)), true, nil
	case *value.List:
		items := make([]any, 0, l*count)
		for range count {
			items = append(items, x.Items...)
		}
		return value.NewList(items...), true, nil
	case value.Tuple:
		items := make(value.Tuple, 0, l*count)
		for range count {
			items = append(items, x...)
		}
		return items, true, nil
	}
	return nil, false, nil
}

func numOp(op string, a, b num) (any, error) {
	if a.isInt() && b.isInt() {
		switch op {
		case "+":
			return intAdd(a, b), nil
		case "-":
			return intSub(a, b), nil
		case "*":
			return intMul(a, b), nil
		case "/":
			return intTrueDiv(a, b)
		case "//":
			if b.sign() == 0 {
				return nil, newErr("ZeroDivisionError", "integer division or modulo by zero")
			}
			q, _ := intFloorDivMod(a, b)
			return q, nil
		case "%":
			if b.sign() == 0 {
				return nil, newErr("ZeroDivisionError", "integer modulo by zero")
			}
			_, r := intFloorDivMod(a, b)
			return r, nil
		case "**":
			return intPow(a, b)
		}
		return nil, valueErr("unknown operator %s", op)
	}
	x, ok1 := a.float()
	y, ok2 := b.float()
	if !ok1 || !ok2 {
		return nil, errIntTooLarge
	}
	switch op {
	case "+":
		return x + y, nil
	case "-":
		return x - y, nil
	case "*":
		return x * y, nil
	case "/":
		if y == 0 {
			return nil, newErr("ZeroDivisionError", "float division by zero")
		}
		return x / y, nil
	case "//":
		if y == 0 {
			return nil, newErr("ZeroDivisionError", "float floor division by zero")
		}
		q, _ := floatDivMod(x, y)
		return q, nil
	case "%":
		if y == 0 {
			return nil, newErr("ZeroDivisionError", "float modulo")
		}
		_, m := floatDivMod(x, y)
		return m, nil
	case "**":
		return floatPow(x, y)
	}
	return nil, valueErr("unknown operator %s", op)
}

// UnaryOp applies a Python unary operator: "-", "+", "not" (and "~").
func UnaryOp(op string, a any) (any, error) {
	if op == "not" {
		return !value.Truthy(a), nil
	}
	n := toNum(a)
	if n.kind == notNum {
		return nil, typeErr("bad operand type for unary %s: '%s'", op, TypeName(a))
	}
	switch op {
	case "+":
		if n.kind == floatNum {
			return n.f, nil
		}
		if n.kind == bigInt {
			return n.b, nil
		}
		return n.i, nil
	case "-":
		switch n.kind {
		case floatNum:
			return -n.f, nil
		case smallInt:
			if n.i != math.MinInt64 {
				return -n.i, nil
			}
		}
		return value.NormInt(new(big.Int).Neg(n.big())), nil
	case "~":
		if n.kind == floatNum {
			return nil, typeErr("bad operand type for unary ~: 'float'")
		}
		if n.kind == smallInt {
			return ^n.i, nil
		}
		return value.NormInt(new(big.Int).Not(n.b)), nil
	}
	return nil, valueErr("unknown operator %s", op)
}
