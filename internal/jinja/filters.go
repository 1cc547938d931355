package jinja

import (
	"errors"
	"fmt"
	"html"
	"math"
	"math/big"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"brine/internal/pyops"
	"brine/internal/value"
)

// missing marks an argument that was not given.
type missingT struct{}

var missing = missingT{}

// bind matches positional and keyword arguments to parameter names; absent
// ones are `missing`.
func bind(fname string, args []any, kw *value.Map, names ...string) ([]any, error) {
	out := make([]any, len(names))
	for i := range out {
		out[i] = missing
	}
	if len(args) > len(names) {
		return nil, errType("%s() takes up to %d positional arguments but %d were given", fname, len(names)+1, len(args)+1)
	}
	copy(out, args)
	if kw != nil {
		var err error
		kw.Range(func(k, v any) bool {
			ks, _ := k.(string)
			for i, n := range names {
				if n == ks {
					if i < len(args) {
						err = errType("%s() got multiple values for argument %s", fname, pyQuote(ks))
						return false
					}
					out[i] = v
					return true
				}
			}
			err = errType("%s() got an unexpected keyword argument %s", fname, pyQuote(ks))
			return false
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func or(v, def any) any {
	if v == missing {
		return def
	}
	return v
}

func isMissing(v any) bool { return v == missing }

var builtinFilters = map[string]filterEntry{}

func regFilter(name string, f FilterFunc) { builtinFilters[name] = filterEntry{fn: f} }
func regCtxFilter(name string, f ContextFilterFunc) {
	builtinFilters[name] = filterEntry{cfn: f}
}

func init() {
	regFilter("abs", filterAbs)
	regCtxFilter("attr", filterAttr)
	regCtxFilter("batch", filterBatch)
	regFilter("capitalize", strMethodFilter("capitalize"))
	regFilter("center", filterCenter)
	regCtxFilter("count", filterLength)
	regCtxFilter("length", filterLength)
	regCtxFilter("default", filterDefault)
	regCtxFilter("d", filterDefault)
	regCtxFilter("dictsort", filterDictsort)
	regCtxFilter("escape", filterEscape)
	regCtxFilter("e", filterEscape)
	regFilter("filesizeformat", filterFilesize)
	regCtxFilter("first", filterFirst)
	regCtxFilter("last", filterLast)
	regFilter("float", filterFloat)
	regCtxFilter("forceescape", filterForceEscape)
	regFilter("format", filterFormat)
	regCtxFilter("groupby", filterGroupby)
	regCtxFilter("indent", filterIndent)
	regFilter("int", filterInt)
	builtinFilters["items"] = filterEntry{cfn: filterItems, raw: true}
	regCtxFilter("join", filterJoin)
	regCtxFilter("list", filterList)
	regFilter("lower", filterLower)
	regFilter("upper", filterUpper)
	regCtxFilter("map", filterMap)
	regCtxFilter("max", filterMax)
	regCtxFilter("min", filterMin)
	builtinFilters["pprint"] = filterEntry{fn: filterPprint, raw: true}
	regCtxFilter("random", filterRandom)
	regCtxFilter("reject", selectFilter(false, false))
	regCtxFilter("rejectattr", selectFilter(false, true))
	regCtxFilter("select", selectFilter(true, false))
	regCtxFilter("selectattr", selectFilter(true, true))
	regCtxFilter("replace", filterReplace)
	regCtxFilter("reverse", filterReverse)
	builtinFilters["round"] = filterEntry{cfn: filterRoundCtx, raw: true}
	regFilter("safe", func(v any, a []any, kw *value.Map) (any, error) { return Markup(pyStrOf(v)), nil })
	regCtxFilter("slice", filterSlice)
	regCtxFilter("sort", filterSort)
	regFilter("string", filterString)
	regCtxFilter("striptags", filterStriptags)
	regCtxFilter("sum", filterSum)
	regCtxFilter("title", filterTitle)
	builtinFilters["tojson"] = filterEntry{cfn: filterTojson, raw: true}
	regCtxFilter("trim", filterTrim)
	regCtxFilter("truncate", filterTruncate)
	regCtxFilter("unique", filterUnique)
	regCtxFilter("urlencode", filterUrlencode)
	regCtxFilter("urlize", filterUrlize)
	regCtxFilter("wordcount", filterWordcount)
	regCtxFilter("wordwrap", filterWordwrap)
	regCtxFilter("xmlattr", filterXmlattr)
}

// softStr is Jinja's soft_str: Markup stays Markup, anything else str().
func softStr(c *Context, v any) (any, error) {
	if m, ok := v.(Markup); ok {
		return m, nil
	}
	return c.Str(v)
}

func toInt(v any) (int, error) {
	switch x := v.(type) {
	case int64:
		return int(x), nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case float64:
		return int(x), nil
	}
	return 0, errType("'%s' object cannot be interpreted as an integer", pyops.TypeName(v))
}

func filterAbs(v any, args []any, kw *value.Map) (any, error) {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			if x == math.MinInt64 {
				return new(big.Int).Neg(big.NewInt(x)), nil
			}
			return -x, nil
		}
		return x, nil
	case float64:
		return math.Abs(x), nil
	case bool:
		if x {
			return int64(1), nil
		}
		return int64(0), nil
	case *big.Int:
		return value.NormInt(new(big.Int).Abs(x)), nil
	}
	return nil, errType("bad operand type for abs(): '%s'", pyops.TypeName(v))
}

func filterAttr(c *Context, v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("attr", args, kw, "name")
	if err != nil {
		return nil, err
	}
	name, ok := a[0].(string)
	if !ok {
		return nil, errType("attribute name must be string")
	}
	if u, isU := v.(*Undefined); isU {
		return nil, u.err()
	}
	if isDunder(name) {
		return unsafeAttr(v, name), nil
	}
	switch x := v.(type) {
	case *value.Map:
		if pyops.HasMethod(x, name) {
			return &boundMethod{x, name}, nil
		}
		return undefinedAttr(v, name), nil
	case Getattrer:
		if r, ok := x.Getattr(name); ok && !strings.HasPrefix(name, "_") {
			return r, nil
		}
		return undefinedAttr(v, name), nil
	}
	return c.r.getattr(v, name)
}

func filterBatch(c *Context, v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("batch", args, kw, "linecount", "fill_with")
	if err != nil {
		return nil, err
	}
	n, err := toInt(a[0])
	if err != nil {
		return nil, err
	}
	items, err := c.Iterate(v)
	if err != nil {
		return nil, err
	}
	var out []any
	var cur []any
	for _, it := range items {
		if len(cur) == n {
			out = append(out, value.NewList(cur...))
			cur = nil
		}
		cur = append(cur, it)
	}
	if len(cur) > 0 {
		if !isMissing(a[1]) && a[1] != nil {
			if n > 1<<20 {
				return nil, newError(KindRuntime, "MemoryError", "result too large")
			}
			for len(cur) < n {
				cur = append(cur, a[1])
			}
		}
		out = append(out, value.NewList(cur...))
	}
	return value.NewList(out...), nil
}

func strMethodFilter(name string) FilterFunc {
	return func(v any, args []any, kw *value.Map) (any, error) {
		s := pyStrOf(v)
		r, _, err := pyops.CallMethod(s, name, args, kw)
		if err != nil {
			return nil, err
		}
		if _, ok := v.(Markup); ok {
			return Markup(pyStrOf(r)), nil
		}
		return r, nil
	}
}

func filterCenter(v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("center", args, kw, "width")
	if err != nil {
		return nil, err
	}
	r, _, err := pyops.CallMethod(pyStrOf(v), "center", []any{or(a[0], int64(80))}, nil)
	return r, err
}

func filterLength(c *Context, v any, args []any, kw *value.Map) (any, error) {
	if u, ok := v.(*Undefined); ok {
		if c.r.strict(u) {
			return nil, u.err()
		}
		return int64(0), nil
	}
	switch x := v.(type) {
	case Markup:
		return int64(runeLen(string(x))), nil
	case Iterable:
		items, err := x.Iterate()
		return int64(len(items)), err
	}
	n, err := pyops.Len(v)
	return int64(n), err
}

func filterDefault(c *Context, v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("default", args, kw, "default_value", "boolean")
	if err != nil {
		return nil, err
	}
	def := or(a[0], "")
	_, isU := v.(*Undefined)
	if isU {
		return def, nil
	}
	if b := or(a[1], false); value.Truthy(b) {
		t, err := c.r.truth(v)
		if err != nil {
			return nil, err
		}
		if !t {
			return def, nil
		}
	}
	return v, nil
}

// sortKey lowers strings for case-insensitive comparisons.
func sortKey(v any, caseSensitive bool) any {
	if caseSensitive {
		return unmark(v)
	}
	switch x := v.(type) {
	case string:
		return pyops.Lower(x)
	case Markup:
		return pyops.Lower(string(x))
	}
	return v
}

func filterDictsort(c *Context, v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("dictsort", args, kw, "case_sensitive", "by", "reverse")
	if err != nil {
		return nil, err
	}
	m, ok := v.(*value.Map)
	if !ok {
		return nil, noAttr(v, "items")
	}
	cs := value.Truthy(or(a[0], false))
	pos := 0
	switch or(a[1], "key") {
	case "key":
	case "value":
		pos = 1
	default:
		return nil, errRuntime("You can only sort by either 'key' or 'value'")
	}
	items := make([]any, 0, m.Len())
	m.Range(func(k, v any) bool {
		items = append(items, value.Tuple{k, v})
		return true
	})
	key := value.Func(func(args []any, _ *value.Map) (any, error) {
		return sortKey(args[0].(value.Tuple)[pos], cs), nil
	})
	sorted, err := pyops.SortValues(items, key, value.Truthy(or(a[2], false)))
	if err != nil {
		return nil, err
	}
	return value.NewList(sorted...), nil
}

// noAttr is Python's AttributeError for a missing method.
func noAttr(v any, name string) error {
	return newError(KindRuntime, "AttributeError", fmt.Sprintf("'%s' object has no attribute '%s'", pyops.TypeName(v), name))
}

// strOnly fails as Python does when a str-only filter gets another type.
func strOnly(v any, method string) (string, bool, error) {
	switch x := v.(type) {
	case string:
		return x, false, nil
	case Markup:
		return string(x), true, nil
	}
	return "", false, noAttr(v, method)
}

func filterEscape(c *Context, v any, args []any, kw *value.Map) (any, error) {
	if m, ok := v.(Markup); ok {
		return m, nil
	}
	if u, ok := v.(*Undefined); ok {
		if c.r.strict(u) {
			return nil, u.err()
		}
		return Markup(""), nil
	}
	return Markup(escapeHTML(pyStrOf(v))), nil
}

func filterForceEscape(c *Context, v any, args []any, kw *value.Map) (any, error) {
	s, err := c.Str(v)
	if err != nil {
		return nil, err
	}
	return Markup(escapeHTML(s)), nil
}

func filterFilesize(v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("filesizeformat", args, kw, "binary")
	if err != nil {
		return nil, err
	}
	f, err := pyops.Float(v)
	if err != nil {
		return nil, err
	}
	binary := value.Truthy(or(a[0], false))
	base := 1000.0
	prefixes := []string{"kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"}
	if binary {
		base = 1024
		prefixes = []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"}
	}
	if f == 1 {
		return "1 Byte", nil
	}
	if f < base {
		return fmt.Sprintf("%d Bytes", int64(f)), nil
	}
	unit := 1.0
	for i, p := range prefixes {
		unit = math.Pow(base, float64(i+2))
		if f < unit {
			return fmtFixed(base*f/unit, 1) + " " + p, nil
		}
	}
	return fmtFixed(base*f/unit, 1) + " " + prefixes[len(prefixes)-1], nil
}

// fmtFixed is Python's "%.Nf".
func fmtFixed(f float64, prec int) string {
	s, err := pyops.PercentFormat("%."+strconv.Itoa(prec)+"f", f)
	if err != nil {
		return strconv.FormatFloat(f, 'f', prec, 64)
	}
	return s
}

func firstUndef(hint string) *Undefined { return &Undefined{name: nil, hint: hint} }

func filterFirst(c *Context, v any, args []any, kw *value.Map) (any, error) {
	items, err := c.Iterate(v)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return firstUndef("No first item, sequence was empty."), nil
	}
	return items[0], nil
}

func filterLast(c *Context, v any, args []any, kw *value.Map) (any, error) {
	switch v.(type) {
	case *value.Map, Iterable, *Undefined, string, Markup, *value.List, value.Tuple:
	default:
		return nil, errType("'%s' object is not reversible", pyops.TypeName(v))
	}
	items, err := c.Iterate(v)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return firstUndef("No last item, sequence was empty."), nil
	}
	return items[len(items)-1], nil
}

