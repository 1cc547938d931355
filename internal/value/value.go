package value

import (
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
)

// Callable is a value that templates and modules can call.
type Callable interface {
	Call(args []any, kwargs *Map) (any, error)
}

// Func adapts a plain Go function to Callable.
type Func func(args []any, kwargs *Map) (any, error)

// Call calls f.
func (f Func) Call(args []any, kwargs *Map) (any, error) { return f(args, kwargs) }

// Truther lets a foreign type decide its own truthiness.
type Truther interface{ Truth() bool }

// Reprer lets a foreign type print its own Python repr.
type Reprer interface{ Repr() string }

// Stringer lets a foreign type print its own Python str.
type Stringer interface{ PyStr() string }

type (
	noneKey  struct{}
	tupleKey string
	bigKey   string
	bytesKey string
)

// HashKey normalizes a key so that keys equal under Python's == compare equal
// as Go map keys: True, 1 and 1.0 are one key.
func HashKey(k any) any {
	switch x := k.(type) {
	case nil:
		return noneKey{}
	case string, int64:
		return k // already normalized: no new boxing
	case bool:
		if x {
			return int64(1)
		}
		return int64(0)
	case int:
		return int64(x)
	case float64:
		if x == math.Trunc(x) && x >= math.MinInt64 && x <= math.MaxInt64 {
			return int64(x)
		}
		return x
	case *big.Int:
		if x.IsInt64() {
			return x.Int64()
		}
		return bigKey(x.String())
	case []byte:
		return bytesKey(x)
	case Tuple:
		var b strings.Builder
		for _, e := range x {
			b.WriteString(Repr(HashKey(e)))
			b.WriteByte(0)
		}
		return tupleKey(b.String())
	case *Map, *List:
		return k // identity; Python would refuse: check Hashable first
	}
	return k
}

// Hashable reports whether v may be a dict key in Python.
func Hashable(v any) bool {
	switch x := v.(type) {
	case *Map, *List:
		return false
	case Tuple:
		for _, e := range x {
			if !Hashable(e) {
				return false
			}
		}
	}
	return true
}

// Truthy is Python's bool(v).
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case int64:
		return x != 0
	case int:
		return x != 0
	case float64:
		return x != 0
	case *big.Int:
		return x.Sign() != 0
	case string:
		return x != ""
	case []byte:
		return len(x) > 0
	case *Map:
		return x.Len() > 0
	case *List:
		return x.Len() > 0
	case Tuple:
		return len(x) > 0
	case Truther:
		return x.Truth()
	}
	return true
}

// TypeName is Python's type(v).__name__.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case int64, int, *big.Int:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case []byte:
		return "bytes"
	case *Map:
		return "dict"
	case *List:
		return "list"
	case Tuple:
		return "tuple"
	}
	return "object"
}

// IsNumber reports whether v is a bool, int or float.
func IsNumber(v any) bool {
	switch v.(type) {
	case bool, int64, int, float64, *big.Int:
		return true
	}
	return false
}

// Equal is Python's ==.
func Equal(a, b any) bool {
	if IsNumber(a) && IsNumber(b) {
		return numEqual(a, b)
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []byte:
		y, ok := b.([]byte)
		return ok && string(x) == string(y)
	case *List:
		y, ok := b.(*List)
		return ok && seqEqual(x.Items, y.Items)
	case Tuple:
		y, ok := b.(Tuple)
		return ok && seqEqual(x, y)
	case *Map:
		y, ok := b.(*Map)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for i, k := range x.keys {
			w, ok := y.Get(k)
			if !ok || !Equal(x.vals[i], w) {
				return false
			}
		}
		return true
	}
	if a == nil || b == nil {
		return false
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	if ta != tb || !ta.Comparable() {
		return false
	}
	return a == b
}

func seqEqual(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func numEqual(a, b any) bool {
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y
		case float64:
			return intFloatEqual(x, y)
		}
	case float64:
		switch y := b.(type) {
		case float64:
			return x == y
		case int64:
			return intFloatEqual(y, x)
		}
	}
	if ai, ok := AsBig(a); ok {
		if bi, ok := AsBig(b); ok {
			return ai.Cmp(bi) == 0
		}
	}
	return ToFloat(a) == ToFloat(b)
}

// intFloatEqual compares exactly, as Python does: 2**53+1 != 2.0**53.
func intFloatEqual(i int64, f float64) bool {
	if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return false
	}
	return int64(f) == i
}

// AsBig returns v as a big integer when v is a bool or an int.
func AsBig(v any) (*big.Int, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return big.NewInt(1), true
		}
		return big.NewInt(0), true
	case int64:
		return big.NewInt(x), true
	case int:
		return big.NewInt(int64(x)), true
	case *big.Int:
		return x, true
	}
	return nil, false
}

// ToFloat converts a number to float64 (0 for non-numbers).
func ToFloat(v any) float64 {
	switch x := v.(type) {
	case bool:
		if x {
			return 1
		}
		return 0
	case int64:
		return float64(x)
	case int:
		return float64(x)
	case float64:
		return x
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float64()
		return f
	}
	return 0
}

// NormInt returns a *big.Int as int64 when it fits.
func NormInt(b *big.Int) any {
	if b.IsInt64() {
		return b.Int64()
	}
	return b
}

// DeepCopy copies maps, lists and tuples recursively. Like Python's
// copy.deepcopy it is memoised: a map, list or tuple reached twice (a YAML
// anchor and its aliases) is copied once and the copy is shared the same
// way, so a document of nested aliases (a "billion laughs") costs what its
// anchors cost, and a cycle does not recurse forever.
func DeepCopy(v any) any {
	switch v.(type) {
	case *Map, *List, Tuple:
		c := copier{}
		return c.copy(v)
	}
	return v
}

// tupleRef identifies a tuple's backing array for the memo.
type tupleRef struct {
	p *any
	n int
}

type copier struct {
	maps   map[*Map]*Map
	lists  map[*List]*List
	tuples map[tupleRef]Tuple
}

func (c *copier) copy(v any) any {
	switch x := v.(type) {
	case *Map:
		if x == nil {
			return x
		}
		if d, ok := c.maps[x]; ok {
			return d
		}
		d := NewMap(len(x.keys))
		if c.maps == nil {
			c.maps = map[*Map]*Map{}
		}
		c.maps[x] = d
		d.keys = append(d.keys, x.keys...)
		d.ordered = x.ordered
		for _, e := range x.vals {
			d.vals = append(d.vals, c.copy(e))
		}
		if x.sidx != nil {
			d.reindex()
		}
		return d
	case *List:
		if x == nil {
			return x
		}
		if d, ok := c.lists[x]; ok {
			return d
		}
		d := &List{Items: make([]any, len(x.Items))}
		if c.lists == nil {
			c.lists = map[*List]*List{}
		}
		c.lists[x] = d
		for i, e := range x.Items {
			d.Items[i] = c.copy(e)
		}
		return d
	case Tuple:
		if len(x) == 0 {
			return Tuple{}
		}
		k := tupleRef{&x[0], len(x)}
		if d, ok := c.tuples[k]; ok {
			return d
		}
		d := make(Tuple, len(x))
		if c.tuples == nil {
			c.tuples = map[tupleRef]Tuple{}
		}
		c.tuples[k] = d
		for i, e := range x {
			d[i] = c.copy(e)
		}
		return d
	}
	return v
}

// FormatFloat prints f as Python's repr(float) does.
func FormatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	i := strings.LastIndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	if exp < -4 || exp >= 16 {
		return e
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}
