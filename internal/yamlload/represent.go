package yamlload

import (
	"encoding/base64"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"brine/internal/value"
)

// DumpOptions are the arguments of PyYAML's yaml.dump that Salt uses.
type DumpOptions struct {
	// DefaultFlowStyle is PyYAML's tri-state default_flow_style: nil (None)
	// writes collections holding only scalars in flow style and the others
	// in block style; true writes everything in flow style; false in block.
	DefaultFlowStyle *bool
	// Indent is the indentation step, 2 when outside 2..9.
	Indent int
	// Width is the preferred line width: 80 when 0 or not more than twice
	// Indent, unlimited when negative.
	Width int
	// AllowUnicode writes non-ASCII characters as they are; otherwise they
	// are escaped in double quotes.
	AllowUnicode bool
	// ExplicitStart and ExplicitEnd write the "---" and "..." markers.
	ExplicitStart, ExplicitEnd bool
	// SortKeys is PyYAML's sort_keys (true by default there): the keys of
	// every plain dict are sorted, when they are of comparable types. A map
	// marked Ordered (an OrderedDict) keeps its order, as with Salt's
	// SafeOrderedDumper.
	SortKeys bool
	// SortMap, when set, decides per mapping instead of SortKeys.
	SortMap func(*value.Map) bool
	// LineBreak is "\n" (default), "\r" or "\r\n".
	LineBreak string
	// NoAliases turns off the &id001 / *id001 anchors PyYAML writes for a
	// list or mapping met twice.
	NoAliases bool
	// PurePython chooses, escapes and folds scalars as PyYAML's
	// pure-Python emitter (yaml.SafeDumper) does rather than as the C
	// emitter (yaml.CSafeDumper): long double-quoted lines end in '\' with
	// a leading space escaped as '\ ', characters beyond the BMP may be
	// plain but are escaped in double quotes, and a root plain scalar is
	// followed by "...". Salt's dumpers only fall back to it without
	// libyaml; its yaml_dquote and yaml_squote filters always use it.
	PurePython bool
}

// SaltDumpOptions returns the options of salt.utils.yaml.safe_dump:
// allow_unicode and PyYAML's sort_keys, default_flow_style None. Salt's
// SafeOrderedDumper subclasses yaml.CSafeDumper whenever PyYAML has libyaml
// (as in Salt 3006 builds), so PurePython stays off.
func SaltDumpOptions() DumpOptions {
	return DumpOptions{AllowUnicode: true, SortKeys: true}
}

// FlowStyle returns a pointer to b, for DumpOptions.DefaultFlowStyle.
func FlowStyle(b bool) *bool { return &b }

type nodeKind uint8

const (
	scalarNode nodeKind = iota
	seqNode
	mapNode
)

// rnode is a represented node, PyYAML's Node.
type rnode struct {
	kind    nodeKind
	tag     string
	value   string // scalar text
	literal bool   // scalar style '|' (binary)
	flow    bool   // collection flow style
	items   []*rnode
}

type representer struct {
	opts    *DumpOptions
	objects map[any]*rnode
	depth   int
	err     error // data nested deeper than value.MaxDepth
}

func (r *representer) represent(v any) *rnode {
	switch v.(type) {
	case *value.Map, *value.List, value.Tuple, []any:
		r.depth++
		defer func() { r.depth-- }()
		if r.depth > value.MaxDepth {
			if r.err == nil {
				r.err = &value.DepthError{Doing: "representing a YAML object"}
			}
			return &rnode{tag: tagNull, value: "null"}
		}
	}
	switch x := v.(type) {
	case nil:
		return &rnode{tag: tagNull, value: "null"}
	case string:
		return &rnode{tag: tagStr, value: x}
	case bool:
		if x {
			return &rnode{tag: tagBool, value: "true"}
		}
		return &rnode{tag: tagBool, value: "false"}
	case int64:
		return &rnode{tag: tagInt, value: strconv.FormatInt(x, 10)}
	case int:
		return &rnode{tag: tagInt, value: strconv.Itoa(x)}
	case *big.Int:
		return &rnode{tag: tagInt, value: x.String()}
	case float64:
		return &rnode{tag: tagFloat, value: reprFloat(x)}
	case []byte:
		return &rnode{tag: tagBinary, value: encodeBytes(x), literal: true}
	case *value.Map:
		if n := r.cached(x); n != nil {
			return n
		}
		n := &rnode{kind: mapNode, tag: tagMap}
		r.remember(x, n)
		pairs := make([][2]any, 0, x.Len())
		x.Range(func(k, v any) bool {
			pairs = append(pairs, [2]any{k, v})
			return true
		})
		if r.sorts(x) {
			sortPairs(pairs)
		}
		best := true
		for _, p := range pairs {
			k, v := r.represent(p[0]), r.represent(p[1])
			best = best && isPlainScalar(k) && isPlainScalar(v)
			n.items = append(n.items, k, v)
		}
		n.flow = r.flow(best)
		return n
	case *value.List:
		if n := r.cached(x); n != nil {
			return n
		}
		n := &rnode{kind: seqNode, tag: tagSeq}
		r.remember(x, n)
		r.fillSeq(n, x.Items)
		return n
	case value.Tuple:
		n := &rnode{kind: seqNode, tag: tagSeq}
		r.fillSeq(n, x)
		return n
	case []any:
		n := &rnode{kind: seqNode, tag: tagSeq}
		r.fillSeq(n, x)
		return n
	}
	// Salt's SafeOrderedDumper writes any other object as NULL.
	return &rnode{tag: tagNull, value: "NULL"}
}

