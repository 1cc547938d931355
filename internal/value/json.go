package value

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSONOptions mirror the arguments of Python's json.dumps.
type JSONOptions struct {
	Indent      int  // spaces per level; negative means one line
	SortKeys    bool // sort_keys=True
	EnsureASCII bool // ensure_ascii=True: escape everything beyond ASCII
	// ItemSep and KeySep are json.dumps' separators; empty means Python's
	// defaults (", " or "," with indent, and ": ").
	ItemSep, KeySep string
}

// ToJSON encodes v as Python's json.dumps does with opts, using repr for
// values JSON cannot hold (default=repr).
func ToJSON(v any, opts JSONOptions) string {
	if opts.ItemSep == "" {
		if opts.Indent >= 0 {
			opts.ItemSep = ","
		} else {
			opts.ItemSep = ", "
		}
	}
	if opts.KeySep == "" {
		opts.KeySep = ": "
	}
	var b strings.Builder
	e := jsonEnc{b: &b, o: opts}
	e.value(v, 0)
	return b.String()
}

type jsonEnc struct {
	b *strings.Builder
	o JSONOptions
}

// spaces is sliced for indentation.
const spaces = "                                                                "

// grow makes room for n more bytes in b, doubling its capacity: append's
// gentler growth for large slices copies a big output many times.
func grow(b *strings.Builder, n int) {
	if b.Len()+n > b.Cap() {
		b.Grow(b.Cap() + n)
	}
}

func (e *jsonEnc) newline(depth int) {
	if e.o.Indent < 0 {
		return
	}
	grow(e.b, 1+e.o.Indent*depth)
	e.b.WriteByte('\n')
	for n := e.o.Indent * depth; n > 0; {
		k := min(n, len(spaces))
		e.b.WriteString(spaces[:k])
		n -= k
	}
}

func (e *jsonEnc) value(v any, depth int) {
	switch x := v.(type) {
	case nil:
		e.b.WriteString("null")
	case bool:
		if x {
			e.b.WriteString("true")
		} else {
			e.b.WriteString("false")
		}
	case int64:
		var buf [24]byte
		e.b.Write(strconv.AppendInt(buf[:0], x, 10))
	case int, *big.Int:
		e.b.WriteString(Repr(x))
	case float64:
		e.b.WriteString(jsonFloat(x))
	case string:
		writeJSONQuote(e.b, x, e.o.EnsureASCII)
	case *List:
		e.seq(x.Items, depth)
	case Tuple:
		e.seq(x, depth)
	case *Map:
		if x.Len() == 0 {
			e.b.WriteString("{}")
			return
		}
		if !e.o.SortKeys {
			e.b.WriteByte('{')
			for i := 0; i < x.Len(); i++ {
				k, v := x.At(i)
				if i > 0 {
					e.b.WriteString(e.o.ItemSep)
				}
				e.newline(depth + 1)
				writeJSONQuote(e.b, jsonKey(k), e.o.EnsureASCII)
				e.b.WriteString(e.o.KeySep)
				e.value(v, depth+1)
			}
			e.newline(depth)
			e.b.WriteByte('}')
			return
		}
		type kv struct {
			k string
			v any
		}
		items := make([]kv, 0, x.Len())
		x.Range(func(k, v any) bool {
			items = append(items, kv{jsonKey(k), v})
			return true
		})
		sort.SliceStable(items, func(i, j int) bool { return items[i].k < items[j].k })
		e.b.WriteByte('{')
		for i, it := range items {
			if i > 0 {
				e.b.WriteString(e.o.ItemSep)
			}
			e.newline(depth + 1)
			writeJSONQuote(e.b, it.k, e.o.EnsureASCII)
			e.b.WriteString(e.o.KeySep)
			e.value(it.v, depth+1)
		}
		e.newline(depth)
		e.b.WriteByte('}')
	default:
		writeJSONQuote(e.b, Repr(v), e.o.EnsureASCII)
	}
}

func (e *jsonEnc) seq(items []any, depth int) {
	if len(items) == 0 {
		e.b.WriteString("[]")
		return
	}
	e.b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			e.b.WriteString(e.o.ItemSep)
		}
		e.newline(depth + 1)
		e.value(it, depth+1)
	}
	e.newline(depth)
	e.b.WriteByte(']')
}

func jsonKey(k any) string {
	switch x := k.(type) {
	case string:
		return x
	case nil:
		return "null"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		return jsonFloat(x)
	}
	return Repr(k)
}

func jsonFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case math.IsNaN(f):
		return "NaN"
	}
	return FormatFloat(f)
}

// JSONQuote quotes s as Python's json module does.
func JSONQuote(s string, ensureASCII bool) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	writeJSONQuote(&b, s, ensureASCII)
	return b.String()
}

// jsonPlain reports the bytes JSONQuote copies as they are.
func jsonPlain(c byte) bool { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\' }

func writeJSONQuote(b *strings.Builder, s string, ensureASCII bool) {
	grow(b, len(s)+2)
	b.WriteByte('"')
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && jsonPlain(s[j]) {
			j++
		}
		if j > i {
			b.WriteString(s[i:j])
			i = j
			if i == len(s) {
				break
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20:
				fmt.Fprintf(b, `\u%04x`, r)
			case r < 0x7f || (!ensureASCII && r != 0x7f):
				b.WriteRune(r)
			case r == 0x7f && !ensureASCII:
				b.WriteRune(r)
			case r > 0xffff:
				r -= 0x10000
				fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			default:
				fmt.Fprintf(b, `\u%04x`, r)
			}
		}
	}
	b.WriteByte('"')
}

// FromJSON decodes one JSON document into values, keeping object key order;
// integers become int64 (or *big.Int), other numbers float64.
func FromJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeJSON(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("extra data after the JSON document")
	}
	return v, nil
}

func decodeJSON(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			m := NewMap(4)
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeJSON(dec)
				if err != nil {
					return nil, err
				}
				m.Set(kt.(string), v)
			}
			_, err := dec.Token()
			return m, err
		case '[':
			l := NewList()
			for dec.More() {
				v, err := decodeJSON(dec)
				if err != nil {
					return nil, err
				}
				l.Items = append(l.Items, v)
			}
			_, err := dec.Token()
			return l, err
		}
	case json.Number:
		s := string(t)
		if !strings.ContainsAny(s, ".eE") {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				return i, nil
			}
			if b, ok := new(big.Int).SetString(s, 10); ok {
				return b, nil
			}
		}
		return strconv.ParseFloat(s, 64)
	case string, bool, nil:
		return t, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}
