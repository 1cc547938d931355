package pyops

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"brine/internal/value"
)

func TestErrorTraceback(t *testing.T) {
	_, err := BinaryOp("+", int64(1), "a")
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want *Error, got %T", err)
	}
	if got, want := e.Traceback(), "TypeError: unsupported operand type(s) for +: 'int' and 'str'"; got != want {
		t.Errorf("Traceback() = %q, want %q", got, want)
	}
	if got, want := err.Error(), "unsupported operand type(s) for +: 'int' and 'str'"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got := (&Error{Type: "MemoryError"}).Traceback(); got != "MemoryError" {
		t.Errorf("empty message Traceback() = %q", got)
	}
}

func TestOverflowPromotion(t *testing.T) {
	tests := []struct {
		op   string
		a, b any
		want string
	}{
		{"+", int64(9223372036854775807), int64(1), "9223372036854775808"},
		{"-", int64(-9223372036854775808), int64(1), "-9223372036854775809"},
		{"*", int64(4294967296), int64(4294967296), "18446744073709551616"},
		{"*", int64(-9223372036854775808), int64(1), "-9223372036854775808"},
		{"*", int64(-9223372036854775808), int64(-1), "9223372036854775808"},
		{"//", int64(-9223372036854775808), int64(-1), "9223372036854775808"},
		{"**", int64(2), int64(100), "1267650600228229401496703205376"},
		{"-", new(big.Int).Lsh(big.NewInt(1), 64), new(big.Int).Lsh(big.NewInt(1), 64), "0"},
	}
	for _, tt := range tests {
		got, err := BinaryOp(tt.op, tt.a, tt.b)
		if err != nil {
			t.Errorf("%v %s %v: %v", tt.a, tt.op, tt.b, err)
			continue
		}
		if value.Repr(got) != tt.want {
			t.Errorf("%v %s %v = %s, want %s", tt.a, tt.op, tt.b, value.Repr(got), tt.want)
		}
		// Results that fit are int64, never *big.Int.
		if b, ok := got.(*big.Int); ok && b.IsInt64() {
			t.Errorf("%v %s %v returned an unnormalized *big.Int", tt.a, tt.op, tt.b)
		}
	}
	if _, err := BinaryOp("**", int64(10), int64(10_000_000)); err == nil {
		t.Error("huge power: want MemoryError")
	}
	if _, err := BinaryOp("*", "ab", int64(1<<40)); err == nil {
		t.Error("huge repeat: want MemoryError")
	}
}

func TestIntWidthsAccepted(t *testing.T) {
	// Go ints (not only int64) behave as Python ints.
	got, err := BinaryOp("+", 2, int64(3))
	if err != nil || got != int64(5) {
		t.Errorf("2 + 3 = %v, %v", got, err)
	}
	if r, _ := GetItem(value.NewList("a", "b"), -1); r != "b" {
		t.Errorf("[a b][-1] = %v", r)
	}
}

