package jinjasalt

import (
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"brine/internal/value"
)

// A JMESPath implementation over package value's types for the json_query
// filter, following jmespath.py (which Salt uses): the same grammar and
// binding powers, dict order kept, ints kept.

type jmTok struct {
	kind string // lexer token type, jmespath.py's names
	val  any
	pos  int
}

func jmErr(format string, args ...any) error {
	return pyErr("jmespath.exceptions.ParseError", format, args...)
}

func jmLex(expr string) ([]jmTok, error) {
	var toks []jmTok
	simple := map[byte]string{'.': "dot", '*': "star", ']': "rbracket", ',': "comma", ':': "colon",
		'@': "current", '(': "lparen", ')': "rparen", '{': "lbrace", '}': "rbrace"}
	i := 0
	for i < len(expr) {
		c := expr[i]
		if k, ok := simple[c]; ok {
			toks = append(toks, jmTok{kind: k, val: string(c), pos: i})
			i++
			continue
		}
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '_' || isASCIILetter(c):
			j := i + 1
			for j < len(expr) && (expr[j] == '_' || isASCIILetter(expr[j]) || isDigit(expr[j])) {
				j++
			}
			toks = append(toks, jmTok{kind: "unquoted_identifier", val: expr[i:j], pos: i})
			i = j
		case c == '[':
			switch {
			case strings.HasPrefix(expr[i:], "[]"):
				toks = append(toks, jmTok{kind: "flatten", val: "[]", pos: i})
				i += 2
			case strings.HasPrefix(expr[i:], "[?"):
				toks = append(toks, jmTok{kind: "filter", val: "[?", pos: i})
				i += 2
			default:
				toks = append(toks, jmTok{kind: "lbracket", val: "[", pos: i})
				i++
			}
		case c == '\'':
			j := i + 1
			var b strings.Builder
			for j < len(expr) && expr[j] != '\'' {
				if expr[j] == '\\' && j+1 < len(expr) && expr[j+1] == '\'' {
					b.WriteByte('\'')
					j += 2
					continue
				}
				b.WriteByte(expr[j])
				j++
			}
			if j >= len(expr) {
				return nil, jmErr("Unclosed ' delimiter at position %d", i)
			}
			toks = append(toks, jmTok{kind: "literal", val: b.String(), pos: i})
			i = j + 1
		case c == '"':
			j := i + 1
			for j < len(expr) && expr[j] != '"' {
				if expr[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(expr) {
				return nil, jmErr("Unclosed \" delimiter at position %d", i)
			}
			v, err := value.FromJSON([]byte(expr[i : j+1]))
			if err != nil {
				return nil, jmErr("Invalid quoted identifier at position %d", i)
			}
			toks = append(toks, jmTok{kind: "quoted_identifier", val: v, pos: i})
			i = j + 1
		case c == '`':
			j := i + 1
			var b strings.Builder
			for j < len(expr) && expr[j] != '`' {
				if expr[j] == '\\' && j+1 < len(expr) && expr[j+1] == '`' {
					b.WriteByte('`')
					j += 2
					continue
				}
				b.WriteByte(expr[j])
				j++
			}
			if j >= len(expr) {
				return nil, jmErr("Unclosed ` delimiter at position %d", i)
			}
			text := strings.TrimSpace(b.String())
			v, err := value.FromJSON([]byte(text))
			if err != nil {
				// jmespath.py still accepts an unquoted JSON string.
				v, err = value.FromJSON([]byte(`"` + text + `"`))
				if err != nil {
					return nil, jmErr("Bad token %s at position %d", expr[i:j+1], i)
				}
			}
			toks = append(toks, jmTok{kind: "literal", val: v, pos: i})
			i = j + 1
		case c == '-' || isDigit(c):
			j := i + 1
			for j < len(expr) && isDigit(expr[j]) {
				j++
			}
			n, err := strconv.ParseInt(expr[i:j], 10, 64)
			if err != nil {
				return nil, jmErr("Unknown token %s at position %d", expr[i:j], i)
			}
			toks = append(toks, jmTok{kind: "number", val: n, pos: i})
			i = j
		default:
			two := ""
			if i+1 < len(expr) {
				two = expr[i : i+2]
			}
			kinds := map[string]string{"||": "or", "&&": "and", "==": "eq", "!=": "ne", "<=": "lte", ">=": "gte"}
			if k, ok := kinds[two]; ok {
				toks = append(toks, jmTok{kind: k, val: two, pos: i})
				i += 2
				continue
			}
			one := map[byte]string{'|': "pipe", '&': "expref", '!': "not", '<': "lt", '>': "gt"}
			if k, ok := one[c]; ok {
				toks = append(toks, jmTok{kind: k, val: string(c), pos: i})
				i++
				continue
			}
			if c == '=' {
				return nil, jmErr("Unknown token '=' at position %d, did you mean '=='?", i)
			}
			return nil, jmErr("Unknown token %s at position %d", string(c), i)
		}
	}
	toks = append(toks, jmTok{kind: "eof", pos: len(expr)})
	return toks, nil
}

var jmBP = map[string]int{"pipe": 1, "or": 2, "and": 3, "eq": 5, "gt": 5, "lt": 5, "gte": 5, "lte": 5, "ne": 5,
	"flatten": 9, "star": 20, "filter": 21, "dot": 40, "not": 45, "lbrace": 50, "lbracket": 55, "lparen": 60}

// jmNode is a parsed expression node.
type jmNode struct {
	kind     string
	val      any
	children []*jmNode
}

type jmParser struct {
	toks []jmTok
	i    int
	expr string
}

func (p *jmParser) cur() jmTok       { return p.toks[p.i] }
func (p *jmParser) peek(n int) jmTok { return p.toks[min(p.i+n, len(p.toks)-1)] }
func (p *jmParser) advance()         { p.i = min(p.i+1, len(p.toks)-1) }
func node(kind string, val any, ch ...*jmNode) *jmNode {
	return &jmNode{kind: kind, val: val, children: ch}
}

func (p *jmParser) errAt(t jmTok) error {
	if t.kind == "eof" {
		return jmErr("Invalid jmespath expression: Incomplete expression:\n\"%s\"\n%s^", p.expr, strings.Repeat(" ", t.pos+1))
	}
	return jmErr("Unexpected token: %v: Parse error at column %d, token \"%v\" (%s), for expression:\n\"%s\"\n%s^",
		pyStr(t.val), t.pos, pyStr(t.val), strings.ToUpper(t.kind), p.expr, strings.Repeat(" ", t.pos+1))
}

func (p *jmParser) match(kind string) error {
	if t := p.cur(); t.kind != kind {
		if t.kind == "eof" {
			return p.errAt(t)
		}
		return jmErr("Expecting: %s, got: %s: Parse error at column %d, token \"%v\" (%s), for expression:\n\"%s\"\n%s^",
			kind, t.kind, t.pos, pyStr(t.val), strings.ToUpper(t.kind), p.expr, strings.Repeat(" ", t.pos+1))
	}
	p.advance()
	return nil
}

func (p *jmParser) expression(bp int) (*jmNode, error) {
	t := p.cur()
	p.advance()
	left, err := p.nud(t)
	if err != nil {
		return nil, err
	}
	for bp < jmBP[p.cur().kind] {
		t := p.cur()
		p.advance()
		if left, err = p.led(t, left); err != nil {
			return nil, err
		}
	}
	return left, nil
}

func (p *jmParser) nud(t jmTok) (*jmNode, error) {
	switch t.kind {
	case "literal":
		return node("literal", t.val), nil
	case "unquoted_identifier":
		return node("field", t.val), nil
	case "quoted_identifier":
		if p.cur().kind == "lparen" {
			return nil, jmErr("Quoted identifier not allowed for function names.")
		}
		return node("field", t.val), nil
	case "star":
		left := node("identity", nil)
		var right *jmNode
		if p.cur().kind == "rbracket" {
			right = node("identity", nil)
		} else {
			var err error
			if right, err = p.projectionRHS(jmBP["star"]); err != nil {
				return nil, err
			}
		}
		return node("value_projection", nil, left, right), nil
	case "filter":
		return p.led(t, node("identity", nil))
	case "lbrace":
		return p.multiSelectHash()
	case "lparen":
		e, err := p.expression(0)
		if err != nil {
			return nil, err
		}
		return e, p.match("rparen")
	case "flatten":
		left := node("flatten", nil, node("identity", nil))
		right, err := p.projectionRHS(jmBP["flatten"])
		if err != nil {
			return nil, err
		}
		return node("projection", nil, left, right), nil
	case "not":
		e, err := p.expression(jmBP["not"])
		if err != nil {
			return nil, err
		}
		return node("not_expression", nil, e), nil
	case "lbracket":
		if k := p.cur().kind; k == "number" || k == "colon" {
			right, err := p.indexExpression()
			if err != nil {
				return nil, err
			}
			return p.projectIfSlice(node("identity", nil), right)
		}
		if p.cur().kind == "star" && p.peek(1).kind == "rbracket" {
			p.advance()
			p.advance()
			right, err := p.projectionRHS(jmBP["star"])
			if err != nil {
				return nil, err
			}
			return node("projection", nil, node("identity", nil), right), nil
		}
		return p.multiSelectList()
	case "current":
		return node("current", nil), nil
	case "expref":
		e, err := p.expression(jmBP["expref"])
		if err != nil {
			return nil, err
		}
		return node("expref", nil, e), nil
	}
	return nil, p.errAt(t)
}

func (p *jmParser) led(t jmTok, left *jmNode) (*jmNode, error) {
	switch t.kind {
	case "dot":
		if p.cur().kind != "star" {
			right, err := p.dotRHS(jmBP["dot"])
			if err != nil {
				return nil, err
			}
			if left.kind == "subexpression" {
				left.children = append(left.children, right)
				return left, nil
			}
			return node("subexpression", nil, left, right), nil
		}
		p.advance()
		right, err := p.projectionRHS(jmBP["dot"])
		if err != nil {
			return nil, err
		}
		return node("value_projection", nil, left, right), nil
	case "pipe":
		right, err := p.expression(jmBP["pipe"])
		if err != nil {
			return nil, err
		}
		return node("pipe", nil, left, right), nil
	case "or", "and":
		right, err := p.expression(jmBP[t.kind])
		if err != nil {
			return nil, err
		}
		return node(t.kind+"_expression", nil, left, right), nil
	case "lparen":
		if left.kind != "field" {
			return nil, p.errAt(t)
		}
		var args []*jmNode
		for p.cur().kind != "rparen" {
			e, err := p.expression(0)
			if err != nil {
				return nil, err
			}
			args = append(args, e)
			if p.cur().kind == "comma" {
				p.advance()
			} else if p.cur().kind != "rparen" {
				return nil, p.errAt(p.cur())
			}
		}
		p.advance()
		return node("function_expression", left.val, args...), nil
	case "filter":
		cond, err := p.expression(0)
		if err != nil {
			return nil, err
		}
		if err := p.match("rbracket"); err != nil {
			return nil, err
		}
		var right *jmNode
		if p.cur().kind == "flatten" {
			right = node("identity", nil)
		} else if right, err = p.projectionRHS(jmBP["filter"]); err != nil {
			return nil, err
		}
		return node("filter_projection", nil, left, right, cond), nil
	case "eq", "ne", "gt", "gte", "lt", "lte":
		right, err := p.expression(jmBP[t.kind])
		if err != nil {
			return nil, err
		}
		return node("comparator", t.kind, left, right), nil
	case "flatten":
		right, err := p.projectionRHS(jmBP["flatten"])
		if err != nil {
			return nil, err
		}
		return node("projection", nil, node("flatten", nil, left), right), nil
	case "lbracket":
		if k := p.cur().kind; k == "number" || k == "colon" {
			right, err := p.indexExpression()
			if err != nil {
				return nil, err
			}
			if left.kind == "index_expression" {
				left.children = append(left.children, right)
				return left, nil
			}
			return p.projectIfSlice(left, right)
		}
		if err := p.match("star"); err != nil {
			return nil, err
		}
		if err := p.match("rbracket"); err != nil {
			return nil, err
		}
		right, err := p.projectionRHS(jmBP["star"])
		if err != nil {
			return nil, err
		}
		return node("projection", nil, left, right), nil
	}
	return nil, p.errAt(t)
}

func (p *jmParser) projectIfSlice(left, right *jmNode) (*jmNode, error) {
	ix := node("index_expression", nil, left, right)
	if right.kind == "slice" {
		rhs, err := p.projectionRHS(jmBP["star"])
		if err != nil {
			return nil, err
		}
		return node("projection", nil, ix, rhs), nil
	}
	return ix, nil
}

func (p *jmParser) indexExpression() (*jmNode, error) {
	if p.cur().kind == "colon" || p.peek(1).kind == "colon" {
		parts := []any{nil, nil, nil}
		idx := 0
		for p.cur().kind != "rbracket" {
			switch p.cur().kind {
			case "colon":
				idx++
				if idx == 3 {
					return nil, p.errAt(p.cur())
				}
			case "number":
				parts[idx] = p.cur().val
			default:
				return nil, p.errAt(p.cur())
			}
			p.advance()
		}
		p.advance()
		return node("slice", parts), nil
	}
	n := node("index", p.cur().val)
	p.advance()
	return n, p.match("rbracket")
}

func (p *jmParser) projectionRHS(bp int) (*jmNode, error) {
	switch k := p.cur().kind; {
	case jmBP[k] < 10:
		return node("identity", nil), nil
	case k == "lbracket", k == "filter":
		return p.expression(bp)
	case k == "dot":
		p.advance()
		return p.dotRHS(bp)
	}
	return nil, p.errAt(p.cur())
}

func (p *jmParser) dotRHS(bp int) (*jmNode, error) {
	switch p.cur().kind {
	case "quoted_identifier", "unquoted_identifier", "star":
		return p.expression(bp)
	case "lbracket":
		p.advance()
		return p.multiSelectList()
	case "lbrace":
		p.advance()
		return p.multiSelectHash()
	}
	return nil, p.errAt(p.cur())
}

func (p *jmParser) multiSelectList() (*jmNode, error) {
	var items []*jmNode
	for {
		e, err := p.expression(0)
		if err != nil {
			return nil, err
		}
		items = append(items, e)
		if p.cur().kind == "rbracket" {
			break
		}
		if err := p.match("comma"); err != nil {
			return nil, err
		}
	}
	p.advance()
	return node("multi_select_list", nil, items...), nil
}

func (p *jmParser) multiSelectHash() (*jmNode, error) {
	var pairs []*jmNode
	for {
		k := p.cur()
		if k.kind != "quoted_identifier" && k.kind != "unquoted_identifier" {
			return nil, p.errAt(k)
		}
		p.advance()
		if err := p.match("colon"); err != nil {
			return nil, err
		}
		v, err := p.expression(0)
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, node("key_val_pair", k.val, v))
		if p.cur().kind == "comma" {
			p.advance()
		} else if p.cur().kind == "rbrace" {
			p.advance()
			break
		} else {
			return nil, p.errAt(p.cur())
		}
	}
	return node("multi_select_dict", nil, pairs...), nil
}