// sorts reports whether m's keys are sorted: Salt's SafeOrderedDumper
// keeps an OrderedDict's order and sorts a plain dict under sort_keys.
func (r *representer) sorts(m *value.Map) bool {
	if r.opts.SortMap != nil {
		return r.opts.SortMap(m)
	}
	return r.opts.SortKeys && !m.Ordered()
}

func (r *representer) fillSeq(n *rnode, items []any) {
	best := true
	for _, it := range items {
		c := r.represent(it)
		best = best && isPlainScalar(c)
		n.items = append(n.items, c)
	}
	n.flow = r.flow(best)
}

func (r *representer) flow(best bool) bool {
	if r.opts.DefaultFlowStyle != nil {
		return *r.opts.DefaultFlowStyle
	}
	return best
}

func (r *representer) cached(k any) *rnode {
	if r.opts.NoAliases {
		return nil
	}
	return r.objects[k]
}

func (r *representer) remember(k any, n *rnode) {
	if r.opts.NoAliases {
		return
	}
	if r.objects == nil {
		r.objects = make(map[any]*rnode)
	}
	r.objects[k] = n
}

// isPlainScalar is PyYAML's test for "best style": a scalar with no style
// forced by the representer.
func isPlainScalar(n *rnode) bool { return n.kind == scalarNode && !n.literal }

// reprFloat is SafeRepresenter.represent_float.
func reprFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return ".nan"
	case math.IsInf(f, 1):
		return ".inf"
	case math.IsInf(f, -1):
		return "-.inf"
	}
	s := strings.ToLower(value.FormatFloat(f))
	if !strings.Contains(s, ".") && strings.Contains(s, "e") {
		s = strings.Replace(s, "e", ".0e", 1)
	}
	return s
}

// encodeBytes is Python's base64.encodebytes: lines of 76 characters, each
// ending with a newline.
func encodeBytes(b []byte) string {
	enc := base64.StdEncoding.EncodeToString(b)
	var sb strings.Builder
	for len(enc) > 76 {
		sb.WriteString(enc[:76])
		sb.WriteByte('\n')
		enc = enc[76:]
	}
	if enc != "" {
		sb.WriteString(enc)
		sb.WriteByte('\n')
	}
	return sb.String()
}

// keyClass groups keys Python can order against each other.
func keyClass(k any) int {
	switch k.(type) {
	case bool, int64, int, *big.Int, float64:
		return 1
	case string:
		return 2
	case []byte:
		return 3
	case value.Tuple:
		return 4
	}
	return 0
}

// sortPairs sorts mapping pairs by key as Python's sorted() does, leaving
// them alone when Python would raise TypeError (keys of mixed types, or
// keys that have no order such as None).
func sortPairs(pairs [][2]any) {
	if len(pairs) < 2 {
		return
	}
	class := keyClass(pairs[0][0])
	if class == 0 {
		return
	}
	for _, p := range pairs[1:] {
		if keyClass(p[0]) != class {
			return
		}
	}
	if class == 4 && !tuplesComparable(pairs) {
		return
	}
	sort.SliceStable(pairs, func(i, j int) bool { return pyLess(pairs[i][0], pairs[j][0]) })
}

func tuplesComparable(pairs [][2]any) bool {
	for _, p := range pairs {
		for _, e := range p[0].(value.Tuple) {
			if keyClass(e) == 0 || keyClass(e) == 4 {
				return false
			}
		}
	}
	// element classes must agree position by position
	first := pairs[0][0].(value.Tuple)
	for _, p := range pairs[1:] {
		t := p[0].(value.Tuple)
		for i := 0; i < len(t) && i < len(first); i++ {
			if keyClass(t[i]) != keyClass(first[i]) {
				return false
			}
		}
	}
	return true
}

// pyLess is Python's < for two keys of one class.
func pyLess(a, b any) bool {
	switch x := a.(type) {
	case string:
		return x < b.(string)
	case []byte:
		return string(x) < string(b.([]byte))
	case value.Tuple:
		y := b.(value.Tuple)
		for i := 0; i < len(x) && i < len(y); i++ {
			if !value.Equal(x[i], y[i]) {
				return pyLess(x[i], y[i])
			}
		}
		return len(x) < len(y)
	}
	return numLess(a, b)
}

func numLess(a, b any) bool {
	if x, ok := a.(int64); ok {
		if y, ok := b.(int64); ok {
			return x < y
		}
	}
	_, af := a.(float64)
	_, bf := b.(float64)
	if af || bf {
		return value.ToFloat(a) < value.ToFloat(b)
	}
	ab, aok := value.AsBig(a)
	bb, bok := value.AsBig(b)
	if aok && bok {
		return ab.Cmp(bb) < 0
	}
	return value.ToFloat(a) < value.ToFloat(b)
}
