package outputters

import (
	"sort"
	"strings"

	"brine/internal/output"
	"brine/internal/pyops"
	"brine/internal/value"
)

func init() {
	output.Register("nested", nestedOut, "Salt's default indented tree (salt/output/nested.py).")
}

func nestedOut(data any, o *output.Options) (string, error) {
	base := 0
	if v, ok := o.Opts.Get("nested_indent"); ok {
		if n, isInt := v.(int64); isInt {
			base = int(n)
		}
	}
	n := &Nested{C: output.GetColors(o.Color), Retcode: o.Retcode, KeepEsc: keepEsc(o)}
	lines := n.Display(data, base, "", nil)
	return strings.Join(lines, "\n"), nil
}

// Nested renders data as salt/output/nested.py does; the highstate
// outputter uses it for changes.
type Nested struct {
	C       output.Colors
	Retcode int
	// KeepEsc keeps ESC characters in strings (strip_colors: False);
	// by default they become '?'.
	KeepEsc bool
}

// keepEsc reports whether the option strip_colors is off.
func keepEsc(o *output.Options) bool {
	if o.Opts == nil {
		return false
	}
	v, ok := o.Opts.Get("strip_colors")
	return ok && !value.Truthy(v)
}

func (n *Nested) ustring(indent int, color, msg, prefix, suffix string) string {
	return strings.Repeat(" ", indent) + color + prefix + msg + n.C.EndC + suffix
}

// Display appends the lines for ret at indent with prefix to out.
func (n *Nested) Display(ret any, indent int, prefix string, out []string) []string {
	if b, ok := ret.([]byte); ok {
		ret = string(b)
	}
	switch x := ret.(type) {
	case nil, bool:
		return append(out, n.ustring(indent, n.C.LightYellow, value.Str(x), prefix, ""))
	case string:
		first := true
		for _, line := range pyops.SplitLines(x, false) {
			lp := prefix
			if !first {
				lp = strings.Repeat(" ", len(prefix))
			}
			if !n.KeepEsc {
				line = stripEsc(line)
			}
			out = append(out, n.ustring(indent, n.C.Green, line, lp, ""))
			first = false
		}
		return out
	case *value.List:
		return n.seq(x.Items, indent, out)
	case value.Tuple:
		return n.seq(x, indent, out)
	case *value.Map:
		color := n.C.Cyan
		if n.Retcode != 0 {
			color = n.C.Red
		}
		if indent != 0 {
			out = append(out, n.ustring(indent, color, "----------", "", ""))
		}
		keys := x.Keys() // an OrderedDict keeps its order
		if !x.Ordered() {
			keys = sortedKeys(x)
		}
		for _, k := range keys {
			v, _ := x.Get(k)
			out = append(out, n.ustring(indent, color, value.Str(k), prefix, ":"))
			out = n.Display(v, indent+4, "", out)
		}
		return out
	}
	if value.IsNumber(ret) {
		return append(out, n.ustring(indent, n.C.LightYellow, value.Repr(ret), prefix, ""))
	}
	return out
}

func (n *Nested) seq(items []any, indent int, out []string) []string {
	color := n.C.Green
	if n.Retcode != 0 {
		color = n.C.Red
	}
	for _, it := range items {
		switch it.(type) {
		case *value.List, value.Tuple, *value.Map:
			out = append(out, n.ustring(indent, color, "|_", "", ""))
			p := "- "
			if _, isMap := it.(*value.Map); isMap {
				p = ""
			}
			out = n.Display(it, indent+2, p, out)
		default:
			out = n.Display(it, indent, "- ", out)
		}
	}
	return out
}

// sortedKeys orders a mapping's keys as Python's sorted() does for the
// plain dicts Salt returns: strings by code point, numbers numerically;
// mixed kinds are compared by their str().
func sortedKeys(m *value.Map) []any {
	keys := append([]any(nil), m.Keys()...)
	allStr, allNum := true, true
	for _, k := range keys {
		if _, ok := k.(string); !ok {
			allStr = false
		}
		if !value.IsNumber(k) {
			allNum = false
		}
	}
	switch {
	case allStr:
		sort.SliceStable(keys, func(i, j int) bool { return keys[i].(string) < keys[j].(string) })
	case allNum:
		sort.SliceStable(keys, func(i, j int) bool { return value.ToFloat(keys[i]) < value.ToFloat(keys[j]) })
	default:
		sort.SliceStable(keys, func(i, j int) bool { return value.Str(keys[i]) < value.Str(keys[j]) })
	}
	return keys
}