func jmParse(expr string) (*jmNode, error) {
	toks, err := jmLex(expr)
	if err != nil {
		return nil, err
	}
	p := &jmParser{toks: toks, expr: expr}
	n, err := p.expression(0)
	if err != nil {
		return nil, err
	}
	if p.cur().kind != "eof" {
		return nil, p.errAt(p.cur())
	}
	return n, nil
}

// jmExpref is an &expression argument.
type jmExpref struct{ n *jmNode }

func jmFalse(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case string:
		return x == ""
	case *value.List:
		return x.Len() == 0
	case value.Tuple:
		return len(x) == 0
	case *value.Map:
		return x.Len() == 0
	}
	return false
}

func jmList(v any) ([]any, bool) {
	switch x := v.(type) {
	case *value.List:
		return x.Items, true
	case value.Tuple:
		return x, true
	}
	return nil, false
}

func jmIsNum(v any) bool {
	switch v.(type) {
	case int64, int, float64, *big.Int:
		return true
	}
	return false
}

func jmEval(n *jmNode, v any) (any, error) {
	switch n.kind {
	case "field":
		if m, ok := v.(*value.Map); ok {
			r, _ := m.Get(n.val)
			return r, nil
		}
		return nil, nil
	case "subexpression", "index_expression":
		var err error
		for _, c := range n.children {
			if v, err = jmEval(c, v); err != nil {
				return nil, err
			}
		}
		return v, nil
	case "index":
		l, ok := jmList(v)
		if !ok {
			return nil, nil
		}
		i := int(n.val.(int64))
		if i < 0 {
			i += len(l)
		}
		if i < 0 || i >= len(l) {
			return nil, nil
		}
		return l[i], nil
	case "slice":
		l, ok := jmList(v)
		if !ok {
			return nil, nil
		}
		parts := n.val.([]any)
		items, err := pySlice(l, parts[0], parts[1], parts[2])
		if err != nil {
			return nil, err
		}
		return newList(items), nil
	case "identity", "current":
		return v, nil
	case "literal":
		return n.val, nil
	case "projection", "value_projection":
		base, err := jmEval(n.children[0], v)
		if err != nil {
			return nil, err
		}
		var items []any
		if n.kind == "projection" {
			l, ok := jmList(base)
			if !ok {
				return nil, nil
			}
			items = l
		} else {
			m, ok := base.(*value.Map)
			if !ok {
				return nil, nil
			}
			items = m.Values()
		}
		out := []any{}
		for _, el := range items {
			r, err := jmEval(n.children[1], el)
			if err != nil {
				return nil, err
			}
			if r != nil {
				out = append(out, r)
			}
		}
		return newList(out), nil
	case "filter_projection":
		base, err := jmEval(n.children[0], v)
		if err != nil {
			return nil, err
		}
		l, ok := jmList(base)
		if !ok {
			return nil, nil
		}
		out := []any{}
		for _, el := range l {
			c, err := jmEval(n.children[2], el)
			if err != nil {
				return nil, err
			}
			if jmFalse(c) {
				continue
			}
			r, err := jmEval(n.children[1], el)
			if err != nil {
				return nil, err
			}
			if r != nil {
				out = append(out, r)
			}
		}
		return newList(out), nil
	case "flatten":
		base, err := jmEval(n.children[0], v)
		if err != nil {
			return nil, err
		}
		l, ok := jmList(base)
		if !ok {
			return nil, nil
		}
		out := []any{}
		for _, el := range l {
			if sub, ok := jmList(el); ok {
				out = append(out, sub...)
			} else {
				out = append(out, el)
			}
		}
		return newList(out), nil
	case "comparator":
		a, err := jmEval(n.children[0], v)
		if err != nil {
			return nil, err
		}
		b, err := jmEval(n.children[1], v)
		if err != nil {
			return nil, err
		}
		switch n.val {
		case "eq":
			return jmEqual(a, b), nil
		case "ne":
			return !jmEqual(a, b), nil
		}
		if !jmIsNum(a) || !jmIsNum(b) {
			return nil, nil
		}
		c, _ := compare(a, b)
		switch n.val {
		case "lt":
			return c < 0, nil
		case "lte":
			return c <= 0, nil
		case "gt":
			return c > 0, nil
		}
		return c >= 0, nil
	case "or_expression", "and_expression":
		a, err := jmEval(n.children[0], v)
		if err != nil {
			return nil, err
		}
		if (n.kind == "or_expression") != jmFalse(a) {
			return a, nil
		}
		return jmEval(n.children[1], v)
	case "not_expression":
		a, err := jmEval(n.children[0], v)
		if err != nil {
			return nil, err
		}
		return jmFalse(a), nil
	case "pipe":
		a, err := jmEval(n.children[0], v)
		if err != nil {
			return nil, err
		}
		return jmEval(n.children[1], a)
	case "multi_select_list":
		if v == nil {
			return nil, nil
		}
		out := make([]any, len(n.children))
		for i, c := range n.children {
			r, err := jmEval(c, v)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return newList(out), nil
	case "multi_select_dict":
		if v == nil {
			return nil, nil
		}
		m := value.NewMap(len(n.children))
		for _, c := range n.children {
			r, err := jmEval(c.children[0], v)
			if err != nil {
				return nil, err
			}
			m.Set(c.val, r)
		}
		return m, nil
	case "expref":
		return &jmExpref{n.children[0]}, nil
	case "function_expression":
		args := make([]any, len(n.children))
		for i, c := range n.children {
			r, err := jmEval(c, v)
			if err != nil {
				return nil, err
			}
			args[i] = r
		}
		return jmCall(pyStr(n.val), args)
	}
	return nil, pyErr("jmespath.exceptions.JMESPathError", "unknown node %s", n.kind)
}

// jmEqual is jmespath.py's equality: Python ==, except that a bool never
// equals a number.
func jmEqual(a, b any) bool {
	_, ab := a.(bool)
	_, bb := b.(bool)
	if ab != bb && (jmIsNum(a) || jmIsNum(b)) {
		return false
	}
	return value.Equal(a, b)
}

// pySlice is Python's l[start:stop:step].
func pySlice(l []any, start, stop, step any) ([]any, error) {
	st := int64(1)
	if step != nil {
		st = step.(int64)
	}
	if st == 0 {
		return nil, pyErr("jmespath.exceptions.InvalidValueError", "Invalid value: slice step cannot be 0")
	}
	n := int64(len(l))
	clamp := func(v any, def int64) int64 {
		if v == nil {
			return def
		}
		i := v.(int64)
		if i < 0 {
			i += n
			if i < 0 {
				if st < 0 {
					return -1
				}
				return 0
			}
		}
		if i >= n {
			if st < 0 {
				return n - 1
			}
			return n
		}
		return i
	}
	var out []any
	if st > 0 {
		for i := clamp(start, 0); i < clamp(stop, n); i += st {
			out = append(out, l[i])
		}
	} else {
		for i := clamp(start, n-1); i > clamp(stop, -1); i += st {
			out = append(out, l[i])
		}
	}
	return out, nil
}

func jmType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case *value.List, value.Tuple:
		return "array"
	case *value.Map:
		return "object"
	case *jmExpref:
		return "expref"
	}
	if jmIsNum(v) {
		return "number"
	}
	return "object"
}