func filterFloat(v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("float", args, kw, "default")
	if err != nil {
		return nil, err
	}
	f, err := pyops.Float(unmark(v))
	if err != nil {
		return or(a[0], 0.0), nil
	}
	return f, nil
}

func filterInt(v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("int", args, kw, "default", "base")
	if err != nil {
		return nil, err
	}
	def := or(a[0], int64(0))
	base := 10
	if !isMissing(a[1]) {
		if base, err = toInt(a[1]); err != nil {
			return nil, err
		}
	}
	v = unmark(v)
	if s, ok := v.(string); ok {
		if base != 10 {
			r, err := pyops.Int(s, base)
			if err != nil {
				return def, nil
			}
			return r, nil
		}
		r, err := pyops.Int(s, 10)
		if err == nil {
			return r, nil
		}
		f, err := pyops.Float(s)
		if err != nil {
			return def, nil
		}
		r, err = pyops.Int(f, 10)
		if err != nil {
			// Jinja's do_int catches TypeError and ValueError only:
			// int(inf) raises its OverflowError.
			var pe *pyops.Error
			if errors.As(err, &pe) && pe.Type == "OverflowError" {
				return nil, err
			}
			return def, nil
		}
		return r, nil
	}
	r, err := pyops.Int(v, 10)
	if err != nil {
		return def, nil
	}
	return r, nil
}