func call(t *testing.T, obj any, name string, args []any, kw *value.Map) any {
	t.Helper()
	r, found, err := CallMethod(obj, name, args, kw)
	if !found {
		t.Fatalf("%s: method not found", name)
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

func TestMutationsVisible(t *testing.T) {
	d := value.MapOf("a", int64(1))
	call(t, d, "update", []any{value.MapOf("b", int64(2))}, value.MapOf("c", int64(3)))
	call(t, d, "setdefault", []any{"d", value.NewList()}, nil)
	inner, _ := d.Get("d")
	call(t, inner, "append", []any{"x"}, nil)
	if got, want := value.Repr(d), "{'a': 1, 'b': 2, 'c': 3, 'd': ['x']}"; got != want {
		t.Errorf("after update/setdefault/append: %s, want %s", got, want)
	}
	l := value.NewList(int64(3), int64(1), int64(2))
	call(t, l, "sort", nil, value.MapOf("reverse", true))
	call(t, l, "insert", []any{int64(0), "first"}, nil)
	if got := call(t, l, "pop", nil, nil); got != int64(1) {
		t.Errorf("pop() = %v", got)
	}
	if got, want := value.Repr(l), "['first', 3, 2]"; got != want {
		t.Errorf("list after sort/insert/pop: %s, want %s", got, want)
	}
	// copy is shallow and independent.
	c := call(t, d, "copy", nil, nil).(*value.Map)
	c.Set("z", int64(0))
	if d.Has("z") {
		t.Error("dict.copy shares storage")
	}
}

func TestSortKey(t *testing.T) {
	l := value.NewList("bb", "a", "ccc", "dd")
	key := value.Func(func(args []any, kw *value.Map) (any, error) {
		n, err := Len(args[0])
		return int64(n), err
	})
	call(t, l, "sort", nil, value.MapOf("key", key))
	if got, want := value.Repr(l), "['a', 'bb', 'dd', 'ccc']"; got != want {
		t.Errorf("sort(key=len) = %s, want %s (stable)", got, want)
	}
	call(t, l, "sort", nil, value.MapOf("key", key, "reverse", true))
	if got, want := value.Repr(l), "['ccc', 'bb', 'dd', 'a']"; got != want {
		t.Errorf("sort(key=len, reverse=True) = %s, want %s (stable)", got, want)
	}
	keyErr := value.Func(func(args []any, kw *value.Map) (any, error) { return nil, errors.New("boom") })
	if _, _, err := CallMethod(l, "sort", nil, value.MapOf("key", keyErr)); err == nil || err.Error() != "boom" {
		t.Errorf("key error not propagated: %v", err)
	}
	if _, _, err := CallMethod(value.NewList(int64(1), "a"), "sort", nil, nil); err == nil ||
		err.Error() != "'<' not supported between instances of 'str' and 'int'" {
		t.Errorf("mixed sort error = %v", err)
	}
}

func TestHasMethod(t *testing.T) {
	tests := []struct {
		obj  any
		name string
		want bool
	}{
		{"s", "split", true},
		{"s", "append", false},
		{value.NewMap(0), "items", true},
		{value.NewMap(0), "has_key", false},
		{value.NewList(), "append", true},
		{value.Tuple{}, "count", true},
		{value.Tuple{}, "append", false},
		{[]byte("x"), "decode", true},
		{int64(1), "bit_length", true},
		{1.5, "is_integer", true},
		{nil, "get", false},
		{struct{}{}, "get", false},
	}
	for _, tt := range tests {
		if got := HasMethod(tt.obj, tt.name); got != tt.want {
			t.Errorf("HasMethod(%s, %q) = %v", value.TypeName(tt.obj), tt.name, got)
		}
	}
	if _, found, _ := CallMethod(nil, "get", nil, nil); found {
		t.Error("None.get found")
	}
	names := MethodNames(value.NewList())
	if len(names) != 11 || names[0] != "append" {
		t.Errorf("list methods = %v", names)
	}
}

func TestBoundMethod(t *testing.T) {
	l := value.NewList()
	f, ok := BoundMethod(l, "append")
	if !ok {
		t.Fatal("no bound append")
	}
	if _, err := f.Call([]any{int64(1)}, nil); err != nil {
		t.Fatal(err)
	}
	if l.Len() != 1 {
		t.Error("bound append did not mutate")
	}
	if _, ok := BoundMethod(l, "nope"); ok {
		t.Error("bound nope")
	}
}

type namespace struct{ attrs map[string]any }

func (n namespace) PyGetAttr(name string) (any, bool) { v, ok := n.attrs[name]; return v, ok }
func (namespace) PyTypeName() string                  { return "Namespace" }

func TestFormatStringAttrs(t *testing.T) {
	ns := namespace{attrs: map[string]any{"x": int64(5)}}
	tests := []struct {
		format string
		args   []any
		kw     *value.Map
		attr   AttrFunc
		want   string
	}{
		// Jinja's sandbox falls back from attribute to item lookup.
		{"{x.y}", nil, value.MapOf("x", value.MapOf("y", int64(2))), nil, "2"},
		{"{0.x:>3}", []any{ns}, nil, nil, "  5"},
		{"{0.missing}", []any{ns}, nil, nil, "AttributeError: 'Namespace' object has no attribute 'missing'"},
		{"{0.a}", []any{"s"}, nil, func(obj any, name string) (any, error) { return "attr:" + name, nil }, "attr:a"},
		{"{0.real}{0.imag}", []any{1.5}, nil, nil, "1.50.0"},
	}
	for _, tt := range tests {
		got, err := FormatString(tt.format, tt.args, tt.kw, tt.attr)
		if err != nil {
			got = err.(*Error).Traceback()
		}
		if got != tt.want {
			t.Errorf("%q.format: got %q, want %q", tt.format, got, tt.want)
		}
	}
}

func TestForeignTypes(t *testing.T) {
	ns := namespace{}
	_, err := BinaryOp("+", ns, int64(1))
	if err == nil || err.Error() != "unsupported operand type(s) for +: 'Namespace' and 'int'" {
		t.Errorf("Namespace + 1: %v", err)
	}
	if _, err := Len(ns); err == nil || err.Error() != "object of type 'Namespace' has no len()" {
		t.Errorf("len(Namespace): %v", err)
	}
	if s, err := FormatValue(ns, ""); err != nil || !strings.Contains(s, "object") {
		t.Errorf("format(Namespace, '') = %q, %v", s, err)
	}
}

func TestIterate(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{"hé", "['h', 'é']"},
		{value.MapOf("a", 1, "b", 2), "['a', 'b']"},
		{value.Tuple{int64(1)}, "[1]"},
		{[]byte("AB"), "[65, 66]"},
	}
	for _, tt := range tests {
		items, err := Iterate(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		if got := value.Repr(value.NewList(items...)); got != tt.want {
			t.Errorf("Iterate(%s) = %s, want %s", value.Repr(tt.v), got, tt.want)
		}
	}
	if _, err := Iterate(int64(5)); err == nil || err.Error() != "'int' object is not iterable" {
		t.Errorf("Iterate(5): %v", err)
	}
}

func TestEqualExact(t *testing.T) {
	big53 := int64(1<<53 + 1)
	if Equal(big53, float64(1<<53)) {
		t.Error("2**53+1 == 2.0**53")
	}
	if !Equal(value.NewList(int64(1), value.MapOf("a", true)), value.NewList(1.0, value.MapOf("a", int64(1)))) {
		t.Error("[1, {'a': True}] != [1.0, {'a': 1}]")
	}
	if ok, _ := Contains(value.NewList(float64(1<<53)), big53); ok {
		t.Error("2**53+1 in [2.0**53]")
	}
}

func TestEqualUncomparable(t *testing.T) {
	f := value.Func(func(args []any, kw *value.Map) (any, error) { return nil, nil })
	if ok, err := Compare("==", f, f); err != nil || ok {
		t.Errorf("func == func: %v, %v", ok, err)
	}
	if ok, _ := Contains(value.NewList(f), f); ok {
		t.Error("func in [func]")
	}
}