type jmSpec struct {
	types  [][]string // allowed types per argument; "any" allows all
	varArg bool
	fn     func(args []any) (any, error)
}

func jmTypeErr(fn string, v any, expected []string) error {
	q := make([]string, len(expected))
	for i, e := range expected {
		q[i] = "'" + e + "'"
	}
	return pyErr("jmespath.exceptions.JMESPathTypeError", "In function %s(), invalid type for value: %s, expected one of: [%s], received: \"%s\"",
		fn, pyStr(v), strings.Join(q, ", "), jmType(v))
}

func jmCheck(fn string, v any, allowed []string) error {
	t := jmType(v)
	for _, a := range allowed {
		if a == "any" || a == t {
			return nil
		}
		if strings.HasPrefix(a, "array-") && t == "array" {
			l, _ := jmList(v)
			want := strings.TrimPrefix(a, "array-")
			ok := true
			for _, e := range l {
				if jmType(e) != want {
					ok = false
					break
				}
			}
			if ok {
				return nil
			}
		}
	}
	return jmTypeErr(fn, v, allowed)
}

var jmFuncs map[string]jmSpec

func init() {
	num := []string{"number"}
	arr := []string{"array"}
	str := []string{"string"}
	anyT := []string{"any"}
	byKey := func(name string, want int, items []any, ref *jmExpref) ([]any, error) {
		keys := make([]any, len(items))
		for i, it := range items {
			k, err := jmEval(ref.n, it)
			if err != nil {
				return nil, err
			}
			if t := jmType(k); t != "number" && t != "string" {
				return nil, jmTypeErr(name, k, []string{"number", "string"})
			}
			keys[i] = k
		}
		return keys, nil
	}
	exprefArg := func(v any) (*jmExpref, bool) { r, ok := v.(*jmExpref); return r, ok }
	jmFuncs = map[string]jmSpec{
		"abs": {types: [][]string{num}, fn: func(a []any) (any, error) {
			if f, ok := a[0].(float64); ok {
				return math.Abs(f), nil
			}
			b, _ := value.AsBig(a[0])
			return value.NormInt(new(big.Int).Abs(b)), nil
		}},
		"avg": {types: [][]string{{"array-number"}}, fn: func(a []any) (any, error) {
			l, _ := jmList(a[0])
			if len(l) == 0 {
				return nil, nil
			}
			return avg(newList(l))
		}},
		"ceil": {types: [][]string{num}, fn: func(a []any) (any, error) {
			if f, ok := a[0].(float64); ok {
				return pyInt(math.Ceil(f))
			}
			return a[0], nil
		}},
		"floor": {types: [][]string{num}, fn: func(a []any) (any, error) {
			if f, ok := a[0].(float64); ok {
				return pyInt(math.Floor(f))
			}
			return a[0], nil
		}},
		"contains": {types: [][]string{{"array", "string"}, anyT}, fn: func(a []any) (any, error) {
			if s, ok := a[0].(string); ok {
				sub, ok := a[1].(string)
				return ok && strings.Contains(s, sub), nil
			}
			return contains(a[0], a[1])
		}},
		"ends_with": {types: [][]string{str, str}, fn: func(a []any) (any, error) {
			return strings.HasSuffix(a[0].(string), a[1].(string)), nil
		}},
		"starts_with": {types: [][]string{str, str}, fn: func(a []any) (any, error) {
			return strings.HasPrefix(a[0].(string), a[1].(string)), nil
		}},
		"join": {types: [][]string{str, {"array-string"}}, fn: func(a []any) (any, error) {
			l, _ := jmList(a[1])
			parts := make([]string, len(l))
			for i, e := range l {
				parts[i] = e.(string)
			}
			return strings.Join(parts, a[0].(string)), nil
		}},
		"keys": {types: [][]string{{"object"}}, fn: func(a []any) (any, error) {
			return newList(append([]any(nil), a[0].(*value.Map).Keys()...)), nil
		}},
		"values": {types: [][]string{{"object"}}, fn: func(a []any) (any, error) {
			return newList(append([]any(nil), a[0].(*value.Map).Values()...)), nil
		}},
		"length": {types: [][]string{{"string", "array", "object"}}, fn: func(a []any) (any, error) {
			switch x := a[0].(type) {
			case string:
				return int64(utf8.RuneCountInString(x)), nil
			case *value.Map:
				return int64(x.Len()), nil
			}
			l, _ := jmList(a[0])
			return int64(len(l)), nil
		}},
		"map": {types: [][]string{{"expref"}, arr}, fn: func(a []any) (any, error) {
			ref, _ := exprefArg(a[0])
			l, _ := jmList(a[1])
			out := make([]any, len(l))
			for i, e := range l {
				r, err := jmEval(ref.n, e)
				if err != nil {
					return nil, err
				}
				out[i] = r
			}
			return newList(out), nil
		}},
		"max": {types: [][]string{{"array-number", "array-string"}}, fn: func(a []any) (any, error) {
			l, _ := jmList(a[0])
			if len(l) == 0 {
				return nil, nil
			}
			return extreme(newList(l), "max", 1)
		}},
		"min": {types: [][]string{{"array-number", "array-string"}}, fn: func(a []any) (any, error) {
			l, _ := jmList(a[0])
			if len(l) == 0 {
				return nil, nil
			}
			return extreme(newList(l), "min", -1)
		}},
		"max_by": {types: [][]string{arr, {"expref"}}, fn: func(a []any) (any, error) {
			return jmBy("max_by", a, 1, byKey)
		}},
		"min_by": {types: [][]string{arr, {"expref"}}, fn: func(a []any) (any, error) {
			return jmBy("min_by", a, -1, byKey)
		}},
		"merge": {types: [][]string{{"object"}}, varArg: true, fn: func(a []any) (any, error) {
			m := value.NewMap(4)
			for _, e := range a {
				m.Update(e.(*value.Map))
			}
			return m, nil
		}},
		"not_null": {types: [][]string{anyT}, varArg: true, fn: func(a []any) (any, error) {
			for _, e := range a {
				if e != nil {
					return e, nil
				}
			}
			return nil, nil
		}},
		"reverse": {types: [][]string{{"array", "string"}}, fn: func(a []any) (any, error) {
			if s, ok := a[0].(string); ok {
				r := []rune(s)
				for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
					r[i], r[j] = r[j], r[i]
				}
				return string(r), nil
			}
			l, _ := jmList(a[0])
			out := make([]any, len(l))
			for i, e := range l {
				out[len(l)-1-i] = e
			}
			return newList(out), nil
		}},
		"sort": {types: [][]string{{"array-string", "array-number"}}, fn: func(a []any) (any, error) {
			l, _ := jmList(a[0])
			out := append([]any(nil), l...)
			sort.SliceStable(out, func(i, j int) bool { c, _ := compare(out[i], out[j]); return c < 0 })
			return newList(out), nil
		}},
		"sort_by": {types: [][]string{arr, {"expref"}}, fn: func(a []any) (any, error) {
			l, _ := jmList(a[0])
			ref, _ := exprefArg(a[1])
			keys, err := byKey("sort_by", 0, l, ref)
			if err != nil {
				return nil, err
			}
			idx := make([]int, len(l))
			for i := range idx {
				idx[i] = i
			}
			var cmpErr error
			sort.SliceStable(idx, func(i, j int) bool {
				c, err := compare(keys[idx[i]], keys[idx[j]])
				if err != nil && cmpErr == nil {
					cmpErr = pyErr("jmespath.exceptions.JMESPathTypeError", "In function sort_by(), invalid type for value: mixed key types")
				}
				return c < 0
			})
			if cmpErr != nil {
				return nil, cmpErr
			}
			out := make([]any, len(l))
			for i, j := range idx {
				out[i] = l[j]
			}
			return newList(out), nil
		}},
		"sum": {types: [][]string{{"array-number"}}, fn: func(a []any) (any, error) {
			l, _ := jmList(a[0])
			return pySum(l)
		}},
		"to_array": {types: [][]string{anyT}, fn: func(a []any) (any, error) {
			if _, ok := jmList(a[0]); ok {
				return a[0], nil
			}
			return newList([]any{a[0]}), nil
		}},
		"to_string": {types: [][]string{anyT}, fn: func(a []any) (any, error) {
			if s, ok := a[0].(string); ok {
				return s, nil
			}
			return value.ToJSON(a[0], value.JSONOptions{Indent: -1, ItemSep: ",", KeySep: ":", EnsureASCII: true}), nil
		}},
		"to_number": {types: [][]string{anyT}, fn: func(a []any) (any, error) {
			switch x := a[0].(type) {
			case string:
				if strings.Contains(x, ".") {
					if f, ok := parsePyFloat(x); ok {
						return f, nil
					}
					return nil, nil
				}
				if n, ok := parsePyInt(x, 10); ok {
					return n, nil
				}
				if f, ok := parsePyFloat(x); ok {
					return f, nil
				}
				return nil, nil
			case bool:
				return nil, nil
			}
			if jmIsNum(a[0]) {
				return a[0], nil
			}
			return nil, nil
		}},
		"type": {types: [][]string{anyT}, fn: func(a []any) (any, error) { return jmType(a[0]), nil }},
	}
}