func filterFormat(v any, args []any, kw *value.Map) (any, error) {
	var fa any = value.Tuple(args)
	if kw != nil && kw.Len() > 0 {
		fa = kw
	}
	if _, ok := v.(Markup); ok {
		fa = escapeArgs(fa)
	}
	s, err := pyops.PercentFormat(pyStrOf(v), fa)
	if err != nil {
		return nil, err
	}
	if _, ok := v.(Markup); ok {
		return Markup(s), nil
	}
	return s, nil
}

// attrGetter resolves a dotted attribute path ("a.b.0") as Jinja's
// make_attrgetter does (getitem per part, integers for digit parts).
func attrGetter(c *Context, path any, def any) func(any) (any, error) {
	var parts []any
	switch p := path.(type) {
	case string:
		for _, s := range strings.Split(p, ".") {
			if n, err := strconv.Atoi(s); err == nil {
				parts = append(parts, int64(n))
			} else {
				parts = append(parts, s)
			}
		}
	default:
		parts = []any{path}
	}
	return func(item any) (any, error) {
		var err error
		for _, part := range parts {
			item, err = c.r.getitem(item, part)
			if err != nil {
				return nil, err
			}
		}
		if _, ok := item.(*Undefined); ok && def != missing {
			return def, nil
		}
		return item, nil
	}
}

// groupTuple is the (grouper, list) pair groupby yields.
type groupTuple struct {
	grouper any
	list    *value.List
}

// Getattr returns an attribute of the value.
func (g *groupTuple) Getattr(name string) (any, bool) {
	switch name {
	case "grouper":
		return g.grouper, true
	case "list":
		return g.list, true
	}
	return nil, false
}

// Getitem returns an item of the value.
func (g *groupTuple) Getitem(key any) (any, bool, error) {
	v, err := pyops.GetItem(value.Tuple{g.grouper, g.list}, key)
	if err != nil {
		if lookupErr(err) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return v, true, nil
}

// Iterate lists the items a loop over the value sees.
func (g *groupTuple) Iterate() ([]any, error) { return []any{g.grouper, g.list}, nil }

// Repr is the value's Python repr.
func (g *groupTuple) Repr() string { return value.Repr(value.Tuple{g.grouper, g.list}) }

// PyTypeName is the Python type name used in error messages.
func (*groupTuple) PyTypeName() string { return "_GroupTuple" }

func filterGroupby(c *Context, v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("groupby", args, kw, "attribute", "default", "case_sensitive")
	if err != nil {
		return nil, err
	}
	def := a[1]
	if def == nil {
		def = missing
	}
	get := attrGetter(c, a[0], def)
	cs := value.Truthy(or(a[2], false))
	items, err := c.Iterate(v)
	if err != nil {
		return nil, err
	}
	keys := make([]any, len(items))
	for i, it := range items {
		k, err := get(it)
		if err != nil {
			return nil, err
		}
		keys[i] = k
	}
	if len(items) > 1 {
		for _, k := range keys {
			if u, ok := k.(*Undefined); ok {
				return nil, u.err()
			}
		}
	}
	idx := make([]any, len(items))
	for i := range idx {
		idx[i] = int64(i)
	}
	key := value.Func(func(args []any, _ *value.Map) (any, error) {
		return sortKey(keys[args[0].(int64)], cs), nil
	})
	sorted, err := pyops.SortValues(idx, key, false)
	if err != nil {
		return nil, err
	}
	var out []any
	var cur *groupTuple
	var curKey any
	for _, ix := range sorted {
		i := ix.(int64)
		k := sortKey(keys[i], cs)
		if cur == nil || !value.Equal(k, curKey) {
			cur = &groupTuple{grouper: keys[i], list: value.NewList()}
			curKey = k
			out = append(out, cur)
		}
		cur.list.Append(items[i])
	}
	return value.NewList(out...), nil
}

func filterIndent(c *Context, v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("indent", args, kw, "width", "first", "blank")
	if err != nil {
		return nil, err
	}
	var ind string
	switch w := or(a[0], int64(4)).(type) {
	case string:
		ind = w
	case Markup:
		ind = string(w)
	default:
		n, err := toInt(w)
		if err != nil {
			return nil, err
		}
		if n > 1<<16 {
			return nil, newError(KindRuntime, "MemoryError", "result too large")
		}
		ind = strings.Repeat(" ", max(n, 0))
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case Markup:
		s = string(x)
	case value.Tuple:
		return nil, errType("can only concatenate tuple (not \"str\") to tuple")
	case *value.List:
		return nil, noAttr(v, "splitlines")
	default:
		return nil, errType("unsupported operand type(s) for +=: '%s' and 'str'", pyops.TypeName(v))
	}
	_, isM := v.(Markup)
	nl := "\n"
	s += nl
	first := value.Truthy(or(a[1], false))
	blank := value.Truthy(or(a[2], false))
	var rv string
	if blank {
		rv = strings.Join(pyops.SplitLines(s, false), nl+ind)
	} else {
		lines := pyops.SplitLines(s, false)
		var b strings.Builder
		if len(lines) > 0 {
			b.WriteString(lines[0])
			lines = lines[1:]
		}
		for _, l := range lines {
			b.WriteString(nl)
			if l != "" {
				b.WriteString(ind)
			}
			b.WriteString(l)
		}
		rv = b.String()
	}
	if first {
		rv = ind + rv
	}
	if isM {
		return Markup(rv), nil
	}
	return rv, nil
}

func filterItems(c *Context, v any, args []any, kw *value.Map) (any, error) {
	switch x := v.(type) {
	case *Undefined:
		return value.NewList(), nil
	case *value.Map:
		out := make([]any, 0, x.Len())
		x.Range(func(k, v any) bool {
			out = append(out, value.Tuple{k, v})
			return true
		})
		return value.NewList(out...), nil
	}
	return nil, errType("Can only get item pairs from a mapping.")
}

func filterJoin(c *Context, v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("join", args, kw, "d", "attribute")
	if err != nil {
		return nil, err
	}
	items, err := c.Iterate(v)
	if err != nil {
		return nil, err
	}
	if !isMissing(a[1]) && a[1] != nil {
		get := attrGetter(c, a[1], missing)
		mapped := make([]any, len(items))
		for i, it := range items {
			if mapped[i], err = get(it); err != nil {
				return nil, err
			}
		}
		items = mapped
	}
	sep := or(a[0], "")
	if _, err := c.Str(sep); err != nil {
		return nil, err
	}
	// Jinja's do_join: without autoescaping a plain str join; with it,
	// a Markup join (escaping the plain parts) when the separator or an
	// item is Markup, else a plain join again.
	markup := false
	if c.Autoescape() {
		_, markup = sep.(Markup)
		for _, it := range items {
			if _, ok := it.(Markup); ok {
				markup = true
			}
		}
	}
	sepStr := pyStrOf(sep)
	if markup {
		if _, ok := sep.(Markup); !ok {
			sepStr = escapeHTML(sepStr)
		}
	}
	// The strings first, then the size, then the result: a join beyond
	// the size limit is refused before it is built.
	strs := make([]string, len(items))
	size := int64(len(sepStr)) * int64(max(len(items)-1, 0))
	for i, it := range items {
		s, err := c.Str(it)
		if err != nil {
			return nil, err
		}
		if markup {
			if _, ok := it.(Markup); !ok {
				s = escapeHTML(s)
			}
		}
		strs[i] = s
		size += int64(len(s))
	}
	if err := c.CheckSize(size); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.Grow(int(size))
	for i, s := range strs {
		if i > 0 {
			b.WriteString(sepStr)
		}
		b.WriteString(s)
	}
	if markup {
		return Markup(b.String()), nil
	}
	return b.String(), nil
}

func filterList(c *Context, v any, args []any, kw *value.Map) (any, error) {
	items, err := c.Iterate(v)
	if err != nil {
		return nil, err
	}
	return value.NewList(append([]any(nil), items...)...), nil
}

func filterLower(v any, args []any, kw *value.Map) (any, error) {
	s := plainSoftStr(v)
	if m, ok := s.(Markup); ok {
		return Markup(pyops.Lower(string(m))), nil
	}
	return pyops.Lower(s.(string)), nil
}

func filterUpper(v any, args []any, kw *value.Map) (any, error) {
	s := plainSoftStr(v)
	if m, ok := s.(Markup); ok {
		return Markup(pyops.Upper(string(m))), nil
	}
	return pyops.Upper(s.(string)), nil
}

// iterTruthy iterates v, treating a false value as empty (Jinja's
// "if value: for item in value").
func iterTruthy(c *Context, v any) ([]any, error) {
	if _, u := v.(*Undefined); !u && !value.Truthy(v) {
		return nil, nil
	}
	return c.Iterate(v)
}

func filterMap(c *Context, v any, args []any, kw *value.Map) (any, error) {
	items, err := iterTruthy(c, v)
	if err != nil {
		return nil, err
	}
	var f func(any) (any, error)
	if len(args) == 0 && kw != nil && kw.Has("attribute") {
		attr, _ := kw.Get("attribute")
		def := any(missing)
		if d, ok := kw.Get("default"); ok {
			def = d
		}
		for _, k := range kw.Keys() {
			if k != "attribute" && k != "default" {
				return nil, errType("Unexpected keyword argument %s", value.Repr(k))
			}
		}
		f = attrGetter(c, attr, def)
	} else {
		if len(args) == 0 {
			return nil, errRuntime("map requires a filter argument")
		}
		name, ok := args[0].(string)
		if !ok {
			return nil, errType("filter name must be a string")
		}
		if !c.r.env.HasFilter(name) {
			return nil, errRuntime("No filter named %s.", pyQuote(name))
		}
		rest := args[1:]
		f = func(it any) (any, error) { return c.ApplyFilter(name, it, rest, kw) }
	}
	out := make([]any, len(items))
	for i, it := range items {
		if out[i], err = f(it); err != nil {
			return nil, err
		}
	}
	return value.NewList(out...), nil
}

func minMax(c *Context, v any, args []any, kw *value.Map, wantMax bool) (any, error) {
	a, err := bind(map[bool]string{true: "max", false: "min"}[wantMax], args, kw, "case_sensitive", "attribute")
	if err != nil {
		return nil, err
	}
	items, err := c.Iterate(v)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return firstUndef("No aggregated item, sequence was empty."), nil
	}
	cs := value.Truthy(or(a[0], false))
	get := func(x any) (any, error) { return x, nil }
	if !isMissing(a[1]) && a[1] != nil {
		get = attrGetter(c, a[1], missing)
	}
	best := items[0]
	bk, err := get(best)
	if err != nil {
		return nil, err
	}
	bk = sortKey(bk, cs)
	for _, it := range items[1:] {
		k, err := get(it)
		if err != nil {
			return nil, err
		}
		k = sortKey(k, cs)
		var better bool
		if wantMax {
			better, err = pyops.Compare(">", k, bk)
		} else {
			better, err = pyops.Compare("<", k, bk)
		}
		if err != nil {
			return nil, err
		}
		if better {
			best, bk = it, k
		}
	}
	return best, nil
}

