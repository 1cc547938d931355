package pyops

import (
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"strconv"
	"testing"

	"brine/internal/value"
)

// goldenCase is one expectation recorded from CPython by testdata/gen.py.
type goldenCase struct {
	Op     string            `json:"op"`
	O      string            `json:"o"`
	A      json.RawMessage   `json:"a"`
	B      json.RawMessage   `json:"b"`
	Start  json.RawMessage   `json:"start"`
	Stop   json.RawMessage   `json:"stop"`
	Step   json.RawMessage   `json:"step"`
	Base   int               `json:"base"`
	Spec   string            `json:"spec"`
	Recv   json.RawMessage   `json:"recv"`
	Name   string            `json:"name"`
	Args   []json.RawMessage `json:"args"`
	Kwargs [][2]json.RawMessage
	Repr   *string `json:"repr"`
	Err    *string `json:"err"`
	After  *string `json:"after"`
}

func (c *goldenCase) UnmarshalJSON(b []byte) error {
	type plain goldenCase
	var aux struct {
		plain
		Kwargs [][2]json.RawMessage `json:"kwargs"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	*c = goldenCase(aux.plain)
	c.Kwargs = aux.Kwargs
	return nil
}

// decodeTagged turns gen.py's tagged JSON into a value.
func decodeTagged(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("bad tagged value %s: %v", raw, err)
	}
	for tag, body := range m {
		switch tag {
		case "none":
			return nil
		case "bool":
			var b bool
			json.Unmarshal(body, &b)
			return b
		case "int":
			var s string
			json.Unmarshal(body, &s)
			z, _ := new(big.Int).SetString(s, 10)
			return value.NormInt(z)
		case "float":
			var s string
			json.Unmarshal(body, &s)
			f, err := strconv.ParseFloat(s, 64)
			if err != nil && s != "inf" && s != "-inf" && s != "nan" {
				t.Fatalf("bad float %q", s)
			}
			return f
		case "str":
			var s string
			json.Unmarshal(body, &s)
			return s
		case "bytes":
			var s string
			json.Unmarshal(body, &s)
			b, _ := hex.DecodeString(s)
			return b
		case "list", "tuple":
			var items []json.RawMessage
			json.Unmarshal(body, &items)
			out := make([]any, len(items))
			for i, it := range items {
				out[i] = decodeTagged(t, it)
			}
			if tag == "tuple" {
				return value.Tuple(out)
			}
			return value.NewList(out...)
		case "dict":
			var pairs [][2]json.RawMessage
			json.Unmarshal(body, &pairs)
			d := value.NewMap(len(pairs))
			for _, p := range pairs {
				d.Set(decodeTagged(t, p[0]), decodeTagged(t, p[1]))
			}
			return d
		}
	}
	t.Fatalf("unknown tagged value %s", raw)
	return nil
}

func TestGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	fails := 0
	for i, c := range cases {
		got, after, desc := runGolden(t, &c)
		want := ""
		if c.Repr != nil {
			want = *c.Repr
		} else if c.Err != nil {
			want = *c.Err
		}
		ok := got == want
		if ok && c.After != nil && c.Err == nil && after != *c.After {
			ok = false
			got += " / after " + after
			want += " / after " + *c.After
		}
		if !ok {
			fails++
			if fails <= 200 {
				t.Errorf("case %d %s:\n got  %s\n want %s", i, desc, got, want)
			}
		}
	}
	if fails > 0 {
		t.Errorf("%d of %d golden cases fail", fails, len(cases))
	}
}

func result(v any, err error) string {
	if err != nil {
		if e, ok := err.(*Error); ok {
			return e.Traceback()
		}
		return "go error: " + err.Error()
	}
	if b, ok := v.(*big.Int); ok {
		return b.String() // gen.py lifts the 4300-digit limit to compare arithmetic
	}
	return value.Repr(v)
}

func runGolden(t *testing.T, c *goldenCase) (got, after, desc string) {
	dec := func(raw json.RawMessage) any { return decodeTagged(t, raw) }
	switch c.Op {
	case "binary":
		a, b := dec(c.A), dec(c.B)
		desc = value.Repr(a) + " " + c.O + " " + value.Repr(b)
		return result(BinaryOp(c.O, a, b)), "", desc
	case "unary":
		a := dec(c.A)
		return result(UnaryOp(c.O, a)), "", c.O + " " + value.Repr(a)
	case "compare":
		a, b := dec(c.A), dec(c.B)
		r, err := Compare(c.O, a, b)
		return result(r, err), "", value.Repr(a) + " " + c.O + " " + value.Repr(b)
	case "contains":
		a, b := dec(c.A), dec(c.B)
		r, err := Contains(a, b)
		return result(r, err), "", value.Repr(b) + " in " + value.Repr(a)
	case "getitem":
		a, b := dec(c.A), dec(c.B)
		return result(GetItem(a, b)), "", value.Repr(a) + "[" + value.Repr(b) + "]"
	case "slice":
		a, s1, s2, s3 := dec(c.A), dec(c.Start), dec(c.Stop), dec(c.Step)
		desc = value.Repr(a) + "[" + value.Repr(s1) + ":" + value.Repr(s2) + ":" + value.Repr(s3) + "]"
		return result(Slice(a, s1, s2, s3)), "", desc
	case "len":
		a := dec(c.A)
		n, err := Len(a)
		return result(int64(n), err), "", "len(" + value.Repr(a) + ")"
	case "int":
		a := dec(c.A)
		return result(Int(a, c.Base)), "", "int(" + value.Repr(a) + ", " + strconv.Itoa(c.Base) + ")"
	case "float":
		a := dec(c.A)
		f, err := Float(a)
		return result(f, err), "", "float(" + value.Repr(a) + ")"
	case "str":
		a := dec(c.A)
		return value.Repr(Str(a)), "", "str(" + value.Repr(a) + ")"
	case "format":
		a := dec(c.A)
		s, err := FormatValue(a, c.Spec)
		return result(s, err), "", "format(" + value.Repr(a) + ", " + strconv.Quote(c.Spec) + ")"
	case "round":
		a, b := dec(c.A), dec(c.B)
		return result(Round(a, b)), "", "round(" + value.Repr(a) + ", " + value.Repr(b) + ")"
	case "abs":
		a := dec(c.A)
		return result(Abs(a)), "", "abs(" + value.Repr(a) + ")"
	case "method":
		recv := dec(c.Recv)
		args := make([]any, len(c.Args))
		for i, a := range c.Args {
			args[i] = dec(a)
		}
		var kw *value.Map
		if len(c.Kwargs) > 0 {
			kw = value.NewMap(len(c.Kwargs))
			for _, p := range c.Kwargs {
				var k string
				json.Unmarshal(p[0], &k)
				kw.Set(k, dec(p[1]))
			}
		}
		desc = value.Repr(recv) + "." + c.Name + value.Repr(value.Tuple(args))
		if kw != nil {
			desc += " **" + value.Repr(kw)
		}
		r, found, err := CallMethod(recv, c.Name, args, kw)
		if !found {
			return "AttributeError: '" + TypeName(recv) + "' object has no attribute '" + c.Name + "'", "", desc
		}
		return result(r, err), value.Repr(recv), desc
	}
	t.Fatalf("unknown op %q", c.Op)
	return "", "", ""
}