func jmBy(name string, a []any, want int, byKey func(string, int, []any, *jmExpref) ([]any, error)) (any, error) {
	l, _ := jmList(a[0])
	ref := a[1].(*jmExpref)
	if len(l) == 0 {
		return nil, nil
	}
	keys, err := byKey(name, want, l, ref)
	if err != nil {
		return nil, err
	}
	best := 0
	for i := 1; i < len(l); i++ {
		c, err := compare(keys[i], keys[best])
		if err != nil {
			return nil, pyErr("jmespath.exceptions.JMESPathTypeError", "In function %s(), invalid type for value: mixed key types", name)
		}
		if c == want {
			best = i
		}
	}
	return l[best], nil
}

func jmCall(name string, args []any) (any, error) {
	spec, ok := jmFuncs[name]
	if !ok {
		return nil, pyErr("jmespath.exceptions.UnknownFunctionError", "Unknown function: %s()", name)
	}
	if spec.varArg {
		if len(args) < len(spec.types) {
			return nil, pyErr("jmespath.exceptions.VariadictArityError", "Expected at least %d arguments for function %s(), received %d", len(spec.types), name, len(args))
		}
	} else if len(args) != len(spec.types) {
		word := "arguments"
		if len(spec.types) == 1 {
			word = "argument"
		}
		return nil, pyErr("jmespath.exceptions.ArityError", "Expected %d %s for function %s(), received %d", len(spec.types), word, name, len(args))
	}
	for i, a := range args {
		t := spec.types[min(i, len(spec.types)-1)]
		if err := jmCheck(name, a, t); err != nil {
			return nil, err
		}
	}
	return spec.fn(args)
}

// jmesSearch is jmespath.search(expr, data).
func jmesSearch(expr string, data any) (any, error) {
	n, err := jmParse(expr)
	if err != nil {
		return nil, err
	}
	return jmEval(n, data)
}