func filterMax(c *Context, v any, args []any, kw *value.Map) (any, error) {
	return minMax(c, v, args, kw, true)
}

func filterMin(c *Context, v any, args []any, kw *value.Map) (any, error) {
	return minMax(c, v, args, kw, false)
}

func filterPprint(v any, args []any, kw *value.Map) (any, error) {
	return pyops.PFormat(v), nil
}

func filterRandom(c *Context, v any, args []any, kw *value.Map) (any, error) {
	items, err := c.Iterate(v)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return firstUndef("No random item, sequence was empty."), nil
	}
	return items[rand.IntN(len(items))], nil
}

func selectFilter(keep, byAttr bool) ContextFilterFunc {
	return func(c *Context, v any, args []any, kw *value.Map) (any, error) {
		items, err := iterTruthy(c, v)
		if err != nil {
			return nil, err
		}
		get := func(x any) (any, error) { return x, nil }
		if byAttr {
			if len(args) == 0 {
				return nil, errType("Missing parameter for attribute name")
			}
			get = attrGetter(c, args[0], missing)
			args = args[1:]
		}
		var test func(any) (bool, error)
		if len(args) == 0 {
			test = func(x any) (bool, error) { return c.r.truth(x) }
		} else {
			name, ok := args[0].(string)
			if !ok {
				return nil, errType("test name must be a string")
			}
			if !c.r.env.HasTest(name) {
				return nil, errRuntime("No test named %s.", pyQuote(name))
			}
			rest := args[1:]
			test = func(x any) (bool, error) { return c.ApplyTest(name, x, rest, kw) }
		}
		out := []any{}
		for _, it := range items {
			x, err := get(it)
			if err != nil {
				return nil, err
			}
			ok, err := test(x)
			if err != nil {
				return nil, err
			}
			if ok == keep {
				out = append(out, it)
			}
		}
		return value.NewList(out...), nil
	}
}

func filterReplace(c *Context, v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("replace", args, kw, "old", "new", "count")
	if err != nil {
		return nil, err
	}
	s, err := c.Str(v)
	if err != nil {
		return nil, err
	}
	margs := []any{pyStrOf(a[0]), pyStrOf(a[1])}
	if !isMissing(a[2]) && a[2] != nil {
		margs = append(margs, a[2])
	}
	// Jinja's do_replace: without autoescaping a plain str replace, even
	// on Markup; with it, Markup's replace (escaping plain arguments) when
	// the value is Markup or is escaped because old (or new, for a plain
	// value) is Markup.
	if !c.Autoescape() {
		r, _, err := pyops.CallMethod(s, "replace", margs, nil)
		return r, err
	}
	_, isM := v.(Markup)
	_, oldM := a[0].(Markup)
	_, newM := a[1].(Markup)
	if oldM || (newM && !isM) {
		if !isM {
			s = escapeHTML(s)
		}
		isM = true
	}
	if !isM {
		r, _, err := pyops.CallMethod(s, "replace", margs, nil)
		return r, err
	}
	if !oldM {
		margs[0] = escapeHTML(margs[0].(string))
	}
	if !newM {
		margs[1] = escapeHTML(margs[1].(string))
	}
	r, _, err := pyops.CallMethod(s, "replace", margs, nil)
	if err != nil {
		return nil, err
	}
	return Markup(pyStrOf(r)), nil
}

func filterReverse(c *Context, v any, args []any, kw *value.Map) (any, error) {
	switch x := v.(type) {
	case string:
		rs := []rune(x)
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
		return string(rs), nil
	case Markup:
		r, err := filterReverse(c, string(x), nil, nil)
		return Markup(r.(string)), err
	}
	items, err := c.Iterate(v)
	if err != nil {
		if asError(err).Kind == KindUndefined {
			return nil, err
		}
		return nil, newError(KindRuntime, "FilterArgumentError", "argument must be iterable")
	}
	out := make([]any, len(items))
	for i, it := range items {
		out[len(items)-1-i] = it
	}
	return &reversedIter{items: out}, nil
}

// reversedIter is the iterator reverse returns for sequences; printing it
// shows Python's iterator repr.
type reversedIter struct{ items []any }

// Iterate lists the items a loop over the value sees.
func (r *reversedIter) Iterate() ([]any, error) { return r.items, nil }

// Repr is the value's Python repr.
func (r *reversedIter) Repr() string { return "<list_reverseiterator object>" }

// PyTypeName is the Python type name used in error messages.
func (*reversedIter) PyTypeName() string { return "list_reverseiterator" }

func filterRoundCtx(c *Context, v any, args []any, kw *value.Map) (any, error) {
	if u, ok := v.(*Undefined); ok {
		a, err := bind("round", args, kw, "precision", "method")
		if err != nil {
			return nil, err
		}
		if m := or(a[1], "common"); m == "common" {
			return nil, errType("type %s doesn't define __round__ method", c.r.undefTypeName(u))
		}
		return nil, u.err()
	}
	return filterRound(v, args, kw)
}

func filterRound(v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("round", args, kw, "precision", "method")
	if err != nil {
		return nil, err
	}
	prec, err := toInt(or(a[0], int64(0)))
	if err != nil {
		return nil, err
	}
	method := or(a[1], "common")
	switch method {
	case "common":
		switch x := v.(type) {
		case bool, int64, *big.Int:
			if prec >= 0 {
				if b, ok := x.(bool); ok {
					if b {
						return int64(1), nil
					}
					return int64(0), nil
				}
				return x, nil
			}
			n, _ := value.AsBig(x)
			return value.NormInt(roundBigInt(n, -prec)), nil
		case float64:
			return pyRound(x, prec), nil
		}
		return nil, errType("type %s doesn't define __round__ method", pyops.TypeName(v))
	case "ceil", "floor":
		if u, ok := v.(*Undefined); ok {
			return nil, u.err()
		}
		var scale any = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(prec, 0))), nil)
		if prec < 0 {
			scale = math.Pow(10, float64(prec))
		}
		scale = normAny(scale)
		m, err := pyops.BinaryOp("*", v, scale)
		if err != nil {
			return nil, err
		}
		if !value.IsNumber(m) {
			return nil, errType("must be real number, not %s", pyops.TypeName(m))
		}
		f, err := pyops.Float(m)
		if err != nil {
			return nil, err
		}
		if method == "ceil" {
			f = math.Ceil(f)
		} else {
			f = math.Floor(f)
		}
		return pyops.BinaryOp("/", int64(f), scale)
	}
	return nil, errRuntime("method must be common, ceil or floor")
}

func normAny(v any) any {
	if b, ok := v.(*big.Int); ok {
		return value.NormInt(b)
	}
	return v
}

// roundBigInt rounds n to a multiple of 10**k, halves to even.
func roundBigInt(n *big.Int, k int) *big.Int {
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil)
	q, r := new(big.Int).QuoRem(n, p, new(big.Int))
	neg := n.Sign() < 0
	r.Abs(r)
	twice := new(big.Int).Mul(r, big.NewInt(2))
	c := twice.Cmp(p)
	if c > 0 || c == 0 && q.Bit(0) == 1 {
		if neg {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q.Mul(q, p)
}

// pyRound is Python's round(f, n): correctly rounded, halves to even.
func pyRound(f float64, n int) float64 {
	if math.IsInf(f, 0) || math.IsNaN(f) || f == 0 {
		return f
	}
	if n >= 0 {
		if n > 330 {
			return f
		}
		r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', n, 64), 64)
		return r
	}
	if n < -330 {
		return math.Copysign(0, f)
	}
	exact := new(big.Float).SetPrec(2000).SetFloat64(f)
	p := new(big.Float).SetPrec(2000).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-n)), nil))
	q := new(big.Float).SetPrec(2000).Quo(exact, p)
	i, _ := q.Int(nil) // truncates toward zero
	frac := new(big.Float).SetPrec(2000).Sub(q, new(big.Float).SetPrec(2000).SetInt(i))
	frac.Abs(frac)
	c := frac.Cmp(big.NewFloat(0.5))
	if c > 0 || c == 0 && i.Bit(0) == 1 {
		if q.Sign() < 0 {
			i.Sub(i, big.NewInt(1))
		} else {
			i.Add(i, big.NewInt(1))
		}
	}
	res := new(big.Float).SetPrec(2000).Mul(new(big.Float).SetPrec(2000).SetInt(i), p)
	out, _ := res.Float64()
	if out == 0 {
		return math.Copysign(0, f)
	}
	return out
}

func filterSlice(c *Context, v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("slice", args, kw, "slices", "fill_with")
	if err != nil {
		return nil, err
	}
	items, err := c.Iterate(v)
	if err != nil {
		return nil, err
	}
	n, err := toInt(a[0])
	if err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, newError(KindRuntime, "ZeroDivisionError", "integer division or modulo by zero")
	}
	fill := a[1]
	per := len(items) / n
	extra := len(items) % n
	offset := 0
	var out []any
	for i := 0; i < n; i++ {
		if err := c.r.step(); err != nil {
			return nil, err
		}
		if len(out) > 1<<20 {
			return nil, newError(KindRuntime, "MemoryError", "result too large")
		}
		start := offset + i*per
		if i < extra {
			offset++
		}
		end := offset + (i+1)*per
		tmp := append([]any(nil), items[start:end]...)
		if !isMissing(fill) && fill != nil && i >= extra {
			tmp = append(tmp, fill)
		}
		out = append(out, value.NewList(tmp...))
	}
	return value.NewList(out...), nil
}

func filterSort(c *Context, v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("sort", args, kw, "reverse", "case_sensitive", "attribute")
	if err != nil {
		return nil, err
	}
	items, err := c.Iterate(v)
	if err != nil {
		return nil, err
	}
	cs := value.Truthy(or(a[1], false))
	var get func(any) (any, error)
	if attr, ok := a[2].(string); ok && strings.Contains(attr, ",") {
		var getters []func(any) (any, error)
		for _, part := range strings.Split(attr, ",") {
			getters = append(getters, attrGetter(c, part, missing))
		}
		get = func(x any) (any, error) {
			t := make(value.Tuple, len(getters))
			for i, g := range getters {
				v, err := g(x)
				if err != nil {
					return nil, err
				}
				if u, ok := v.(*Undefined); ok {
					return nil, u.err()
				}
				t[i] = sortKey(v, cs)
			}
			return t, nil
		}
	} else if !isMissing(a[2]) && a[2] != nil {
		get = attrGetter(c, a[2], missing)
	}
	key := value.Func(func(args []any, _ *value.Map) (any, error) {
		x := args[0]
		if get != nil {
			var err error
			if x, err = get(x); err != nil {
				return nil, err
			}
			if u, ok := x.(*Undefined); ok {
				return nil, u.err()
			}
		}
		return sortKey(x, cs), nil
	})
	sorted, err := pyops.SortValues(append([]any(nil), items...), key, value.Truthy(or(a[0], false)))
	if err != nil {
		return nil, err
	}
	return value.NewList(sorted...), nil
}

// plainSoftStr is soft_str for plain filters: strict undefined values
// never reach them, lenient ones print as "".
func plainSoftStr(v any) any {
	switch x := v.(type) {
	case Markup:
		return x
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case *Undefined:
		return ""
	}
	return value.Str(v)
}

func filterString(v any, args []any, kw *value.Map) (any, error) {
	return plainSoftStr(v), nil
}

var (
	commentRe = regexp.MustCompile(`(?s)<!--.*?-->`)
	tagRe     = regexp.MustCompile(`(?s)<.*?>`)
)

func filterStriptags(c *Context, v any, args []any, kw *value.Map) (any, error) {
	s, err := c.Str(v)
	if err != nil {
		return nil, err
	}
	return stripTags(s), nil
}

// stripTags is Markup.striptags: comments out, then tags, whitespace
// runs collapsed, then entities decoded.
func stripTags(s string) string {
	s = commentRe.ReplaceAllString(s, "")
	s = tagRe.ReplaceAllString(s, "")
	s = strings.Join(strings.Fields(s), " ")
	return html.UnescapeString(s)
}

func filterSum(c *Context, v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("sum", args, kw, "attribute", "start")
	if err != nil {
		return nil, err
	}
	items, err := c.Iterate(v)
	if err != nil {
		return nil, err
	}
	var total any = or(a[1], int64(0))
	switch total.(type) {
	case string, Markup:
		return nil, errType("sum() can't sum strings [use ''.join(seq) instead]")
	}
	get := func(x any) (any, error) { return x, nil }
	if !isMissing(a[0]) && a[0] != nil {
		get = attrGetter(c, a[0], missing)
	}
	for _, it := range items {
		x, err := get(it)
		if err != nil {
			return nil, err
		}
		if total, err = c.r.binop("+", total, x); err != nil {
			return nil, err
		}
	}
	return total, nil
}

func filterTitle(c *Context, v any, args []any, kw *value.Map) (any, error) {
	s, err := softStr(c, v)
	if err != nil {
		return nil, err
	}
	str := pyStrOf(s)
	out := titleJinja(str)
	if _, ok := s.(Markup); ok {
		return Markup(out), nil
	}
	return out, nil
}

var titleWordRe = regexp.MustCompile(`([-\s(\[{<]+)`)

// titleJinja is Jinja's do_title: each word (separated by whitespace, '-'
// and opening brackets) gets its first character upper-cased and the rest
// lower-cased.
func titleJinja(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range titleWordRe.FindAllStringIndex(s, -1) {
		b.WriteString(capWord(s[last:m[0]]))
		b.WriteString(s[m[0]:m[1]])
		last = m[1]
	}
	b.WriteString(capWord(s[last:]))
	return b.String()
}

func capWord(w string) string {
	if w == "" {
		return w
	}
	r, n := utf8.DecodeRuneInString(w)
	return pyops.Upper(string(r)) + pyops.Lower(w[n:])
}

func filterTojson(c *Context, v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("tojson", args, kw, "indent")
	if err != nil {
		return nil, err
	}
	if u, ok := v.(*Undefined); ok {
		return nil, errType("Object of type %s is not JSON serializable", c.r.undefTypeName(u))
	}
	opts := value.JSONOptions{SortKeys: true, EnsureASCII: true, Indent: -1}
	if !isMissing(a[0]) && a[0] != nil {
		n, err := toInt(a[0])
		if err != nil {
			return nil, err
		}
		opts.Indent = n
	}
	s := value.ToJSON(plainData(v), opts)
	s = strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`, "'", `\u0027`).Replace(s)
	return Markup(s), nil
}

// plainData converts engine values (Markup) to plain data for serializers.
func plainData(v any) any {
	switch x := v.(type) {
	case Markup:
		return string(x)
	case *value.List:
		out := make([]any, len(x.Items))
		for i, e := range x.Items {
			out[i] = plainData(e)
		}
		return value.NewList(out...)
	case value.Tuple:
		out := make(value.Tuple, len(x))
		for i, e := range x {
			out[i] = plainData(e)
		}
		return out
	case *value.Map:
		m := value.NewMap(x.Len())
		x.Range(func(k, v any) bool {
			m.Set(plainData(k), plainData(v))
			return true
		})
		return m
	}
	return v
}

func filterTrim(c *Context, v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("trim", args, kw, "chars")
	if err != nil {
		return nil, err
	}
	s, err := softStr(c, v)
	if err != nil {
		return nil, err
	}
	var margs []any
	if !isMissing(a[0]) {
		margs = []any{a[0]}
	}
	r, _, err := pyops.CallMethod(pyStrOf(s), "strip", margs, nil)
	if err != nil {
		return nil, err
	}
	if _, ok := s.(Markup); ok {
		return Markup(pyStrOf(r)), nil
	}
	return r, nil
}

func filterTruncate(c *Context, v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("truncate", args, kw, "length", "killwords", "end", "leeway")
	if err != nil {
		return nil, err
	}
	s, isStr := v.(string)
	if m, ok := v.(Markup); ok {
		s, isStr = string(m), true
	}
	if u, ok := v.(*Undefined); ok {
		if c.r.strict(u) {
			return nil, u.err()
		}
		s, isStr = "", true
	}
	if !isStr {
		if _, err := pyops.Len(v); err != nil {
			return nil, err
		}
	}
	length, err := toInt(or(a[0], int64(255)))
	if err != nil {
		return nil, err
	}
	killwords := value.Truthy(or(a[1], false))
	end := pyStrOf(or(a[2], "..."))
	leeway := 5
	if !isMissing(a[3]) && a[3] != nil {
		if leeway, err = toInt(a[3]); err != nil {
			return nil, err
		}
	}
	if length < runeLen(end) {
		return nil, newError(KindRuntime, "AssertionError", fmt.Sprintf("expected length >= %d, got %d", runeLen(end), length))
	}
	if leeway < 0 {
		return nil, newError(KindRuntime, "AssertionError", fmt.Sprintf("expected leeway >= 0, got %d", leeway))
	}
	if !isStr {
		if n, _ := pyops.Len(v); n <= length+leeway {
			return v, nil
		}
		return nil, errType("can only concatenate list (not \"str\") to list")
	}
	rs := []rune(s)
	if len(rs) <= length+leeway {
		return s, nil
	}
	cut := string(rs[:length-runeLen(end)])
	if killwords {
		return cut + end, nil
	}
	if i := strings.LastIndexByte(cut, ' '); i >= 0 {
		cut = cut[:i]
	}
	return cut + end, nil
}

func filterUnique(c *Context, v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("unique", args, kw, "case_sensitive", "attribute")
	if err != nil {
		return nil, err
	}
	items, err := c.Iterate(v)
	if err != nil {
		return nil, err
	}
	cs := value.Truthy(or(a[0], false))
	get := func(x any) (any, error) { return x, nil }
	if !isMissing(a[1]) && a[1] != nil {
		get = attrGetter(c, a[1], missing)
	}
	seen := value.NewMap(len(items))
	out := []any{}
	for _, it := range items {
		k, err := get(it)
		if err != nil {
			return nil, err
		}
		k = sortKey(k, cs)
		if !value.Hashable(k) {
			return nil, errType("unhashable type: '%s'", pyops.TypeName(k))
		}
		if seen.Has(k) {
			continue
		}
		seen.Set(k, true)
		out = append(out, it)
	}
	return &listIter{items: out}, nil
}

// listIter is a generator result (unique): iterable, printed as a
// generator object.
type listIter struct{ items []any }

// Iterate lists the items a loop over the value sees.
func (l *listIter) Iterate() ([]any, error) { return l.items, nil }

// Repr is the value's Python repr.
func (l *listIter) Repr() string { return "<generator object sync_do_unique>" }

// PyTypeName is the Python type name used in error messages.
func (*listIter) PyTypeName() string { return "generator" }

func urlQuote(s string, safe string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_.-~", c) >= 0 || strings.IndexByte(safe, c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func qsQuote(s string) string { return strings.ReplaceAll(urlQuote(s, ""), "%20", "+") }

func filterUrlencode(c *Context, v any, args []any, kw *value.Map) (any, error) {
	switch x := v.(type) {
	case string:
		return urlQuote(x, "/"), nil
	case Markup:
		return urlQuote(string(x), "/"), nil
	case *value.Map:
		var parts []string
		x.Range(func(k, v any) bool {
			parts = append(parts, qsQuote(pyStrOf(k))+"="+qsQuote(pyStrOf(v)))
			return true
		})
		return strings.Join(parts, "&"), nil
	case *value.List, value.Tuple:
		items, _ := c.Iterate(v)
		var parts []string
		for _, it := range items {
			kv, err := c.Iterate(it)
			if err != nil || len(kv) != 2 {
				return nil, errValue("too many values to unpack")
			}
			parts = append(parts, qsQuote(pyStrOf(kv[0]))+"="+qsQuote(pyStrOf(kv[1])))
		}
		return strings.Join(parts, "&"), nil
	}
	s, err := c.Str(v)
	if err != nil {
		return nil, err
	}
	return urlQuote(s, "/"), nil
}

// urlize's patterns, as Jinja 3.1 writes them (\w and \d in Python's
// Unicode sense).
var (
	urlizeHeadRe = regexp.MustCompile(`^(?:[(<]|&lt;)+`)
	urlizeTailRe = regexp.MustCompile(`(?:[)>.,\n]|&gt;)+$`)
	httpRe       = regexp.MustCompile(`(?i)^(?:(?:https?://|www\.)(?:(?:[\p{L}\p{N}_%-]+\.)+)?(?:[a-z]{2,63}|xn--[\p{L}\p{N}_%]{2,59})` +
		`|(?:[\p{L}\p{N}_%-]{2,63}\.)+(?:com|net|int|edu|gov|org|info|mil)` +
		`|https?://(?:\p{Nd}{1,3}(?:\.\p{Nd}{1,3}){3}|\[(?:[\p{Nd}a-f]{0,4}:){2}(?:[\p{Nd}a-f]{0,4}:?){1,6}\]))` +
		`(?::\p{Nd}{1,5})?(?:[/?#]\S*)?$`)
)

func hasAnySuffix(s string, suffixes ...string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

func filterUrlize(c *Context, v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("urlize", args, kw, "trim_url_limit", "nofollow", "target", "rel", "extra_schemes")
	if err != nil {
		return nil, err
	}
	s, err := c.Str(v)
	if err != nil {
		return nil, err
	}
	rel := []string{}
	if r, ok := a[3].(string); ok {
		rel = strings.Fields(r)
	}
	if value.Truthy(or(a[1], false)) {
		rel = append(rel, "nofollow")
	}
	rel = append(rel, "noopener")
	relSet := map[string]bool{}
	var relList []string
	for _, r := range rel {
		if !relSet[r] {
			relSet[r] = true
			relList = append(relList, r)
		}
	}
	sortStrings(relList)
	relAttr := ` rel="` + escapeHTML(strings.Join(relList, " ")) + `"`
	targetAttr := ""
	if t, ok := a[2].(string); ok {
		targetAttr = ` target="` + escapeHTML(t) + `"`
	}
	limit := -1
	if n, ok := a[0].(int64); ok {
		limit = int(n)
	}
	var schemes []string
	if !isMissing(a[4]) && a[4] != nil {
		list, err := c.Iterate(a[4])
		if err != nil {
			return nil, err
		}
		for _, x := range list {
			sch, _ := x.(string)
			if !uriSchemeRe.MatchString(sch) {
				return nil, newError(KindRuntime, "FilterArgumentError", value.Repr(x)+" is not a valid URI scheme prefix.")
			}
			schemes = append(schemes, sch)
		}
	}
	trim := func(x string) string {
		if limit >= 0 && len([]rune(x)) > limit {
			return string([]rune(x)[:limit]) + "..."
		}
		return x
	}
	words := splitKeepSpace(escapeHTML(s))
	for i, w := range words {
		head, middle, tail := "", w, ""
		if m := urlizeHeadRe.FindString(middle); m != "" {
			head, middle = m, middle[len(m):]
		}
		if hasAnySuffix(middle, ")", ">", ".", ",", "\n", "&gt;") {
			if loc := urlizeTailRe.FindStringIndex(middle); loc != nil {
				tail, middle = middle[loc[0]:], middle[:loc[0]]
			}
		}
		// prefer balancing parentheses in URLs to ignoring a trailing one
		for _, p := range [][2]string{{"(", ")"}, {"<", ">"}, {"&lt;", "&gt;"}} {
			open := strings.Count(middle, p[0])
			if open <= strings.Count(middle, p[1]) {
				continue
			}
			for n := min(open, strings.Count(tail, p[1])); n > 0; n-- {
				end := strings.Index(tail, p[1]) + len(p[1])
				middle += tail[:end]
				tail = tail[end:]
			}
		}
		switch {
		case httpRe.MatchString(middle):
			href := middle
			if !strings.HasPrefix(middle, "https://") && !strings.HasPrefix(middle, "http://") {
				href = "https://" + middle
			}
			middle = `<a href="` + href + `"` + relAttr + targetAttr + `>` + trim(middle) + `</a>`
		case strings.HasPrefix(middle, "mailto:") && emailRe.MatchString(middle[7:]):
			middle = `<a href="` + middle + `">` + middle[7:] + `</a>`
		case strings.Contains(middle, "@") && !strings.HasPrefix(middle, "www.") && !strings.HasPrefix(middle, "@") &&
			!strings.Contains(middle, ":") && emailRe.MatchString(middle):
			middle = `<a href="mailto:` + middle + `">` + middle + `</a>`
		default:
			for _, sch := range schemes {
				if middle != sch && strings.HasPrefix(middle, sch) {
					middle = `<a href="` + middle + `"` + relAttr + targetAttr + `>` + middle + `</a>`
				}
			}
		}
		words[i] = head + middle + tail
	}
	out := strings.Join(words, "")
	if c.Autoescape() {
		return Markup(out), nil
	}
	return out, nil
}

var emailRe = regexp.MustCompile(`^\S+@\w[\w.-]*\.\w+$`)

// uriSchemeRe is Jinja's _uri_scheme_re: what extra_schemes may hold.
var uriSchemeRe = regexp.MustCompile(`^[\w.+-]{2,}:/{0,2}$`)

func splitKeepSpace(s string) []string {
	var out []string
	start := 0
	inSpace := false
	for i, r := range s {
		sp := unicode.IsSpace(r)
		if i > 0 && sp != inSpace {
			out = append(out, s[start:i])
			start = i
		}
		inSpace = sp
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

var wordRe = regexp.MustCompile(`\w+`)

func filterWordcount(c *Context, v any, args []any, kw *value.Map) (any, error) {
	s, err := c.Str(v)
	if err != nil {
		return nil, err
	}
	return int64(len(wordRe.FindAllString(s, -1))), nil
}

func filterWordwrap(c *Context, v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("wordwrap", args, kw, "width", "break_long_words", "wrapstring", "break_on_hyphens")
	if err != nil {
		return nil, err
	}
	s, _, err := strOnly(v, "splitlines")
	if err != nil {
		return nil, err
	}
	width, err := toInt(or(a[0], int64(79)))
	if err != nil {
		return nil, err
	}
	if width <= 0 {
		return nil, errValue("invalid width %d (must be > 0)", width)
	}
	wrapstring := "\n"
	if ws, ok := a[2].(string); ok {
		wrapstring = ws
	}
	breakLong := value.Truthy(or(a[1], true))
	breakHyphens := value.Truthy(or(a[3], true))
	var out []string
	for _, line := range pyops.SplitLines(s, false) {
		out = append(out, textwrap(line, width, breakLong, breakHyphens)...)
	}
	return strings.Join(out, wrapstring), nil
}

func filterXmlattr(c *Context, v any, args []any, kw *value.Map) (any, error) {
	a, err := bind("xmlattr", args, kw, "autospace")
	if err != nil {
		return nil, err
	}
	m, ok := v.(*value.Map)
	if !ok {
		return nil, noAttr(v, "items")
	}
	var parts []string
	var err2 error
	m.Range(func(k, val any) bool {
		if val == nil {
			return true
		}
		if _, u := val.(*Undefined); u {
			return true
		}
		ks := pyStrOf(k)
		if strings.ContainsAny(ks, " />=") || strings.IndexFunc(ks, unicode.IsSpace) >= 0 {
			err2 = errValue("Invalid character in attribute name: %s", value.Repr(ks))
			return false
		}
		parts = append(parts, escapeHTML(ks)+`="`+escapeHTML(pyStrOf(val))+`"`)
		return true
	})
	if err2 != nil {
		return nil, err2
	}
	rv := strings.Join(parts, " ")
	if rv != "" && value.Truthy(or(a[0], true)) {
		rv = " " + rv
	}
	return Markup(rv), nil
}

// textwrap wraps one paragraph as Python's textwrap.wrap does with
// Jinja's settings (tabs and whitespace kept, whitespace dropped at line
// edges).
func textwrap(text string, width int, breakLong, breakHyphens bool) []string {
	chunks := splitChunks(text, breakHyphens)
	// reverse: the next chunk is at the end
	for i, j := 0, len(chunks)-1; i < j; i, j = i+1, j-1 {
		chunks[i], chunks[j] = chunks[j], chunks[i]
	}
	isBlank := func(r []rune) bool { return strings.TrimSpace(string(r)) == "" }
	var lines []string
	for len(chunks) > 0 {
		var cur [][]rune
		curLen := 0
		if isBlank(chunks[len(chunks)-1]) && len(lines) > 0 {
			chunks = chunks[:len(chunks)-1]
		}
		for len(chunks) > 0 {
			l := len(chunks[len(chunks)-1])
			if curLen+l > width {
				break
			}
			cur = append(cur, chunks[len(chunks)-1])
			chunks = chunks[:len(chunks)-1]
			curLen += l
		}
		if len(chunks) > 0 && len(chunks[len(chunks)-1]) > width {
			spaceLeft := width - curLen
			if width < 1 {
				spaceLeft = 1
			}
			chunk := chunks[len(chunks)-1]
			if breakLong {
				end := spaceLeft
				if breakHyphens && len(chunk) > spaceLeft {
					hyphen := -1
					for k := min(spaceLeft, len(chunk)) - 1; k >= 0; k-- {
						if chunk[k] == '-' {
							hyphen = k
							break
						}
					}
					if hyphen > 0 && strings.Trim(string(chunk[:hyphen]), "-") != "" {
						end = hyphen + 1
					}
				}
				cur = append(cur, chunk[:end])
				chunks[len(chunks)-1] = chunk[end:]
			} else if len(cur) == 0 {
				cur = append(cur, chunk)
				chunks = chunks[:len(chunks)-1]
			}
		}
		if len(cur) > 0 && isBlank(cur[len(cur)-1]) {
			cur = cur[:len(cur)-1]
		}
		if len(cur) > 0 {
			var b strings.Builder
			for _, c := range cur {
				b.WriteString(string(c))
			}
			lines = append(lines, b.String())
		}
	}
	return lines
}

// splitChunks splits text into whitespace runs and words, and words after
// inner hyphens (letter-letter-hyphen-letter) when hyphens is set.
func splitChunks(s string, hyphens bool) [][]rune {
	var out [][]rune
	rs := []rune(s)
	i := 0
	for i < len(rs) {
		j := i
		if unicode.IsSpace(rs[i]) {
			for j < len(rs) && unicode.IsSpace(rs[j]) {
				j++
			}
			out = append(out, rs[i:j])
			i = j
			continue
		}
		for j < len(rs) && !unicode.IsSpace(rs[j]) {
			j++
		}
		word := rs[i:j]
		start := 0
		if hyphens {
			for k := 2; k+1 < len(word); k++ {
				if word[k] == '-' && unicode.IsLetter(word[k-1]) && unicode.IsLetter(word[k-2]) && unicode.IsLetter(word[k+1]) {
					out = append(out, word[start:k+1])
					start = k + 1
				}
			}
		}
		out = append(out, word[start:])
		i = j
	}
	return out
}
